// AssemblyScript (compiled into the scanner by scripts/build-wasm.mjs; not part of the tsc project).
//
// Numbers of a byte-canonical row: scanNumber matches a JSON number, judges integers, and decides float
// tokens (floatDecided: the layout, then the digits, float-repr.ts for 16-17 of them); the spans of those not
// shown to be Python's repr are recorded for JS to check (isPythonFloatRepr).
//
// Safety: the float check reads only the digits of a token scanNumber found in the block (and the 8 bytes
// ending at a run of them, all in the row, whose first 14 bytes precede any number).

import { E, FAIL, ch, isDigit, setEnd } from './block';
import { shortestIs } from './float-repr';

const MAX_INT_DIGITS: i32 = 4300;

/** Float spans: pairs of i32 (start, end) at floatBase (scan() in scan.ts sets the area for each call). */
export let floatBase: i32 = 0;
export let floatCap: i32 = 0;
export let nFloats: i32 = 0;
export let floatOverflow: bool = false;

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

export let lastWasFloat: bool = false;
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
@inline function digitsValue(a: i32, b: i32): u64 {
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
@inline function floatDecided(intStart: i32, intEnd: i32, fracEnd: i32, expAt: i32, b: i32): bool {
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
  setEnd(b);
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
 * A non-negative number at i (whose first byte c is a digit), as scanNumber matches it: an integer is taken here,
 * inline in the value scanner (most are short: counts, codes, indexes, their first digits one at a time before a
 * 16-byte run), what follows its digits (a fraction, an exponent) by numberTail.
 */
@inline export function unsignedAt(i: i32, c: i32): i32 {
  let j = i + 1;
  if (c != 0x30 && isDigit(ch(j))) {
    j++;
    if (isDigit(ch(j))) j = digitsEnd(j + 1);
  }
  const d = ch(j);
  if (d == 0x2e || d == 0x65 || d == 0x45) return numberTail(i, i, j);
  return j - i > MAX_INT_DIGITS ? FAIL : j;
}

/**
 * A number at i, matched like `-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?`
 * (greedy). Integers are judged here (not `-0`, at most MAX_INT_DIGITS characters);
 * floats are recorded for JS to check.
 */
export function scanNumber(i: i32): i32 {
  let j = i;
  if (ch(j) == 0x2d) j++;
  const intStart = j;
  const c = ch(j);
  if (c == 0x30) j++;
  else if (c >= 0x31 && c <= 0x39) j = digitsEnd(j + 1);
  else {
    lastWasFloat = false;
    return FAIL;
  }
  return numberTail(i, intStart, j);
}

/** The number at i whose integer digits are [intStart, intEnd): its fraction and exponent, then its verdict. */
function numberTail(i: i32, intStart: i32, intEnd: i32): i32 {
  let j = intEnd;
  lastWasFloat = false;
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
