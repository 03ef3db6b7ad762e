import { accessSync, constants, lstatSync, statSync } from 'node:fs';
import path from 'node:path';
import { InputError, isOsError, osCause } from '../errors';
import { startsAsArchive } from '../util/archive-head';
import { lexists, pathKind } from '../util/fs';
import { projectRootOf } from './journal';
import { JOURNAL_FILE, journalDir } from './layout';

/** A journal named on a command line: its file, its directory, and its agent id when known. */
export interface JournalTarget {
  file: string;
  dir: string;
  agentId: string;
  /**
   * The project the journal belongs to: `<root>` of `<root>/.sdd/runtime/journal/<id>/`, else the project the
   * command runs in. What rides along with the journal (audit events, snapshots, blobs) goes there, not to the
   * current directory's project when the journal was named by a path into another one.
   */
  root: string;
  /** Whether the journal is laid out in a project (`<root>/.sdd/runtime/journal/<id>/`), blobs in its CAS. */
  laidOut: boolean;
}

/**
 * Resolves `<agent|dir|file>`. A name without a path separator that does not end
 * in `.jsonl` is an agent id, validated before it becomes a path and looked up
 * under `<root>/.sdd/runtime/journal/<id>/` (so `..` is an unsafe id, never the
 * parent directory; write `./name` for a directory in the current one). Anything
 * else is an existing journal directory or file. With `mustExist` a missing
 * journal file is an input error (exit 2); without it, an agent's journal may be
 * new, but a directory named by path must exist (no directories are made from
 * a path like `../x`).
 */
export function resolveJournal(target: string, root: string, mustExist = true): JournalTarget {
  const found = (file: string, dir: string, agentId: string): JournalTarget => {
    const projectRoot = projectRootOf(dir);
    return { file, dir, agentId, root: projectRoot ?? root, laidOut: projectRoot !== undefined };
  };
  const isPath = target.includes('/') || target.includes(path.sep) || target.endsWith('.jsonl');
  if (!isPath) {
    const dir = journalDir(root, target); // throws InputError for an unsafe id
    const file = path.join(dir, JOURNAL_FILE);
    if (pathKind(file) !== 'file') {
      // A fork's journal lives in its own worktree (docs/fork.md): found by its id from the parent project
      // to read it; never a second, empty journal of that id started beside the fork.
      const fork = forkJournalDir(root, target);
      if (fork !== undefined && mustExist) return found(path.join(fork, JOURNAL_FILE), fork, target);
      if (fork !== undefined) {
        const worktree = path.join(root, '.sdd', 'worktrees', target);
        throw new InputError(
          `${target} is a fork of this project, whose journal is ${path.join(fork, JOURNAL_FILE)}: record its steps there (--root ${worktree}, or run from inside it)`,
        );
      }
    }
    if (mustExist) {
      const why = unusable(file);
      if (why !== undefined) throw new InputError(`${file}: ${why}`);
      // A link (dangling or not) is left to the reader, which names it and never follows it.
      if (pathKind(file) !== 'file' && !lexists(file))
        throw new InputError(
          `no journal for agent ${JSON.stringify(target)} (looked for ${file}; to name a file or directory write ./${target})`,
        );
    }
    return found(file, dir, target);
  }
  const k = pathKind(target);
  if (k === 'dir') {
    const file = path.join(target, JOURNAL_FILE);
    if (mustExist) {
      const why = unusable(file);
      if (why !== undefined) throw new InputError(`${file}: ${why}`);
      if (pathKind(file) !== 'file') throw new InputError(`${target}: no ${JOURNAL_FILE} in this directory`);
    }
    return found(file, target, path.basename(path.resolve(target)));
  }
  if (k === 'file' || (k === undefined && lexists(target))) {
    const why = mustExist ? unusable(target) : undefined;
    if (why !== undefined) throw new InputError(`${target}: ${why}`);
    // A file named by path that is an archive is a receipt handed to a journal's command, never a journal whose every
    // line is a fault (`verify` said FAIL, exit 1, of a receipt that holds). A journal's own file (000000.jsonl)
    // replaced by an archive is still read, and does not verify.
    if (path.basename(target) !== JOURNAL_FILE && startsAsArchive(target))
      throw new InputError(
        `${target}: is a tar or gzip archive (a receipt?), not a journal: \`stepchain receipt verify ${target}\` verifies a receipt; replay, show, diff and report read one`,
      );
    const dir = path.dirname(target);
    return found(target, dir, path.basename(path.resolve(dir)));
  }
  const why = unusable(target);
  if (why !== undefined) throw new InputError(`${target}: ${why}`);
  throw new InputError(
    mustExist
      ? `${target}: no such journal file or directory`
      : `${target}: no such journal directory (a new journal is started by agent id, under --root)`,
  );
}

/**
 * Why `p` cannot be read as a journal although something may be there: a directory on
 * the way or the file itself that this user may not read (EACCES), a device, a FIFO, a
 * socket (never opened: a FIFO would block). Undefined when it does not exist at all
 * (the caller says "no such journal") or when it is a readable file or directory.
 */
function unusable(p: string): string | undefined {
  let st;
  try {
    st = statSync(p);
  } catch (e) {
    if (!isOsError(e) || e.code === 'ENOENT') return undefined;
    return `cannot read the journal: ${osCause(e)}`;
  }
  if (st.isDirectory()) return undefined;
  if (!st.isFile()) {
    const what = st.isFIFO()
      ? 'a FIFO'
      : st.isCharacterDevice()
        ? 'a character device'
        : st.isBlockDevice()
          ? 'a block device'
          : st.isSocket()
            ? 'a socket'
            : 'not a regular file';
    return `not a journal: ${what === 'not a regular file' ? what : `${what}, not a regular file`}`;
  }
  try {
    accessSync(p, constants.R_OK);
  } catch (e) {
    if (isOsError(e)) return `cannot read the journal: ${osCause(e)}`;
  }
  return undefined;
}

/**
 * The journal directory of the fork `id` of the project `root`, in the fork's worktree
 * (`<root>/.sdd/worktrees/<id>/.sdd/runtime/journal/<id>/`), when its journal file is there
 * and nothing on the way is a symbolic link (a checkout's paths are never followed through one).
 */
function forkJournalDir(root: string, id: string): string | undefined {
  const worktree = path.join(root, '.sdd', 'worktrees', id);
  const dir = journalDir(worktree, id);
  const steps = [path.join(root, '.sdd'), path.join(root, '.sdd', 'worktrees'), worktree];
  for (let p = dir; p.length > worktree.length; p = path.dirname(p)) steps.splice(3, 0, p);
  try {
    for (const p of steps) if (!lstatSync(p).isDirectory()) return undefined;
    if (!lstatSync(path.join(dir, JOURNAL_FILE)).isFile()) return undefined;
  } catch {
    return undefined;
  }
  return dir;
}
