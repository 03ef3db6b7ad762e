import path from 'node:path';
import { InputError } from '../errors';
import { pathKind } from '../util/fs';
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
    if (mustExist && pathKind(file) !== 'file') {
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
  if (k === 'file') {
    const dir = path.dirname(target);
    return { file: target, dir, agentId: path.basename(path.resolve(dir)) };
  }
  throw new InputError(
    mustExist
      ? `${target}: no such journal file or directory`
      : `${target}: no such journal directory (a new journal is started by agent id, under --root)`,
  );
}
