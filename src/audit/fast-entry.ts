import { compareCodePoints, isPythonFloatRepr } from '../canonical';

/**
 * The fast path of `audit verify` (and of `audit query`'s filters). An audit
 * line that is byte-for-byte `json.dumps(entry, sort_keys=True)` holds the
 * HMAC's pre-image, `json.dumps(entry without hmac, sort_keys=True)`, as its
 * own text with the `"hmac": …` member and one `, ` cut out: removing a key
 * changes neither the order of the others nor how any of them is written. So
 * once the line is checked to be canonical, the HMAC is computed from the
 * line's bytes, with no parse tree and no re-encode (the slow path parsed the
 * line, encoded it to check it, then encoded it again for the HMAC).
 *
 * The check is a validator of the pretty canonical form (pure ASCII, `, ` and
 * `: ` separators, sorted unique keys, canonical escapes and numbers). It is
 * deliberately narrower than canonical: NaN and infinities, integers of more
 * than 15 digits, nesting deeper than MAX_DEPTH, a `hmac` or `prev_hmac` that is
 * not a plain string, or a missing entry key are all left to the slow path,
 * which decides (a line this path takes is one the slow path finds canonical,
 * with every key, so the verdict is the same).
 */
export interface FastAuditLine {
  /** The stored `prev_hmac` and `hmac` (plain strings: no escapes). */
  prev: string;
  hmac: string;
  /** The HMAC's pre-image after the chain's previous hmac: the line without its `hmac` member. */
  body: string;
  /** Where each top-level value lies in the text (start, end), by key as written. */
  spans: Map<string, [number, number]>;
}

/** Every key an entry has (src/audit/entry.ts ENTRY_KEYS and `hmac`), in the order the canonical form sorts them. */
const REQUIRED = ['actor', 'details', 'event_type', 'hmac', 'prev_hmac', 'resource_id', 'resource_type', 'timestamp'];

const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;
/** Deeper values are rare in an audit entry: the slow path (with the project's own limit) takes them. */
const MAX_DEPTH = 64;
/** Longer integers are left to the slow path (beyond 2^53 they are read as bigint, and printed back as such). */
const MAX_INT_DIGITS = 15;

/** A canonical string literal (the journal fast path's, src/journal/fast-line.ts: linear, one sticky regex). */
const STRING =
  /"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\bfnrt]|\\u(?!00(?:0[89acd]|[2-6][0-9a-f]|7[0-9a-e]))[0-9a-f]{4})*"/y;

let s = '';

function scanString(i: number): number {
  STRING.lastIndex = i;
  return STRING.test(s) ? STRING.lastIndex : -1;
}

function scanNumber(i: number): number {
  NUMBER.lastIndex = i;
  const m = NUMBER.exec(s);
  if (m === null) return -1;
  const token = m[0];
  if (m[1] !== undefined || m[2] !== undefined) return isPythonFloatRepr(token) ? i + token.length : -1;
  const digits = token.charCodeAt(0) === 0x2d ? token.length - 1 : token.length;
  if (token === '-0' || digits > MAX_INT_DIGITS) return -1;
  return i + token.length;
}

/** The string a canonical literal `s[a..b)` stands for. */
function literalValue(a: number, b: number): string {
  const body = s.slice(a + 1, b - 1);
  return body.includes('\\') ? (JSON.parse(s.slice(a, b)) as string) : body;
}

/** Strictly before, by code point (Python's order of `str`), the keys `s[a0..a1)` and `s[b0..b1)` as literals. */
function keyLess(a0: number, a1: number, b0: number, b1: number): boolean {
  const a = s.slice(a0 + 1, a1 - 1);
  const b = s.slice(b0 + 1, b1 - 1);
  if (!a.includes('\\') && !b.includes('\\')) return a < b;
  return compareCodePoints(literalValue(a0, a1), literalValue(b0, b1)) < 0;
}

/** One object's members from `{` at i; calls `member` with each key's and value's span; the end, or -1. */
function scanObject(
  i: number,
  depth: number,
  member?: (k0: number, k1: number, v0: number, v1: number) => void,
): number {
  if (depth > MAX_DEPTH) return -1;
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
    if (s.charCodeAt(k1) !== 0x3a || s.charCodeAt(k1 + 1) !== 0x20) return -1;
    const v0 = k1 + 2;
    const v1 = scanValue(v0, depth + 1);
    if (v1 < 0) return -1;
    member?.(j, k1, v0, v1);
    const d = s.charCodeAt(v1);
    if (d === 0x7d) return v1 + 1;
    if (d !== 0x2c || s.charCodeAt(v1 + 1) !== 0x20) return -1;
    j = v1 + 2;
  }
}

function scanValue(i: number, depth: number): number {
  const c = s.charCodeAt(i);
  switch (c) {
    case 0x22:
      return scanString(i);
    case 0x7b:
      return scanObject(i, depth);
    case 0x5b: {
      if (depth > MAX_DEPTH) return -1;
      let j = i + 1;
      if (s.charCodeAt(j) === 0x5d) return j + 1;
      for (;;) {
        j = scanValue(j, depth + 1);
        if (j < 0) return -1;
        const d = s.charCodeAt(j);
        if (d === 0x5d) return j + 1;
        if (d !== 0x2c || s.charCodeAt(j + 1) !== 0x20) return -1;
        j += 2;
      }
    }
    case 0x6e:
      return s.startsWith('null', i) ? i + 4 : -1;
    case 0x74:
      return s.startsWith('true', i) ? i + 4 : -1;
    case 0x66:
      return s.startsWith('false', i) ? i + 5 : -1;
    default:
      return c === 0x2d || (c >= 0x30 && c <= 0x39) ? scanNumber(i) : -1;
  }
}

/** A plain string value (no escapes) at `span`, else undefined. */
function plainString(span: [number, number] | undefined): string | undefined {
  if (span === undefined || s.charCodeAt(span[0]) !== 0x22) return undefined;
  const body = s.slice(span[0] + 1, span[1] - 1);
  return body.includes('\\') ? undefined : body;
}

/**
 * The line `text[a..b)` (a latin1 view of its bytes) when it is a canonical
 * entry this path takes, else undefined (the slow path then decides).
 */
export function fastAuditLine(text: string, a: number, b: number): FastAuditLine | undefined {
  s = text;
  if (s.charCodeAt(a) !== 0x7b) return undefined;
  const spans = new Map<string, [number, number]>();
  let hmacMember: [number, number] | undefined;
  let end: number;
  try {
    end = scanObject(a, 0, (k0, k1, v0, v1) => {
      const key = literalValue(k0, k1);
      spans.set(key, [v0, v1]);
      if (key === 'hmac') hmacMember = [k0, v1];
    });
  } catch (e) {
    // The string regex backtracks on its own stack: a string of megabytes overflows it.
    if (!(e instanceof RangeError)) throw e;
    return undefined;
  }
  if (end !== b || hmacMember === undefined) return undefined;
  for (const k of REQUIRED) if (!spans.has(k)) return undefined;
  const prev = plainString(spans.get('prev_hmac'));
  const hmac = plainString(spans.get('hmac'));
  if (prev === undefined || hmac === undefined) return undefined;
  // `actor` sorts before `hmac`, so the member has a `, ` before it: cut it with the member.
  const body = s.slice(a, hmacMember[0] - 2) + s.slice(hmacMember[1], b);
  return { prev, hmac, body, spans };
}
