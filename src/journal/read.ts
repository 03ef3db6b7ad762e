import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { decodeUtf8, isJsonObject, parse } from '../canonical';
import { InputError, IntegrityError, type ErrorFault } from '../errors';
import type { Fault } from './chain';
import { forEachReferenceLine, pyStrip } from './lines';
import type { ProgressFn } from './parallel';
import { fastRow, type RowSpans } from './fast-line';
import { readRowLine, rowFromValue, type LineRead, type RowView } from './row';
import type { RowIndex } from './stitch';
import {
  readJournalFile,
  verifyJournalBytesIndexed,
  verifyJournalFileIndexed,
  type JournalEntry,
  type ReadJournal,
  type VerifyOptions,
  type VerifyResult,
} from './verify';
import { READ_FLAGS } from '../util/nofollow';
import { pluralWord } from '../util/words';

/** A fault's message, a run's saying how many faults on which lines (for outputs that have no room for its range). */
export function faultMessage(f: Pick<Fault, 'line' | 'message' | 'last_line' | 'count'>): string {
  if (f.line === null || f.last_line === undefined || f.count === undefined) return f.message;
  return `${f.count.toLocaleString('en-US')} faults on lines ${f.line}-${f.last_line}, the first: ${f.message}`;
}

/** `file:line: kind: message` for one fault; a run reads `file:first-last: kind: N faults, the first: message`. */
export function describeFault(
  file: string,
  f: Pick<Fault, 'line' | 'message' | 'last_line' | 'count'> & { kind: string },
): string {
  if (f.line === null) return `${file}: ${f.kind}: ${f.message}`;
  if (f.last_line === undefined || f.count === undefined) return `${file}:${f.line}: ${f.kind}: ${f.message}`;
  return `${file}:${f.line}-${f.last_line}: ${f.kind}: ${f.count.toLocaleString('en-US')} faults on consecutive lines, the first: ${f.message}`;
}

/**
 * The fault lines to print for a result: one per listed entry (runs collapsed),
 * then one line counting what was left out. Bounded whatever the journal holds.
 */
export function describeFaults(file: string, r: Pick<VerifyResult, 'errors' | 'errors_omitted'>): string[] {
  const out = r.errors.map((f) => describeFault(file, f));
  if (r.errors_omitted > 0)
    out.push(
      `${file}: … and ${r.errors_omitted.toLocaleString('en-US')} more ${pluralWord(r.errors_omitted, 'fault')} not listed`,
    );
  return out;
}

/** The first fault, and how many more: one line for an IntegrityError. */
function firstFaultLine(file: string, r: VerifyResult): string {
  const first = r.errors[0]!;
  const more = r.fault_count - (first.count ?? 1);
  return `${describeFault(file, first)}${more > 0 ? ` (and ${more} more fault${more > 1 ? 's' : ''})` : ''}`;
}

/**
 * Reads a journal for display or use, whole: verified first, so a tampered chain
 * is never laid out as if it were intact. Throws IntegrityError naming the first
 * fault. For large journals, `openVerifiedSteps` reads only what is asked for.
 */
export function readVerifiedJournal(file: string, options: VerifyOptions = {}): ReadJournal {
  const r = readJournalFile(file, options);
  if (!r.ok) {
    const e = new IntegrityError(firstFaultLine(file, r));
    e.details = faultDetails(file, r);
    throw e;
  }
  return r;
}

/**
 * The steps `open` gives, or what `otherwise` makes of a chain that does not verify (the readers that go on without
 * it: a diff reads it whole, check's link sources call it unusable, a report window walks it); any other error is
 * thrown.
 */
export function verifiedOr<T>(
  open: () => VerifiedSteps,
  otherwise: (e: UnverifiedJournalError) => T,
): VerifiedSteps | T {
  try {
    return open();
  } catch (e) {
    if (e instanceof UnverifiedJournalError) return otherwise(e);
    throw e;
  }
}

/** Steps by seq: an array of entries, or a verified journal file read a window at a time. */
export interface StepList {
  readonly length: number;
  at(seq: number): JournalEntry | undefined;
  /** Steps [start, end), as `Array.prototype.slice`. */
  slice(start?: number, end?: number): JournalEntry[];
}

/** Rows are indexed every this many (per slice), and read (and cached) a block from one index point to the next. */
const BLOCK_ROWS = 256;
const CACHED_BLOCKS = 8;

/** A journal whose chain failed verification: the result, to print its faults. */
export class UnverifiedJournalError extends IntegrityError {
  override name = 'UnverifiedJournalError';
  constructor(
    readonly file: string,
    readonly result: VerifyResult,
  ) {
    super(firstFaultLine(file, result));
    this.details = faultDetails(file, result);
  }
}

/** A verify result's listed faults, for an error's `--json` document. */
function faultDetails(file: string, r: VerifyResult): ErrorFault[] {
  return r.errors.map((f) => ({ file, line: f.line, kind: f.kind, message: f.message }));
}

/**
 * A journal file verified once, on the fast (parallel) path, then read a block of
 * rows at a time on demand: memory stays independent of the journal's size
 * (docs/journal.md, "Reading windows"). Each row read is checked again against
 * what was verified (its seq, its own hash, its link to the row before in the
 * block), so a file changed in between is refused, never shown.
 */
export class VerifiedSteps implements StepList {
  readonly head_hash: string;
  readonly length: number;
  readonly result: VerifyResult;
  /** The rows' blob refs (first occurrence), when asked for. */
  readonly blobRefs: string[] | undefined;
  private readonly index: RowIndex;
  /** The file's size and number of lines (blank ones included) when it was verified. */
  readonly size: number;
  readonly lines: number;
  private readonly cache = new Map<number, { rows: JournalEntry[]; spans: number[] }>();
  /** Where blocks are read (rows keep copies of their bytes, never a view of it). */
  private scratch: Buffer | undefined;

  private constructor(
    /** The journal file, or what names journal bytes held in memory (a receipt's member) in messages. */
    readonly file: string,
    r: VerifyResult & { index?: RowIndex; size: number; lines: number; blob_refs?: string[] },
    /** The journal's bytes when they are held in memory (a receipt's journal), else read from `file`. */
    private readonly bytes?: Buffer,
  ) {
    this.result = r;
    this.head_hash = r.head_hash;
    this.length = r.steps;
    this.index = r.index!;
    this.size = r.size;
    this.lines = r.lines;
    this.blobRefs = r.blob_refs;
  }

  /** Verifies the file (throws UnverifiedJournalError when it does not hold). */
  static open(
    file: string,
    options: { onProgress?: ProgressFn; env?: NodeJS.ProcessEnv; collectRefs?: boolean } = {},
  ): VerifiedSteps {
    const r = verifyJournalFileIndexed(
      file,
      {
        indexEvery: BLOCK_ROWS,
        ...(options.collectRefs ? { collectRefs: true } : {}),
        ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
      },
      options.env,
    );
    if (!r.ok) throw new UnverifiedJournalError(file, r);
    return new VerifiedSteps(file, r);
  }

  /**
   * Journal bytes held in memory (a receipt's journal member), verified, then read a block at a time as a file is:
   * rows parsed only when asked for. `name` names them in messages (throws UnverifiedJournalError).
   */
  static fromBytes(bytes: Buffer, name: string, env?: NodeJS.ProcessEnv): VerifiedSteps {
    const r = verifyJournalBytesIndexed(bytes, BLOCK_ROWS, env);
    if (!r.ok) throw new UnverifiedJournalError(name, r);
    return new VerifiedSteps(name, r, bytes);
  }

  at(seq: number): JournalEntry | undefined {
    if (!Number.isInteger(seq) || seq < 0 || seq >= this.length) return undefined;
    const j = this.blockOf(seq);
    return this.block(j).rows[seq - this.index.points[j * 3]!];
  }

  /** Where a step's line lies in the file: its first byte, and the byte after its line ending. */
  span(seq: number): { start: number; next: number } {
    if (!Number.isInteger(seq) || seq < 0 || seq >= this.length) throw new RangeError(`no step ${seq}`);
    const j = this.blockOf(seq);
    const k = (seq - this.index.points[j * 3]!) * 2;
    const spans = this.block(j).spans;
    return { start: spans[k]!, next: spans[k + 1]! };
  }

  slice(start = 0, end = this.length): JournalEntry[] {
    const a = Math.max(0, start < 0 ? this.length + start : Math.min(start, this.length));
    const b = Math.max(a, end < 0 ? this.length + end : Math.min(end, this.length));
    const out: JournalEntry[] = [];
    for (let i = a; i < b; i++) out.push(this.at(i)!);
    return out;
  }

  /** The index point at or before a row (points start blocks of at most BLOCK_ROWS rows). */
  private blockOf(seq: number): number {
    const p = this.index.points;
    let lo = 0;
    let hi = p.length / 3 - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (p[mid * 3]! <= seq) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** The rows of block j (from index point j to the next), read, checked and kept (CACHED_BLOCKS of them). */
  private block(j: number): { rows: JournalEntry[]; spans: number[] } {
    const hit = this.cache.get(j);
    if (hit !== undefined) {
      this.cache.delete(j);
      this.cache.set(j, hit);
      return hit;
    }
    const rows = this.readBlock(j, takeEntry);
    this.cache.set(j, rows);
    if (this.cache.size > CACHED_BLOCKS) this.cache.delete(this.cache.keys().next().value!);
    return rows;
  }

  /**
   * The marks of each step from `from` on, in order, a block at a time (nothing kept): each row checked as `at`
   * checks it, a canonical one never parsed. What a comparison of two whole journals reads (diff, blame).
   */
  *marks(from = 0): Generator<StepMarks, void, undefined> {
    if (!Number.isInteger(from) || from >= this.length) return;
    const blocks = this.index.points.length / 3;
    for (let j = this.blockOf(Math.max(0, from)); j < blocks; j++) {
      for (const m of this.readBlock(j, takeMarks).rows) if (m.seq >= from) yield m;
    }
  }

  /**
   * Each step from `from` on, in order, a block at a time (nothing kept), as a rewrite of it needs it: a canonical
   * line as its text and where its values lie (never parsed), anything else parsed. Checked as `at` checks a row.
   */
  *rewritable(from = 0): Generator<RewritableRow, void, undefined> {
    if (!Number.isInteger(from) || from >= this.length) return;
    const blocks = this.index.points.length / 3;
    for (let j = this.blockOf(Math.max(0, from)); j < blocks; j++) {
      for (const r of this.readBlock(j, takeRewritable).rows) if (r.seq >= from) yield r;
    }
  }

  /** Block j's rows, each taken by `take`, checked against the verified links at its ends. */
  private readBlock<T>(j: number, take: Take<T>): { rows: T[]; spans: number[] } {
    const p = this.index.points;
    const first = p[j * 3]!;
    const last = j + 1 < p.length / 3 ? p[(j + 1) * 3]! : this.length;
    // The block must run from the verified link before it to the verified link after it.
    const before = this.index.prevs[j]!;
    const after = j + 1 < this.index.prevs.length ? this.index.prevs[j + 1]! : this.head_hash;
    // The block's bytes end where the next block starts (each index point is a line's first byte).
    const end = j + 1 < p.length / 3 ? p[(j + 1) * 3 + 1]! : this.size;
    return this.readRows(take, p[j * 3 + 1]!, end, p[j * 3 + 2]!, first, last - first, before, after);
  }

  private changed(detail: string): never {
    throw new IntegrityError(`${this.file}: the journal changed since it was verified (${detail}); verify it again`);
  }

  /**
   * Reads `want` rows from `offset` to `end` (line `line`, row `seq`), checking each against the verified chain.
   * Only the block's own bytes are read, into a buffer kept from block to block (a fresh megabyte for each block of
   * 256 rows, read whole, was most of a block's cost on a VM: 376 of 3,300 ms of a 20,000-step publish).
   */
  private readRows<T>(
    take: Take<T>,
    offset: number,
    end: number,
    line: number,
    seq: number,
    want: number,
    before: string,
    after: string,
  ): { rows: T[]; spans: number[] } {
    const out: T[] = [];
    const spans: number[] = [];
    let last: string | undefined;
    const held = this.bytes;
    let fd = -1;
    if (held === undefined) {
      try {
        fd = openSync(this.file, READ_FLAGS);
      } catch (e) {
        // Gone, or a link now in its place (never followed): what verified there is not there any more.
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') this.changed('it is gone');
        if (code === 'ELOOP') this.changed('it is now a symbolic link, never followed');
        throw new InputError(`${this.file}: cannot read: ${code ?? (e as Error).message}`);
      }
    }
    const readAt = (into: Buffer, length: number, position: number): number => {
      if (held !== undefined) return held.copy(into, 0, position, position + length);
      try {
        return readAll(fd, into, length, position);
      } catch (e) {
        // An OS error, named by its file (a bare "cannot read: EIO" says nothing of which side of a diff).
        throw new InputError(`${this.file}: cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
    };
    try {
      // The path is opened again for each block: what was verified there may have been replaced since by a FIFO, a
      // directory or a device, which a positioned read fails on with a bare ESPIPE / EISDIR (or blocks on).
      if (fd >= 0 && !fstatSync(fd).isFile()) this.changed('it is no longer a regular file');
      const size = Math.min(1 << 20, Math.max(1, end - offset));
      if (this.scratch === undefined || this.scratch.length < size) this.scratch = Buffer.allocUnsafe(size);
      let buf = this.scratch;
      let pos = offset;
      let lineNo = line - 1;
      while (out.length < want && pos < end) {
        const len = Math.min(buf.length, end - pos);
        const got = readAt(buf, len, pos);
        if (got === 0) this.changed('it is shorter');
        const atEnd = pos + got >= end;
        let usable = got;
        if (!atEnd) {
          const nl = buf.lastIndexOf(0x0a, got - 1);
          if (nl < 0) {
            buf = this.scratch = Buffer.allocUnsafe(buf.length * 2); // one line longer than the buffer
            continue;
          }
          usable = nl + 1;
        }
        forEachReferenceLine(buf, 0, usable, (s, e, next) => {
          lineNo++;
          if (out.length >= want) return;
          const got = take(buf, s, e, lineNo);
          if (got === 'blank') return;
          if (got === undefined) return this.changed(`line ${lineNo} is no row`);
          const v = got.view;
          if (v.seq !== seq + out.length || v.computedHash !== v.step_hash)
            return this.changed(`line ${lineNo} is not the row verified there`);
          if (v.prev_hash !== (last === undefined ? before : last))
            return this.changed(`line ${lineNo} does not link to the row before`);
          last = v.step_hash;
          out.push(got.item);
          spans.push(pos + s, pos + next);
        });
        pos += usable;
      }
      if (out.length < want) this.changed('rows are missing');
      if (last !== after) this.changed('a block of rows does not end where verified');
      return { rows: out, spans };
    } finally {
      if (fd >= 0) closeSync(fd);
    }
  }
}

/**
 * One line for display: a canonical row (the fast path's check) is only parsed,
 * its hash taken from its bytes; anything else is read losslessly.
 */
function readLine(buf: Buffer, s: number, e: number): LineRead {
  const fast = e - s > 0 && e - s < 1 << 28 ? fastRow(buf.toString('latin1', s, e), 0, e - s) : undefined;
  if (fast === undefined) return readRowLine(buf.subarray(s, e));
  const value = parse(buf.toString('latin1', s, e));
  if (!isJsonObject(value)) return readRowLine(buf.subarray(s, e));
  return rowFromValue(value, undefined, { computedHash: fast.computedHash, canonical: true });
}

/** What a block read takes of a line: the fields its checks read and what it keeps, 'blank', or undefined (no row). */
type Take<T> = (
  buf: Buffer,
  s: number,
  e: number,
  line: number,
) => { view: Pick<RowView, 'seq' | 'prev_hash' | 'step_hash' | 'computedHash'>; item: T } | 'blank' | undefined;

/** A row for display: parsed, with a copy of its bytes (the stripped text of a line that is not canonical). */
const takeEntry: Take<JournalEntry> = (buf, s, e, line) => {
  const read = readLine(buf, s, e);
  if (read.kind === 'blank') return 'blank';
  if (read.kind !== 'row' || read.row === undefined) return undefined;
  const bytes = buf.subarray(s, e);
  return {
    view: read.view,
    item: {
      line,
      row: read.row,
      bytes: read.canonical ? Buffer.from(bytes) : Buffer.from(pyStrip(decodeUtf8(bytes)), 'utf8'),
      canonical: read.canonical,
    },
  };
};

/** What two journals are compared by, row by row, without parsing either: a step's stored hash and its blob refs. */
export interface StepMarks {
  /** 1-based line of the file. */
  line: number;
  seq: number;
  step_hash: string;
  /** Not hashed: compared on their own. */
  blob_refs: string[];
  ts: number;
}

/**
 * A row's marks: a canonical line by the fast path alone (its refs collected as it checks them; `ts`, the row's
 * last key, read from the line's end: a nested "ts" key lies before it), anything else parsed.
 */
const takeMarks: Take<StepMarks> = (buf, s, e, line) => {
  if (e - s > 0 && e - s < 1 << 28) {
    const text = buf.toString('latin1', s, e);
    const refs: string[] = [];
    const fast = fastRow(text, 0, e - s, undefined, refs);
    if (fast !== undefined) {
      const ts = Number(text.slice(text.lastIndexOf(',"ts":') + 6, -1));
      return { view: fast, item: { line, seq: fast.seq, step_hash: fast.step_hash, blob_refs: refs, ts } };
    }
  }
  const read = readRowLine(buf.subarray(s, e));
  if (read.kind === 'blank') return 'blank';
  if (read.kind !== 'row' || read.row === undefined) return undefined;
  const { seq, step_hash, blob_refs, ts } = read.row;
  return { view: read.view, item: { line, seq, step_hash, blob_refs, ts } };
};

/**
 * A step as a rewrite reads it (publish, `replay --json`, a fork's prefix): a canonical line's text (ASCII, so its
 * characters are its bytes) with the spans of its values, each already its field's canonical encoding, its hash and
 * its blob refs; or, for a line that is not canonical, the entry `at` gives.
 */
export type RewritableRow =
  | { seq: number; step_hash: string; blob_refs: string[]; text: string; spans: RowSpans }
  | { seq: number; entry: JournalEntry };

const takeRewritable: Take<RewritableRow> = (buf, s, e, line) => {
  if (e - s > 0 && e - s < 1 << 28) {
    const text = buf.toString('latin1', s, e);
    const spans = {} as RowSpans;
    const blob_refs: string[] = [];
    const fast = fastRow(text, 0, e - s, undefined, blob_refs, spans);
    if (fast !== undefined)
      return { view: fast, item: { seq: fast.seq, step_hash: fast.step_hash, blob_refs, text, spans } };
  }
  const got = takeEntry(buf, s, e, line);
  if (got === 'blank' || got === undefined) return got;
  return { view: got.view, item: { seq: got.item.row.seq, entry: got.item } };
};

function readAll(fd: number, buf: Buffer, length: number, position: number): number {
  let off = 0;
  while (off < length) {
    const n = readSync(fd, buf, off, length - off, position + off);
    if (n === 0) break;
    off += n;
  }
  return off;
}

/** Steps `[a..b]` (inclusive, 0-based seqs) of a verified journal, read without loading the rest. */
export function readWindow(file: string, a: number, b: number): JournalEntry[] {
  if (!Number.isInteger(a) || !Number.isInteger(b) || a < 0 || b < a)
    throw new InputError(`bad step window [${a}..${b}]`);
  const steps = VerifiedSteps.open(file);
  if (b >= steps.length)
    throw new InputError(
      `${file}: step ${b} is out of range (the journal has ${steps.length} steps, 0..${steps.length - 1})`,
    );
  return steps.slice(a, b + 1);
}

/** One step of a verified journal. */
export function readStep(file: string, seq: number): JournalEntry {
  return readWindow(file, seq, seq)[0]!;
}

/** The verified head hash. */
export function journalHead(file: string): string {
  const r = VerifiedSteps.open(file);
  return r.head_hash;
}
