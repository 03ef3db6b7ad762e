import { lstatSync } from 'node:fs';
import path from 'node:path';

function isDir(p: string): boolean {
  try {
    return lstatSync(p).isDirectory(); // lstat: a symlinked .sdd is never followed
  } catch {
    return false;
  }
}

function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/**
 * The project root a hook records into, discovered from the payload's `cwd`:
 * the nearest directory (cwd itself or an ancestor) that holds a `.sdd`
 * directory or is a git work tree's top (`.git` directory or file); cwd itself
 * when there is neither. So a session started in a fork's worktree records into
 * the fork, and a subdirectory of a project records into the project.
 *
 * This is the one call site of root discovery for the Claude Code integration;
 * it switches to the library's project-root discovery when that exists.
 */
export function claudeProjectRoot(cwd: string): string {
  const start = path.resolve(cwd);
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (isDir(path.join(dir, '.sdd')) || exists(path.join(dir, '.git'))) return dir;
    if (path.dirname(dir) === dir) return start;
  }
}
