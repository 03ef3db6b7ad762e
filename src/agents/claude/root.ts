import { statSync } from 'node:fs';
import { InputError } from '../../errors';
import { findProjectRoot } from '../../project';

/**
 * The project root a hook records into, discovered from the payload's `cwd` as
 * every command discovers its project (src/project.ts): the nearest directory
 * holding `.sdd/`, else the git work tree's top, else cwd itself. So a session
 * started in a fork's worktree records into the fork, and a subdirectory of a
 * project records into the project. A `cwd` that is not an existing directory is
 * refused: a payload never makes directories (a project) where there were none.
 */
export function claudeProjectRoot(cwd: string): string {
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    /* below */
  }
  if (!isDir) throw new InputError(`cwd ${JSON.stringify(cwd)} is not an existing directory; nothing recorded`);
  return findProjectRoot(cwd).root;
}
