import { statSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../errors';
import { isSafeId } from '../util/ids';
import { JOURNAL_FILE, journalDir } from './layout';

/** A journal named on a command line: its file, its directory, and its agent id when known. */
export interface JournalTarget {
  file: string;
  dir: string;
  agentId: string;
}

function kindOf(p: string): 'file' | 'dir' | undefined {
  try {
    const st = statSync(p);
    return st.isDirectory() ? 'dir' : st.isFile() ? 'file' : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Resolves `<agent|dir|file>`: an agent id is looked up under
 * `<root>/.sdd/runtime/journal/<id>/`; anything with a path separator, or that
 * exists as a path while no such agent exists, is a journal directory or file.
 * With `mustExist` a missing journal is an input error (exit 2).
 */
export function resolveJournal(target: string, root: string, mustExist = true): JournalTarget {
  const looksLikePath = target.includes('/') || target.includes(path.sep) || target.endsWith('.jsonl');
  if (!looksLikePath && isSafeId(target)) {
    const dir = journalDir(root, target);
    if (kindOf(dir) === 'dir' || kindOf(target) === undefined) {
      const file = path.join(dir, JOURNAL_FILE);
      if (mustExist && kindOf(file) !== 'file') throw new InputError(`no journal for agent ${JSON.stringify(target)} (looked for ${file})`);
      return { file, dir, agentId: target };
    }
  }
  const k = kindOf(target);
  if (k === 'dir') {
    const file = path.join(target, JOURNAL_FILE);
    if (mustExist && kindOf(file) !== 'file') throw new InputError(`${target}: no ${JOURNAL_FILE} in this directory`);
    return { file, dir: target, agentId: path.basename(path.resolve(target)) };
  }
  if (k === 'file') {
    const dir = path.dirname(target);
    return { file: target, dir, agentId: path.basename(path.resolve(dir)) };
  }
  if (!looksLikePath && !isSafeId(target)) {
    throw new InputError(`unsafe agent id ${JSON.stringify(target)}: ids are 1-128 characters of A-Z a-z 0-9 _ . - and never "." or ".."`);
  }
  throw new InputError(`${target}: no such journal file or directory`);
}
