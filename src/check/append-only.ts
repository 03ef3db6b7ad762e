import { decodeUtf8, isJsonInteger, isJsonObject, parse } from '../canonical';
import { parsesAsJson } from '../journal/json-syntax';
import { forEachReferenceLine, strippedLine } from '../journal/lines';

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

/** A line the verifier reads (not blank): its stripped bytes and its 1-based line number (blank lines counted). */
interface ReadLine {
  bytes: Buffer;
  line: number;
}

/**
 * The lines of `buf` the verifier reads, in its own framing (`forEachReferenceLine`,
 * `strippedLine`), one `\n`-delimited segment at a time so memory stays bounded.
 */
function* readLines(buf: Buffer): Generator<ReadLine, void, undefined> {
  const pending: ReadLine[] = [];
  let line = 0;
  for (let pos = 0; pos < buf.length;) {
    const nl = buf.indexOf(0x0a, pos);
    const to = nl < 0 ? buf.length : nl + 1;
    forEachReferenceLine(buf, pos, to, (start, end) => {
      line++;
      const bytes = strippedLine(buf.subarray(start, end));
      if (bytes !== undefined) pending.push({ bytes, line });
    });
    pos = to;
    yield* pending;
    pending.length = 0;
  }
}

/** The rows of `buf`: its read lines without a torn tail (a final line that does not parse as JSON). */
function* rowsOf(buf: Buffer): Generator<ReadLine, void, undefined> {
  let held: ReadLine | undefined;
  for (const l of readLines(buf)) {
    if (held !== undefined) yield held;
    held = l;
  }
  if (held !== undefined && parsesAsJson(held.bytes)) yield held;
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

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Compares a base version (bytes) with the head version (bytes, or undefined when the file is gone). */
/** `unit` names rows in messages: `seq` (per-step journals) or `index` (run journals). */
export function checkAppendOnly(
  base: Buffer,
  head: Buffer | undefined,
  unit: 'seq' | 'index' = 'seq',
): AppendOnlyResult {
  if (head === undefined) {
    let baseRows = 0;
    for (const _ of rowsOf(base)) baseRows++;
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
  const heads = readLines(head);
  let headLines = 0;
  let lastHead: ReadLine | undefined;
  const take = (): ReadLine | undefined => {
    const h = heads.next();
    if (h.done === true) return undefined;
    headLines++;
    lastHead = h.value;
    return h.value;
  };
  let baseRows = 0;
  let changed: { row: ReadLine; position: number; at: ReadLine | undefined } | undefined;
  for (const b of rowsOf(base)) {
    const at = take();
    if (at === undefined || !at.bytes.equals(b.bytes)) {
      changed = { row: b, position: baseRows, at };
      break;
    }
    baseRows++;
  }
  while (take() !== undefined);
  const headRows = headLines - (lastHead !== undefined && !parsesAsJson(lastHead.bytes) ? 1 : 0);
  if (changed === undefined) {
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
  // All of the base, for the message.
  baseRows = 0;
  for (const _ of rowsOf(base)) baseRows++;
  const { row, position, at } = changed;
  const seq = seqOfRow(row.bytes, position);
  const truncated = at === undefined;
  return {
    ok: false,
    kind: truncated ? 'truncated' : 'rewritten',
    baseRows,
    headRows,
    appended: 0,
    firstChangedSeq: seq,
    line: at?.line ?? lastHead?.line ?? null,
    message: truncated
      ? `history truncated at ${unit} ${seq}: the base has ${plural(baseRows, 'row')}, the head ${headRows}`
      : `history rewritten from ${unit} ${seq} (line ${row.line}): the base's rows are not a prefix of the head's`,
  };
}
