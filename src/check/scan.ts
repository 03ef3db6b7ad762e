import { listBlobsAtCommit } from '../git/commits';
import { matchesGlob, type GlobSet } from './glob';

/** Paths (relative, `/`-separated) of the files in `commit` that match the set, sorted. */
export async function listFilesAtCommit(cwd: string, commit: string, set: GlobSet): Promise<string[]> {
  return (await listBlobsAtCommit(cwd, commit, (p) => matchesGlob(set, p))).map((b) => b.path);
}
