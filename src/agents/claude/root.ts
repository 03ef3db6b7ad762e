import { statSync } from 'node:fs';
import { InputError } from '../../errors';
import { findProjectRoot } from '../../project';

/** Whether `dir` is an existing directory (through links). */
function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The project root a hook records into, discovered from the payload's `cwd` as
 * every command discovers its project (src/project.ts): the nearest directory
 * holding `.sdd/`, else the git work tree's top, else cwd itself. So a session
 * started in a fork's worktree records into the fork, and a subdirectory of a
 * project records into the project. A `cwd` that is not an existing directory is
 * refused: a payload never makes directories (a project) where there were none.
 */
export function claudeProjectRoot(cwd: string): string {
  if (!isDirectory(cwd))
    throw new InputError(`cwd ${JSON.stringify(cwd)} is not an existing directory; nothing recorded`);
  return findProjectRoot(cwd).root;
}

/**
 * A root given to a hook (`hook <agent> --root DIR`, `HookOptions.root`), refused unless it is an existing directory:
 * by the same rule as a payload's cwd, a hook never makes a project (and its parents) where there was none, e.g. at
 * a mistyped path in an agent's settings. Inside an existing root the hook makes `.sdd/` as ever.
 */
export function givenHookRoot(root: string): string {
  if (!isDirectory(root))
    throw new InputError(`root ${JSON.stringify(root)} is not an existing directory; nothing recorded`);
  return root;
}
