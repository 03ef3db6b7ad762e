import { InputError } from '../errors';
import { gitStream } from './exec';
import { nulRecordStream } from '../util/nul-records';

/**
 * What a commit holds under a directory of its work tree, as git stores it: each entry's mode and object id by path
 * (relative to that directory, `/`-separated), for the repository check to hold a checked-out file to the blob the
 * commit has at its path (src/check/committed.ts). Links (120000) and submodules (160000, a gitlink: the directory is
 * another repository's) are listed with their modes; nothing is read of any content.
 */
export const GITLINK = '160000';

export interface CommittedEntry {
  mode: string;
  oid: string;
}

/**
 * The entries of `commit` under `cwd` (ls-tree from there: paths relative to it) that `wanted` keeps, and every
 * submodule, by path; names not UTF-8 left out. Only what is kept is held (a monorepo lists millions of files).
 */
export async function committedEntries(
  cwd: string,
  commit: string,
  wanted: (rel: string) => boolean,
): Promise<Map<string, CommittedEntry>> {
  const entries = new Map<string, CommittedEntry>();
  const records = nulRecordStream((rec) => {
    const tab = rec.indexOf(9);
    if (tab < 0) return;
    const [mode, , oid] = rec.toString('latin1', 0, tab).split(' ');
    const raw = rec.subarray(tab + 1);
    const rel = raw.toString('utf8');
    // A name that is not UTF-8 is no string the check reads by (the scan reports such a file itself).
    if (mode === undefined || oid === undefined || !Buffer.from(rel, 'utf8').equals(raw)) return;
    if (mode !== GITLINK && !wanted(rel)) return;
    entries.set(rel, { mode, oid });
  });
  try {
    // Streamed, never gathered: the listing of a monorepo's commit is hundreds of megabytes, of which only the
    // entries kept are held.
    await gitStream(cwd, ['ls-tree', '-r', '-z', commit], (chunk) => records.push(chunk));
  } catch (e) {
    throw new InputError(`cannot list the files of commit ${commit}: ${e instanceof Error ? e.message : String(e)}`);
  }
  records.end();
  return entries;
}
