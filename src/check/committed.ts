import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import path from 'node:path';
import { lstatUnder, READ_FLAGS } from '../util/nofollow';
import { committedEntries, GITLINK } from '../git';

/**
 * The check judges what the commit holds, not what the work tree shows. The two differ where git converts a blob
 * on checkout (`.gitattributes`: `eol`/`text`, `working-tree-encoding`, `ident`, a filter such as Git LFS's smudge)
 * and where a path lies inside a submodule (the commit holds only a commit id of another repository: with
 * `submodules: true` the checkout shows that repository's files, which a pull request chooses and can rewrite at
 * will). A journal moved into a submodule passed as appended, and from then on was no history of this repository
 * at all: its next rewrite passed as a new file. So with a HEAD commit, every file the check reads must be the blob
 * HEAD has at its path, byte for byte (its git blob id), and none may lie inside a submodule; a file HEAD does not
 * hold at all (untracked: the workflow's own, such as receipts downloaded from an artifact) is read as it is.
 */

/**
 * Why a checked-out file is not what the commit holds at its path (one clause), or undefined when it is. Its content
 * is given as bytes, or as a function giving its git blob id (for ids of `hexLength` digits) without holding it.
 */
export type CommittedTest = (rel: string, content: Buffer | ((hexLength: number) => string)) => string | undefined;

/** A blob's git object id: SHA-1 in a SHA-1 repository, SHA-256 in a SHA-256 one (by the length of its ids). */
export function gitBlobId(bytes: Buffer, hexLength: number): string {
  return createHash(hexLength === 64 ? 'sha256' : 'sha1')
    .update(`blob ${bytes.length}\0`)
    .update(bytes)
    .digest('hex');
}

/**
 * The git blob id of the regular file at `rel` under `root` (opened without following a link anywhere below the
 * root), read a block at a time: a journal a receipt is streamed from is never held whole. Undefined when it is no
 * regular file to read.
 */
export function fileBlobId(root: string, rel: string, hexLength: number): string | undefined {
  if (lstatUnder(root, rel).kind !== 'file') return undefined;
  let fd: number;
  try {
    fd = openSync(path.join(root, rel), READ_FLAGS);
  } catch {
    return undefined; // swapped for a link, or gone, since the lstat
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return undefined;
    const size = st.size;
    const hash = createHash(hexLength === 64 ? 'sha256' : 'sha1').update(`blob ${size}\0`);
    const block = Buffer.allocUnsafe(1 << 20);
    let total = 0;
    for (let n; (n = readSync(fd, block, 0, block.length, null)) > 0; total += n) hash.update(block.subarray(0, n));
    // A file that grew or shrank while read is not the blob of the size its header said.
    return total === size ? hash.digest('hex') : undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * The test for the checkout at `root` against `commit`. `covers` says which paths the check may read (only their
 * entries are held); a read of any other path is a fault of stepchain's own, thrown. `crlfNamed` says which paths'
 * checkers name CRLF line endings themselves (journals, run journals: `crlf_line_endings`, with its remedy), whose
 * checkout may differ from the blob by that conversion alone.
 */
export async function committedTest(
  root: string,
  commit: string,
  covers: (rel: string) => boolean,
  crlfNamed: (rel: string) => boolean,
): Promise<CommittedTest> {
  const entries = await committedEntries(root, commit, covers);
  const submodules = new Set([...entries].filter(([, e]) => e.mode === GITLINK).map(([p]) => p));
  const at = commit.slice(0, 12);
  return (rel, content) => {
    if (!covers(rel)) throw new Error(`stepchain read ${rel}, which it did not list from the commit ${at}`);
    const parts = rel.split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      if (submodules.has(dir))
        return (
          `lies inside the submodule ${dir}, another repository's files that the commit ${at} names only by a ` +
          'commit id: no history of this repository (the check judges what the commit holds)'
        );
    }
    const e = entries.get(rel);
    if (e === undefined) return undefined;
    const id = typeof content === 'function' ? content(e.oid.length) : gitBlobId(content, e.oid.length);
    if (id === e.oid) return undefined;
    if (typeof content !== 'function' && crlfNamed(rel) && content.includes('\r\n')) {
      if (gitBlobId(withoutCr(content), e.oid.length) === e.oid) return undefined;
    }
    return (
      `the checked-out bytes are not the blob the commit ${at} holds at this path (${e.oid.slice(0, 12)}): ` +
      'git converted them on checkout (a .gitattributes eol, working-tree-encoding or ident, a filter such as ' +
      'Git LFS) or they changed since; the check judges what the commit holds'
    );
  };
}

/** `bytes` with the CR of every CRLF left out (what git's LF-to-CRLF conversion on checkout undoes to). */
function withoutCr(bytes: Buffer): Buffer {
  const out = Buffer.allocUnsafe(bytes.length);
  let n = 0;
  let from = 0;
  for (let i = bytes.indexOf('\r\n'); i >= 0; i = bytes.indexOf('\r\n', i + 2)) {
    n += bytes.copy(out, n, from, i);
    from = i + 1;
  }
  n += bytes.copy(out, n, from);
  return out.subarray(0, n);
}
