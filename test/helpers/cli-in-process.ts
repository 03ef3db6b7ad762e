import { runCaptured } from '../../src/cli/in-process';
import { runCli } from '../../src/cli/main';
import type { CliResult } from './cli';

/**
 * `stepchain <args>` through runCli in this process (the code dist/cli.js bundles), with the environment a process of
 * `cli` would have: for tests about a command's logic, where a Node start per call was most of the file's time. Keep
 * `cli` (a real process) for what is about the process: exit on signals, the streams, the launcher, hooks an agent
 * starts.
 */
export async function cliInProcess(
  args: string[],
  options: { cwd?: string; input?: string | Buffer; env?: NodeJS.ProcessEnv } = {},
): Promise<CliResult> {
  const stdin = options.input === undefined ? undefined : Buffer.from(options.input);
  return runCaptured(runCli, args, {
    cwd: options.cwd ?? process.cwd(),
    env: { ...process.env, STEPCHAIN_AUDIT: 'off', ...options.env },
    ...(stdin === undefined ? {} : { stdin }),
  });
}
