import { spawnSync } from 'node:child_process';
import { cliPath } from './paths';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI (dist/cli.js) as a real process. */
export function cli(
  args: string[],
  options: { cwd?: string; input?: string | Buffer; env?: NodeJS.ProcessEnv } = {},
): CliResult {
  const r = spawnSync(process.execPath, [cliPath, ...args], {
    cwd: options.cwd,
    input: options.input,
    env: { ...process.env, STEPCHAIN_AUDIT: 'off', ...options.env },
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** No stack trace in what a user sees. */
export function expectNoStack(r: CliResult): void {
  expect(r.stderr).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/);
  expect(r.stdout).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/);
}
