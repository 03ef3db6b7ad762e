import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from 'node:fs';
import path from 'node:path';

/**
 * Reading a file inside a checkout without following a symbolic link anywhere
 * below the checkout's root. A pull request can commit a link in place of a
 * journal, a blob or a directory on the way to one (pointing at `.git/config`,
 * which holds the checkout's token, or at `/proc/self/environ`); every component
 * of the path is lstat'ed and the file itself is opened with O_NOFOLLOW, so such
 * a link is reported, by the path of the link, and never read. The root itself
 * is the caller's choice and may be anything.
 */
export type UnderStat =
  | { kind: 'file'; size: number }
  | { kind: 'dir' }
  | { kind: 'missing' }
  /** `at`: the `/`-separated path (relative to the root) of the first link on the way. */
  | { kind: 'symlink'; at: string }
  | { kind: 'other' };

export type UnderRead =
  | { kind: 'file'; bytes: Buffer }
  | { kind: 'missing' }
  | { kind: 'symlink'; at: string }
  | { kind: 'other' }
  /** Larger than the cap: nothing was read. */
  | { kind: 'too_large'; size: number };

/** Separators of a relative path: `/`, and on Windows `\` too (elsewhere a backslash is part of a file name). */
const SEPARATORS = path.sep === '\\' ? /[\\/]+/ : /\/+/;

function components(rel: string): string[] {
  const parts = rel.split(SEPARATORS).filter((p) => p !== '' && p !== '.');
  if (path.isAbsolute(rel) || parts.includes('..'))
    throw new Error(`${JSON.stringify(rel)} is not a path inside the root`);
  return parts;
}

/**
 * Directories (relative paths) already found to be real directories, shared by
 * the reads of one pass over a checkout so each is lstat'ed once.
 */
export type CheckedDirs = Set<string>;

/** What `rel` is under `root`, looking at every component with lstat. */
export function lstatUnder(root: string, rel: string, checked?: CheckedDirs): UnderStat {
  const parts = components(rel);
  let cur = root;
  for (let i = 0; i < parts.length; i++) {
    cur = path.join(cur, parts[i]!);
    const prefix = i < parts.length - 1 ? parts.slice(0, i + 1).join('/') : undefined;
    if (prefix !== undefined && checked?.has(prefix)) continue;
    let st;
    try {
      st = lstatSync(cur);
    } catch {
      return { kind: 'missing' };
    }
    if (st.isSymbolicLink()) return { kind: 'symlink', at: parts.slice(0, i + 1).join('/') };
    if (prefix !== undefined) {
      if (!st.isDirectory()) return { kind: 'missing' };
      checked?.add(prefix);
      continue;
    }
    if (st.isFile()) return { kind: 'file', size: st.size };
    return st.isDirectory() ? { kind: 'dir' } : { kind: 'other' };
  }
  return { kind: 'dir' };
}

// O_NONBLOCK: a FIFO committed in place of a file must not hang the reader (it is refused as not a file).
const FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** The bytes of the regular file `rel` under `root`, never through a link; nothing is read over `maxBytes`. */
export function readUnder(
  root: string,
  rel: string,
  maxBytes = Number.POSITIVE_INFINITY,
  checked?: CheckedDirs,
): UnderRead {
  const st = lstatUnder(root, rel, checked);
  if (st.kind === 'symlink' || st.kind === 'missing') return st;
  if (st.kind !== 'file') return { kind: 'other' };
  let fd: number;
  try {
    fd = openSync(path.join(root, ...components(rel)), FLAGS);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // ELOOP: the file was swapped for a link after the lstat.
    if (code === 'ELOOP') return { kind: 'symlink', at: components(rel).join('/') };
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
    throw e;
  }
  try {
    const f = fstatSync(fd);
    if (!f.isFile()) return { kind: 'other' };
    if (f.size > maxBytes) return { kind: 'too_large', size: f.size };
    const buf = Buffer.allocUnsafe(f.size);
    let off = 0;
    while (off < f.size) {
      const n = readSync(fd, buf, off, f.size - off, off);
      if (n === 0) break;
      off += n;
    }
    return { kind: 'file', bytes: off === f.size ? buf : buf.subarray(0, off) };
  } finally {
    closeSync(fd);
  }
}
