import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
  type BigIntStats,
} from 'node:fs';
import { dirSyncError, fsyncDir } from './dir-sync';
import { mkdirs } from './mkdirs';
import path from 'node:path';
import { InputError, isOsError, osCause, osError } from '../errors';
import { PRIVATE_FILE_MODE, SHARED_FILE_MODE } from './modes';
import { makeDirsBelow, makeStoreDirs, refuseLinkedStoreDirs, refuseSpecialInPlace } from './nofollow';
import { pausePoint } from './pause';
import { hostTag, sameProcessAlive, selfIdentity, selfToken } from './proc';

/**
 * Writes every byte (a single write(2) may be short on some file systems), at
 * `position` when given, else at the file offset (the end, for O_APPEND).
 */
export function writeAll(fd: number, bytes: Uint8Array, position?: number): void {
  let off = 0;
  while (off < bytes.length) {
    off += writeSync(fd, bytes, off, bytes.length - off, position === undefined ? null : position + off);
  }
}

export { dirSyncFailed, dirSyncUnsupported, DIR_SYNC_FLAGS, fsyncDir } from './dir-sync';

/** `length` bytes from `position` of an open file (fewer at end of file). */
export function readRange(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let off = 0;
  while (off < length) {
    const n = readSync(fd, buf, off, length - off, position + off);
    if (n === 0) break;
    off += n;
  }
  return buf.subarray(0, off);
}

/** Whether a path is a directory, a regular file, or neither (missing, or something else). */
export function pathKind(p: string): 'file' | 'dir' | undefined {
  try {
    const st = statSync(p);
    return st.isDirectory() ? 'dir' : st.isFile() ? 'file' : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether writing a file at `b` (a temporary file renamed onto it) would replace the file at `a`: the same name in
 * the same directory however each path reaches it (a link to a directory on the way, `..`, a bind mount), or a name
 * that is already `a`'s file (a hard link, a name that differs only in case on a file system that ignores it).
 * Names are stat'ed as the rename would resolve them; a link at the name itself is the link, as rename replaces it.
 */
export function replacesFile(a: string, b: string): boolean {
  if (path.resolve(a) === path.resolve(b)) return true;
  const id = (p: string, follow: boolean): string | undefined => {
    try {
      const st = follow ? statSync(p, { bigint: true }) : lstatSync(p, { bigint: true });
      return `${st.dev}:${st.ino}`;
    } catch {
      return undefined;
    }
  };
  const file = id(a, false);
  if (file !== undefined && file === id(b, false)) return true;
  if (path.basename(a) !== path.basename(b)) return false;
  const dir = id(path.dirname(a), true);
  return dir !== undefined && dir === id(path.dirname(b), true);
}

/**
 * Removes the file (or link) at `p`; nothing there is no error. What `rmSync(p, { force: true })` does for a file,
 * without it: Node 20's rmSync loads its recursive remover (a module of its own) on every first use, a cost on the
 * hook calls that drop a pending payload or rewrite an index. A directory at `p` is an error, as it is for rmSync.
 */
export function removeFile(p: string): void {
  try {
    unlinkSync(p);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

/** Whether anything (a FIFO, a dangling link too) is at `p`: lstat, never following. */
export function lexists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/**
 * `mkdir -p`, failing with the real cause: Node's recursive mkdir reports
 * ENOENT when a parent cannot be created on a read-only or unwritable file
 * system, so the first missing directory is created on its own to learn why.
 */
export function ensureDir(dir: string, mode?: number): void {
  // Under a project's .sdd/: never through a link (docs/journal.md, "What stepchain never follows").
  if (makeStoreDirs(dir, mode)) return;
  try {
    mkdirs(dir, mode);
    return;
  } catch (e) {
    if (!isOsError(e)) throw e;
    let first = path.resolve(dir);
    while (!existsSync(path.dirname(first)) && path.dirname(first) !== first) first = path.dirname(first);
    try {
      mkdirSync(first);
    } catch (inner) {
      if (isOsError(inner) && inner.code !== 'EEXIST') throw osError(inner, first, 'cannot create directory');
    }
    throw osError(e, dir, 'cannot create directory');
  }
}

/**
 * Creates `dir` and the directories between it and `root`, which must exist:
 * a vanished root (a removed fork's worktree) is never re-created.
 */
export function ensureDirUnder(root: string, dir: string, mode?: number): void {
  const rel = path.relative(root, dir);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return ensureDir(dir, mode);
  refuseLinkedStoreDirs(root);
  makeDirsBelow(root, dir, mode);
}

/**
 * The name of a temporary file for `target`, beside it:
 * `<target>.<pid>-<start ticks>-<host tag>.<random>.tmp`. The writer's pid,
 * start time and host in the name let the next writer recognise, and remove,
 * what a dead process left (see `cleanDeadTemps`).
 */
export function tempPath(target: string): string {
  return `${target}.${selfToken()}.${randomBytes(5).toString('hex')}.tmp`;
}

const TEMP_NAME = /\.([0-9]+)-([0-9]+|x)-([0-9a-f]{8})\.[0-9a-f]+\.tmp$/;
/** Another host's temporary file is only judged by its age: its pid means nothing here. */
const FOREIGN_TEMP_MS = 3600_000;
/** Names earlier releases used: lock staging `<f>.lock.<pid>.<rand>.tmp` and broken locks `<f>.lock.stale-<pid>-<rand>`. */
const LEGACY_NAMES = [/\.lock\.([0-9]+)\.[0-9a-z]+\.tmp$/, /\.lock\.stale-([0-9]+)-[0-9a-z]+$/];

/** `s` as a literal inside a RegExp. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Removes the temporary files of dead processes from `dir` (not recursive):
 * names made by `tempPath` whose process (pid and start time) is gone (another
 * host's only once an hour old), and
 * the older pid-only names (and `extra` patterns whose first group is a pid)
 * whose pid is gone or was reused since the file was written. Never follows a symlink; errors are ignored (a leftover stays a
 * leftover). Returns the names removed.
 */
export function cleanDeadTemps(
  dir: string,
  extra: readonly RegExp[] = [],
  only: (name: string) => boolean = () => true,
): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!only(name)) continue;
    let pid: number;
    let start: string | undefined;
    let foreign = false;
    const m = TEMP_NAME.exec(name);
    if (m !== null) {
      pid = Number(m[1]);
      start = m[2] === 'x' ? undefined : m[2];
      foreign = m[3] !== hostTag(selfIdentity().host);
    } else {
      const legacy = [...LEGACY_NAMES, ...extra].map((r) => r.exec(name)).find((x) => x !== null);
      if (legacy === undefined || legacy === null) continue;
      pid = Number(legacy[1]);
      start = undefined;
    }
    const file = path.join(dir, name);
    try {
      const st = lstatSync(file);
      if (!st.isFile() && !st.isSymbolicLink()) continue;
      if (foreign ? Date.now() - st.mtimeMs < FOREIGN_TEMP_MS : sameProcessAlive(pid, start, undefined, st.mtimeMs))
        continue;
      unlinkSync(file);
      removed.push(name);
    } catch {
      /* gone meanwhile, or not ours to remove */
    }
  }
  return removed;
}

/** How a whole file is written: fsync'ed (`durable`), its mode, and whether an existing file is refused (`exclusive`). */
export interface WholeFileOptions {
  durable: boolean;
  mode?: number; // default SHARED_FILE_MODE (a receipt, a report); a file under `.sdd/` gives PRIVATE_FILE_MODE
  exclusive?: boolean;
}

/** A file written under a temporary name beside its own: `commit` gives it its name, `abort` removes it. */
export interface StagedFile {
  readonly file: string;
  commit(): void;
  abort(): void;
}

/**
 * Writes a file whole, or not at all (the one atomic writer: receipts, report
 * pages, bundles, tombstones, pending forks): the bytes go to a temporary name
 * beside it (fsync'ed when `durable`), which is then hard-linked to `file`
 * (failing if `file` exists, when `exclusive`) or renamed over it. A failure
 * removes the temporary file and throws an InputError naming the path and the
 * cause, so no empty or partial file is ever left under the final name. What
 * a killed writer of the same file left beside it is removed first.
 */
export function writeFileWhole(file: string, data: Uint8Array, options: WholeFileOptions): void {
  stageFile(file, options, (fd) => writeAll(fd, data)).commit();
}

/**
 * writeFileWhole's first half, for a file written piece by piece (a receipt streamed from its journal) or one that
 * must wait before it is named (a receipt signed keylessly first): `fill` writes the temporary file through its
 * descriptor; nothing is under `file`'s name until `commit`. A throw from `fill`, like any failure, removes the
 * temporary file.
 */
export function stageFile(file: string, options: WholeFileOptions, fill: (fd: number) => void): StagedFile {
  const dir = path.dirname(path.resolve(file));
  refuseLinkedStoreDirs(dir);
  refuseSpecialInPlace(file);
  if (pathKind(dir) !== 'dir') throw new InputError(`${file}: cannot write: the directory ${dir} does not exist`);
  cleanDeadTempsOf(file);
  const tmp = tempPath(file);
  const failed = (e: unknown): never => {
    removeQuietly(tmp);
    if (isOsError(e) && !(options.exclusive && e.code === 'EEXIST')) throw osError(e, file, 'cannot write');
    throw e;
  };
  let fd: number | undefined;
  try {
    fd = openSync(tmp, 'wx', options.mode ?? SHARED_FILE_MODE);
    fill(fd);
    if (options.durable) fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
  } catch (e) {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        /* already closed */
      }
    }
    failed(e);
  }
  let done = false;
  return {
    file,
    commit() {
      if (done) throw new Error(`${file}: staged file already committed or aborted`);
      done = true;
      try {
        if (options.exclusive) nameWithoutReplacing(tmp, file);
        else renameSync(tmp, file);
      } catch (e) {
        failed(e);
      }
      if (options.durable) syncNamedDir(file, options.exclusive === true);
    },
    abort() {
      if (done) return;
      done = true;
      removeQuietly(tmp);
    },
  };
}

/**
 * The directory of a file just named synced (writeFileWhole's "whole or not at all" kept when that fails): a file the
 * write created is removed again, and the error says nothing was written; one it replaced cannot be given back, and
 * the error says the new one is in place.
 */
function syncNamedDir(file: string, created: boolean): void {
  try {
    fsyncDir(path.dirname(file));
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    if (created) removeQuietly(file);
    throw new InputError(`${file}: ${created ? 'not written' : 'written in place, but'}: ${e.message}`);
  }
}

const NO_HARD_LINKS = ['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']; // link(2) where there are no hard links

/**
 * Gives `tmp` the name `file` only where nothing is: link(2), which fails with EEXIST rather than replace, then
 * `tmp` removed. A file system without hard links (FAT, some network mounts) refuses link itself; there the name
 * is looked at, then `tmp` renamed onto it (a writer in between is replaced, but only in that moment).
 */
function nameWithoutReplacing(tmp: string, file: string): void {
  try {
    linkSync(tmp, file);
  } catch (e) {
    if (!isOsError(e) || !NO_HARD_LINKS.includes(e.code)) throw e;
    if (lexists(file)) throw Object.assign(new Error(`EEXIST: file already exists: ${file}`), { code: 'EEXIST' });
    renameSync(tmp, file);
    return;
  }
  unlinkSync(tmp);
}

function removeQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    /* never created, or already linked and removed */
  }
}

/** Removes what dead writers of `file` left beside it: `tempPath` names, and an earlier release's `.<name>.tmp-<pid>-<random>`. */
function cleanDeadTempsOf(file: string): void {
  const base = path.basename(file);
  const legacy = new RegExp(`^\\.${escapeRegExp(base)}\\.tmp-([0-9]+)-[0-9a-z]+$`);
  cleanDeadTemps(path.dirname(path.resolve(file)), [legacy], (n) => n.startsWith(`${base}.`) || legacy.test(n));
}

/** What an append left: the file's length before it, and its stat after (for checkpoints). */
export interface Appended {
  before: number;
  after: BigIntStats;
  /**
   * Whether the file was exactly `expect` just before the write and nothing
   * but this write changed it up to the end (its identity right after the
   * write is its identity after the fsync, and it grew by exactly the bytes
   * written). Only then may a checkpoint vouch for `after`: a program that
   * edits the file while an append is under way (during the fsync, or between
   * the verification and the write) would otherwise have its edit vouched for
   * (docs/journal.md, "Checkpoints").
   */
  untouched: boolean;
}

/** The identity a checkpoint binds to (see src/util/checkpoint.ts), taken from a stat. */
function sameFile(a: BigIntStats, b: BigIntStats): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.ctimeNs === b.ctimeNs;
}

/** Opening a file to write it, never through a symbolic link (a link planted in its place is refused). */
export const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
// O_NONBLOCK: a FIFO in the file's place must not hang the writer (refused below as not a regular file).
const APPEND_FLAGS =
  constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | NOFOLLOW | (constants.O_NONBLOCK ?? 0);

/**
 * Refuses to change a file in place when it has another name too (a hard link): whatever can write the project (an
 * agent in its worktree, even a sandboxed one whose sandbox lets it link a file of yours into the project) must not
 * make stepchain, which runs as you, write into that other file. O_NOFOLLOW stops a symbolic link, not a second
 * name; the link count on the open descriptor does.
 */
export function refuseHardLinked(fd: number, file: string, action: string): void {
  const links = fstatSync(fd).nlink;
  if (links > 1)
    throw new InputError(
      `${file}: ${action}: it has ${links} hard links (another name for the same file would change too); refusing to write through it`,
    );
}

/** An open error, naming the path; a symbolic link in the file's place is said so. */
export function openError(e: unknown, file: string, action: string): unknown {
  if (isOsError(e) && e.code === 'ELOOP')
    return new InputError(`${file}: ${action}: it is a symbolic link; refusing to write through it`);
  if (isOsError(e) && e.code === 'ENXIO')
    return new InputError(`${file}: ${action}: it is a FIFO or a socket, not a regular file; refusing to write to it`);
  if (isOsError(e)) return osError(e, file, action);
  return e;
}

/** Cuts a file being appended to back to `before` bytes (synced when durable): what was undone, in words. */
function cutBack(fd: number, before: number, durable: boolean): string {
  try {
    ftruncateSync(fd, before);
    if (durable) fsyncSync(fd);
    return `cut back to its previous ${before} bytes`;
  } catch (te) {
    return `cutting it back to ${before} bytes also failed: ${isOsError(te) ? osCause(te) : String(te)}`;
  }
}

/**
 * Appends whole lines with one write(2) to a file opened O_APPEND (the caller
 * holds the file's lock), never through a symbolic link; when `durable`,
 * fsyncs the file, and its directory when the file was created. If anything
 * fails (ENOSPC, EDQUOT, EIO, at the write, the fsync or its directory's), it is cut back
 * to its previous length before this returns, so no partial row is ever left:
 * the error (an InputError, exit 2) names the file and the cause. `expect` is
 * the identity the caller verified the file at (`'new'`: it had no file), for
 * `untouched`.
 */
export function appendDurably(
  file: string,
  data: Uint8Array,
  durable: boolean,
  expect?: { dev: string; ino: string; size: string; ctime_ns: string } | 'new',
): Appended {
  pausePoint('append:before-write');
  refuseLinkedStoreDirs(path.dirname(file));
  let fd: number;
  try {
    // Owner-only: journals, run journals and audit logs carry prompts and tool output (docs/journal.md, "Permissions").
    fd = openSync(file, APPEND_FLAGS, PRIVATE_FILE_MODE);
  } catch (e) {
    throw openError(e, file, 'cannot open for appending');
  }
  let before: number;
  let after: BigIntStats;
  let untouched: boolean;
  try {
    const pre = fstatSync(fd, { bigint: true });
    if (!pre.isFile())
      throw new InputError(`${file}: cannot append: it is not a regular file; refusing to write to it`);
    refuseHardLinked(fd, file, 'cannot append');
    before = Number(pre.size);
    untouched =
      expect === 'new'
        ? pre.size === 0n
        : expect !== undefined &&
          String(pre.dev) === expect.dev &&
          String(pre.ino) === expect.ino &&
          String(pre.size) === expect.size &&
          String(pre.ctimeNs) === expect.ctime_ns;
    let written: BigIntStats | undefined;
    try {
      writeAll(fd, data);
      // Right after the write, before the fsync (which can take milliseconds): what only this write changed.
      written = fstatSync(fd, { bigint: true });
      pausePoint('append:before-fsync');
      if (durable) fsyncSync(fd);
    } catch (e) {
      const undo = cutBack(fd, before, durable);
      if (isOsError(e)) throw osError(e, file, `cannot append (nothing written: ${undo})`);
      throw e;
    }
    after = fstatSync(fd, { bigint: true });
    untouched &&= sameFile(written, after) && after.size === pre.size + BigInt(data.length);
    // A file's first rows: a directory sync that fails is a failed append, cut back (its caller says "not recorded").
    const dirFailed = before === 0 && durable ? dirSyncError(path.dirname(file)) : undefined;
    if (dirFailed !== undefined)
      throw osError(dirFailed, file, `cannot sync its directory (nothing written: ${cutBack(fd, before, durable)})`);
  } finally {
    closeSync(fd);
  }
  return { before, after, untouched };
}
