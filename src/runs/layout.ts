import path from 'node:path';
import { InputError } from '../errors';
import { pathKind } from '../util/fs';
import { assertSafeId, isSafeId } from '../util/ids';

export const RUN_JOURNAL_FILE = 'journal.jsonl';

export function runsDir(root: string): string {
  return path.join(root, '.sdd', 'runs');
}

/** `<root>/.sdd/runs/<run_id>/journal.jsonl` (the id is validated first). */
export function runJournalFile(root: string, runId: string): string {
  return path.join(runsDir(root), assertSafeId(runId, 'run id'), RUN_JOURNAL_FILE);
}

/** The project root and run id of a run journal laid out at `<root>/.sdd/runs/<id>/journal.jsonl`, else undefined. */
export function runJournalOwner(file: string): { root: string; id: string } | undefined {
  const parts = path.resolve(file).split(path.sep);
  const n = parts.length;
  if (n < 5 || parts[n - 1] !== RUN_JOURNAL_FILE || parts[n - 3] !== 'runs' || parts[n - 4] !== '.sdd')
    return undefined;
  const id = parts[n - 2]!;
  return isSafeId(id) ? { root: parts.slice(0, n - 4).join(path.sep) || path.sep, id } : undefined;
}

/**
 * `<run|dir|file>` on a command line: a run id is looked up under
 * `<root>/.sdd/runs/<id>/`; anything with a separator or ending in `.jsonl`
 * is a run directory or journal file. The journal must exist.
 */
export function resolveRunJournal(target: string, root: string): string {
  const looksLikePath = target.includes('/') || target.includes(path.sep) || target.endsWith('.jsonl');
  if (!looksLikePath) {
    if (!isSafeId(target)) assertSafeId(target, 'run id');
    const file = runJournalFile(root, target);
    if (pathKind(file) === 'file') return file;
    if (pathKind(target) === undefined)
      throw new InputError(`no run journal for run ${JSON.stringify(target)} (looked for ${file})`);
  }
  const k = pathKind(target);
  if (k === 'dir') {
    const file = path.join(target, RUN_JOURNAL_FILE);
    if (pathKind(file) !== 'file') throw new InputError(`${target}: no ${RUN_JOURNAL_FILE} in this directory`);
    return file;
  }
  if (k === 'file') return target;
  throw new InputError(`${target}: no such run journal file or directory`);
}
