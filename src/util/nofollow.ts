import { constants as bufferConstants } from 'node:buffer';
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  statSync,
  type Stats,
} from 'node:fs';
import { mkdirs } from './mkdirs';
import path from 'node:path';
import { MAX_LINE_BYTES } from '../canonical/limits';
import { InputError, isOsError, osError } from '../errors';
import { kindOf, nonDirectoryAbove } from './file-kind';
import { PRIVATE_DIR_MODE } from './modes';

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
      // Missing is the common answer (a blob not in the CAS, of 100,000 a report lists): no exception built for it
      // (~10 us each here, ~2.7 us without).
      st = lstatSync(cur, { throwIfNoEntry: false });
    } catch {
      return { kind: 'missing' };
    }
    if (st === undefined) return { kind: 'missing' };
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

/**
 * The most bytes one readSync is asked for: its length is a signed 32-bit integer (2^31 and more is refused with an
 * internal error, "length is out of range"), and a smaller piece costs nothing (one call per GiB).
 */
export const READ_PIECE_BYTES = 1 << 30;

/**
 * The first `size` bytes of `fd`, read from offset 0 in pieces of at most `piece` bytes (READ_PIECE_BYTES: a
 * parameter only so that tests can make it small); fewer when the file ends sooner (it shrank since its fstat).
 * `memory` gives the buffer (a journal about to be walked by threads is read into shared memory).
 */
export function readPieces(
  fd: number,
  size: number,
  piece = READ_PIECE_BYTES,
  memory: (size: number) => Buffer = Buffer.allocUnsafe,
): Buffer {
  const buf = memory(size);
  let off = 0;
  while (off < size) {
    const n = readSync(fd, buf, off, Math.min(piece, size - off), off);
    if (n === 0) break;
    off += n;
  }
  return off === size ? buf : buf.subarray(0, off);
}

/**
 * The bytes of the regular file `rel` under `root`, never through a link; nothing is read over `maxBytes`
 * (DEFAULT_MAX_READ_BYTES unless given) nor over the largest Buffer Node.js makes: either is `too_large`.
 * `memory` gives the buffer the bytes are read into (see readPieces).
 */
export function readUnder(
  root: string,
  rel: string,
  maxBytes = DEFAULT_MAX_READ_BYTES,
  checked?: CheckedDirs,
  memory?: (size: number) => Buffer,
): UnderRead {
  const st = lstatUnder(root, rel, checked);
  if (st.kind === 'symlink' || st.kind === 'missing') return st;
  if (st.kind !== 'file') return { kind: 'other' };
  let fd: number;
  try {
    fd = openSync(path.join(root, ...components(rel)), READ_FLAGS);
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
    if (f.size > Math.min(maxBytes, bufferConstants.MAX_LENGTH)) return { kind: 'too_large', size: f.size };
    return { kind: 'file', bytes: readPieces(fd, f.size, READ_PIECE_BYTES, memory) };
  } finally {
    closeSync(fd);
  }
}

// ---------------------------------------------------------------------------
// The project's store (`.sdd/`) and every file stepchain reads.
//
// Anything under `.sdd/` can be replaced by whoever can write the project (an
// agent, a pull request): a directory by a link to one of the user's (where an
// append would then chmod and write), a blob by a FIFO (a reader hangs) or by a
// link to /dev/zero (a reader never ends). So no directory from `.sdd` itself
// down is ever followed through a link, and every reader opens without following
// a link and without blocking, reads only a regular file, and no more than its
// size. A refusal is an InputError (exit 2) naming the path: the path cannot be
// used, whatever it holds (docs/journal.md, "What stepchain never follows").
// Checks and opens are by path, so a swap between the two is still possible;
// O_NOFOLLOW closes it for the file itself.
// ---------------------------------------------------------------------------

/** Flags of every read: never through a link, never blocking on a FIFO (refused as not a regular file after). */
export const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
/** The same, following a link in the file's own place (a path the operator typed). */
export const FOLLOW_READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

const STORE = '.sdd';

/** A link met on the way: refused, naming it. */
function linkRefused(p: string): InputError {
  return new InputError(`${p}: is a symbolic link; refusing to follow it (nothing under .sdd/ is followed)`);
}

/**
 * The error for a directory the caller names (`--dir`) that is something else: what it is, in words (a readdir
 * below it says only ENOTDIR, naming a path that cannot exist); undefined when it is a directory or is missing.
 */
export function notADirectory(dir: string): InputError | undefined {
  let st: Stats | undefined;
  try {
    st = lstatSync(dir, { throwIfNoEntry: false });
  } catch (e) {
    // A parent that is not a directory (`--dir FILE/sub`): name that parent, not a path that cannot exist.
    if ((e as NodeJS.ErrnoException).code !== 'ENOTDIR') return undefined;
    const above = nonDirectoryAbove(dir);
    return above === undefined ? undefined : new InputError(`${above.path}: is ${above.kind}, not a directory`);
  }
  return st === undefined || st.isDirectory() ? undefined : new InputError(`${dir}: is ${kindOf(st)}, not a directory`);
}

/** `abs` split at its first `.sdd` component: the directory holding it, and the components from `.sdd` down. */
function storeParts(abs: string): { above: string; below: string[] } | undefined {
  const parts = abs.split(path.sep);
  const at = parts.indexOf(STORE);
  if (at < 0) return undefined;
  return { above: parts.slice(0, at).join(path.sep) || path.sep, below: parts.slice(at) };
}

/** What the directories of a path from its first `.sdd` component down are (see `refuseLinkedStoreDirs`). */
type StoreDirs = 'outside' | 'present' | 'missing';

function lookAtStoreDirs(dir: string): StoreDirs {
  const parts = storeParts(path.resolve(dir));
  if (parts === undefined) return 'outside';
  let cur = parts.above;
  for (const name of parts.below) {
    cur = path.join(cur, name);
    let st: Stats | undefined;
    try {
      // Missing is the common answer (a blob not in the CAS, of 200,000 a receipt lists): no exception built for it.
      st = lstatSync(cur, { throwIfNoEntry: false });
    } catch (e) {
      if (isOsError(e) && (e.code === 'ENOENT' || e.code === 'ENOTDIR')) return 'missing';
      if (isOsError(e)) throw osError(e, cur, 'cannot look at');
      throw e;
    }
    if (st === undefined) return 'missing';
    if (st.isSymbolicLink()) throw linkRefused(cur);
    if (!st.isDirectory()) throw new InputError(`${cur}: is ${kindOf(st)}, not a directory`);
  }
  return 'present';
}

/**
 * Refuses `dir` when one of its directories from the first `.sdd` component
 * down (`.sdd` included) is a symbolic link or not a directory. A missing one
 * ends the look (nothing below it exists). A path with no `.sdd` component is
 * the caller's own choice and is not looked at. Returns whether every directory
 * down to `dir` exists (and was looked at).
 */
export function refuseLinkedStoreDirs(dir: string): boolean {
  return lookAtStoreDirs(dir) === 'present';
}

/**
 * Whether `dir` is under a `.sdd` directory and one of its directories from there down is missing (so nothing below
 * it exists); a link or a non-directory on the way is refused as `refuseLinkedStoreDirs` refuses it. A path outside
 * `.sdd` is never missing by this look (the caller's own choice: its files are looked at one by one).
 */
export function storeDirMissing(dir: string): boolean {
  return lookAtStoreDirs(dir) === 'missing';
}

/**
 * Creates the directories of `dir` below `from` (which must exist) one at a
 * time, each looked at with lstat once it exists: a link (or anything but a
 * directory) in the way is refused before anything is created through it.
 */
export function makeDirsBelow(from: string, dir: string, mode?: number): void {
  const rel = path.relative(from, dir);
  if (rel === '') return;
  let cur = from;
  for (const name of rel.split(path.sep)) {
    cur = path.join(cur, name);
    let st = lstatOrUndefined(cur);
    if (st === undefined) {
      try {
        mkdirSync(cur, mode);
      } catch (e) {
        if (!isOsError(e)) throw e;
        if (e.code !== 'EEXIST') throw osError(e, cur, 'cannot create directory');
      }
      st = lstatSync(cur);
    }
    if (st.isSymbolicLink()) throw linkRefused(cur);
    if (!st.isDirectory()) throw new InputError(`${cur}: is ${kindOf(st)}, not a directory`);
  }
}

function lstatOrUndefined(p: string): Stats | undefined {
  try {
    return lstatSync(p);
  } catch (e) {
    if (isOsError(e) && e.code === 'ENOENT') return undefined;
    if (isOsError(e)) throw osError(e, p, 'cannot look at');
    throw e;
  }
}

/**
 * `mkdir -p` for a directory under `.sdd/`: what exists above `.sdd` is
 * created as usual, the rest one directory at a time, never through a link.
 * Returns false when `dir` is not under a `.sdd/` (nothing was done). What it creates is owner-only unless `mode`
 * says otherwise (src/util/modes.ts); a directory that exists keeps its mode.
 */
export function makeStoreDirs(dir: string, mode: number = PRIVATE_DIR_MODE): boolean {
  const abs = path.resolve(dir);
  const parts = storeParts(abs);
  if (parts === undefined) return false;
  // The common case: everything is there already (a few lstat calls, no mkdir).
  if (refuseLinkedStoreDirs(abs)) return true;
  try {
    mkdirs(parts.above);
  } catch (e) {
    if (isOsError(e)) throw osError(e, parts.above, 'cannot create directory');
    throw e;
  }
  makeDirsBelow(parts.above, abs, mode);
  return true;
}

/**
 * Refuses `file` when something other than a regular file is in its place (a
 * link, a FIFO, a directory), naming it; a missing file passes. One lstat: for
 * writers that look before they open (the open itself is O_NOFOLLOW too).
 */
export function refuseNonRegular(file: string, action = 'cannot use'): void {
  let st: Stats;
  try {
    st = lstatSync(file);
  } catch (e) {
    if (isOsError(e) && (e.code === 'ENOENT' || e.code === 'ENOTDIR')) return;
    if (isOsError(e)) throw osError(e, file, 'cannot look at');
    throw e;
  }
  if (st.isSymbolicLink()) throw new InputError(`${file}: ${action}: it is a symbolic link; refusing to follow it`);
  if (!st.isFile()) throw new InputError(`${file}: ${action}: it is ${kindOf(st)}, not a regular file`);
}

/** An open regular file: its descriptor and its size when opened. */
export interface OpenedFile {
  fd: number;
  size: number;
}

export interface OpenOptions {
  /**
   * Follow a link in the file's own place: only for a path the operator typed
   * on the command line (their own file, maybe a link to it). Never for what a
   * project, an agent or a pull request can put in place. Directories under
   * `.sdd/` are never followed either way.
   */
  follow?: boolean;
}

/**
 * Opens a regular file to read: never through a link (see OpenOptions.follow),
 * never blocking (a FIFO opens at once), and refused unless fstat finds a
 * regular file. Undefined when there is no such file; any other refusal is an
 * InputError naming the path.
 */
export function openRegularFile(file: string, options: OpenOptions = {}): OpenedFile | undefined {
  // A directory on the way is missing: so is the file (as open would say, with an exception built for it).
  if (lookAtStoreDirs(path.dirname(path.resolve(file))) === 'missing') return undefined;
  let fd: number;
  try {
    fd = openSync(file, options.follow === true ? FOLLOW_READ_FLAGS : READ_FLAGS);
  } catch (e) {
    if (!isOsError(e)) throw e;
    if (e.code === 'ENOENT' || e.code === 'ENOTDIR') return undefined;
    if (e.code === 'ELOOP') throw new InputError(`${file}: cannot read: it is a symbolic link; refusing to follow it`);
    if (e.code === 'ENXIO') throw new InputError(`${file}: cannot read: it is a socket, not a regular file`);
    throw osError(e, file, 'cannot read');
  }
  let st: Stats;
  try {
    st = fstatSync(fd);
  } catch (e) {
    closeSync(fd);
    if (isOsError(e)) throw osError(e, file, 'cannot read');
    throw e;
  }
  let sizeless: boolean;
  try {
    sizeless = st.isFile() && sizeIsNotLength(fd, st);
  } catch (e) {
    closeSync(fd);
    if (isOsError(e)) throw osError(e, file, 'cannot read');
    throw e;
  }
  if (!st.isFile() || sizeless) {
    closeSync(fd);
    throw new InputError(`${file}: cannot read: it is ${sizeless ? SIZELESS : kindOf(st)}, not a regular file`);
  }
  return { fd, size: st.size };
}

/** What a file whose size is not its length is, in words (see sizeIsNotLength). */
export const SIZELESS = 'a file whose size is not its length (a /proc or /sys file)';

/**
 * Whether the regular file open at `fd` (fstat'ed as `st`) holds bytes its size does not count: a /proc or /sys
 * file, which the kernel writes as it is read and stats as 0 bytes. Every reader here reads a file up to its size
 * when opened (so that one appended to as it is read ends), and read such a file as empty: `verify
 * /proc/self/status` said OK, 0 steps. A file of 0 bytes is probed for one byte; one that has a byte where fstat,
 * asked again after the read, still says 0 is such a file (a real file written meanwhile has grown by then).
 */
export function sizeIsNotLength(fd: number, st: Stats): boolean {
  if (st.size !== 0) return false;
  if (readSync(fd, Buffer.allocUnsafe(1), 0, 1, 0) === 0) return false;
  return fstatSync(fd).size === 0;
}

export interface ReadOptions extends OpenOptions {
  /** The size the file must have (a blob's, a checkpoint's): any other is refused, saying both. */
  expectSize?: number;
  /** Refused when larger (nothing is read). Default: DEFAULT_MAX_READ_BYTES. */
  maxBytes?: number;
}

/**
 * The most bytes readRegularFile holds when its caller names no bound: MAX_LINE_BYTES, the longest string Node.js
 * holds. Whatever is read whole becomes text or is parsed as lines (a journal, a run journal, a transcript, a
 * state file) or is a blob the CAS hands back whole, so a larger file could only end in an internal error (or hold
 * gigabytes first): it is refused, naming the file, its size and this bound. Journals larger than this are walked
 * in pieces (src/journal/file-chunk.ts, verify's parallel plan), not read whole. A caller reading something small
 * (a state file, a ref, a name) passes a bound of its own.
 */
export const DEFAULT_MAX_READ_BYTES = MAX_LINE_BYTES;

/**
 * The bytes of a regular file (see openRegularFile), never more than its size
 * when opened; undefined when there is no such file. This is the one reader of
 * files a project, an agent or the command line hands stepchain.
 */
export function readRegularFile(file: string, options: ReadOptions = {}): Buffer | undefined {
  const opened = openRegularFile(file, options);
  if (opened === undefined) return undefined;
  const { fd, size } = opened;
  try {
    if (options.expectSize !== undefined && size !== options.expectSize)
      throw new InputError(`${file}: cannot read: it holds ${size} bytes where ${options.expectSize} were expected`);
    // A caller's bound above what a Buffer holds (4 GiB on Node.js 20) is that: refused the same way, never a RangeError.
    const max = Math.min(options.maxBytes ?? DEFAULT_MAX_READ_BYTES, bufferConstants.MAX_LENGTH);
    if (size > max) throw new InputError(`${file}: cannot read: it holds ${size} bytes, more than the ${max} allowed`);
    return readPieces(fd, size);
  } catch (e) {
    if (isOsError(e)) throw osError(e, file, 'cannot read');
    throw e;
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether a regular file is at `file`, by openRegularFile's rule (never through a link, a FIFO or a device refused
 * as an InputError naming it) and without reading a byte of it: for a caller that only asks whether it is there.
 */
export function regularFileExists(file: string, options: OpenOptions = {}): boolean {
  const opened = openRegularFile(file, options);
  if (opened === undefined) return false;
  closeSync(opened.fd);
  return true;
}

/** readRegularFile, with a missing file an InputError (`no such file`) too. */
export function readExistingFile(file: string, options: ReadOptions = {}): Buffer {
  const b = readRegularFile(file, options);
  if (b === undefined) throw new InputError(`${file}: no such file`);
  return b;
}

/**
 * Refuses to put a file where a directory, a device, a FIFO or a socket is (the one atomic writer, stageFile, asks
 * first; the CLI asks before its --force question): the rename would replace the node itself, so
 * `export -o /dev/null --force` run as root replaced the system's /dev/null with a receipt. A link to one of those
 * is refused too: `/dev/stdout`, `/dev/stderr` and `/dev/fd/N` are links, and replacing one (as root) is the same
 * harm. A regular file, a link to one, or a dangling link in the name's place is replaced (never written through),
 * as asked. A directory reached through a link is one too.
 */
export function refuseSpecialInPlace(file: string): void {
  let st: Stats | undefined;
  let link = false;
  try {
    st = lstatSync(file, { throwIfNoEntry: false });
    if (st?.isSymbolicLink()) {
      link = true;
      st = statSync(file, { throwIfNoEntry: false }) ?? st; // a dangling link stays a link (replaced)
    }
  } catch {
    return; // a parent that is not a directory, a link loop: the write fails naming it
  }
  if (st === undefined || st.isFile() || st.isSymbolicLink()) return;
  if (st.isDirectory()) throw new InputError(`${file}: is a directory`);
  const what = link ? `a symbolic link to ${kindOf(st)}` : kindOf(st);
  throw new InputError(`${file}: is ${what}, not a regular file; refusing to replace it`);
}
