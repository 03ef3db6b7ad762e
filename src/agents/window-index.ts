import { createHash } from 'node:crypto';
import { closeSync, fstatSync } from 'node:fs';
import { readRange } from '../util/fs';
import { openRegularFile } from '../util/nofollow';
import {
  appendSegment,
  MAX_SEGMENTS,
  newSegment,
  readIndex,
  seal,
  writeIndex,
  type Index,
  type Rows,
  type Segment,
} from './window-index-file';

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
 * restored) still tells the truth about the bytes it hashed: what follows them is read. A row is checked where it is
 * used (a whole offset from the index's base on, after the row used before it, its line inside the indexed bytes)
 * and an index holding one that is not is not used; every row is checked before an index is written whole again.
 * The file's layout, and why a call appends to it: window-index-file.ts.
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
 * A 32-bit digest (FNV-1a over the UTF-16 code units). Not a proof of anything: two strings with one digest only
 * cost a line read and parsed again (even when a hostile file makes them on purpose: never more than the full read).
 */
function digest32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
const sha256 = (b: Buffer): Buffer => createHash('sha256').update(b).digest();

/**
 * A segment (to seal) of the rows of `buf`'s whole lines (`base`: the offset of `buf`), where they end, and the torn
 * last line.
 */
function scan(buf: Buffer, base: number, tags: LineTags): { seg: Segment; end: number; tail: string | undefined } {
  const found: [number, number, number, number][] = [];
  let start = 0;
  for (let nl = buf.indexOf(0x0a); nl >= 0; nl = buf.indexOf(0x0a, start)) {
    for (const [id, key] of tags(buf.toString('utf8', start, nl)))
      found.push([base + start, nl - start, digest32(id), digest32(key)]);
    start = nl + 1;
  }
  const seg = newSegment(found.length);
  const r = seg.rows;
  found.forEach(([at, len, id, key], i) => {
    r.at[i] = at;
    r.len[i] = len;
    r.id[i] = id;
    r.key[i] = key;
  });
  seg.end = base + start; // for `select`, before it is sealed
  // A last line without its newline (being written) is a line of the window, but the index stops before it.
  return { seg, end: base + start, tail: start < buf.length ? buf.toString('utf8', start) : undefined };
}

/**
 * Whether `old` can be trusted for `fd`'s window from `ws` (see above): then the bytes from its last check on, read
 * once (the bytes it hashed, then what was appended since).
 */
function usable(
  fd: number,
  size: number,
  ws: number,
  id: { dev: string; ino: string },
  old: Index,
): Buffer | undefined {
  const last = old.segs[old.segs.length - 1]!;
  // A window that starts past the index's stop has none of its rows, and the bytes from its check to the window
  // (all the agent wrote since, megabytes after a long pause) would be read for nothing: the full read is less.
  if (old.dev !== id.dev || old.ino !== id.ino || old.base > ws || last.end < ws || last.end > size) return undefined;
  const buf = readRange(fd, last.checkFrom, size - last.checkFrom);
  if (buf.length !== size - last.checkFrom || !sha256(buf.subarray(0, last.end - last.checkFrom)).equals(last.check))
    return undefined;
  return buf;
}

/** How many of `segs`' rows start before `ws` (the rows are in the file's order: a binary search in each). */
function rowsBefore(segs: readonly Segment[], ws: number): { dead: number; all: number } {
  let dead = 0;
  let all = 0;
  for (const { rows: r } of segs) {
    let lo = 0;
    let hi = r.n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (r.at[mid]! < ws) lo = mid + 1;
      else hi = mid;
    }
    dead += lo;
    all += r.n;
  }
  return { dead, all };
}

/**
 * One segment of the rows of `segs` from `ws` on, then `extra`'s, when every row holds together (in the file's
 * order from `base`, whole offsets, each line inside its segment's stop); undefined when one does not (only a
 * holder of the key writes such an index, and no stepchain does). What an index written whole again carries.
 */
function carried(segs: readonly Segment[], base: number, ws: number, extra: Rows): Segment | undefined {
  const parts: [Rows, number][] = [];
  let prev = base;
  let n = extra.n;
  for (const { rows: r, end } of segs) {
    let first = r.n;
    for (let i = 0; i < r.n; i++) {
      const a = r.at[i]!;
      if (!(a >= prev && a + r.len[i]! < end && a % 1 === 0)) return undefined;
      if (a >= ws && first === r.n) first = i;
      prev = a;
    }
    parts.push([r, first]);
    n += r.n - first;
  }
  const out = newSegment(n);
  let k = 0;
  for (const [r, first] of [...parts, [extra, 0] as [Rows, number]]) {
    for (const c of ['at', 'len', 'id', 'key'] as const) out.rows[c].set(r[c].subarray(first) as never, k);
    k += r.n - first;
  }
  return out;
}

/**
 * The lines of the last `window` bytes of `file` that hold a tag whose key is one of `keys`, and every line holding
 * a tag with the id of one of those (the call written again), in the file's order: all a reader that looks calls
 * up by those keys needs of the window. Reads only what was appended since `index.file` was written (and appends
 * what it read to it); with no `index.key` (no checkpoint key), or an index that cannot be trusted, the whole
 * window, as `fullWindowLines`. Undefined: no such file.
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
    const ask: Ask = { fd, ws, tags, keys, indexFile: index.file, key };
    const old = readIndex(index.file, key);
    const buf = old === undefined ? undefined : usable(fd, size, ws, id, old);
    const lines = buf === undefined ? undefined : fromIndex(ask, old!, buf);
    if (lines !== undefined) return lines;
    // No index, or one that cannot be trusted: the window read whole, and indexed anew.
    const whole = readRange(fd, ws, size - ws);
    const got = scan(whole, ws, tags);
    const checkFrom = Math.max(ws, got.end - CHECK_BYTES);
    seal(got.seg, got.end, checkFrom, sha256(whole.subarray(checkFrom - ws, got.end - ws)));
    writeIndex(index.file, key, { ...id, base: ws }, got.seg);
    return select(fd, [got.seg], ws, ws, got.tail, tags, keys)!; // its own rows: they hold together
  } finally {
    closeSync(fd);
  }
}

interface Ask {
  fd: number;
  ws: number;
  tags: LineTags;
  keys: readonly string[];
  indexFile: string;
  key: Uint8Array;
}

/**
 * The answer through the index `old` (trusted for the bytes up to its stop: `usable`), reading only `buf`'s bytes
 * after that stop; the new rows appended to the index as a segment, or the index written whole (see
 * window-index-file.ts). Undefined when a row it would use does not hold together: the caller reads the window.
 */
function fromIndex(ask: Ask, old: Index, buf: Buffer): string[] | undefined {
  const { fd, ws, tags } = ask;
  const last = old.segs[old.segs.length - 1]!;
  const from = last.checkFrom;
  const got = scan(buf.subarray(last.end - from), last.end, tags); // the window starts at or before it (\`usable\`)
  const grew = got.end !== last.end;
  const segs = grew ? [...old.segs, got.seg] : old.segs;
  const lines = select(fd, segs, old.base, ws, got.tail, tags, ask.keys);
  if (lines === undefined) return undefined;
  const { dead, all } = rowsBefore(old.segs, ws);
  // Written whole: the window moved past half its rows, or it has segments enough (a window past the index's stop
  // never gets here: \`usable\`); else only what is new is appended (nothing: nothing is written).
  const whole = (dead > 0 && dead * 2 >= all) || (grew && old.segs.length >= MAX_SEGMENTS);
  if (!whole && !grew) return lines;
  const checkFrom = Math.max(from, ws, got.end - CHECK_BYTES);
  const check = sha256(buf.subarray(checkFrom - from, got.end - from));
  if (!whole) {
    seal(got.seg, got.end, checkFrom, check);
    appendSegment(ask.indexFile, old, got.seg);
    return lines;
  }
  const one = carried(old.segs, old.base, ws, got.seg.rows);
  if (one === undefined) return undefined;
  seal(one, got.end, checkFrom, check);
  writeIndex(ask.indexFile, ask.key, { dev: old.dev, ino: old.ino, base: ws }, one);
  return lines;
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

/**
 * The lines `windowLinesFor` returns, read from the file at the rows' places (the torn last line: `tail`); rows
 * before `ws` (the window moved) are passed over. Each row used is checked first (it starts at a whole offset, from
 * `base` on, after the one used before, and its line ends before its segment's stop): undefined when one does not,
 * and nothing is read at its place. Only the rows used are looked at: a loop over every row would run in V8's
 * interpreter, in a process of its own, on every hook call.
 */
function select(
  fd: number,
  segs: readonly Segment[],
  base: number,
  ws: number,
  tail: string | undefined,
  tags: LineTags,
  keys: readonly string[],
): string[] | undefined {
  const wanted = new Set(keys.map(digest32));
  const ids = new Set<number>();
  for (const { rows: r } of segs)
    for (const i of rowsHolding(r.key, wanted)) {
      const a = r.at[i]!;
      if (!(a >= base)) return undefined;
      if (a >= ws) ids.add(r.id[i]!);
    }
  for (const [i, k] of tail === undefined ? [] : tags(tail)) if (wanted.has(digest32(k))) ids.add(digest32(i));
  const places: [number, number][] = [];
  let prev = base;
  for (const { rows: r, end } of segs)
    for (const i of rowsHolding(r.id, ids)) {
      const a = r.at[i]!;
      if (!(a >= prev && a + r.len[i]! < end && a % 1 === 0)) return undefined;
      prev = a;
      if (a >= ws && places[places.length - 1]?.[0] !== a) places.push([a, r.len[i]!]);
    }
  const lines = places.map(([a, len]) => readRange(fd, a, len).toString('utf8'));
  if (tail !== undefined) lines.push(tail);
  return lines;
}
