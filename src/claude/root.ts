import { findProjectRoot } from '../project';

/**
 * The project root a hook records into, discovered from the payload's `cwd` as
 * every command discovers its project (src/project.ts): the nearest directory
 * holding `.sdd/`, else the git work tree's top, else cwd itself. So a session
 * started in a fork's worktree records into the fork, and a subdirectory of a
 * project records into the project.
 */
export function claudeProjectRoot(cwd: string): string {
  return findProjectRoot(cwd).root;
}
