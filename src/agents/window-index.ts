import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, closeSync, fstatSync, lstatSync, openSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ensureDir, readRange, writeAll } from '../util/fs';
import { openRegularFile, readRegularFile } from '../util/nofollow';

/**
 * What a hook reads of an agent's JSONL session file (Gemini CLI's chat file, Copilot's event log): the lines of
 * the file's last `window` bytes that can answer it. The full read (`fullWindowLines`) reads the whole window,
 * megabytes on a long session, on every hook call. The indexed read (`windowLinesFor`) keeps, in a small file of
 * the hook's own under `.sdd/`, a few bytes per line it has read: where the line is and the 32-bit digests of the
 * `tags` it holds, each a call's id and a key (what the hook looks the call up by: its arguments); then it reads
 * only what the agent appended since, and of the older lines only those whose digests say they may answer. A
 * digest that matches by chance only costs a line read and parsed again: the agent's own reading of the lines
 * decides, as it does on the full read.
 *
 * The index is not trusted beyond what can be checked: an HMAC with the local checkpoint key
 * (src/util/checkpoint.ts: what keeps a journal's checkpoint from being forged keeps this index from lying), the
 * session file's identity (device and inode), a length at least where the index stopped (always at a line's end),
 * and a hash of the bytes just before that stop. Anything else (no key, an index that does not read or verify, a
 * file replaced, truncated or rewritten there) and the window is read whole again, as the full read does. Not seen:
 * a rewrite in place that keeps the identity, the length and the CHECK_BYTES before the stop but changes bytes
 * further back (agents only append to these files, or write them anew under a new identity). An older index (one
 * restored) still tells the truth about the bytes it hashed: what follows them is read.
 */

/** A line's tags: for each call it names, the call's id and the key it is looked up by. Of the line's text only. */
export type LineTags = (line: string) => [id: string, key: string][];

/** How many bytes before the stop are hashed: what must be unchanged for the index to be used. */
export const CHECK_BYTES = 64 << 10;

const CHUNK = 64 << 10;

/** Where the window of a file `size` bytes long starts (a line's start), as the full read finds it. */
function windowStart(fd: number, size: number, window: number): number | undefined {
  const from = Math.max(0, size - window);
  if (from === 0) return 0;
  // The line in progress at `from` is left out: the window starts after the first newline at or after it.
  for (let at = from; at < size; at += CHUNK) {
    const nl = readRange(fd, at, Math.min(CHUNK, size - at)).indexOf(0x0a);
    if (nl >= 0) return at + nl + 1;
  }
  return undefined; // no newline: the window is a piece of one line (see fullWindowLines)
}

/**
 * The full read: every line of the last `window` bytes of `file` (whole lines: a line the window starts inside is
 * left out, unless the window holds no newline at all), the last one possibly torn or empty. Undefined: no such
 * file. Never through a link or a FIFO (an InputError).
 */
export function fullWindowLines(file: string, window: number): string[] | undefined {
  const opened = openRegularFile(file);
  if (opened === undefined) return undefined;
  try {
    const from = Math.max(0, opened.size - window);
    const buf = readRange(opened.fd, from, opened.size - from);
    const start = from > 0 ? buf.indexOf(0x0a) + 1 : 0;
    return buf.toString('utf8', start).split('\n');
  } finally {
    closeSync(opened.fd);
  }
}

/**
 * The tags of the indexed lines, one row each, in the file's order (a line with two tags has two rows): where the
 * line starts, its length, the digests of the tag's id and key. Columns, as they are kept on disk.
 */
interface Rows {
  n: number;
  at: Float64Array;
  len: Uint32Array;
  id: Uint32Array;
  key: Uint32Array;
}

const ROW_BYTES = 20;

function rows(n: number, bytes?: Uint8Array): Rows {
  const ab = new ArrayBuffer(n * ROW_BYTES);
  if (bytes !== undefined) new Uint8Array(ab).set(bytes);
  return {
    n,
    at: new Float64Array(ab, 0, n),
    len: new Uint32Array(ab, 8 * n, n),
    id: new Uint32Array(ab, 12 * n, n),
    key: new Uint32Array(ab, 16 * n, n),
  };
}

/** Rows `from..` of `a`, then all of `b`. */
function joinRows(a: Rows, from: number, b: Rows): Rows {
  const out = rows(a.n - from + b.n);
  for (const k of ['at', 'len', 'id', 'key'] as const) {
    out[k].set(a[k].subarray(from) as never);
    out[k].set(b[k] as never, a.n - from);
  }
  return out;
}

/** The index: where it stopped, what vouches for the bytes before, and the tags of the lines of [base, end). */
interface Index {
  dev: string;
  ino: string;
  /** The window's start when it was written: every tagged line from here to `end` has its rows. */
  base: number;
  end: number;
  /** sha256 (hex) of the bytes [checkFrom, end). */
  checkFrom: number;
  check: string;
  rows: Rows;
}

/**
 * A 32-bit digest (FNV-1a over the UTF-16 code units). Not a proof of anything: two strings with one digest only
 * cost a line read and parsed again (even when a hostile file makes them on purpose: never more than the full read).
 */
function digest32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const isOffset = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

const DOMAIN = 'stepchain window index v1\n';
const MAC_BYTES = 32;

/** The HMAC of the index's bytes (given in parts, as they are written). */
function mac(key: Uint8Array, ...body: Buffer[]): Buffer {
  const h = createHmac('sha256', key).update(DOMAIN);
  for (const b of body) h.update(b);
  return h.digest();
}

/** A new file (never one that exists: `wx`, 0600) holding `parts` one after the other. */
function writeWhole(file: string, parts: Buffer[]): void {
  const fd = openSync(file, 'wx', 0o600);
  try {
    for (const b of parts) writeAll(fd, b);
  } finally {
    closeSync(fd);
  }
}

/** The rows of `table` when they hold together: in the file's order, each line inside [base, end). */
function tableRows(table: Buffer, base: number, end: number): Rows | undefined {
  if (table.length % ROW_BYTES !== 0) return undefined;
  const r = rows(table.length / ROW_BYTES, table);
  // One row per call of a long session, checked in a process of its own (a hook call), where this loop runs in
  // V8's interpreter: as few operations a row as it takes. `at` is a whole number (`% 1`), at least the previous one
  // (so at least `base`, a safe integer: never negative, never NaN) and its line ends before `end` (a safe integer:
  // so is `at`).
  const { at, len, n } = r;
  let prev = base;
  for (let i = 0; i < n; i++) {
    const a = at[i]!;
    if (!(a >= prev && a + len[i]! < end && a % 1 === 0)) return undefined;
    prev = a;
  }
  return r;
}

/** The index at `indexFile` when it reads, its HMAC verifies and it holds together; undefined for anything else. */
function readIndex(indexFile: string, key: Uint8Array): Index | undefined {
  let bytes: Buffer | undefined;
  try {
    bytes = readRegularFile(indexFile, { maxBytes: 256 << 20 }); // never through a link, never a FIFO
  } catch {
    return undefined;
  }
  if (bytes === undefined || bytes.length < MAC_BYTES) return undefined;
  const body = bytes.subarray(0, bytes.length - MAC_BYTES);
  if (!timingSafeEqual(bytes.subarray(body.length), mac(key, body))) return undefined;
  const nl = body.indexOf(0x0a);
  let head: unknown;
  try {
    head = JSON.parse(body.toString('utf8', 0, nl < 0 ? 0 : nl));
  } catch {
    return undefined;
  }
  if (typeof head !== 'object' || head === null) return undefined;
  const { dev, ino, base, end, checkFrom, check } = head as Record<string, unknown>;
  if (typeof dev !== 'string' || typeof ino !== 'string' || typeof check !== 'string') return undefined;
  if (!isOffset(base) || !isOffset(end) || !isOffset(checkFrom) || !(base <= checkFrom && checkFrom <= end))
    return undefined;
  const r = tableRows(body.subarray(nl + 1), base, end);
  return r === undefined ? undefined : { dev, ino, base, end, checkFrom, check, rows: r };
}

/** Replaces the index (written whole under a temporary name; 0600 in a 0700 directory). A cache: failures are ignored. */
function writeIndex(indexFile: string, key: Uint8Array, index: Index): void {
  const { rows: r, ...head } = index;
  // The head line, the rows and their HMAC, each written from where it is (no copy of the rows: a whole session's).
  const parts = [Buffer.from(`${JSON.stringify(head)}\n`), Buffer.from(r.at.buffer, r.at.byteOffset, r.n * ROW_BYTES)];
  parts.push(mac(key, ...parts));
  const dir = path.dirname(indexFile);
  const tmp = `${indexFile}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    ensureDir(dir, 0o700);
    if ((lstatSync(dir).mode & 0o777) !== 0o700) chmodSync(dir, 0o700);
    writeWhole(tmp, parts);
    // Not a rename over the old index: ext4 flushes a file replaced that way (auto_da_alloc), which would cost a
    // hook call more than the read it saves. A reader between the two finds no index and reads the window whole.
    rmSync(indexFile, { force: true });
    renameSync(tmp, indexFile);
  } catch {
    rmSync(tmp, { force: true });
  }
}

/** The rows of `buf`'s whole lines (`base`: the offset of `buf`), where they end, and the torn last line. */
function scan(buf: Buffer, base: number, tags: LineTags): { rows: Rows; end: number; tail: string | undefined } {
  const found: [number, number, number, number][] = [];
  let start = 0;
  for (let nl = buf.indexOf(0x0a); nl >= 0; nl = buf.indexOf(0x0a, start)) {
    for (const [id, key] of tags(buf.toString('utf8', start, nl)))
      found.push([base + start, nl - start, digest32(id), digest32(key)]);
    start = nl + 1;
  }
  const r = rows(found.length);
  found.forEach(([at, len, id, key], i) => {
    r.at[i] = at;
    r.len[i] = len;
    r.id[i] = id;
    r.key[i] = key;
  });
  // A last line without its newline (being written) is a line of the window, but the index stops before it.
  return { rows: r, end: base + start, tail: start < buf.length ? buf.toString('utf8', start) : undefined };
}

/** The index of `fd`'s window when it can be trusted (see above): its first row from `ws` on, and the bytes after. */
function usable(
  fd: number,
  size: number,
  ws: number,
  id: { dev: string; ino: string },
  old: Index | undefined,
): { rows: Rows; first: number; from: number; scanFrom: number; buf: Buffer } | undefined {
  if (old === undefined || old.dev !== id.dev || old.ino !== id.ino || old.base > ws || old.end > size)
    return undefined;
  // One read: the bytes the index hashed, then what was appended since.
  const buf = readRange(fd, old.checkFrom, size - old.checkFrom);
  if (buf.length !== size - old.checkFrom || sha256(buf.subarray(0, old.end - old.checkFrom)) !== old.check)
    return undefined;
  let first = 0;
  while (first < old.rows.n && old.rows.at[first]! < ws) first++;
  return { rows: old.rows, first, from: old.checkFrom, scanFrom: Math.max(old.end, ws), buf };
}

/**
 * The lines of the last `window` bytes of `file` that hold a tag whose key is one of `keys`, and every line holding
 * a tag with the id of one of those (the call written again), in the file's order: all a reader that looks calls
 * up by those keys needs of the window. Reads only what was appended since `index.file` was written (and writes
 * it anew); with no `index.key` (no checkpoint key), or an index that cannot be trusted, the whole window, as
 * `fullWindowLines`. Undefined: no such file.
 */
export function windowLinesFor(
  file: string,
  window: number,
  tags: LineTags,
  index: { file: string; key: Uint8Array | undefined },
  keys: readonly string[],
): string[] | undefined {
  const key = index.key;
  if (key === undefined) return fullWindowLines(file, window);
  const opened = openRegularFile(file);
  if (opened === undefined) return undefined;
  const { fd, size } = opened;
  try {
    const ws = windowStart(fd, size, window);
    if (ws === undefined) return fullWindowLines(file, window); // a window inside one line: nothing to keep
    const st = fstatSync(fd, { bigint: true });
    const id = { dev: st.dev.toString(), ino: st.ino.toString() };
    const old = readIndex(index.file, key);
    const reused = usable(fd, size, ws, id, old);
    const kept = reused ?? { rows: rows(0), first: 0, from: ws, scanFrom: ws, buf: readRange(fd, ws, size - ws) };
    const { from, buf } = kept;
    const got = scan(buf.subarray(kept.scanFrom - from), kept.scanFrom, tags);
    const all = joinRows(kept.rows, kept.first, got.rows);
    if (reused === undefined || got.end !== old?.end || ws !== old.base) {
      const checkFrom = Math.max(from, ws, got.end - CHECK_BYTES);
      const check = sha256(buf.subarray(checkFrom - from, got.end - from));
      writeIndex(index.file, key, { ...id, base: ws, end: got.end, checkFrom, check, rows: all });
    }
    return select(fd, all, got.tail, tags, keys);
  } finally {
    closeSync(fd);
  }
}

/**
 * The rows whose `column` holds one of `values`, in the rows' order. Each value is looked for with the typed
 * array's own search (native code): a hook is a process of its own, in which a loop of ours over every row (one
 * per call of a long session) would run in V8's interpreter, a millisecond and more per look.
 */
function rowsHolding(column: Uint32Array, values: Iterable<number>): number[] {
  const found: number[] = [];
  for (const v of new Set(values)) for (let i = column.indexOf(v); i >= 0; i = column.indexOf(v, i + 1)) found.push(i);
  return found.sort((a, b) => a - b);
}

/** The lines `windowLinesFor` returns, read from the file at the rows' places (the torn last line: `tail`). */
function select(fd: number, r: Rows, tail: string | undefined, tags: LineTags, keys: readonly string[]): string[] {
  const wanted = new Set(keys.map(digest32));
  const ids = new Set<number>();
  for (const i of rowsHolding(r.key, wanted)) ids.add(r.id[i]!);
  for (const [i, k] of tail === undefined ? [] : tags(tail)) if (wanted.has(digest32(k))) ids.add(digest32(i));
  const lines: string[] = [];
  let last = -1;
  for (const i of rowsHolding(r.id, ids)) {
    if (r.at[i] === last) continue;
    last = r.at[i]!;
    lines.push(readRange(fd, last, r.len[i]!).toString('utf8'));
  }
  if (tail !== undefined) lines.push(tail);
  return lines;
}
