import { lstatSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { IntegrityError } from '../errors';
import { readRegularFile } from '../util/nofollow';

/**
 * A worktree stepchain created (a fork, `<root>/.sdd/worktrees/<fork_id>`) is
 * used only while its `.git` file still points at the repository that created
 * it. The agent working in a fork can rewrite anything in it, `.git` included:
 * pointed at a repository of its own, that repository's configuration (an
 * fsmonitor, hooks, filters) would be run by the next git stepchain starts
 * there, as the user and outside the agent's sandbox.
 *
 * So before any git process in such a worktree: its `.git` must be a regular
 * file naming `<common dir>/worktrees/<name>` of the repository of the root the
 * fork lives in (asked of git at that root, which the fork cannot change), and
 * that administrative directory's `gitdir` must name this worktree's `.git`
 * back (git's own registration). Otherwise stepchain refuses, naming the file.
 * Once verified, the process gets GIT_DIR and GIT_WORK_TREE set to them, so git
 * never reads the `.git` file itself: swapping it after the check changes
 * nothing, and a repository the agent nests inside the worktree is never found.
 */

/** Where a fork worktree sits: the innermost `<parent root>/.sdd/worktrees/<id>` containing a directory. */
export interface ForkWorktreeLocation {
  worktree: string;
  parentRoot: string;
}

/** The innermost stepchain worktree that (the real path of) `dir` is in, or undefined. */
export function enclosingForkWorktree(dir: string): ForkWorktreeLocation | undefined {
  let real: string;
  try {
    real = realpathSync.native(dir); // one system call (the JS walk lstats every component), on every git command
  } catch {
    real = path.resolve(dir);
  }
  const parts = real.split(path.sep);
  for (let i = parts.length - 3; i >= 1; i--) {
    if (parts[i] === '.sdd' && parts[i + 1] === 'worktrees' && parts[i + 2] !== '') {
      return {
        worktree: parts.slice(0, i + 3).join(path.sep) || path.sep,
        parentRoot: parts.slice(0, i).join(path.sep) || path.sep,
      };
    }
  }
  return undefined;
}

/** How the runner asks git for a root's common dir (injected: ./exec.ts runs it, under the same checks). */
export type CommonDirOf = (root: string) => string | undefined;

const commonDirs = new Map<string, string>();

function real(p: string): string {
  try {
    return realpathSync.native(p);
  } catch {
    return path.resolve(p);
  }
}

const MAX_LINK_FILE_BYTES = 64 * 1024;

/**
 * The path a `.git` file (`gitdir: <path>`) or an administrative `gitdir` file
 * (`<path>`) names, resolved against its directory, as git reads it (trailing
 * newlines and carriage returns dropped); undefined when it is not one.
 */
function readLink(file: string, prefix: string): string | undefined {
  let text: string;
  try {
    // The fork's agent can write `.git` (a gigabyte file would be held whole, a FIFO swapped in after the caller's
    // lstat would hang the read). A path is a few KB at most (PATH_MAX is 4096 on Linux): anything larger, or not a
    // regular file, is "not one", and the caller refuses the worktree naming it.
    const bytes = readRegularFile(file, { follow: true, maxBytes: MAX_LINK_FILE_BYTES });
    if (bytes === undefined) return undefined;
    text = bytes.toString('utf8');
  } catch {
    return undefined;
  }
  if (!text.startsWith(prefix)) return undefined;
  const p = text.slice(prefix.length).replace(/[\r\n]+$/, '');
  return p === '' ? undefined : path.resolve(path.dirname(file), p);
}

/**
 * The GIT_DIR / GIT_WORK_TREE to run git with in `cwd`: empty outside a fork
 * worktree; inside one, its verified administrative directory and top. Throws
 * IntegrityError naming the `.git` file when the link does not hold.
 */
export function forkWorktreeEnv(cwd: string, commonDirOf: CommonDirOf): Record<string, string> {
  const loc = enclosingForkWorktree(cwd);
  if (loc === undefined) return {};
  const dotGit = path.join(loc.worktree, '.git');
  const refuse = (why: string): never => {
    throw new IntegrityError(
      `${dotGit}: ${why}; a worktree stepchain created is used only while its .git points at the repository that created it (refusing to run git in it)`,
    );
  };
  let st;
  try {
    st = lstatSync(dotGit);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      // Not (or no longer) a checked-out worktree: refuse rather than let git find the parent's repository.
      return refuse('is missing');
    }
    return refuse(`cannot be read (${code ?? (e as Error).message})`);
  }
  if (st.isSymbolicLink()) refuse('is a symbolic link');
  if (st.isDirectory()) refuse('is a directory (a repository of its own)');
  if (!st.isFile()) refuse('is not a regular file');
  const admin = readLink(dotGit, 'gitdir: ');
  if (admin === undefined) return refuse('is not a "gitdir: <path>" file');

  const parentKey = real(loc.parentRoot);
  let common = commonDirs.get(parentKey);
  if (common === undefined) {
    const found = commonDirOf(loc.parentRoot);
    if (found === undefined) return refuse(`its parent ${loc.parentRoot} is not in a git work tree`);
    common = real(found);
    commonDirs.set(parentKey, common);
  }
  if (real(path.dirname(admin)) !== real(path.join(common, 'worktrees')))
    refuse(`names ${admin}, not a worktree of ${common}`);
  const back = readLink(path.join(admin, 'gitdir'), '');
  if (back === undefined || real(back) !== real(dotGit))
    refuse(`names ${admin}, which ${common} registered for another worktree`);
  return { GIT_DIR: admin, GIT_WORK_TREE: loc.worktree };
}
