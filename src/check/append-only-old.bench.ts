import { decodeUtf8, isJsonInteger, isJsonObject, parse } from '../canonical';

/**
 * Append-only history between two versions of one journal (a PR's base and head).
 *
 * The base's rows (its complete, `\n`-terminated lines) must be an exact byte prefix
 * of the head. Comparing bytes, not hashes, is the point: a history rewritten and
 * consistently re-hashed is internally valid and only this check catches it.
 * An unterminated fragment at the end of the base is not a row (a torn write the
 * journal repairs on its next append), so it is not required in the head.
 */
export type AppendOnlyKind = 'appended' | 'unchanged' | 'deleted' | 'truncated' | 'rewritten';

export interface AppendOnlyResult {
  ok: boolean;
  kind: AppendOnlyKind;
  /** Complete rows in the base. */
  baseRows: number;
  /** Rows in the head (complete lines). */
  headRows: number;
  /** Rows appended by the head (when ok). */
  appended: number;
  /** The seq of the first base row that is missing or changed (when not ok and not deleted). */
  firstChangedSeq: number | null;
  /** The 1-based line of that row: in the head when it still has the line, else the head's last line. */
  line: number | null;
  message: string;
}

function countLines(buf: Buffer, end: number): number {
  let n = 0;
  let i = buf.indexOf(0x0a);
  while (i >= 0 && i < end) {
    n++;
    i = buf.indexOf(0x0a, i + 1);
  }
  return n;
}

/** The seq a base line claims (falls back to its 0-based index for a line that does not parse). */
function seqOfLine(buf: Buffer, lineIndex: number, start: number): number {
  const nl = buf.indexOf(0x0a, start);
  const bytes = buf.subarray(start, nl < 0 ? buf.length : nl);
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
  return lineIndex;
}

function lineStart(buf: Buffer, offset: number): number {
  return offset === 0 ? 0 : buf.lastIndexOf(0x0a, offset - 1) + 1;
}

/** Compares a base version (bytes) with the head version (bytes, or undefined when the file is gone). */
/** `unit` names rows in messages: `seq` (per-step journals) or `index` (run journals). */
export function checkAppendOnly(
  base: Buffer,
  head: Buffer | undefined,
  unit: 'seq' | 'index' = 'seq',
): AppendOnlyResult {
  const baseEnd = base.lastIndexOf(0x0a) + 1; // end of the base's complete rows
  const baseRows = countLines(base, baseEnd);
  if (head === undefined) {
    return {
      ok: false,
      kind: 'deleted',
      baseRows,
      headRows: 0,
      appended: 0,
      firstChangedSeq: baseRows > 0 ? 0 : null,
      line: null,
      message: `journal deleted (the base has ${baseRows} row${baseRows === 1 ? '' : 's'})`,
    };
  }
  const headRows = countLines(head, head.length);
  const common = Math.min(baseEnd, head.length);
  let diff = -1;
  // Fast path: one native compare; only on a difference look for where.
  if (base.compare(head, 0, common, 0, common) !== 0) {
    let lo = 0;
    let hi = common;
    // Binary search on equal prefixes, in native compares.
    while (hi - lo > 1) {
      const mid = (lo + hi) >>> 1;
      if (base.compare(head, lo, mid, lo, mid) === 0) lo = mid;
      else hi = mid;
    }
    diff = lo;
  } else if (head.length < baseEnd) {
    diff = head.length;
  }
  if (diff < 0) {
    const appended = headRows - baseRows;
    return {
      ok: true,
      kind: appended > 0 || head.length > baseEnd ? 'appended' : 'unchanged',
      baseRows,
      headRows,
      appended,
      firstChangedSeq: null,
      line: null,
      message: appended > 0 ? `${appended} row${appended === 1 ? '' : 's'} appended` : 'unchanged',
    };
  }
  const start = lineStart(base, diff);
  const lineIndex = countLines(base, start);
  const seq = seqOfLine(base, lineIndex, start);
  const truncated = diff >= head.length && head.length < baseEnd;
  const headLines = headRows + (head.length > 0 && head[head.length - 1] !== 0x0a ? 1 : 0);
  const line = lineIndex < headLines ? lineIndex + 1 : headLines > 0 ? headLines : null;
  return {
    ok: false,
    kind: truncated ? 'truncated' : 'rewritten',
    baseRows,
    headRows,
    appended: 0,
    firstChangedSeq: seq,
    line,
    message: truncated
      ? `history truncated at ${unit} ${seq}: the base has ${baseRows} rows, the head ${headRows}`
      : `history rewritten from ${unit} ${seq} (line ${lineIndex + 1}): the base's rows are not a prefix of the head`,
  };
}
