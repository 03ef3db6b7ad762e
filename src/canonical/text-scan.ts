import { isPythonFloatRepr } from './float-repr';
import { compareCodePoints } from './key-order';

/**
 * The one validator of canonical JSON text, for the fast paths that hash a line's own bytes once it is known to be
 * canonical: a journal row (src/journal/fast-line.ts, Python's compact `separators=(",", ":")`) and an audit entry
 * (src/audit/fast-entry.ts, Python's default `", "` and `": "`). Pure ASCII, sorted unique keys, canonical escapes and
 * numbers; a style says the separators and what each path leaves to its slow path (which decides).
 *
 * The text is set once per line (`scanText`) and scanned by offsets: no substring is made but for keys to compare.
 */
export interface ScanStyle {
  /** `", "` and `": "` (Python's default), not `","` and `":"`. */
  pretty: boolean;
  /** Deeper values are left to the slow path. */
  maxDepth: number;
  /** NaN, Infinity and -Infinity (Python writes them) are taken. */
  nonFinite: boolean;
  /** Whether an integer token (canonical digits, sign included) is taken. */
  intOk(token: string): boolean;
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;

/**
 * A canonical string literal, matched by one sticky regex (linear: every
 * alternative starts with a different character): printable ASCII but `"` and
 * `\`, the short escapes, and `\u` + 4 lowercase hex digits for code units
 * that have neither a literal nor a short form. It backtracks on its own stack: a string of megabytes overflows it
 * (a RangeError, which the callers take as "not this path").
 */
const STRING =
  /"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\bfnrt]|\\u(?!00(?:0[89acd]|[2-6][0-9a-f]|7[0-9a-e]))[0-9a-f]{4})*"/y;

let s = '';
let style: ScanStyle;

/** Sets the text the scans below read, and its style. */
export function scanText(text: string, st: ScanStyle): void {
  s = text;
  style = st;
}

/** The end of the string literal at i, or -1. */
export function scanString(i: number): number {
  STRING.lastIndex = i;
  try {
    return STRING.test(s) ? STRING.lastIndex : -1;
  } catch (e) {
    // The regex's own stack overflowed (a string of megabytes): the same check, a character at a time. Without it
    // such a row left the fast path every time it was read (`show` of a 152 MB field: 148 s).
    if (!(e instanceof RangeError)) throw e;
    return scanStringByLoop(i);
  }
}

/** STRING's check as a loop (exported for the test that holds the two equal). */
export function scanStringByLoop(i: number): number {
  if (s.charCodeAt(i) !== 0x22) return -1;
  let j = i + 1;
  for (;;) {
    const c = s.charCodeAt(j);
    if (c === 0x22) return j + 1;
    if (c >= 0x20 && c <= 0x7e && c !== 0x5c) {
      j++;
      continue;
    }
    if (c !== 0x5c) return -1; // a control, a character past ASCII, or the end
    const d = s.charCodeAt(j + 1);
    if (d === 0x22 || d === 0x5c || d === 0x62 || d === 0x66 || d === 0x6e || d === 0x72 || d === 0x74) {
      j += 2;
      continue;
    }
    if (d !== 0x75) return -1;
    let code = 0;
    for (let k = j + 2; k < j + 6; k++) {
      const h = s.charCodeAt(k);
      const v = h >= 0x30 && h <= 0x39 ? h - 0x30 : h >= 0x61 && h <= 0x66 ? h - 0x57 : -1;
      if (v < 0) return -1;
      code = code * 16 + v;
    }
    // A character with a short escape or a literal form has no `\u` form in canonical text.
    if (code === 8 || code === 9 || code === 10 || code === 12 || code === 13 || (code >= 0x20 && code <= 0x7e))
      return -1;
    j += 6;
  }
}

function scanNumber(i: number): number {
  NUMBER.lastIndex = i;
  const m = NUMBER.exec(s);
  if (m === null) return -1;
  const token = m[0];
  if (m[1] !== undefined || m[2] !== undefined) return isPythonFloatRepr(token) ? i + token.length : -1;
  if (token === '-0' || !style.intOk(token)) return -1;
  return i + token.length;
}

/** The string a canonical literal `s[a..b)` stands for. */
export function literalValue(a: number, b: number): string {
  const body = s.slice(a + 1, b - 1);
  return body.includes('\\') ? (JSON.parse(s.slice(a, b)) as string) : body;
}

/** Strictly before, by code point (Python's order of `str`), the keys `s[a0..a1)` and `s[b0..b1)` as literals. */
function keyLess(a0: number, a1: number, b0: number, b1: number): boolean {
  const a = s.slice(a0 + 1, a1 - 1);
  const b = s.slice(b0 + 1, b1 - 1);
  if (a.indexOf('\\') < 0 && b.indexOf('\\') < 0) return a < b;
  return compareCodePoints(literalValue(a0, a1), literalValue(b0, b1)) < 0;
}

/** The separator `c` (`:` or `,`) at i, with its space in the pretty style: where what follows it starts, or -1. */
function separator(i: number, c: number): number {
  if (s.charCodeAt(i) !== c) return -1;
  if (!style.pretty) return i + 1;
  return s.charCodeAt(i + 1) === 0x20 ? i + 2 : -1;
}

/** One object's members from `{` at i; `member` is given each key's and value's span; the end, or -1. */
export function scanObject(
  i: number,
  depth: number,
  member?: (k0: number, k1: number, v0: number, v1: number) => void,
): number {
  if (depth > style.maxDepth) return -1;
  let j = i + 1;
  if (s.charCodeAt(j) === 0x7d) return j + 1;
  let prevKey0 = -1;
  let prevKey1 = -1;
  for (;;) {
    if (s.charCodeAt(j) !== 0x22) return -1;
    const k1 = scanString(j);
    if (k1 < 0) return -1;
    if (prevKey0 >= 0 && !keyLess(prevKey0, prevKey1, j, k1)) return -1;
    prevKey0 = j;
    prevKey1 = k1;
    const v0 = separator(k1, 0x3a);
    if (v0 < 0) return -1;
    const v1 = scanValue(v0, depth + 1);
    if (v1 < 0) return -1;
    member?.(j, k1, v0, v1);
    if (s.charCodeAt(v1) === 0x7d) return v1 + 1;
    j = separator(v1, 0x2c);
    if (j < 0) return -1;
  }
}

/** The end of the canonical value at i, or -1. */
export function scanValue(i: number, depth: number): number {
  const c = s.charCodeAt(i);
  switch (c) {
    case 0x22:
      return scanString(i);
    case 0x7b:
      return scanObject(i, depth);
    case 0x5b: {
      if (depth > style.maxDepth) return -1;
      let j = i + 1;
      if (s.charCodeAt(j) === 0x5d) return j + 1;
      for (;;) {
        j = scanValue(j, depth + 1);
        if (j < 0) return -1;
        if (s.charCodeAt(j) === 0x5d) return j + 1;
        j = separator(j, 0x2c);
        if (j < 0) return -1;
      }
    }
    case 0x6e:
      return s.startsWith('null', i) ? i + 4 : -1;
    case 0x74:
      return s.startsWith('true', i) ? i + 4 : -1;
    case 0x66:
      return s.startsWith('false', i) ? i + 5 : -1;
    case 0x4e:
      return style.nonFinite && s.startsWith('NaN', i) ? i + 3 : -1;
    case 0x49:
      return style.nonFinite && s.startsWith('Infinity', i) ? i + 8 : -1;
    case 0x2d:
      if (s.startsWith('-Infinity', i)) return style.nonFinite ? i + 9 : -1;
      return scanNumber(i);
    default:
      return c >= 0x30 && c <= 0x39 ? scanNumber(i) : -1;
  }
}
