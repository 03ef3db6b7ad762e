// AssemblyScript (compiled to WebAssembly by scripts/build-wasm.mjs; not part of the tsc project).
// A hand-written byte scanner, kept in one file on purpose (over 500 lines): its functions share the module's
// memory layout and globals, and splitting it would cost the compiler's inlining across them.
//
// The byte-level twin of `fastRow` (src/journal/fast-line.ts): it checks that each
// line of a block is a byte-canonical row, one fixed-size record per line, and
// copies the step payload `{` + input_hash..prompt + `,` + tool_call..tool_result
// + `}` of each accepted line into a scratch area for JS to hash. It only ever
// ACCEPTS a line that fastRow accepts with the same result; everything else (a
// line fastRow would reject, or one this scanner does not decide: keys to order
// with a surrogate escape, non-hex hashes, too many floats) is marked DEFER and JS runs fastRow and
// the slow path on it as before. Float tokens are judged here (floatDecided: the layout, then the
// digits, float-repr.ts for 16-17 of them); the spans of those not shown to be Python's repr are
// recorded and JS checks them (isPythonFloatRepr).
//
// Safety: every byte read goes through `ch`, which returns 0x100 (matched by no
// rule) at or past the block end; SIMD loads and copies are guarded by explicit
// bounds; the float check reads only the digits of a token scanNumber found in
// the block (and the 8 bytes ending at a run of them, all in the row, whose
// first 14 bytes precede any number). Every loop advances through the block, so
// the work is linear.

import { shortestIs } from './float-repr';

// Record layout: REC_SIZE bytes per line.
const R_START: i32 = 0; // line start (absolute address)
const R_END: i32 = 4; // line end (the newline or the block end)
const R_STATUS: i32 = 8; // 0 accepted, 1 defer to JS
const R_TERM: i32 = 12; // 1 when a newline ends the line
const R_PREV: i32 = 16; // address of prev_hash's 64 hex digits
const R_STORED: i32 = 20; // address of step_hash's 64 hex digits
const R_PAYLOAD: i32 = 24; // address of the payload copy
const R_PAYLOAD_LEN: i32 = 28;
const R_REFS: i32 = 32; // number of blob refs (the k-th digest is at start + 15 + 67k)
const R_FLOATS: i32 = 36; // index of the first float span
const R_NFLOATS: i32 = 40; // number of float spans
const R_SEQ: i32 = 48; // f64
export const REC_SIZE: i32 = 64;

const FAIL: i32 = -1;
const MAX_DEPTH: i32 = 512;
const MAX_INT_DIGITS: i32 = 4300;

/** Block end (exclusive). */
let E: i32 = 0;
/** The last string scanned contained a backslash. */
let sawEscape: bool = false;
/** Float spans: pairs of i32 (start, end) at floatBase. */
let floatBase: i32 = 0;
let floatCap: i32 = 0;
let nFloats: i32 = 0;
let floatOverflow: bool = false;
/** Where the next call resumes (absolute address). */
let nextPos: i32 = 0;

export function heapBase(): i32 {
  return <i32>__heap_base;
}

export function next(): i32 {
  return nextPos;
}

@inline function ch(i: i32): i32 {
  return i < E && i >= 0 ? <i32>load<u8>(<usize>i) : 0x100;
}

@inline function isDigit(c: i32): bool {
  return <u32>(c - 0x30) < 10;
}

@inline function isHex(c: i32): bool {
  return <u32>(c - 0x30) < 10 || <u32>(c - 0x61) < 6;
}

/** The bytes at i spell `lit` (an ASCII literal). */
function lit(i: i32, s: string): bool {
  const n = s.length;
  if (i < 0 || i > E - n) return false;
  const p = changetype<usize>(s);
  for (let k = 0; k < n; k++) {
    if (<i32>load<u8>(<usize>(i + k)) != <i32>load<u16>(p + (<usize>k << 1))) return false;
  }
  return true;
}

/** 64 lowercase hex digits at i (16 bytes at a time: each a digit or a to f). */
function hexAt(i: i32): bool {
  if (i < 0 || i > E - 64) return false;
  const zero = i8x16.splat(0x30);
  const ten = i8x16.splat(10);
  const a = i8x16.splat(0x61);
  const six = i8x16.splat(6);
  let ok = i8x16.splat(-1);
  for (let k = 0; k < 64; k += 16) {
    const v = v128.load(<usize>(i + k));
    ok = v128.and(ok, v128.or(i8x16.lt_u(i8x16.sub(v, zero), ten), i8x16.lt_u(i8x16.sub(v, a), six)));
  }
  return i8x16.bitmask(ok) == 0xffff;
}

/** Lowercase hex digits' values by byte, 0x80 for any other byte (filled on the first scan). */
const HEX: usize = memory.data(256);
let hexReady = false;

function fillHex(): void {
  for (let c = 0; c < 256; c++) store<u8>(HEX + <usize>c, <u8>(isHex(c) ? hexVal(c) : 0x80));
  hexReady = true;
}

/** One lowercase hex digit's value, or -1. */
@inline function hexVal(c: i32): i32 {
  if (<u32>(c - 0x30) < 10) return c - 0x30;
  if (<u32>(c - 0x61) < 6) return c - 0x57;
  return -1;
}

/**
 * A canonical string literal at i (which holds `"`): printable ASCII but `"` and
 * `\`, the short escapes, and `\u` + 4 lowercase hex digits for code units that
 * have neither a literal nor a short form. Returns the index after the closing quote.
 */
function scanString(i: i32): i32 {
  sawEscape = false;
  i++;
  // Signed compares (one instruction each on x86, where unsigned ones take three): a byte
  // below 0x20 or at 0x80 and above is below 0x20 as a signed byte; 0x7f is the one left.
  const lo = i8x16.splat(0x20);
  const del = i8x16.splat(0x7f);
  const quote = i8x16.splat(0x22);
  const bs = i8x16.splat(0x5c);
  for (;;) {
    // 16 plain characters at a time.
    while (i >= 0 && i <= E - 16) {
      const v = v128.load(<usize>i);
      const bad = v128.or(v128.or(i8x16.lt_s(v, lo), i8x16.eq(v, del)), v128.or(i8x16.eq(v, quote), i8x16.eq(v, bs)));
      const mask = i8x16.bitmask(bad);
      if (mask == 0) {
        i += 16;
        continue;
      }
      i += ctz<i32>(mask);
      break;
    }
    const c = ch(i);
    if (c == 0x22) return i + 1;
    if (c == 0x5c) {
      sawEscape = true;
      const d = ch(i + 1);
      if (d == 0x75 && i <= E - 6) {
        // \u + 4 lowercase hex digits (the table gives 0x80 for anything else).
        const p = <usize>i;
        const h0 = <i32>load<u8>(HEX + <usize>load<u8>(p, 2));
        const h1 = <i32>load<u8>(HEX + <usize>load<u8>(p, 3));
        const h2 = <i32>load<u8>(HEX + <usize>load<u8>(p, 4));
        const h3 = <i32>load<u8>(HEX + <usize>load<u8>(p, 5));
        if ((h0 | h1 | h2 | h3) & 0x80) return FAIL;
        const u = (h0 << 12) | (h1 << 8) | (h2 << 4) | h3;
        // Code units with a literal or a short form must use it.
        if (u <= 0x7e && (u >= 0x20 || u == 0x08 || u == 0x09 || u == 0x0a || u == 0x0c || u == 0x0d)) return FAIL;
        i += 6;
        continue;
      }
      if (d == 0x22 || d == 0x5c || d == 0x62 || d == 0x66 || d == 0x6e || d == 0x72 || d == 0x74) {
        i += 2;
        continue;
      }
      return FAIL;
    }
    if (c < 0x20 || c > 0x7e) return FAIL;
    i++;
  }
  return FAIL; // not reached
}

/** Records a float token's span; false when the span area is full. */
function pushFloat(a: i32, b: i32): bool {
  if (nFloats >= floatCap) {
    floatOverflow = true;
    return false;
  }
  const p = <usize>(floatBase + (nFloats << 3));
  store<i32>(p, a);
  store<i32>(p, b, 4);
  nFloats++;
  return true;
}

let lastWasFloat: bool = false;
/** The last float token scanned was decided here (not left to JS). */
let floatOk: bool = false;

/** Eight ASCII digits at p as their value (SWAR: three multiplies instead of eight dependent ones). */
@inline function eightDigits(p: i32): u64 {
  let v = load<u64>(<usize>p) & 0x0f0f0f0f0f0f0f0f;
  v = (v * 2561) >> 8;
  v = ((v & 0x00ff00ff00ff00ff) * 6553601) >> 16;
  return ((v & 0x0000ffff0000ffff) * 42949672960001) >> 32;
}

/**
 * The r (0 to 8) ASCII digits ending at b as their value: the eight bytes
 * ending there, those before the digits cleared (b - 8 is inside the
 * module's memory: a number is never within 8 bytes of its start).
 */
@inline function tailDigits(b: i32, r: i32): u64 {
  if (r == 0) return 0;
  let v = load<u64>(<usize>(b - 8)) & (<u64>-1 << <u64>((8 - r) << 3)) & 0x0f0f0f0f0f0f0f0f;
  v = (v * 2561) >> 8;
  v = ((v & 0x00ff00ff00ff00ff) * 6553601) >> 16;
  return ((v & 0x0000ffff0000ffff) * 42949672960001) >> 32;
}

/** The ASCII digits [a, b) (at most 19) as their value. */
function digitsValue(a: i32, b: i32): u64 {
  const n = b - a;
  if (n <= 8) return tailDigits(b, n);
  if (n <= 16) return tailDigits(b - 8, n - 8) * 100000000 + eightDigits(b - 8);
  return (tailDigits(b - 16, n - 16) * 100000000 + eightDigits(b - 16)) * 100000000 + eightDigits(b - 8);
}

/** 10^k, k = 0..19. */
const POW10_U64: usize = memory.data<u64>([
  1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000, 10000000000, 100000000000,
  1000000000000, 10000000000000, 100000000000000, 1000000000000000, 10000000000000000, 100000000000000000,
  1000000000000000000, 10000000000000000000,
]);

/**
 * The float token [a, b) is surely Python's repr of its value, so JS need not
 * check it. The token's parts were found by scanNumber: the integer digits
 * [intStart, intEnd), the fraction digits up to fracEnd (-1 when none), the
 * `e`/`E` at expAt (-1 when none).
 *
 * First the layout must be repr's for its digits: fixed notation
 * `-?(0|[1-9][0-9]*)\.[0-9]+` when the first significant digit's decimal
 * exponent x is in [-4, 16), the fraction without trailing zeros, or `.0` when
 * the value is integral (zero is 0.0 or -0.0); else `-?[1-9](\.[0-9]*[1-9])?e[+-]`
 * and x in at least two digits (no more leading zeros). At most 17
 * significant digits (repr never writes more).
 *
 * Then, with at most 15 significant digits and x within [-307, 307], the
 * digits alone prove it: such a decimal is a normal double's nearest decimal
 * of its length (DBL_DIG = 15: it round-trips), and no other decimal of at
 * most 15 digits reads as the same double, so it is the shortest, and the only
 * one of its length. Otherwise (16-17 digits, subnormals, the extremes) they
 * must be the shortest digits of the double they read as (shortestIs: an exact
 * integer check, or Ryu); when that is not shown, JS decides.
 */
function floatDecided(intStart: i32, intEnd: i32, fracEnd: i32, expAt: i32, b: i32): bool {
  const d0 = <i32>load<u8>(<usize>intStart);
  if (expAt >= 0) {
    if (d0 == 0x30 || intEnd != intStart + 1) return false;
    let n = 1;
    if (fracEnd >= 0) {
      if (load<u8>(<usize>(fracEnd - 1)) == 0x30) return false;
      n = fracEnd - intEnd;
    }
    if (load<u8>(<usize>expAt) != 0x65) return false;
    const sign = <i32>load<u8>(<usize>(expAt + 1));
    const expStart = expAt + 2;
    const expLen = b - expStart;
    if ((sign != 0x2b && sign != 0x2d) || expLen < 2 || expLen > 3) return false;
    let x = 0;
    for (let k = expStart; k < b; k++) x = x * 10 + (<i32>load<u8>(<usize>k) - 0x30);
    if (expLen == 3 && x < 100) return false;
    if (sign == 0x2d) x = -x;
    if (x >= -4 && x < 16) return false;
    if (n <= 15 && x >= -307 && x <= 307) return true;
    if (n > 17) return false;
    let D = <u64>(d0 - 0x30);
    if (fracEnd >= 0) D = D * load<u64>(POW10_U64 + (<usize>(n - 1) << 3)) + digitsValue(intEnd + 1, fracEnd);
    return shortestIs(D, x - (n - 1));
  }
  // Fixed notation (a float without an exponent has a fraction).
  const fracStart = intEnd + 1;
  const fracLen = fracEnd - fracStart;
  const zeroFrac = fracLen == 1 && load<u8>(<usize>fracStart) == 0x30;
  if (!zeroFrac && load<u8>(<usize>(fracEnd - 1)) == 0x30) return false;
  if (d0 == 0x30) {
    // 0.0, or 0. then at most three zeros and the digits.
    if (zeroFrac) return true;
    let z = fracStart;
    while (load<u8>(<usize>z) == 0x30) z++;
    if (z - fracStart > 3) return false;
    const n = fracEnd - z;
    if (n <= 15) return true;
    if (n > 17) return false;
    return shortestIs(digitsValue(z, fracEnd), -fracLen);
  }
  const intLen = intEnd - intStart;
  if (intLen > 16) return false;
  if (zeroFrac) {
    // Integral: the integer part's trailing zeros go to the exponent.
    let end = intEnd;
    while (load<u8>(<usize>(end - 1)) == 0x30) end--;
    if (end - intStart <= 15) return true;
    return shortestIs(digitsValue(intStart, end), intEnd - end);
  }
  const n = intLen + fracLen;
  if (n <= 15) return true;
  if (n > 17) return false;
  const D = digitsValue(intStart, intEnd) * load<u64>(POW10_U64 + (<usize>fracLen << 3)) + digitsValue(fracStart, fracEnd);
  return shortestIs(D, -fracLen);
}

/** Test hook: 1 when the scanner decides the float token [a, b) alone (E must cover it). */
export function decideFloat(a: i32, b: i32): i32 {
  E = b;
  // No room for spans: a token left to JS fails the scan (scan() sets these again).
  floatCap = 0;
  nFloats = 0;
  return scanNumber(a) == b && lastWasFloat && floatOk ? 1 : 0;
}

/** The end of the run of ASCII digits at j (16 bytes at a time while the block has them). */
@inline function digitsEnd(j: i32): i32 {
  const zero = i8x16.splat(0x30);
  const ten = i8x16.splat(10);
  while (j >= 0 && j <= E - 16) {
    const other = i8x16.bitmask(i8x16.ge_u(i8x16.sub(v128.load(<usize>j), zero), ten));
    if (other != 0) return j + ctz<i32>(other);
    j += 16;
  }
  while (isDigit(ch(j))) j++;
  return j;
}

/**
 * A number at i, matched like `-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?`
 * (greedy). Integers are judged here (not `-0`, at most MAX_INT_DIGITS characters);
 * floats are recorded for JS to check.
 */
function scanNumber(i: i32): i32 {
  let j = i;
  lastWasFloat = false;
  if (ch(j) == 0x2d) j++;
  const intStart = j;
  const c = ch(j);
  if (c == 0x30) j++;
  else if (c >= 0x31 && c <= 0x39) j = digitsEnd(j + 1);
  else return FAIL;
  const intEnd = j;
  let fracEnd = -1;
  if (ch(j) == 0x2e && isDigit(ch(j + 1))) {
    j = digitsEnd(j + 2);
    fracEnd = j;
    lastWasFloat = true;
  }
  let expAt = -1;
  const e = ch(j);
  if (e == 0x65 || e == 0x45) {
    let k = j + 1;
    const sgn = ch(k);
    if (sgn == 0x2b || sgn == 0x2d) k++;
    if (isDigit(ch(k))) {
      k++;
      while (isDigit(ch(k))) k++;
      expAt = j;
      j = k;
      lastWasFloat = true;
    }
  }
  if (lastWasFloat) {
    floatOk = floatDecided(intStart, intEnd, fracEnd, expAt, j);
    return floatOk || pushFloat(i, j) ? j : FAIL;
  }
  if (j - i == 2 && ch(i) == 0x2d && ch(i + 1) == 0x30) return FAIL;
  if (j - i > MAX_INT_DIGITS) return FAIL;
  return j;
}

/** Key [a0, a1) < key [b0, b1) (both with their quotes, no escapes): bytewise. */
function keyLess(a0: i32, a1: i32, b0: i32, b1: i32): bool {
  const na = a1 - a0 - 2;
  const nb = b1 - b0 - 2;
  const n = na < nb ? na : nb;
  for (let k = 1; k <= n; k++) {
    const x = <i32>load<u8>(<usize>(a0 + k));
    const y = <i32>load<u8>(<usize>(b0 + k));
    if (x != y) return x < y;
  }
  return na < nb;
}

/** The code unit decoded by `unitAt`. */
let unit: i32 = 0;

/** Decodes the element of a string scanString accepted at p into `unit`; returns the next element's index. */
function unitAt(p: i32): i32 {
  const c = <i32>load<u8>(<usize>p);
  if (c != 0x5c) {
    unit = c;
    return p + 1;
  }
  const d = <i32>load<u8>(<usize>(p + 1));
  if (d == 0x75) {
    const h = HEX + <usize>0;
    unit =
      (<i32>load<u8>(h + <usize>load<u8>(<usize>p, 2)) << 12) |
      (<i32>load<u8>(h + <usize>load<u8>(<usize>p, 3)) << 8) |
      (<i32>load<u8>(h + <usize>load<u8>(<usize>p, 4)) << 4) |
      <i32>load<u8>(h + <usize>load<u8>(<usize>p, 5));
    return p + 6;
  }
  unit = d == 0x62 ? 0x08 : d == 0x66 ? 0x0c : d == 0x6e ? 0x0a : d == 0x72 ? 0x0d : d == 0x74 ? 0x09 : d;
  return p + 2;
}

/**
 * Key [a0, a1) < key [b0, b1) (both with their quotes, escaped): 1 or 0, by code
 * unit, which is code point order while neither holds a surrogate; -1 (JS
 * decides) once either does before the keys differ.
 */
function escapedKeyLess(a0: i32, a1: i32, b0: i32, b1: i32): i32 {
  let p = a0 + 1;
  let q = b0 + 1;
  const pe = a1 - 1;
  const qe = b1 - 1;
  while (p < pe && q < qe) {
    p = unitAt(p);
    const x = unit;
    q = unitAt(q);
    const y = unit;
    if (<u32>(x - 0xd800) < 0x800 || <u32>(y - 0xd800) < 0x800) return -1;
    if (x != y) return x < y ? 1 : 0;
  }
  return p >= pe && q < qe ? 1 : 0;
}

function scanValue(i: i32, depth: i32): i32 {
  const c = ch(i);
  if (c == 0x22) return scanString(i);
  if (c == 0x7b) {
    if (depth > MAX_DEPTH) return FAIL;
    let j = i + 1;
    if (ch(j) == 0x7d) return j + 1;
    let prev0 = -1;
    let prev1 = -1;
    let prevEscaped = false;
    for (;;) {
      if (ch(j) != 0x22) return FAIL;
      const k1 = scanString(j);
      if (k1 < 0) return FAIL;
      const escaped = sawEscape;
      if (prev0 >= 0) {
        if (escaped || prevEscaped) {
          if (escapedKeyLess(prev0, prev1, j, k1) != 1) return FAIL;
        } else if (!keyLess(prev0, prev1, j, k1)) return FAIL;
      }
      prev0 = j;
      prev1 = k1;
      prevEscaped = escaped;
      if (ch(k1) != 0x3a) return FAIL;
      j = scanValue(k1 + 1, depth + 1);
      if (j < 0) return FAIL;
      const d = ch(j);
      if (d == 0x7d) return j + 1;
      if (d != 0x2c) return FAIL;
      j++;
    }
  }
  if (c == 0x5b) {
    if (depth > MAX_DEPTH) return FAIL;
    let j = i + 1;
    if (ch(j) == 0x5d) return j + 1;
    for (;;) {
      j = scanValue(j, depth + 1);
      if (j < 0) return FAIL;
      const d = ch(j);
      if (d == 0x5d) return j + 1;
      if (d != 0x2c) return FAIL;
      j++;
    }
  }
  if (c == 0x6e) return lit(i, 'null') ? i + 4 : FAIL;
  if (c == 0x74) return lit(i, 'true') ? i + 4 : FAIL;
  if (c == 0x66) return lit(i, 'false') ? i + 5 : FAIL;
  if (c == 0x4e) return lit(i, 'NaN') ? i + 3 : FAIL;
  if (c == 0x49) return lit(i, 'Infinity') ? i + 8 : FAIL;
  if (c == 0x2d) {
    if (lit(i, '-Infinity')) return i + 9;
    return scanNumber(i);
  }
  return isDigit(c) ? scanNumber(i) : FAIL;
}

/** Fields of the line being scanned, for its record. */
let fPrev: i32 = 0;
let fStored: i32 = 0;
let fP1: i32 = 0;
let fP1End: i32 = 0;
let fP2: i32 = 0;
let fP2End: i32 = 0;
let fRefs: i32 = 0;
let fSeq: f64 = 0;

/** Scans a row line at a; returns its end (at the newline or block end) or FAIL. */
function scanRow(a: i32): i32 {
  if (!lit(a, '{"blob_refs":[')) return FAIL;
  let i = a + 14;
  let refs = 0;
  if (ch(i) == 0x5d) i++;
  else {
    for (;;) {
      if (ch(i) != 0x22 || !hexAt(i + 1) || ch(i + 65) != 0x22) return FAIL;
      refs++;
      i += 66;
      const d = ch(i++);
      if (d == 0x5d) break;
      if (d != 0x2c) return FAIL;
    }
  }
  fRefs = refs;
  if (!lit(i, ',"input_hash":"') || !hexAt(i + 15) || ch(i + 79) != 0x22) return FAIL;
  fP1 = i + 1;
  i += 80;
  if (!lit(i, ',"model":')) return FAIL;
  i = scanValue(i + 9, 0);
  if (i < 0 || !lit(i, ',"prev_hash":"') || ch(i + 78) != 0x22 || !hexAt(i + 14)) return FAIL;
  fPrev = i + 14;
  i += 79;
  if (!lit(i, ',"prompt":')) return FAIL;
  i = scanValue(i + 10, 0);
  if (i < 0 || !lit(i, ',"seq":')) return FAIL;
  fP1End = i;
  i += 7;
  const seqStart = i;
  let seq: f64 = 0;
  if (ch(i) == 0x30) i++;
  else {
    while (isDigit(ch(i))) {
      seq = seq * 10 + <f64>(ch(i) - 0x30);
      i++;
    }
  }
  if (i == seqStart || i - seqStart > 15) return FAIL;
  fSeq = seq;
  if (!lit(i, ',"step_hash":"') || ch(i + 78) != 0x22 || !hexAt(i + 14)) return FAIL;
  fStored = i + 14;
  i += 79;
  if (!lit(i, ',"tool_call":')) return FAIL;
  fP2 = i + 1;
  i = scanValue(i + 13, 0);
  if (i < 0 || !lit(i, ',"tool_result":')) return FAIL;
  i = scanValue(i + 15, 0);
  if (i < 0 || !lit(i, ',"ts":')) return FAIL;
  fP2End = i;
  i = scanNumber(i + 6);
  if (i < 0 || !lastWasFloat) return FAIL;
  if (ch(i) != 0x7d) return FAIL;
  i++;
  if (i < E && ch(i) != 0x0a) return FAIL;
  return i;
}

/** The 64 bytes at a equal the 64 bytes at b. */
@inline function eq64(a: i32, b: i32): bool {
  const pa = <usize>a;
  const pb = <usize>b;
  const e0 = i8x16.eq(v128.load(pa), v128.load(pb));
  const e1 = i8x16.eq(v128.load(pa, 16), v128.load(pb, 16));
  const e2 = i8x16.eq(v128.load(pa, 32), v128.load(pb, 32));
  const e3 = i8x16.eq(v128.load(pa, 48), v128.load(pb, 48));
  return i8x16.bitmask(v128.and(v128.and(e0, e1), v128.and(e2, e3))) == 0xffff;
}

/**
 * For the record at r (an accepted row): 1 when its prev_hash digits are the 64
 * bytes at `link` (the previous row's step_hash) and its step_hash digits are the
 * 64 bytes at `digest` (its recomputed hash, written there by JS), else 0. Lets
 * JS take an ordinary row without making a string of either hash.
 */
export function linked(r: i32, link: i32, digest: i32): i32 {
  return eq64(load<i32>(<usize>r, R_PREV), link) && eq64(load<i32>(<usize>r, R_STORED), digest) ? 1 : 0;
}

/** The first newline at or after i, or the block end. */
function lineEnd(i: i32): i32 {
  if (i < 0) return E;
  const nl = i8x16.splat(0x0a);
  while (i <= E - 16) {
    const mask = i8x16.bitmask(i8x16.eq(v128.load(<usize>i), nl));
    if (mask != 0) return i + ctz<i32>(mask);
    i += 16;
  }
  while (i < E && <i32>load<u8>(<usize>i) != 0x0a) i++;
  return i;
}

/**
 * Scans the lines of [from, end) (a block of whole lines; the last one may lack
 * its newline), writing one record per line at rec (at most maxRecs), payload
 * copies at scratch (scratchCap bytes) and float spans at floats (maxFloats).
 * Returns the number of records; `next()` is where the following call resumes.
 */
export function scan(from: i32, end: i32, rec: i32, maxRecs: i32, scratch: i32, scratchCap: i32, floats: i32, maxFloats: i32): i32 {
  if (!hexReady) fillHex();
  E = end;
  floatBase = floats;
  floatCap = maxFloats;
  nFloats = 0;
  let sp = scratch;
  const scratchEnd = scratch + scratchCap;
  let n = 0;
  let a = from;
  while (a < end && n < maxRecs) {
    const r = <usize>(rec + n * REC_SIZE);
    const floatsAt = nFloats;
    floatOverflow = false;
    let b = scanRow(a);
    let ok = b >= 0;
    if (ok) {
      const len = 3 + (fP1End - fP1) + (fP2End - fP2);
      if (len > scratchEnd - sp) {
        // Out of scratch: this line goes in the next call (or to JS when alone).
        if (n > 0) break;
        ok = false;
      } else {
        store<u8>(<usize>sp, 0x7b);
        memory.copy(<usize>(sp + 1), <usize>fP1, <usize>(fP1End - fP1));
        const q = sp + 1 + (fP1End - fP1);
        store<u8>(<usize>q, 0x2c);
        memory.copy(<usize>(q + 1), <usize>fP2, <usize>(fP2End - fP2));
        store<u8>(<usize>(q + 1 + (fP2End - fP2)), 0x7d);
        store<i32>(r, fPrev, R_PREV);
        store<i32>(r, fStored, R_STORED);
        store<i32>(r, sp, R_PAYLOAD);
        store<i32>(r, len, R_PAYLOAD_LEN);
        store<i32>(r, fRefs, R_REFS);
        store<f64>(r, fSeq, R_SEQ);
        sp += len;
      }
    } else if (floatOverflow && n > 0) {
      nFloats = floatsAt;
      break;
    }
    if (!ok) {
      nFloats = floatsAt;
      b = lineEnd(a);
    }
    store<i32>(r, a, R_START);
    store<i32>(r, b, R_END);
    store<i32>(r, ok ? 0 : 1, R_STATUS);
    store<i32>(r, b < end ? 1 : 0, R_TERM);
    store<i32>(r, floatsAt, R_FLOATS);
    store<i32>(r, nFloats - floatsAt, R_NFLOATS);
    n++;
    a = b + 1;
  }
  nextPos = a;
  return n;
}
