/**
 * Lines as the reference reads them (docs/journal.md, "Reading rules"): it
 * iterates a file opened in text mode, whose universal newlines end a line at
 * `\n`, `\r\n` or a bare `\r` (and at nothing else: `\v`, `\f`, `\x1c`-`\x1e`,
 * NEL and U+2028/U+2029 stay inside the line), then strips each line with
 * Python's `str.strip()` and skips the lines left empty.
 */
import { decodeUtf8 } from '../canonical/parse';

/** How a line ended: `\n`, `\r\n`, a bare `\r`, or at the end of the data. */
export type LineEnd = 'lf' | 'crlf' | 'cr' | 'eof';

/**
 * Code points Python's `str.isspace()` holds true, i.e. what `str.strip()`
 * removes from both ends of a line.
 */
function isPyWhitespace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f);
  if (c < 0x85) return false;
  return (
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}

/** Python's `s.strip()` (no arguments). */
export function pyStrip(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && isPyWhitespace(s.charCodeAt(a))) a++;
  while (b > a && isPyWhitespace(s.charCodeAt(b - 1))) b--;
  return a === 0 && b === s.length ? s : s.slice(a, b);
}

/**
 * Whether `str.strip()` leaves the non-empty line `buf[start..end)` as it is,
 * decided without decoding it: only its ends can be stripped, and a whitespace
 * character there starts (or ends) with a byte outside 0x21-0x7e.
 */
export function stripsNothing(buf: Uint8Array, start: number, end: number): boolean {
  const a = buf[start]!;
  const b = buf[end - 1]!;
  return a > 0x20 && a < 0x7f && b > 0x20 && b < 0x7f;
}

/**
 * A line's content as the reader reads it: its bytes with Python's `str.strip()`
 * applied, undefined when nothing is left (a blank line, skipped). Invalid UTF-8
 * comes back as it is (a malformed line, reported as it is). The run journal's
 * walk and the append-only check both read lines through this.
 */
export function strippedLine(raw: Buffer): Buffer | undefined {
  if (raw.length === 0) return undefined;
  if (stripsNothing(raw, 0, raw.length)) return raw;
  let text: string;
  try {
    text = decodeUtf8(raw);
  } catch {
    return raw;
  }
  const s = pyStrip(text);
  if (s.length === 0) return undefined;
  return s.length === text.length ? raw : Buffer.from(s, 'utf8');
}

/**
 * Calls `fn` for each line of `buf[from..to)` in the reference's framing, with
 * its content `[start, end)`, the offset just past its terminator (`next`), and
 * how it ended. `to` must be the end of the data or just past a `\n`.
 */
export function forEachReferenceLine(
  buf: Uint8Array,
  from: number,
  to: number,
  fn: (start: number, end: number, next: number, ending: LineEnd) => void,
): void {
  let pos = from;
  while (pos < to) {
    const nl = indexIn(buf, 0x0a, pos, to);
    const segEnd = nl < 0 ? to : nl;
    splitSegment(buf, pos, segEnd, nl >= 0, fn);
    pos = segEnd + 1;
  }
}

/**
 * One `\n`-delimited segment `[a, b)` (`lf`: a `\n` follows at b) split at bare
 * `\r`s into the reference's lines. A `\r` just before the `\n` makes a `\r\n`.
 */
export function splitSegment(
  buf: Uint8Array,
  a: number,
  b: number,
  lf: boolean,
  fn: (start: number, end: number, next: number, ending: LineEnd) => void,
): number {
  let lines = 0;
  let s = a;
  for (;;) {
    const cr = indexIn(buf, 0x0d, s, b);
    if (cr < 0) {
      if (lf) fn(s, b, b + 1, 'lf');
      else if (s < b) fn(s, b, b, 'eof');
      else return lines; // nothing left after a final \r
      return lines + 1;
    }
    if (cr + 1 === b && lf) {
      fn(s, cr, b + 1, 'crlf');
      return lines + 1;
    }
    fn(s, cr, cr + 1, 'cr');
    lines++;
    s = cr + 1;
  }
}

/**
 * The first `byte` in `buf[from..to)`, or -1. Never searches past `to`: a search
 * to the end of a large buffer for every line would make a walk quadratic.
 */
export function indexIn(buf: Uint8Array, byte: number, from: number, to: number): number {
  if (to - from <= 32) {
    for (let i = from; i < to; i++) if (buf[i] === byte) return i;
    return -1;
  }
  const k = buf.subarray(from, to).indexOf(byte);
  return k < 0 ? -1 : from + k;
}

/** The number of lines (terminators) in `buf[0..to)`, `to` being a line start. */
export function countLines(buf: Uint8Array, to: number): number {
  let n = 0;
  for (let i = 0; i < to; i++) {
    const c = buf[i];
    if (c === 0x0a) n++;
    else if (c === 0x0d && !(i + 1 < to && buf[i + 1] === 0x0a)) n++;
  }
  return n;
}
