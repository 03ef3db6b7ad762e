import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, closeSync, constants, fstatSync, lstatSync, openSync, renameSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { ensureDir, readRange, removeFile, writeAll } from '../util/fs';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../util/modes';
import { openRegularFile } from '../util/nofollow';

/**
 * The window index's file (src/agents/window-index.ts says what it holds and why it is trusted): a head, then
 * segments appended one per hook call that read something new, each part followed by the HMAC with the checkpoint
 * key of every byte before it in the file. The last HMAC vouches for the whole file (one pass over it, as for an
 * index written whole), and it is where the next segment's starts: a segment verifies only after the very bytes it
 * was written after (a segment of another index, one moved, changed or cut short does not), and an index cut at a
 * segment's end is the older index it was. A call writes only its own segment (a few rows), where rewriting the
 * whole index was about a third of the two looks of Gemini's appending call at 10,000 steps; the index is written
 * whole again only when it is not used, has MAX_SEGMENTS segments, or the window moved past half its rows.
 *
 * Laid out so the rows are read in place, never copied: every part is a multiple of 8 bytes long, so each
 * segment's columns are typed arrays over the bytes read (a fresh 200 KB buffer costs ~50 page faults on a VM).
 *
 *   head:    u32 length of the JSON {dev, ino, base}, u32 0, the JSON (padded with zeros to 8), HMAC
 *   segment: f64 end, f64 checkFrom, 32 bytes sha256 of [checkFrom, end), u32 rows, u32 0,
 *            the columns (f64 at, u32 len, u32 id, u32 key; padded to 8), HMAC
 *   HMAC:    HMAC-SHA256(checkpoint key, DOMAIN and every byte of the file before it)
 */

/**
 * The tags of the indexed lines, one row each, in the file's order (a line with two tags has two rows): where the
 * line starts, its length, the digests of the tag's id and key. Columns, as they are kept on disk.
 */
export interface Rows {
  n: number;
  at: Float64Array;
  len: Uint32Array;
  id: Uint32Array;
  key: Uint32Array;
}

/** A segment: the index's stop when it was written (and what vouches for the bytes before it), and its rows. */
export interface Segment {
  end: number;
  /** sha256 of the session file's bytes [checkFrom, end). */
  checkFrom: number;
  check: Buffer;
  rows: Rows;
  /** The segment as written (without its HMAC): the head fields, then the rows. */
  bytes: Buffer;
}

/** An index as read: its head, its segments, and the file it was read from (what an append must find there). */
export interface Index {
  dev: string;
  ino: string;
  /** The window's start when it was written whole: every tagged line from here to the last segment's end has a row. */
  base: number;
  segs: Segment[];
  /** `mac`: the HMAC over the whole file, open for the next segment's. */
  file: { dev: bigint; ino: bigint; size: number; mac: Mac };
}

/** When an index has this many segments, the next call that reads something new writes it whole (one segment). */
export const MAX_SEGMENTS = 32;

const DOMAIN = 'stepchain window index v2\n';
const MAC_BYTES = 32;
const SEG_HEAD = 56;
const ROW_BYTES = 20;

const pad8 = (n: number): number => Math.ceil(n / 8) * 8;
const isOffset = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** The columns of `n` rows at `offset` of `buf` (8-aligned in its ArrayBuffer): views, no copy. */
function rowsIn(buf: Buffer, offset: number, n: number): Rows {
  const o = buf.byteOffset + offset;
  return {
    n,
    at: new Float64Array(buf.buffer, o, n),
    len: new Uint32Array(buf.buffer, o + 8 * n, n),
    id: new Uint32Array(buf.buffer, o + 12 * n, n),
    key: new Uint32Array(buf.buffer, o + 16 * n, n),
  };
}

/** A new segment of `n` rows, to fill (then `seal`). Buffer.alloc: an ArrayBuffer of its own, so aligned. */
export function newSegment(n: number): Segment {
  // Room for its HMAC after it: an append is one write of one buffer, no copy.
  const bytes = Buffer.alloc(SEG_HEAD + pad8(n * ROW_BYTES) + MAC_BYTES).subarray(0, -MAC_BYTES);
  bytes.writeUInt32LE(n, 48);
  return { end: 0, checkFrom: 0, check: Buffer.alloc(0), rows: rowsIn(bytes, SEG_HEAD, n), bytes };
}

/** Writes the segment's stop and check into its head. */
export function seal(seg: Segment, end: number, checkFrom: number, check: Buffer): void {
  seg.end = end;
  seg.checkFrom = checkFrom;
  seg.check = check;
  seg.bytes.writeDoubleLE(end, 0);
  seg.bytes.writeDoubleLE(checkFrom, 8);
  check.copy(seg.bytes, 16, 0, 32);
}

/**
 * HMAC-SHA256 with the checkpoint key of DOMAIN and the bytes given so far, kept open: `tag` gives the HMAC of what
 * was given up to there and more can be given after (node's Hmac cannot be copied; its hash can: the HMAC built on it,
 * RFC 2104). So one pass over the index both verifies it and is where its next segment's HMAC starts.
 */
export class Mac {
  private readonly inner = createHash('sha256');
  private readonly opad = new Uint8Array(64);
  constructor(key: Uint8Array) {
    const k = key.length > 64 ? createHash('sha256').update(key).digest() : key;
    const ipad = new Uint8Array(64);
    for (let i = 0; i < 64; i++) {
      ipad[i] = (k[i] ?? 0) ^ 0x36;
      this.opad[i] = (k[i] ?? 0) ^ 0x5c;
    }
    this.inner.update(ipad).update(DOMAIN);
  }
  update(b: Uint8Array): this {
    this.inner.update(b);
    return this;
  }
  tag(): Buffer {
    return createHash('sha256').update(this.opad).update(this.inner.copy().digest()).digest();
  }
}

/**
 * The segments of `bytes` after the head (which ends at `at`): where each starts and its rows; undefined when they
 * do not tile the rest.
 */
function layout(bytes: Buffer, at: number): [number, number][] | undefined {
  const found: [number, number][] = [];
  while (at < bytes.length) {
    if (bytes.length - at < SEG_HEAD + MAC_BYTES) return undefined;
    const n = bytes.readUInt32LE(at + 48);
    const size = SEG_HEAD + pad8(n * ROW_BYTES);
    if (bytes.length - at - MAC_BYTES < size) return undefined;
    found.push([at, n]);
    at += size + MAC_BYTES;
  }
  return found.length === 0 ? undefined : found;
}

/** The segments at `found`, when their stops only grow, each vouched for from the window's base on. */
function segments(bytes: Buffer, found: [number, number][], base: number): Segment[] | undefined {
  const segs: Segment[] = [];
  let lastEnd = base;
  for (const [at, n] of found) {
    const body = bytes.subarray(at, at + SEG_HEAD + pad8(n * ROW_BYTES));
    const end = body.readDoubleLE(0);
    const checkFrom = body.readDoubleLE(8);
    // The rows themselves are checked where they are used (window-index.ts).
    if (!isOffset(end) || !isOffset(checkFrom) || end < lastEnd || checkFrom < base || checkFrom > end)
      return undefined;
    segs.push({ end, checkFrom, check: body.subarray(16, 48), rows: rowsIn(bytes, at + SEG_HEAD, n), bytes: body });
    lastEnd = end;
  }
  return segs;
}

/**
 * The index at `indexFile` when it reads and verifies; undefined for anything else. Only its last HMAC is computed:
 * it covers every byte before it (the earlier HMACs included), so an index cut at a segment's end is the older index
 * it was, and a segment cut short, changed or taken from another index does not verify.
 */
export function readIndex(indexFile: string, key: Uint8Array): Index | undefined {
  let bytes: Buffer;
  let st;
  try {
    const opened = openRegularFile(indexFile); // never through a link, never a FIFO
    if (opened === undefined) return undefined;
    try {
      st = fstatSync(opened.fd, { bigint: true });
      if (opened.size > 256 << 20) return undefined;
      bytes = readRange(opened.fd, 0, opened.size);
    } finally {
      closeSync(opened.fd);
    }
  } catch {
    return undefined;
  }
  // A buffer of its own (over 4 KB) or the pool's (8-aligned); copied only were it not, for the typed views.
  if (bytes.byteOffset % 8 !== 0) bytes = Buffer.from(bytes);
  if (bytes.length < 8) return undefined;
  const headLen = bytes.readUInt32LE(0);
  const headEnd = 8 + pad8(headLen);
  const found = bytes.length < headEnd + MAC_BYTES ? undefined : layout(bytes, headEnd + MAC_BYTES);
  if (found === undefined) return undefined;
  const mac = new Mac(key).update(bytes.subarray(0, bytes.length - MAC_BYTES));
  const last = bytes.subarray(bytes.length - MAC_BYTES);
  if (!timingSafeEqual(last, mac.tag())) return undefined;
  let head: unknown;
  try {
    head = JSON.parse(bytes.toString('utf8', 8, 8 + headLen));
  } catch {
    return undefined;
  }
  if (typeof head !== 'object' || head === null) return undefined;
  const { dev, ino, base } = head as Record<string, unknown>;
  if (typeof dev !== 'string' || typeof ino !== 'string' || !isOffset(base)) return undefined;
  const segs = segments(bytes, found, base);
  if (segs === undefined) return undefined;
  return { dev, ino, base, segs, file: { dev: st.dev, ino: st.ino, size: bytes.length, mac: mac.update(last) } };
}

/**
 * Replaces the index with one of `seg` (written whole under a temporary name; 0600 in a 0700 directory). A cache:
 * failures are ignored.
 */
export function writeIndex(
  indexFile: string,
  key: Uint8Array,
  head: { dev: string; ino: string; base: number },
  seg: Segment,
): void {
  const json = Buffer.from(JSON.stringify(head));
  const headBytes = Buffer.alloc(8 + pad8(json.length));
  headBytes.writeUInt32LE(json.length, 0);
  json.copy(headBytes, 8);
  const mac = new Mac(key).update(headBytes);
  const headMac = mac.tag();
  const parts = [headBytes, headMac, seg.bytes, mac.update(headMac).update(seg.bytes).tag()];
  const dir = path.dirname(indexFile);
  const tmp = `${indexFile}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    ensureDir(dir, PRIVATE_DIR_MODE);
    if ((lstatSync(dir).mode & 0o777) !== PRIVATE_DIR_MODE) chmodSync(dir, PRIVATE_DIR_MODE);
    const fd = openSync(tmp, 'wx', PRIVATE_FILE_MODE); // never a file that exists
    try {
      for (const b of parts) writeAll(fd, b);
    } finally {
      closeSync(fd);
    }
    // Not a rename over the old index: ext4 flushes a file replaced that way (auto_da_alloc), which would cost a
    // hook call more than the read it saves. A reader between the two finds no index and reads the window whole.
    removeFile(indexFile);
    renameSync(tmp, indexFile);
  } catch {
    removeFile(tmp);
    return;
  }
  removeEarlierFormat(indexFile);
}

const CURRENT_SUFFIX = '.v2.index';
/**
 * Removes the index of the format this one replaced (`<name>.index` beside `<name>.v2.index`, written by stepchain
 * before Dec 5; nothing reads it now) when the new one is written whole: a session's first call after an upgrade,
 * then every MAX_SEGMENTS appends, so an upgraded session does not keep a stale copy of its calls. Only a file or a
 * link is removed (unlink); anything else is left. (A session whose id ends in `.v2` would remove the current index
 * of the session named without it: a cache, read whole again once.)
 */
function removeEarlierFormat(indexFile: string): void {
  if (!indexFile.endsWith(CURRENT_SUFFIX)) return;
  try {
    unlinkSync(`${indexFile.slice(0, -CURRENT_SUFFIX.length)}.index`);
  } catch {
    /* none, or not ours to remove */
  }
}

const APPEND_FLAGS =
  constants.O_WRONLY | constants.O_APPEND | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * Appends `seg` (made by `newSegment`: its HMAC goes in the room after it) to the index `old` was read from, in one
 * write, when the file there is still that one (same identity and length: no link, no other file, nothing appended
 * by another call since). Its directories are not looked at again: they were when it was read, and a file reached
 * another way has another identity. A cache: failures are ignored (a torn append does not verify: the next call
 * reads the window whole).
 */
export function appendSegment(indexFile: string, old: Index, seg: Segment): void {
  let fd: number;
  try {
    fd = openSync(indexFile, APPEND_FLAGS);
  } catch {
    return;
  }
  try {
    const st = fstatSync(fd, { bigint: true });
    if (
      !st.isFile() ||
      st.nlink !== 1n ||
      st.dev !== old.file.dev ||
      st.ino !== old.file.ino ||
      st.size !== BigInt(old.file.size)
    )
      return;
    const { bytes } = seg;
    const whole = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length + MAC_BYTES);
    old.file.mac.update(bytes).tag().copy(whole, bytes.length);
    writeAll(fd, whole);
  } catch {
    /* a cache */
  } finally {
    closeSync(fd);
  }
}
