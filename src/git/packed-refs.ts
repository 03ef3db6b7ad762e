import { closeSync, lstatSync, readSync } from 'node:fs';
import path from 'node:path';
import { openRegularFile, readPieces } from '../util/nofollow';
import { noteBranch } from '../util/code-branches';

/**
 * Refs looked up in a repository's `packed-refs` the way git looks one up (refs/packed-backend.c), reading only what
 * the lookup needs. After `git gc` (which git runs by itself once enough loose objects pile up, a few thousand steps
 * into a session) every snapshot ref of a session is in that file, and an agent's hook asks it for a few refs on
 * every tool call: read whole and scanned, a 10,000-step session's file (~1 MB) cost a hook call ~60 ms.
 *
 * In a file whose header names the `sorted` trait (every git since 2.15 writes it), a ref is found by git's own
 * binary search over the file's records (`find_reference_location`), a few 4 KB pages read for it. git trusts that
 * trait, and this follows git's search step by step, so it gives git's answer even for a file that claims an order
 * it does not have. A file without the trait is read whole (as git reads it to sort it) and used only when its
 * records are well formed and already in order; otherwise nothing is told (`undefined`) and the caller runs git.
 * Likewise for anything git would die on (a header of another kind, a last line that is no record) or a record of
 * the search that is not `<40 hex> <name>`.
 *
 * Nothing is read through a link; a FIFO, a device or a directory in the file's place throws (openRegularFile).
 */

const NL = 0x0a;
const PEEL = 0x5e; // '^'
const HEX_LENGTH = 40;
const PAGE = 4096;
/** The longest record line looked at (a ref name is at most a path); a longer one is not told. */
const MAX_LINE = 64 * 1024;
/** The largest file without the `sorted` trait read whole (as repo-read and loose did): ~4 million refs. */
const MAX_WHOLE_BYTES = 256 * 1024 * 1024;
const HEADER = '# pack-refs with:';
const RECORD = /^[0-9a-f]{40} /;
const PEEL_LINE = /^\^[0-9a-f]{40}$/;

/**
 * The bytes of the file: pages read on demand, or the whole file. A search looks at a few lines, found with
 * indexOf within a page (the hook runs this once per process, interpreted: a byte at a time it cost ~4 ms).
 */
interface Bytes {
  readonly size: number;
  at(pos: number): number;
  /** The first newline in [from, end), or -1. */
  nextNewline(from: number, end: number): number;
  /** The last newline in [lo, before), or -1. */
  lastNewline(lo: number, before: number): number;
  /** The bytes [from, to) as latin1 (a byte a character). */
  text(from: number, to: number): string;
}

class PagedBytes implements Bytes {
  private readonly pages = new Map<number, Buffer>();
  constructor(
    private readonly fd: number,
    readonly size: number,
  ) {}
  private page(n: number): Buffer {
    let page = this.pages.get(n);
    if (page === undefined) {
      page = Buffer.allocUnsafe(Math.min(PAGE, this.size - n * PAGE));
      let got = 0;
      while (got < page.length) {
        const k = readSync(this.fd, page, got, page.length - got, n * PAGE + got);
        if (k === 0) throw new Error('packed-refs: shorter than it was when opened');
        got += k;
      }
      this.pages.set(n, page);
    }
    return page;
  }
  at(pos: number): number {
    return this.page(Math.floor(pos / PAGE))[pos % PAGE]!;
  }
  nextNewline(from: number, end: number): number {
    for (let n = Math.floor(from / PAGE); n * PAGE < end; n++) {
      const i = this.page(n).indexOf(NL, Math.max(0, from - n * PAGE));
      if (i >= 0) return n * PAGE + i < end ? n * PAGE + i : -1;
    }
    return -1;
  }
  lastNewline(lo: number, before: number): number {
    if (before <= lo) return -1;
    for (let n = Math.floor((before - 1) / PAGE); n >= 0 && (n + 1) * PAGE > lo; n--) {
      const i = this.page(n).lastIndexOf(NL, Math.min(PAGE - 1, before - 1 - n * PAGE));
      if (i >= 0) return n * PAGE + i >= lo ? n * PAGE + i : -1;
    }
    return -1;
  }
  text(from: number, to: number): string {
    let s = '';
    for (let n = Math.floor(from / PAGE); n * PAGE < to; n++)
      s += this.page(n).toString('latin1', Math.max(0, from - n * PAGE), Math.min(PAGE, to - n * PAGE));
    return s;
  }
}

class WholeBytes implements Bytes {
  constructor(private readonly buf: Buffer) {}
  get size(): number {
    return this.buf.length;
  }
  at(pos: number): number {
    return this.buf[pos]!;
  }
  nextNewline(from: number, end: number): number {
    const i = this.buf.indexOf(NL, from);
    return i >= 0 && i < end ? i : -1;
  }
  lastNewline(lo: number, before: number): number {
    if (before <= lo) return -1;
    const i = this.buf.lastIndexOf(NL, before - 1);
    return i >= lo ? i : -1;
  }
  text(from: number, to: number): string {
    return this.buf.toString('latin1', from, to);
  }
}

/** Names as git compares them: their bytes (a name in a record is read a byte a character, latin1). */
export const refBytes = (name: string): string => Buffer.from(name, 'utf8').toString('latin1');

/** A repository's `packed-refs`, open for lookups; `close` when done. */
export class PackedRefs {
  private constructor(
    private readonly bytes: Bytes,
    /** Where the records start (after the header line). */
    private readonly start: number,
    private readonly fd: number | undefined,
  ) {}

  /**
   * The `packed-refs` of the repository whose common git dir is `commonDir`: null when there is none, undefined
   * when it cannot be read as git reads it (then nothing can be told of it; git decides). Throws as
   * openRegularFile does for a link or anything but a regular file in its place.
   */
  static open(commonDir: string): PackedRefs | null | undefined {
    const file = path.join(commonDir, 'packed-refs');
    const opened = openRegularFile(file);
    if (opened === undefined) return null;
    noteBranch('packed');
    const { fd, size } = opened;
    let keep = false;
    try {
      const paged = new PagedBytes(fd, size);
      const start = headerEnd(paged);
      if (start === undefined || !lastLineIsRecord(paged, start)) return undefined;
      if (sortedTrait(paged, start)) {
        keep = true;
        return new PackedRefs(paged, start, fd);
      }
      // git sorts a file without the trait before it looks in it; this reads one only when it needs no sorting.
      if (size > MAX_WHOLE_BYTES) return undefined;
      const whole = new WholeBytes(readPieces(fd, size));
      return inOrder(whole, start) ? new PackedRefs(whole, start, undefined) : undefined;
    } finally {
      if (!keep) closeSync(fd);
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
  }

  /** The object id `ref` names here: null when no record names it, undefined when its record is malformed. */
  find(ref: string): string | null | undefined {
    const want = refBytes(ref);
    const at = this.locate(want, true);
    if (at === undefined) return undefined;
    if (at < 0) return null;
    return this.record(at)?.oid;
  }

  /** Whether any ref here is named `prefix...` (`prefix` ends with `/`); undefined when that cannot be told. */
  anyUnder(prefix: string): boolean | undefined {
    const want = refBytes(prefix);
    const at = this.locate(want, false);
    if (at === undefined) return undefined;
    if (at >= this.bytes.size) return false;
    const r = this.record(at);
    return r === undefined ? undefined : r.name.startsWith(want);
  }

  /**
   * git's `find_reference_location`: the start of the record named `want` (or -1 when there is none) with `exact`;
   * without, where a record named `want` would go (the first record whose name sorts after a name `want` begins).
   * Undefined when a record it compares is not `<40 hex> <name>`.
   */
  private locate(want: string, exact: boolean): number | undefined {
    let lo = this.start;
    let hi = this.bytes.size;
    while (lo < hi) {
      const mid = lo + Math.floor((hi - lo) / 2);
      const rec = this.startOfRecord(lo, mid);
      const r = this.record(rec);
      if (r === undefined) return undefined;
      const cmp = compareName(r.name, want);
      if (cmp < 0) lo = this.endOfRecord(mid, hi);
      else if (cmp > 0) hi = rec;
      else return rec;
    }
    return exact ? -1 : lo;
  }

  /**
   * git's `find_start_of_record` (`while (p > lo && (p[-1] != '\\n' || p[0] == '^')) p--`): back to the start of
   * the line holding `p`, and past any peel line; a line at a time.
   */
  private startOfRecord(lo: number, p: number): number {
    return startOfRecord(this.bytes, lo, p);
  }

  /**
   * git's `find_end_of_record` (`while (++p < end && (p[-1] != '\\n' || p[0] == '^'));`): past the end of the
   * line holding `p`, and past any peel line after it; a line at a time.
   */
  private endOfRecord(p: number, end: number): number {
    const b = this.bytes;
    p++;
    while (p < end) {
      if (b.at(p - 1) !== NL) {
        const nl = b.nextNewline(p - 1, end);
        if (nl < 0) return end;
        p = nl + 1;
        continue;
      }
      if (b.at(p) !== PEEL) return p;
      p++;
    }
    return p;
  }

  /** The record whose line starts at `at`: its object id and name (bytes as latin1), or undefined if malformed. */
  private record(at: number): { oid: string; name: string } | undefined {
    const end = lineEnd(this.bytes, at);
    if (end === undefined) return undefined;
    const line = this.bytes.text(at, end);
    return RECORD.test(line) ? { oid: line.slice(0, HEX_LENGTH), name: line.slice(HEX_LENGTH + 1) } : undefined;
  }
}

/**
 * git's `cmp_record_to_refname` (looking for a record's start): a name that `want` begins sorts after it, so a
 * search for a prefix ends at the first name under it.
 */
function compareName(name: string, want: string): number {
  if (name === want) return 0;
  if (name.startsWith(want)) return 1;
  return name < want ? -1 : 1;
}

/** See PackedRefs.startOfRecord. */
function startOfRecord(b: Bytes, lo: number, p: number): number {
  while (p > lo) {
    if (b.at(p - 1) === NL) {
      if (b.at(p) !== PEEL) return p;
      p--;
      continue;
    }
    const nl = b.lastNewline(lo, p - 1);
    p = nl < 0 ? lo : nl + 1;
  }
  return p;
}

/** Where the line starting at `at` ends (its newline); undefined past MAX_LINE or without one. */
function lineEnd(b: Bytes, at: number): number | undefined {
  const nl = b.nextNewline(at, Math.min(b.size, at + MAX_LINE));
  return nl < 0 ? undefined : nl;
}

/** Where the records start: after git's header line, if the file has one; undefined for a `#` line git refuses. */
function headerEnd(b: Bytes): number | undefined {
  if (b.size === 0 || b.at(0) !== 0x23) return 0;
  const end = lineEnd(b, 0);
  if (end === undefined || !b.text(0, end).startsWith(HEADER)) return undefined;
  return end + 1;
}

/** Whether the header names the `sorted` trait. */
function sortedTrait(b: Bytes, start: number): boolean {
  return start > 0 && headerSaysSorted(b.text(0, start - 1));
}

/** Whether a header line (`# pack-refs with: ...`, no newline) names git's `sorted` trait (git splits at spaces). */
export function headerSaysSorted(header: string): boolean {
  return header.startsWith(HEADER) && header.slice(HEADER.length).split(' ').includes('sorted');
}

/** git's `verify_buffer_safe`: the file ends with a newline and its last record is long enough to be one. */
function lastLineIsRecord(b: Bytes, start: number): boolean {
  if (b.size === start) return true;
  if (b.at(b.size - 1) !== NL) return false;
  return b.size - startOfRecord(b, start, b.size - 1) >= HEX_LENGTH + 2;
}

/** A file without the `sorted` trait is used only when it needs no sorting (orderedRecords). */
function inOrder(b: WholeBytes, start: number): boolean {
  return orderedRecords(b.text(start, b.size)) !== undefined;
}

/** A record of `packed-refs`: its name (bytes as latin1) and its lines as they are (the record, any peel line). */
export interface PackedRecord {
  name: string;
  lines: string;
}

/**
 * The records of `body` (what follows the header line: lines each ending with a newline, or nothing), when every
 * line is a record `<40 hex> <name>` or one peel line after one, and the names strictly increase; undefined
 * otherwise. A name is not empty: git's `sort_snapshot` dies on a record line shorter than `<40 hex> <one byte>`
 * (`<oid> ` alone), wherever it is in the file. The one reading of a whole file, for the lookups of a file without
 * the `sorted` trait and for the rewrites of ./packed-refs-write.ts.
 */
export function orderedRecords(body: string): PackedRecord[] | undefined {
  if (body !== '' && !body.endsWith('\n')) return undefined;
  const lines = body === '' ? [] : body.slice(0, -1).split('\n');
  const records: PackedRecord[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!RECORD.test(line)) return undefined;
    const name = line.slice(HEX_LENGTH + 1);
    if (name === '' || (records.length > 0 && !(records.at(-1)!.name < name))) return undefined;
    let own = `${line}\n`;
    if (i + 1 < lines.length && PEEL_LINE.test(lines[i + 1]!)) own += `${lines[++i]}\n`;
    records.push({ name, lines: own });
  }
  return records;
}

/** Looks something up in the `packed-refs` of `commonDir`, closing it after; `none` when there is no such file. */
export function withPackedRefs<T>(commonDir: string, none: T, use: (p: PackedRefs) => T): T | undefined {
  const p = PackedRefs.open(commonDir);
  if (p === null) return none;
  if (p === undefined) return undefined;
  try {
    return use(p);
  } finally {
    p.close();
  }
}

/**
 * Whether git, reading `ref`, goes on to `packed-refs`: only when lstat says its loose file does not exist
 * (ENOENT; files_read_raw_ref). A file where one of its directories should be (ENOTDIR), a name too long
 * (ENAMETOOLONG): git's read fails there and the ref is not found, whatever `packed-refs` holds.
 */
export function looseMissing(commonDir: string, ref: string): boolean {
  try {
    return lstatSync(path.join(commonDir, ref), { throwIfNoEntry: false }) === undefined;
  } catch {
    return false;
  }
}
