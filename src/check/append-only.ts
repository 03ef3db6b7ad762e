import { decodeUtf8, isJsonInteger, isJsonObject, parse } from '../canonical';
import { parsesAsJson } from '../journal/json-syntax';
import { forEachReferenceLine, strippedLine, stripsNothing } from '../journal/lines';
import { plural } from '../util/words';

/**
 * Append-only history between two versions of one journal (a PR's base and head).
 *
 * Both versions are read as the verifier reads them (docs/journal.md, "Reading
 * rules": lines end at `\n`, `\r\n` or a bare `\r`, each is stripped, blank ones
 * are skipped), and every row of the base must be byte-identical to the row at
 * the same position in the head, wherever either's line ends. Comparing what the
 * verifier reads, not a byte prefix, is the point: a byte prefix cut at the
 * base's last `\n` let a base row ended by a bare `\r`, or a last row without its
 * newline, be rewritten unseen. Comparing bytes, not hashes: a history rewritten
 * and consistently re-hashed is internally valid and only this check catches it.
 *
 * A final line that does not parse as JSON is not a row (a torn write, which
 * the journal moves aside on its next append), so it is not required in the head.
 */
export type AppendOnlyKind = 'appended' | 'unchanged' | 'deleted' | 'truncated' | 'rewritten';

export interface AppendOnlyResult {
  ok: boolean;
  kind: AppendOnlyKind;
  /** Rows in the base (lines the verifier reads, blank ones and a torn tail left out). */
  baseRows: number;
  /** Rows in the head, counted the same way. */
  headRows: number;
  /** Rows appended by the head (when ok). */
  appended: number;
  /** The seq of the first base row that is missing or changed (when not ok and not deleted). */
  firstChangedSeq: number | null;
  /** The 1-based line of that row's position in the head, else the head's last row's line. */
  line: number | null;
  message: string;
}

/**
 * A line that is no JSON at all, as a write killed mid-row leaves it: to the
 * recovery's grammar check (`parsesAsJson`, what decides a torn tail) and to the
 * verifier's own parser alike. Either accepting it makes it a row (or a tamper)
 * that must stay (two readers of one grammar asked: a line neither reads is torn).
 */
function isTornLine(bytes: Buffer): boolean {
  if (parsesAsJson(bytes)) return false;
  try {
    parse(decodeUtf8(bytes));
    return false;
  } catch {
    return true;
  }
}

/**
 * The lines of a version the verifier reads (not blank), in its own framing
 * (`forEachReferenceLine`, then `str.strip()` as `strippedLine` does): where each
 * lies in `buf` (stripped), or its stripped copy when stripping changed it. Kept
 * as offsets, not a buffer per line: a journal of millions of rows is compared
 * without allocating for each.
 */
class ReadLines {
  readonly starts: number[] = [];
  readonly ends: number[] = [];
  /** 1-based line numbers, blank lines counted (the verifier's). */
  readonly lines: number[] = [];
  /** Stripped copies, by position, for the lines stripping changed. */
  private readonly copies = new Map<number, Buffer>();

  constructor(readonly buf: Buffer) {}

  /** Reads every line of `buf`. */
  static of(buf: Buffer): ReadLines {
    const r = new ReadLines(buf);
    let line = 0;
    forEachReferenceLine(buf, 0, buf.length, (start, end) => {
      line++;
      if (start === end) return;
      if (stripsNothing(buf, start, end)) return r.push(start, end, line);
      const raw = buf.subarray(start, end);
      const bytes = strippedLine(raw);
      if (bytes === undefined) return;
      if (bytes !== raw) r.copies.set(r.starts.length, bytes);
      r.push(start, end, line);
    });
    return r;
  }

  private push(start: number, end: number, line: number): void {
    this.starts.push(start);
    this.ends.push(end);
    this.lines.push(line);
  }

  get length(): number {
    return this.starts.length;
  }

  /** The stripped bytes of line `i`. */
  bytes(i: number): Buffer {
    return this.copies.get(i) ?? this.buf.subarray(this.starts[i]!, this.ends[i]!);
  }

  /** Line `i` here holds exactly line `j` of `other`. */
  same(i: number, other: ReadLines, j: number): boolean {
    const a = this.copies.get(i);
    const b = other.copies.get(j);
    if (a === undefined && b === undefined)
      return (
        this.ends[i]! - this.starts[i]! === other.ends[j]! - other.starts[j]! &&
        this.buf.compare(other.buf, other.starts[j]!, other.ends[j]!, this.starts[i]!, this.ends[i]!) === 0
      );
    return this.bytes(i).equals(other.bytes(j));
  }

  /** How many are rows: all but a torn last line (one that does not parse as JSON, which the next append moves aside). */
  rows(): number {
    const n = this.length;
    return n > 0 && isTornLine(this.bytes(n - 1)) ? n - 1 : n;
  }
}

/** The seq a base row claims (falls back to its 0-based position for a row that does not parse). */
function seqOfRow(bytes: Buffer, position: number): number {
  try {
    const v = parse(decodeUtf8(bytes));
    if (isJsonObject(v)) {
      // Per-step rows carry `seq`, run-journal rows `index`.
      const s = v['seq'] ?? v['index'];
      if (isJsonInteger(s) && typeof s === 'number') return s;
    }
  } catch {
    /* not a row: fall back to the position */
  }
  return position;
}

/**
 * The head starts with the base's bytes, which end with a `\n` (or are empty):
 * then the base's lines are the head's first lines byte for byte, whatever the
 * reader makes of them (the common case: a journal only appended to).
 */
function extendsBytes(base: Buffer, head: Buffer): boolean {
  return (
    base.length <= head.length &&
    (base.length === 0 || base[base.length - 1] === 0x0a) &&
    head.compare(base, 0, base.length, 0, base.length) === 0
  );
}

/** `checkAppendOnly` when `extendsBytes` holds: one walk of the head says what both hold. */
function appendedBytes(base: Buffer, head: Buffer): AppendOnlyResult {
  const now = ReadLines.of(head);
  // The head's lines that start inside the base are the base's lines.
  let lo = 0;
  let hi = now.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (now.starts[mid]! < base.length) lo = mid + 1;
    else hi = mid;
  }
  const baseRows = lo > 0 && isTornLine(now.bytes(lo - 1)) ? lo - 1 : lo;
  const appended = now.rows() - baseRows;
  return {
    ok: true,
    kind: appended > 0 ? 'appended' : 'unchanged',
    baseRows,
    headRows: now.rows(),
    appended,
    firstChangedSeq: null,
    line: null,
    message: appended > 0 ? `${plural(appended, 'row')} appended` : 'unchanged',
  };
}

/** Compares a base version (bytes) with the head version (bytes, or undefined when the file is gone). */
/** `unit` names rows in messages: `seq` (per-step journals) or `index` (run journals). */
export function checkAppendOnly(
  base: Buffer,
  head: Buffer | undefined,
  unit: 'seq' | 'index' = 'seq',
): AppendOnlyResult {
  if (head !== undefined && extendsBytes(base, head)) return appendedBytes(base, head);
  const was = ReadLines.of(base);
  const baseRows = was.rows();
  if (head === undefined) {
    return {
      ok: false,
      kind: 'deleted',
      baseRows,
      headRows: 0,
      appended: 0,
      firstChangedSeq: baseRows > 0 ? 0 : null,
      line: null,
      message: `journal deleted (the base has ${plural(baseRows, 'row')})`,
    };
  }
  // The head's lines are compared as they are (a torn last line where a row was is a rewrite), and counted
  // without a torn tail.
  const now = ReadLines.of(head);
  const headRows = now.rows();
  let i = 0;
  while (i < baseRows && i < now.length && was.same(i, now, i)) i++;
  if (i === baseRows) {
    const appended = headRows - baseRows;
    return {
      ok: true,
      kind: appended > 0 ? 'appended' : 'unchanged',
      baseRows,
      headRows,
      appended,
      firstChangedSeq: null,
      line: null,
      message: appended > 0 ? `${plural(appended, 'row')} appended` : 'unchanged',
    };
  }
  const seq = seqOfRow(was.bytes(i), i);
  const truncated = i >= now.length;
  return {
    ok: false,
    kind: truncated ? 'truncated' : 'rewritten',
    baseRows,
    headRows,
    appended: 0,
    firstChangedSeq: seq,
    line: truncated ? (now.length > 0 ? now.lines[now.length - 1]! : null) : now.lines[i]!,
    message: truncated
      ? `history truncated at ${unit} ${seq}: the base has ${plural(baseRows, 'row')}, the head ${headRows}`
      : `history rewritten from ${unit} ${seq} (line ${was.lines[i]!}): the base's rows are not a prefix of the head's`,
  };
}
