import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  openSync,
  statSync,
  unlinkSync,
  writeSync,
  type BigIntStats,
} from 'node:fs';
import { mkdirs } from './mkdirs';
import path from 'node:path';
import { sha256Hex } from './hash';
import { readRange, writeAll } from './fs';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './modes';
import { READ_FLAGS, readRegularFile, refuseLinkedStoreDirs } from './nofollow';
import { stateDir } from './state-dir';

/**
 * Authenticated checkpoints of a verified prefix (docs/journal.md, "Checkpoints").
 *
 * Appending must stay fail-closed (a row edited anywhere is refused before the
 * next append) without re-reading the whole history each time. After each
 * append (or full verification) the writer records, beside the file, what it
 * knows: the verified state plus the file's identity as the kernel reports it
 * (device, inode, size, and ctime in nanoseconds), a digest of the file's last
 * 4 KiB, and an HMAC over all of it with a local key. The next writer trusts
 * the state only if the HMAC verifies and the identity is unchanged; anything
 * else (a missing, torn or foreign checkpoint, a write by a program that does
 * not keep checkpoints, an edit) falls back to the full walk.
 *
 * Why ctime: any change to a file's bytes updates its ctime, and no
 * unprivileged call sets ctime back (utimes sets atime and mtime, and itself
 * updates ctime), so an edit that restores size and mtime still changes it.
 * The key keeps a checkpoint from being forged by whoever can write the
 * project but not the key's directory (an agent confined to its worktree).
 */

export interface FileIdentity {
  dev: string;
  ino: string;
  size: string;
  ctime_ns: string;
}

export function identityOf(st: BigIntStats): FileIdentity {
  return { dev: String(st.dev), ino: String(st.ino), size: String(st.size), ctime_ns: String(st.ctimeNs) };
}

/** The identity of a file, or undefined when it does not exist. Other errors are thrown. */
export function statIdentity(file: string): FileIdentity | undefined {
  try {
    return identityOf(statSync(file, { bigint: true }));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

export function sameIdentity(a: FileIdentity, b: FileIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.ctime_ns === b.ctime_ns;
}

/** Bytes at the end of the file whose digest a checkpoint also carries. */
const TAIL_BYTES = 4096;

/** SHA-256 of the bytes `[from, end)` of a file (default: the last 4 KiB before `end`). */
export function tailDigest(file: string, end: number, from = Math.max(0, end - TAIL_BYTES)): string {
  const fd = openSync(file, READ_FLAGS);
  try {
    const bytes = readRange(fd, from, end - from);
    if (bytes.length !== end - from) return '';
    return sha256Hex(bytes);
  } finally {
    closeSync(fd);
  }
}

/** Where the checkpoint key lives: STEPCHAIN_CHECKPOINT_KEY_PATH, else `<XDG state dir>/stepchain/checkpoint.key`. */
export function checkpointKeyPath(env: NodeJS.ProcessEnv): string {
  const explicit = env.STEPCHAIN_CHECKPOINT_KEY_PATH;
  return explicit ? path.resolve(explicit) : path.join(stateDir(env), 'checkpoint.key');
}

/**
 * Where the mirrors of checkpoints are kept: `tips/` beside the key (docs/journal.md, "Rollback"). A checkpoint
 * lives beside its file, so whoever restores an older file can restore its older checkpoint too; the mirror,
 * outside the project, still holds the last one written.
 */
export function tipMirrorDir(env: NodeJS.ProcessEnv): string {
  return path.join(path.dirname(checkpointKeyPath(env)), 'tips');
}

/** The mirror of the checkpoint of `kind` for `target` in `dir` (one file per target, named by its path's digest). */
export function tipMirrorFile(dir: string, kind: string, target: string): string {
  return path.join(dir, `${kind}-${sha256Hex(Buffer.from(path.resolve(target), 'utf8')).slice(0, 40)}.checkpoint`);
}

/** `STEPCHAIN_CHECKPOINT=off` (or 0/false/no) turns checkpoints off: every open walks the whole file. */
export function checkpointsEnabled(env: NodeJS.ProcessEnv): boolean {
  const v = (env.STEPCHAIN_CHECKPOINT ?? '').trim().toLowerCase();
  return !(v === 'off' || v === '0' || v === 'false' || v === 'no');
}

const keys = new Map<string, Buffer | null>();

function readOwnKey(file: string): Buffer | undefined {
  const st = statSync(file);
  // A key others can read, or that someone else owns, could be used to forge: not trusted.
  if (!st.isFile() || (st.mode & 0o077) !== 0) return undefined;
  if (typeof process.getuid === 'function' && st.uid !== process.getuid()) return undefined;
  // The key's path is the operator's (it may be a link of theirs); what it holds must be a small regular file.
  const text = (readRegularFile(file, { follow: true, maxBytes: 4096 }) ?? Buffer.alloc(0)).toString('latin1').trim();
  return /^[0-9a-f]{64}$/.test(text) ? Buffer.from(text, 'hex') : undefined;
}

/**
 * The local checkpoint key (32 random bytes as 64 hex digits, 0600, in a
 * 0700 directory), created on first use (unless `create` is false: a
 * verifier only reads it); undefined when it cannot be had (no writable state
 * directory, wrong permissions): checkpoints are then simply not used. Never
 * throws.
 */
export function checkpointKey(env: NodeJS.ProcessEnv, create = true): Buffer | undefined {
  if (!checkpointsEnabled(env)) return undefined;
  const file = checkpointKeyPath(env);
  const cached = keys.get(file);
  if (cached !== undefined) return cached ?? undefined;
  let key: Buffer | undefined;
  try {
    key = readOwnKey(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') key = undefined;
    else if (create) key = createKey(file);
    else return undefined; // not there yet: a later writer in this process may still create it
  }
  keys.set(file, key ?? null);
  return key;
}

function createKey(file: string): Buffer | undefined {
  try {
    const dir = path.dirname(file);
    if (mkdirs(dir, PRIVATE_DIR_MODE) !== undefined) chmodSync(dir, PRIVATE_DIR_MODE);
    const fd = openSync(file, 'wx', PRIVATE_FILE_MODE);
    try {
      writeSync(fd, randomBytes(32).toString('hex'));
    } finally {
      closeSync(fd);
    }
    chmodSync(file, PRIVATE_FILE_MODE);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
    // Another first writer made it: wait briefly for its bytes.
    for (let i = 0; i < 50; i++) {
      try {
        const k = readOwnKey(file);
        if (k !== undefined) return k;
      } catch {
        /* not there yet */
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
  try {
    return readOwnKey(file);
  } catch {
    return undefined;
  }
}

const DOMAIN = 'stepchain checkpoint v1\n';

function mac(key: Uint8Array, body: string): Buffer {
  return createHmac('sha256', key).update(DOMAIN).update(body).digest();
}

/**
 * Writes a checkpoint of `target` (whose identity after the write is `id`):
 * body line + HMAC line, overwriting the previous checkpoint in place. A
 * checkpoint cut short or mixed with its predecessor (a kill, a full disk)
 * fails its HMAC and is ignored. Best-effort: a checkpoint
 * that cannot be written only makes the next open walk the file. Returns
 * whether it was written.
 */
export function writeCheckpoint(
  ckptFile: string,
  kind: string,
  target: string,
  id: FileIdentity,
  state: Record<string, unknown>,
  key: Uint8Array,
  mirrorDir?: string,
): boolean {
  const body = JSON.stringify({ v: 1, kind, target: path.resolve(target), id, state });
  const bytes = Buffer.from(`${body}\n${mac(key, body).toString('hex')}\n`, 'utf8');
  const written = overwrite(ckptFile, bytes);
  if (written && mirrorDir !== undefined) {
    try {
      if (mkdirs(mirrorDir, PRIVATE_DIR_MODE) !== undefined) chmodSync(mirrorDir, PRIVATE_DIR_MODE);
      overwrite(tipMirrorFile(mirrorDir, kind, target), bytes);
    } catch {
      /* best-effort, as the checkpoint itself: without a mirror only the checkpoint beside the file is judged */
    }
  }
  return written;
}

/** Overwrites a sidecar file in place (never through a link); whether it was written. */
function overwrite(ckptFile: string, bytes: Buffer): boolean {
  let fd: number | undefined;
  try {
    // Not O_TRUNC, nor a rename over it: ext4 flushes a file replaced either way (auto_da_alloc),
    // which would cost an append more than its own fsync. Never through a symbolic link: one planted
    // in its place (by whatever can write the project) is removed, not followed to a file of the user's.
    refuseLinkedStoreDirs(path.dirname(ckptFile));
    fd = openExisting(ckptFile);
    if (fd === undefined)
      fd = openSync(ckptFile, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, PRIVATE_FILE_MODE);
    writeAll(fd, bytes, 0);
    if (fstatSync(fd).size > bytes.length) ftruncateSync(fd, bytes.length);
    return true;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The checkpoint file opened to overwrite, if it is a regular file of one name; anything else in its place is removed. */
function openExisting(ckptFile: string): number | undefined {
  let fd: number;
  try {
    fd = openSync(ckptFile, constants.O_RDWR | NOFOLLOW | NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code !== 'ELOOP' && code !== 'EISDIR' && code !== 'ENXIO') throw e;
    unlinkSync(ckptFile); // a link or a special file: not ours to follow (a directory stays, and the write fails)
    return undefined;
  }
  // A second name (a hard link) is not ours to overwrite either: the other name's file would change too.
  const st = fstatSync(fd);
  if (st.isFile() && st.nlink === 1) return fd;
  closeSync(fd);
  unlinkSync(ckptFile);
  return undefined;
}

const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const NONBLOCK = constants.O_NONBLOCK ?? 0;

/** A checkpoint whose HMAC verified: the identity the file had when it was written, and the state it vouched for. */
export interface CheckpointRecord {
  /** The file (or directory) it describes, as the writer resolved it. */
  target: string;
  id: FileIdentity;
  state: Record<string, unknown>;
}

/**
 * The checkpoint at `ckptFile` of `kind`, if its HMAC verifies under `key`,
 * whatever the file it describes is now (the rollback rule compares the two);
 * `'absent'` when there is none, `'unauthenticated'` when there is something
 * that is no checkpoint made with this key (forged, torn, another key's).
 */
export function readCheckpointRecord(
  ckptFile: string,
  kind: string,
  key: Uint8Array,
): CheckpointRecord | 'absent' | 'unauthenticated' {
  let text: string;
  try {
    // Never through a symbolic link, and never a FIFO or a device that could block or never end.
    const bytes = readRegularFile(ckptFile, { maxBytes: 1 << 20 });
    if (bytes === undefined) return 'absent';
    text = bytes.toString('utf8');
  } catch {
    return 'unauthenticated';
  }
  const lines = text.split('\n');
  if (lines.length !== 3 || lines[2] !== '' || !/^[0-9a-f]{64}$/.test(lines[1]!)) return 'unauthenticated';
  const body = lines[0]!;
  if (!timingSafeEqual(Buffer.from(lines[1]!, 'hex'), mac(key, body))) return 'unauthenticated';
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    return 'unauthenticated';
  }
  if (typeof doc !== 'object' || doc === null) return 'unauthenticated';
  const d = doc as { v?: unknown; kind?: unknown; target?: unknown; id?: unknown; state?: unknown };
  if (d.v !== 1 || d.kind !== kind || typeof d.target !== 'string') return 'unauthenticated';
  const rid = d.id as Partial<Record<keyof FileIdentity, unknown>> | undefined;
  if (typeof rid !== 'object' || rid === null) return 'unauthenticated';
  const { dev, ino, size, ctime_ns } = rid;
  if (typeof dev !== 'string' || typeof ino !== 'string' || typeof size !== 'string' || typeof ctime_ns !== 'string')
    return 'unauthenticated';
  if (typeof d.state !== 'object' || d.state === null) return 'unauthenticated';
  return { target: d.target, id: { dev, ino, size, ctime_ns }, state: d.state as Record<string, unknown> };
}

/**
 * The state a checkpoint records, if its HMAC verifies under `key` and it
 * describes a file of exactly the identity `id`; otherwise undefined.
 */
export function readCheckpoint(
  ckptFile: string,
  kind: string,
  id: FileIdentity,
  key: Uint8Array,
): Record<string, unknown> | undefined {
  const r = readCheckpointRecord(ckptFile, kind, key);
  // The file is known by its identity, not its path: a journal reached through a symlink or a hard link, or
  // renamed, is the same file (and a copy is another inode).
  if (typeof r === 'string' || !sameIdentity(r.id, id)) return undefined;
  return r.state;
}
