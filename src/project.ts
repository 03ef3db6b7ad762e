import { lstatSync } from 'node:fs';
import path from 'node:path';
import { InputError } from './errors';

/**
 * Which directory is the project (the one holding `.sdd/`), found the way git
 * finds a repository: from the starting directory upwards, the nearest directory
 * holding a `.sdd/` directory; the search stops at the top of a git work tree
 * (a directory holding `.git`, a directory or a linked worktree's file), which
 * is the project when no `.sdd/` was found below it; outside git, the starting
 * directory itself. So a command run from `proj/sub/deeper` works on `proj`,
 * and never starts a second project in `sub/deeper/.sdd/`. A fork worktree
 * (`<root>/.sdd/worktrees/<id>`, a git work tree with its own `.sdd/`) is its own
 * project. Every command uses this, as does the Claude Code hook.
 */
export interface ProjectRoot {
  /** The project root (absolute). */
  root: string;
  /**
   * How it was found: `sdd` (a directory holding `.sdd/`), `git` (the git work
   * tree's top, no `.sdd/` yet), `start` (outside git, no `.sdd/`: the starting
   * directory), `explicit` (given, e.g. `--root`).
   */
  found: 'sdd' | 'git' | 'start' | 'explicit';
}

/** Whether `dir/name` exists as a real directory (a symlink is not followed). */
function isDir(dir: string, name: string): boolean {
  try {
    return lstatSync(path.join(dir, name)).isDirectory();
  } catch {
    return false;
  }
}

function exists(dir: string, name: string): boolean {
  try {
    lstatSync(path.join(dir, name));
    return true;
  } catch {
    return false;
  }
}

/** The project root for a command started in `start` (see ProjectRoot). Never touches the file system beyond lstat. */
export function findProjectRoot(start: string): ProjectRoot {
  const from = path.resolve(start);
  let dir = from;
  for (;;) {
    if (isDir(dir, '.sdd')) return { root: dir, found: 'sdd' };
    if (exists(dir, '.git')) return { root: dir, found: 'git' };
    const parent = path.dirname(dir);
    if (parent === dir) return { root: from, found: 'start' };
    dir = parent;
  }
}

/**
 * The project an operation works on: `explicit` (e.g. `--root DIR`, relative to
 * `cwd`) when given, else found from `cwd`. With `create` (the operation may
 * create `<root>/.sdd/`), an explicit directory that has no `.sdd/` of its own,
 * is not the top of a git work tree, and lies inside another project is refused
 * (InputError naming that project): `.sdd/` is never created below an existing
 * project root.
 */
export function resolveProjectRoot(options: { cwd: string; explicit?: string; create?: boolean }): ProjectRoot {
  if (options.explicit === undefined) return findProjectRoot(options.cwd);
  const root = path.resolve(options.cwd, options.explicit);
  if (options.create && !isDir(root, '.sdd') && !exists(root, '.git')) {
    const above = findProjectRoot(path.dirname(root));
    if (above.found === 'sdd' && above.root !== root) {
      throw new InputError(
        `${root} is inside the project ${above.root} (it holds .sdd/): refusing to start a second project below it; ` +
          `use --root ${above.root} (or leave --root out), or create ${path.join(root, '.sdd')} first to make it a project of its own`,
      );
    }
  }
  return { root, found: 'explicit' };
}
