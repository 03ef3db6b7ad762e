import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * What ./exec.ts gitStart hands its shell: the shell only writes git's exit status to a file (a synchronous caller
 * cannot receive a child's exit), so it is given nothing it could read as an instruction. A shell reads its
 * environment before its script: bash as /bin/sh (Fedora, Arch, macOS) takes SHELLOPTS (`errexit` ended it before
 * it wrote the status when git failed, `noexec` ran nothing: either way the hook waited its whole snapshot timeout
 * for nothing) and exported functions (`BASH_FUNC_command%%` ran in git's place, and the snapshot was an empty tree
 * with no warning). It starts with an empty environment, and `env -i` gives git the one gitSync gives it, with git
 * found here on its PATH as gitSync's spawn finds it: the shell looks nothing up.
 */

/** The program that starts git with its environment (`env -i -- NAME=VALUE... git ...`). */
const ENV_PROGRAM = '/usr/bin/env';

let envProgramThere: boolean | undefined;

/**
 * The argv after `/bin/sh -c SCRIPT sh err status` for running `args` of git with `env`, or undefined when it
 * cannot be said exactly (the caller runs gitSync then, which fails or succeeds as it always did): no git on the
 * PATH (gitSync names the ENOENT), no /usr/bin/env, or a git path `env` would take for a variable (an `=` in it).
 */
export function startedArgv(cwd: string, env: NodeJS.ProcessEnv, args: readonly string[]): string[] | undefined {
  envProgramThere ??= executableFile(ENV_PROGRAM);
  const git = programOnPath('git', env.PATH, cwd);
  if (!envProgramThere || git === undefined || git.includes('=')) return undefined;
  // As child_process passes an environment: every defined value, in its order.
  const pairs = Object.entries(env).flatMap(([k, v]) => (v === undefined ? [] : [`${k}=${v}`]));
  return [ENV_PROGRAM, '-i', '--', ...pairs, git, ...args];
}

/**
 * Where a spawn of `name` with `PATH` in `cwd` finds it (libuv's search, as gitSync's spawnSync does it): each
 * entry in order (an empty one is the working directory, a relative one is taken from it), the first regular file
 * this process may execute; without PATH, /usr/bin:/bin. The user's PATH is the user's: a git it names is the git
 * gitSync runs too.
 */
export function programOnPath(name: string, pathVar: string | undefined, cwd: string): string | undefined {
  for (const dir of (pathVar ?? '/usr/bin:/bin').split(':')) {
    const candidate = path.resolve(cwd, dir, name);
    if (executableFile(candidate)) return candidate;
  }
  return undefined;
}

function executableFile(file: string): boolean {
  try {
    // No exception for the PATH entries that hold no git (most of them): an exception per entry cost 0.1 ms a call.
    if (statSync(file, { throwIfNoEntry: false })?.isFile() !== true) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The exit status the shell wrote (a number and a newline), or undefined while it has written none. */
export function readStatus(file: string): number | undefined {
  const text = readFileOr(file);
  return /^[0-9]+\n$/.test(text) ? Number(text.slice(0, -1)) : undefined;
}

export function readFileOr(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
