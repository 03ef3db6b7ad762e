import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CliResult } from './cli';
import { cliPath } from './paths';

/** The user the CLI runs as when the tests run as root (root is refused by no permission): nobody. */
export const OTHER_UID = 65534;

/** Whether the tests run as root, so that a permission can only be refused to another user. */
export const runningAsRoot = process.getuid?.() === 0;

let copy: { dir: string; wrapper: string } | undefined;

/**
 * A copy of the built CLI that another user can read. A clone may sit in a directory only root can enter
 * (`mktemp -d` under root's home), where `nobody` cannot read `dist/cli.js`. The CLI is one self-contained file
 * (its verification worker and the WebAssembly scanner are embedded in it), so the copy runs on its own.
 * Made once per test process, in a fresh directory (0755) removed when it ends.
 */
function readableCopy(): { dir: string; wrapper: string } {
  if (copy !== undefined) return copy;
  const dir = mkdtempSync(path.join(tmpdir(), 'stepchain-cli-copy-'));
  chmodSync(dir, 0o755);
  const cli = path.join(dir, 'cli.js');
  copyFileSync(cliPath, cli);
  chmodSync(cli, 0o644);
  const wrapper = path.join(dir, 'as-other-user.js');
  // The ids are dropped before the CLI is loaded: everything it does, it does as that user.
  writeFileSync(
    wrapper,
    `process.setgroups([]); process.setgid(${OTHER_UID}); process.setuid(${OTHER_UID}); require(${JSON.stringify(cli)});\n`,
  );
  chmodSync(wrapper, 0o644);
  // Made on first use, inside a test: removed when the test process ends.
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  copy = { dir, wrapper };
  return copy;
}

/**
 * Runs the CLI as a user without root's right to read and write anywhere: as `nobody` when the tests
 * run as root, else as the current user. `cwd` and `HOME` must be directories that user may enter.
 */
export function cliAsOtherUser(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {},
): CliResult {
  const argv = runningAsRoot ? [readableCopy().wrapper, ...args] : [cliPath, ...args];
  const s = spawnSync(process.execPath, argv, {
    cwd: options.cwd ?? (runningAsRoot ? readableCopy().dir : undefined),
    env: {
      ...process.env,
      STEPCHAIN_AUDIT: 'off',
      ...(runningAsRoot ? { HOME: readableCopy().dir } : {}),
      ...options.env,
    },
    input: options.input,
    encoding: 'utf8',
  });
  return { code: s.status ?? -1, stdout: s.stdout, stderr: s.stderr };
}
