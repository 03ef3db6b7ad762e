// AssemblyScript (compiled into the scanner by scripts/build-wasm.mjs; not part of the tsc project).
//
// Python's repr of a double spells its shortest round-trip digits (the closest of them, ties to even),
// laid out by the exponent. `shortestIs` decides whether a decimal D x 10^q is those digits for the
// double it reads as: it looks for a double whose shortest digits (Ryu, below) are exactly (D, q). Ryu's
// output always reads back as its double, so a match proves that D x 10^q reads as that double AND is
// its shortest digits; no match within the few doubles nearest the decimal leaves the token to JS, so
// a wrong guess can only cost time, never a wrong verdict.
//
// Ryu (Ulf Adams, "Ryu: fast float-to-string conversion", PLDI 2018; the reference d2s.c, Apache-2.0 /
// Boost), written anew for AssemblyScript: shortest digits in the rounding interval, the closest to
// the double, ties to even. Tested against JavaScript's Number#toString (the same digits by the
// ECMAScript spec) and python3's repr (test/journal.float-decide.test.ts).

import { POW10_F64, POW5_INV_SPLIT, POW5_SPLIT } from './float-tables';

const MANTISSA_BITS: i32 = 52;
const BIAS: i32 = 1023;
const POW5_INV_BITCOUNT: i32 = 125;
const POW5_BITCOUNT: i32 = 125;
const MAX_FINITE: u64 = 0x7fefffffffffffff;

/** The high 64 bits of a * b. */
@inline function umulh(a: u64, b: u64): u64 {
  const aLo = a & 0xffffffff;
  const aHi = a >> 32;
  const bLo = b & 0xffffffff;
  const bHi = b >> 32;
  const lh = aLo * bHi;
  const hl = aHi * bLo;
  const mid = ((aLo * bLo) >> 32) + (lh & 0xffffffff) + (hl & 0xffffffff);
  return aHi * bHi + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

/** (m * mul) >> j, mul the 128-bit table entry at p, 64 < j < 128, m at most 55 bits. */
@inline function mulShift64(m: u64, p: usize, j: i32): u64 {
  const lo = load<u64>(p);
  const hi = load<u64>(p, 8);
  const b0hi = umulh(m, lo);
  const b2lo = m * hi;
  const b2hi = umulh(m, hi);
  const sumLo = b2lo + b0hi;
  const sumHi = b2hi + (sumLo < b2lo ? 1 : 0);
  const s = <u64>(j - 64);
  return (sumLo >> s) | (sumHi << (64 - s));
}

@inline function log10Pow2(e: i32): i32 {
  return <i32>((<u32>e * 78913) >> 18);
}

@inline function log10Pow5(e: i32): i32 {
  return <i32>((<u32>e * 732923) >> 20);
}

/** ceil(log2(5^e)) for e >= 1 (1 for e = 0). */
@inline function pow5bits(e: i32): i32 {
  return <i32>(((<u32>e * 1217359) >> 19) + 1);
}

function pow5Factor(v: u64): i32 {
  let count = 0;
  for (;;) {
    const q = v / 5;
    if (v - 5 * q != 0) break;
    v = q;
    count++;
  }
  return count;
}

@inline function multipleOfPowerOf5(v: u64, p: i32): bool {
  return pow5Factor(v) >= p;
}

@inline function multipleOfPowerOf2(v: u64, p: i32): bool {
  return (v & ((<u64>1 << <u64>p) - 1)) == 0;
}

/** Ryu's result: the shortest digits and the exponent of the last one. */
let outDigits: u64 = 0;
let outExp: i32 = 0;

/** Ryu's d2d on a positive finite non-zero double's bits: sets outDigits, outExp. */
// eslint-disable-next-line max-lines-per-function -- Ryu's d2d, one function as in the reference d2s.c to read beside it
function shortest(bits: u64): void {
  const ieeeMantissa = bits & ((<u64>1 << 52) - 1);
  const ieeeExponent = <i32>(bits >> 52) & 0x7ff;
  let e2: i32;
  let m2: u64;
  // Two more bits, so the bounds are integers.
  if (ieeeExponent == 0) {
    e2 = 1 - BIAS - MANTISSA_BITS - 2;
    m2 = ieeeMantissa;
  } else {
    e2 = ieeeExponent - BIAS - MANTISSA_BITS - 2;
    m2 = (<u64>1 << 52) | ieeeMantissa;
  }
  const acceptBounds = (m2 & 1) == 0;
  const mv = 4 * m2;
  // The lower bound is closer when the mantissa is a power of two (but not for the smallest exponents).
  const mmShift: u64 = ieeeMantissa != 0 || ieeeExponent <= 1 ? 1 : 0;

  let vr: u64;
  let vp: u64;
  let vm: u64;
  let e10: i32;
  let vmIsTrailingZeros = false;
  let vrIsTrailingZeros = false;
  if (e2 >= 0) {
    const q = log10Pow2(e2) - (e2 > 3 ? 1 : 0);
    e10 = q;
    const k = POW5_INV_BITCOUNT + pow5bits(q) - 1;
    const i = -e2 + q + k;
    const p = POW5_INV_SPLIT + (<usize>q << 4);
    vr = mulShift64(4 * m2, p, i);
    vp = mulShift64(4 * m2 + 2, p, i);
    vm = mulShift64(4 * m2 - 1 - mmShift, p, i);
    if (q <= 21) {
      // Only one of mp, mv and mm can be a multiple of 5, if any.
      if (mv % 5 == 0) vrIsTrailingZeros = multipleOfPowerOf5(mv, q);
      else if (acceptBounds) vmIsTrailingZeros = multipleOfPowerOf5(mv - 1 - mmShift, q);
      else vp -= multipleOfPowerOf5(mv + 2, q) ? 1 : 0;
    }
  } else {
    const q = log10Pow5(-e2) - (-e2 > 1 ? 1 : 0);
    e10 = q + e2;
    const i = -e2 - q;
    const k = pow5bits(i) - POW5_BITCOUNT;
    const j = q - k;
    const p = POW5_SPLIT + (<usize>i << 4);
    vr = mulShift64(4 * m2, p, j);
    vp = mulShift64(4 * m2 + 2, p, j);
    vm = mulShift64(4 * m2 - 1 - mmShift, p, j);
    if (q <= 1) {
      // mv = 4 * m2 has at least two trailing zero bits; mp = mv + 2 one.
      vrIsTrailingZeros = true;
      if (acceptBounds) vmIsTrailingZeros = mmShift == 1;
      else vp--;
    } else if (q < 63) {
      vrIsTrailingZeros = multipleOfPowerOf2(mv, q);
    }
  }

  let removed = 0;
  let lastRemovedDigit: u64 = 0;
  let output: u64;
  if (vmIsTrailingZeros || vrIsTrailingZeros) {
    // The general case (rare).
    for (;;) {
      const vpDiv10 = vp / 10;
      const vmDiv10 = vm / 10;
      if (vpDiv10 <= vmDiv10) break;
      const vmMod10 = vm - 10 * vmDiv10;
      const vrDiv10 = vr / 10;
      const vrMod10 = vr - 10 * vrDiv10;
      vmIsTrailingZeros = vmIsTrailingZeros && vmMod10 == 0;
      vrIsTrailingZeros = vrIsTrailingZeros && lastRemovedDigit == 0;
      lastRemovedDigit = vrMod10;
      vr = vrDiv10;
      vp = vpDiv10;
      vm = vmDiv10;
      removed++;
    }
    if (vmIsTrailingZeros) {
      for (;;) {
        const vmDiv10 = vm / 10;
        const vmMod10 = vm - 10 * vmDiv10;
        if (vmMod10 != 0) break;
        const vpDiv10 = vp / 10;
        const vrDiv10 = vr / 10;
        const vrMod10 = vr - 10 * vrDiv10;
        vrIsTrailingZeros = vrIsTrailingZeros && lastRemovedDigit == 0;
        lastRemovedDigit = vrMod10;
        vr = vrDiv10;
        vp = vpDiv10;
        vm = vmDiv10;
        removed++;
      }
    }
    // Exactly halfway (...50..0): round to even.
    if (vrIsTrailingZeros && lastRemovedDigit == 5 && vr % 2 == 0) lastRemovedDigit = 4;
    output = vr + ((vr == vm && (!acceptBounds || !vmIsTrailingZeros)) || lastRemovedDigit >= 5 ? 1 : 0);
  } else {
    // The common case: no bound is exact, so only the last removed digit rounds.
    let roundUp = false;
    const vpDiv100 = vp / 100;
    const vmDiv100 = vm / 100;
    if (vpDiv100 > vmDiv100) {
      const vrDiv100 = vr / 100;
      const vrMod100 = vr - 100 * vrDiv100;
      roundUp = vrMod100 >= 50;
      vr = vrDiv100;
      vp = vpDiv100;
      vm = vmDiv100;
      removed += 2;
    }
    for (;;) {
      const vpDiv10 = vp / 10;
      const vmDiv10 = vm / 10;
      if (vpDiv10 <= vmDiv10) break;
      const vrDiv10 = vr / 10;
      const vrMod10 = vr - 10 * vrDiv10;
      roundUp = vrMod10 >= 5;
      vr = vrDiv10;
      vp = vpDiv10;
      vm = vmDiv10;
      removed++;
    }
    output = vr + (vr == vm || roundUp ? 1 : 0);
  }
  outDigits = output;
  outExp = e10 + removed;
}

/** The double nearest 10^k's bits (0 <= k <= 308). */
@inline function pow10(k: i32): f64 {
  return reinterpret<f64>(load<u64>(POW10_F64 + (<usize>k << 3)));
}

/**
 * Below this D (< 2^53 - 1) with |q| <= 22, D and 10^|q| are exact doubles, so the one multiply or divide
 * in shortestIs rounds D x 10^q correctly (Clinger's fast path): c is the double the decimal reads as.
 * If then c's significand m (c = m 2^e, 2^52 <= m < 2^53) exceeds D, the decimal's unit 10^q is wider
 * than the spacing 2^e of doubles at c (10^q / 2^e = (m / D)(v / c), v the decimal's value, and
 * v / c >= 1 - 2^-53; m >= D + 1 and D + 1 < 2^53 make it more than 1), so c's rounding interval (at
 * most 2^e wide) holds at most one multiple of the unit: D x 10^q itself. A shorter decimal in it would
 * be a multiple of 10 units (one of fewer digits at or above 10^x, x the exponent of D's first digit;
 * one below 10^x would put 10^x, such a multiple, in the interval too), and D, without a trailing zero,
 * is not one: so D x 10^q is the only decimal of the fewest digits that reads as c, its repr. More
 * than half of the 16-digit reprs of the bench's float rows are decided by this alone.
 */
const CLINGER_D: u64 = 9000000000000000;

/** The significand m of a positive normal double c = m 2^e (2^52 <= m < 2^53). */
@inline function significand(c: f64): u64 {
  return (reinterpret<u64>(c) & 0xfffffffffffff) | 0x10000000000000;
}

/** Doubles tried on either side of the first guess. */
const REACH: i32 = 2;

/**
 * D x 10^q (D > 0, at most 17 digits, no trailing zero) is the shortest
 * round-trip digits of the double it reads as (its magnitude's repr digits).
 * False means "not shown here", not "no": the caller then asks JS.
 */
export function shortestIs(D: u64, q: i32): bool {
  // A first guess within a few doubles of the nearest one (three roundings at most). D < 10^17 < 2^63: converted
  // as a signed integer, the same value in one instruction (an unsigned conversion is a branch and several).
  let c = <f64>(<i64>D);
  if (q >= 0) c = q <= 308 ? c * pow10(q) : Infinity;
  else if (q >= -308) c = c / pow10(-q);
  else c = -q - 308 <= 308 ? c / 1e308 / pow10(-q - 308) : 0;
  if (D < CLINGER_D && q >= -22 && q <= 22 && significand(c) > D) return true;
  if (D >= 1000000000000000 && q >= -24 && q <= 24) {
    const v = nearestDecides(D, q, c);
    if (v != UNKNOWN) return v == YES;
  }
  return ryuFinds(D, q, c);
}

/** Ryu's shortest digits of c or of one of the doubles beside it, towards D x 10^q, are (D, q). */
function ryuFinds(D: u64, q: i32, c: f64): bool {
  let bits = reinterpret<u64>(c);
  if (bits > MAX_FINITE) bits = MAX_FINITE;
  if (bits == 0) bits = 1;
  shortest(bits);
  if (outDigits == D && outExp == q) return true;
  // Step towards the decimal: while the candidate's shortest decimal is on the same side of it.
  const up = decimalLess(outDigits, outExp, D, q);
  for (let k = 0; k < REACH; k++) {
    if (up) {
      if (bits >= MAX_FINITE) return false;
      bits++;
    } else {
      if (bits <= 1) return false;
      bits--;
    }
    shortest(bits);
    if (outDigits == D && outExp == q) return true;
    if (decimalLess(outDigits, outExp, D, q) != up) return false;
  }
  return false;
}

/** 5^k, k = 0..24, exact. */
const POW5_EXACT: usize = memory.data<u64>([
  1, 5, 25, 125, 625, 3125, 15625, 78125, 390625, 1953125, 9765625, 48828125, 244140625, 1220703125,
  6103515625, 30517578125, 152587890625, 762939453125, 3814697265625, 19073486328125, 95367431640625,
  476837158203125, 2384185791015625, 11920928955078125, 59604644775390625,
]);

export const YES: i32 = 1;
export const NO: i32 = 0;
export const UNKNOWN: i32 = -1;

/** An offset d from the double lies in its rounding interval of width u (the ends in it when closed). */
@inline function inside(d: i64, u: i64, closed: bool): bool {
  const a = (d < 0 ? -d : d) << 1;
  return a < u || (a == u && closed);
}

/**
 * The exact decision for the common token: D x 10^q with 16 or 17 significant
 * digits (10^15 <= D < 10^17) and |q| <= 24, c a double near the one it reads
 * as (within a few, from floating-point arithmetic; any other c only makes
 * the answer UNKNOWN). In integers, with c = m 2^e and P = 5^|q|, both sides
 * scaled by powers of two (X for c, Y for the decimal, 128 bits each) so that
 * d = Y - X is the decimal's offset from c, u the spacing of doubles there
 * and unit one step of the decimal's last digit: Python's repr of the double
 * the decimal reads as is the decimal exactly when
 * - the decimal lies in the double's rounding interval (m stepped to it),
 * - no multiple of 10 units lies in that interval, so no decimal of fewer
 *   significant digits does (one at least 10^x, x the exponent of the
 *   decimal's first digit, is such a multiple; one below 10^x would put 10^x,
 *   a multiple, in the interval too), and
 * - it is the closest decimal of its length to the double: 2|d| < unit (a tie
 *   is left to Ryu).
 * YES or NO when shown; UNKNOWN where these integers do not cover it (a step
 * across a power of two, the power of two itself with its narrower lower
 * half, an offset or spacing past the 64-bit room).
 */
export function nearestDecides(D: u64, q: i32, c: f64): i32 {
  const bits = reinterpret<u64>(c);
  const be = <i32>(bits >> 52);
  if (be == 0 || be >= 0x7ff) return UNKNOWN;
  let m = (bits & 0xfffffffffffff) | 0x10000000000000;
  const e = be - 1075;
  let dlo: u64;
  let dhi: u64;
  let u: i64;
  let unit: i64;
  if (q < 0) {
    // c 10^k = m P 2^(e+k) against D: X = m P, Y = D 2^s, s = -e-k.
    const k = -q;
    const P = load<u64>(POW5_EXACT + (<usize>k << 3));
    const s = -e - k;
    if (s < 0 || s > 60) return UNKNOWN;
    const ylo = D << <u64>s;
    const yhi = (D >> 1) >> <u64>(63 - s);
    const xlo = m * P;
    dlo = ylo - xlo;
    dhi = yhi - umulh(m, P) - (ylo < xlo ? 1 : 0);
    u = <i64>P;
    unit = <i64>1 << s;
  } else {
    // c = m 2^e against D P 2^q: X = m 2^s, Y = D P, s = e-q.
    const P = load<u64>(POW5_EXACT + (<usize>q << 3));
    const s = e - q;
    if (s < 0 || s > 55) return UNKNOWN;
    const xlo = m << <u64>s;
    const xhi = (m >> 1) >> <u64>(63 - s);
    const ylo = D * P;
    dlo = ylo - xlo;
    dhi = umulh(D, P) - xhi - (ylo < xlo ? 1 : 0);
    u = <i64>1 << s;
    unit = <i64>P;
  }
  // The offset must fit, with room (|d| < 2^60); the spacing is below 2^56 (5^24, 2^55).
  let d = <i64>dlo;
  if (dhi != <u64>(d >> 63) || d >= <i64>1 << 60 || d <= -(<i64>1 << 60)) return UNKNOWN;
  // The double whose rounding interval holds the decimal (a tie goes to the even mantissa).
  for (let step = 0; ; step++) {
    const odd = (m & 1) != 0;
    const d2 = d << 1;
    if (d2 > u || (d2 == u && odd)) {
      m++;
      d -= u;
    } else if (d2 < -u || (d2 == -u && odd)) {
      m--;
      d += u;
    } else break;
    if (step == REACH) return UNKNOWN;
    if (m >= 0x20000000000000 || m <= 0x10000000000000) return UNKNOWN;
  }
  if (m == 0x10000000000000) return UNKNOWN;
  const closed = (m & 1) == 0;
  // The closest of its length.
  const ad2 = (d < 0 ? -d : d) << 1;
  if (ad2 > unit) return NO;
  if (ad2 == unit) return UNKNOWN;
  // No multiple of 10 units in the interval: the two around the decimal (each at least a unit from
  // it, so outside when the unit is wider than the interval).
  if (unit <= u) {
    // D mod 10 by a multiply (a 64-bit division is tens of cycles).
    const r = <i64>(D - (umulh(D, 0xcccccccccccccccd) >> 3) * 10);
    if (inside(d - r * unit, u, closed) || inside(d + (10 - r) * unit, u, closed)) return NO;
  }
  return YES;
}

/** Number of decimal digits of v (1 <= v < 10^18). */
function digitCount(v: u64): i32 {
  let n = 1;
  let t: u64 = 10;
  while (n < 18 && v >= t) {
    n++;
    t *= 10;
  }
  return n;
}

/** a x 10^ea < b x 10^eb (a, b > 0, at most 17 digits each). */
function decimalLess(a: u64, ea: i32, b: u64, eb: i32): bool {
  const na = digitCount(a);
  const nb = digitCount(b);
  // The exponents of the first digits decide, else the digits padded to 18 (below 2^64).
  const xa = ea + na - 1;
  const xb = eb + nb - 1;
  if (xa != xb) return xa < xb;
  let pa = a;
  for (let k = na; k < 18; k++) pa *= 10;
  let pb = b;
  for (let k = nb; k < 18; k++) pb *= 10;
  return pa < pb;
}
