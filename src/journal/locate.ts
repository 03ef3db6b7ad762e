import { lstatSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../errors';
import { lexists, pathKind } from '../util/fs';
import { JOURNAL_FILE, journalDir } from './layout';

/** A journal named on a command line: its file, its directory, and its agent id when known. */
export interface JournalTarget {
  file: string;
  dir: string;
  agentId: string;
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
  const isPath = target.includes('/') || target.includes(path.sep) || target.endsWith('.jsonl');
  if (!isPath) {
    const dir = journalDir(root, target); // throws InputError for an unsafe id
    const file = path.join(dir, JOURNAL_FILE);
    if (pathKind(file) !== 'file') {
      // A fork's journal lives in its own worktree (docs/fork.md): found by its id from the parent project
      // to read it; never a second, empty journal of that id started beside the fork.
      const fork = forkJournalDir(root, target);
      if (fork !== undefined && mustExist) return { file: path.join(fork, JOURNAL_FILE), dir: fork, agentId: target };
      if (fork !== undefined) {
        const worktree = path.join(root, '.sdd', 'worktrees', target);
        throw new InputError(
          `${target} is a fork of this project, whose journal is ${path.join(fork, JOURNAL_FILE)}: record its steps there (--root ${worktree}, or run from inside it)`,
        );
      }
    }
    // Something that is not a regular file (a FIFO, a link) is left to the reader, which names what it is.
    if (mustExist && pathKind(file) !== 'file' && !lexists(file)) {
      throw new InputError(
        `no journal for agent ${JSON.stringify(target)} (looked for ${file}; to name a directory write ./${target})`,
      );
    }
    return { file, dir, agentId: target };
  }
  const k = pathKind(target);
  if (k === 'dir') {
    const file = path.join(target, JOURNAL_FILE);
    if (mustExist && pathKind(file) !== 'file') throw new InputError(`${target}: no ${JOURNAL_FILE} in this directory`);
    return { file, dir: target, agentId: path.basename(path.resolve(target)) };
  }
  if (k === 'file' || (k === undefined && lexists(target))) {
    const dir = path.dirname(target);
    return { file: target, dir, agentId: path.basename(path.resolve(dir)) };
  }
  throw new InputError(
    mustExist
      ? `${target}: no such journal file or directory`
      : `${target}: no such journal directory (a new journal is started by agent id, under --root)`,
  );
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
