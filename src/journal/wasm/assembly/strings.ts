// AssemblyScript (compiled into the scanner by scripts/build-wasm.mjs; not part of the tsc project).
//
// String literals of a byte-canonical row: scanString checks one (a 64-byte window's usual `\u` escapes found at
// once by fastEscapes, any other escape by escapeEnd), keyLess and escapedKeyLess order two keys the way the
// canonical encoder sorts them.

import { E, FAIL, HEX, ch } from './block';

/** The last string scanned contained a backslash. */
export let sawEscape: bool = false;

/** Bytes that may follow a backslash as a short escape (`"`, `\\`, b, f, n, r, t): 1, else 0. */
const SHORT_ESCAPE: usize = memory.data<u8>([
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
  0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
]);

/**
 * escapePair's per-lane constants (a load each: V8 builds a v128.const from immediates, several instructions).
 * The tests are each one add and one signed compare: a byte equal to c (or in [c, c + n)) lands on -128 (or in
 * [-128, -128 + n)) after the add; a limit of -128 is a lane that never passes. An escape starts at lanes 0 and 6.
 */
const PAIR: usize = memory.data<u8>([
  // digit add: `\` at lanes 0 and 6, `u` at 1 and 7, a digit 0-9 at the rest of 0..11
  0x24, 0x0b, 0x50, 0x50, 0x50, 0x50, 0x24, 0x0b, 0x50, 0x50, 0x50, 0x50, 0, 0, 0, 0,
  // digit limit
  0x81, 0x81, 0x8a, 0x8a, 0x8a, 0x8a, 0x81, 0x81, 0x8a, 0x8a, 0x8a, 0x8a, 0x80, 0x80, 0x80, 0x80,
  // a-f add
  0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f,
  // a-f limit (hex digit lanes)
  0x80, 0x80, 0x86, 0x86, 0x86, 0x86, 0x80, 0x80, 0x86, 0x86, 0x86, 0x86, 0x80, 0x80, 0x80, 0x80,
  // "00" as 16-bit lanes; and the add for 0-7
  0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30,
  0x50, 0x50, 0x50, 0x50, 0x50, 0x50, 0x50, 0x50, 0x50, 0x50, 0x50, 0x50, 0x50, 0x50, 0x50, 0x50,
  // 0-7 limit: lanes 4 and 10 (the third digit) only
  0x80, 0x80, 0x80, 0x80, 0x88, 0x80, 0x80, 0x80, 0x80, 0x80, 0x88, 0x80, 0x80, 0x80, 0x80, 0x80,
], 16);

/**
 * Which of the 12 bytes at a hold two `\u` escapes that escapeEnd takes without a closer look, one bit a byte
 * (bits 0..11; bits 12..15 are never set): `\`, `u`, 4 lowercase hex digits, where the first two digits are not
 * both 0 or the third is 8 or above (a code unit of 0x80 and above, which has no literal and no short form). The
 * rest (a control character or DEL written as `\u`, and every refusal) is left to escapeEnd's byte-by-byte rule.
 */
@inline function escapePair(a: usize): i32 {
  const v = v128.load(a);
  const digit = i8x16.lt_s(i8x16.add(v, v128.load(PAIR)), v128.load(PAIR, 16));
  const af = i8x16.lt_s(i8x16.add(v, v128.load(PAIR, 32)), v128.load(PAIR, 48));
  // The first two digits both 0 (a 16-bit lane of "00" at bytes 2 and 8), moved onto the third digit's lane ...
  const zeros = i64x2.shl(i16x8.eq(v, v128.load(PAIR, 64)), 16);
  // ... and the third digit 0 to 7: a code unit below 0x80.
  const low = i8x16.lt_s(i8x16.add(v, v128.load(PAIR, 80)), v128.load(PAIR, 96));
  return i8x16.bitmask(v128.andnot(v128.or(digit, af), v128.and(zeros, low)));
}

/** fastEscapes' constants (a load each, as PAIR's): a digit's add and limit (0-9), 0's and 0-7's limits, a-f's. */
const ESC: usize = memory.data<u8>([
  0x50, 0x50, 0x50, 0x50, 0x50, 0x50, 0x50, 0x50, 0x50, 0x50, 0x50, 0x50, 0x50, 0x50, 0x50, 0x50,
  0x8a, 0x8a, 0x8a, 0x8a, 0x8a, 0x8a, 0x8a, 0x8a, 0x8a, 0x8a, 0x8a, 0x8a, 0x8a, 0x8a, 0x8a, 0x8a,
  0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81, 0x81,
  0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88,
  0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f, 0x1f,
  0x86, 0x86, 0x86, 0x86, 0x86, 0x86, 0x86, 0x86, 0x86, 0x86, 0x86, 0x86, 0x86, 0x86, 0x86, 0x86,
  0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c, 0x5c,
  0x75, 0x75, 0x75, 0x75, 0x75, 0x75, 0x75, 0x75, 0x75, 0x75, 0x75, 0x75, 0x75, 0x75, 0x75, 0x75,
], 16);

/** The bytes of `v` that are lowercase hex digits, one bit each (its add for 0-9 given as `d`). */
@inline function hexBits(v: v128, d: v128): i64 {
  return <i64>i8x16.bitmask(
    v128.or(i8x16.lt_s(d, v128.load(ESC, 16)), i8x16.lt_s(i8x16.add(v, v128.load(ESC, 64)), v128.load(ESC, 80))),
  );
}

/** The bytes of `v` equal to the byte at ESC + at (a row of 16 of it), one bit each. */
@inline function eqBits(v: v128, at: usize): i64 {
  return <i64>i8x16.bitmask(i8x16.eq(v, v128.load(ESC + at)));
}

/** The bytes of `d` (a digit's add) below the limit at ESC + at: 0 (32) or 0-7 (48) on a digit's lane. */
@inline function ltBits(d: v128, at: usize): i64 {
  return <i64>i8x16.bitmask(i8x16.lt_s(d, v128.load(ESC + at)));
}

/**
 * The backslashes of the 64 bytes at w that start a `\u` escape escapeEnd takes without a closer look (escapePair's
 * rule: 4 lowercase hex digits, not a code unit below 0x80), one bit a byte: found for the whole window at once,
 * where escapeEnd takes each run of them in turn (a run of 2 to 6 is common in non-ASCII text: a load and a branch
 * two escapes, and a mispredicted exit a run). An escape's bytes after its backslash are plain characters, so the
 * string's next special byte after one of these is the next bit of its mask (scanString). Reads the 80 bytes at w
 * (the block's, or the GUARD zeros after it: w <= E - 64), an escape at 59..63 reaching into the last 16; a zero
 * byte is no part of an escape. Signed compares after an add (as PAIR): 0-9 land on -128..-119, 0 on -128, 0-7
 * below -120.
 */
function fastEscapes(w: usize): i64 {
  const v0 = v128.load(w);
  const v1 = v128.load(w, 16);
  const v2 = v128.load(w, 32);
  const v3 = v128.load(w, 48);
  const v4 = v128.load(w, 64);
  const add = v128.load(ESC);
  const d0 = i8x16.add(v0, add);
  const d1 = i8x16.add(v1, add);
  const d2 = i8x16.add(v2, add);
  const d3 = i8x16.add(v3, add);
  const d4 = i8x16.add(v4, add);
  const bs = eqBits(v0, 96) | (eqBits(v1, 96) << 16) | (eqBits(v2, 96) << 32) | (eqBits(v3, 96) << 48);
  const u = eqBits(v0, 112) | (eqBits(v1, 112) << 16) | (eqBits(v2, 112) << 32) | (eqBits(v3, 112) << 48);
  const h = hexBits(v0, d0) | (hexBits(v1, d1) << 16) | (hexBits(v2, d2) << 32) | (hexBits(v3, d3) << 48);
  const z = ltBits(d0, 32) | (ltBits(d1, 32) << 16) | (ltBits(d2, 32) << 32) | (ltBits(d3, 32) << 48);
  const l = ltBits(d0, 48) | (ltBits(d1, 48) << 16) | (ltBits(d2, 48) << 32) | (ltBits(d3, 48) << 48);
  // The next 16 bytes' bits, shifted in: bit k of a mask from k on.
  const u4 = eqBits(v4, 112);
  const h4 = hexBits(v4, d4);
  const z4 = ltBits(d4, 32);
  const l4 = ltBits(d4, 48);
  const u1 = (u >>> 1) | (u4 << 63);
  const hex = ((h >>> 2) | (h4 << 62)) & ((h >>> 3) | (h4 << 61)) & ((h >>> 4) | (h4 << 60)) & ((h >>> 5) | (h4 << 59));
  const below = ((z >>> 2) | (z4 << 62)) & ((z >>> 3) | (z4 << 61)) & ((l >>> 4) | (l4 << 60));
  return bs & u1 & hex & ~below;
}

/**
 * The escape at p (which holds a backslash) in a canonical string: a short escape, or `\u` + 4 lowercase
 * hex digits for a code unit that has neither a literal nor a short form (a run of them taken at once:
 * non-ASCII text is one after another). Returns the index after it (after the run), or FAIL.
 */
@inline function escapeEnd(p: i32): i32 {
  if (p + 1 >= E) return FAIL;
  const d = <i32>load<u8>(<usize>p, 1);
  if (d < 0x80 && load<u8>(SHORT_ESCAPE + <usize>d) != 0) return p + 2;
  if (d != 0x75 || p > E - 6) return FAIL;
  // The usual escapes, two at a time (a run of 4 to 6 is common in non-ASCII text) ...
  while (p <= E - 12) {
    const g = escapePair(<usize>p);
    if (g == 0xfff) {
      p += 12;
      continue;
    }
    if ((g & 0x3f) == 0x3f) p += 6;
    break;
  }
  // ... then the rest of the run one at a time: an escape escapePair leaves, or the block's last bytes.
  while (p <= E - 6 && load<u16>(<usize>p) == 0x755c) {
    const a = <usize>p;
    const h0 = <i32>load<u8>(HEX + <usize>load<u8>(a, 2));
    const h1 = <i32>load<u8>(HEX + <usize>load<u8>(a, 3));
    const h2 = <i32>load<u8>(HEX + <usize>load<u8>(a, 4));
    const h3 = <i32>load<u8>(HEX + <usize>load<u8>(a, 5));
    if ((h0 | h1 | h2 | h3) & 0x80) return FAIL;
    const u = (h0 << 12) | (h1 << 8) | (h2 << 4) | h3;
    // Code units with a literal or a short form must use it.
    if (u <= 0x7e && (u >= 0x20 || u == 0x08 || u == 0x09 || u == 0x0a || u == 0x0c || u == 0x0d)) return FAIL;
    p += 6;
  }
  return p;
}

/**
 * The bytes of `v` that are not plain characters, one bit each: a quote, a backslash, a control character, DEL, a
 * byte of non-ASCII. Signed compares (one instruction each on x86, where unsigned ones take three): a byte below
 * 0x20 or at 0x80 and above is below 0x20 as a signed byte; 0x7f is the one left.
 */
@inline function special(v: v128): i32 {
  return i8x16.bitmask(
    v128.or(
      v128.or(i8x16.lt_s(v, i8x16.splat(0x20)), i8x16.eq(v, i8x16.splat(0x7f))),
      v128.or(i8x16.eq(v, i8x16.splat(0x22)), i8x16.eq(v, i8x16.splat(0x5c))),
    ),
  );
}

/**
 * A canonical string literal at i (which holds `"`): printable ASCII but `"` and
 * `\`, the short escapes, and `\u` + 4 lowercase hex digits for code units that
 * have neither a literal nor a short form. Returns the index after the closing quote.
 *
 * 16 or 64 bytes at a time: the bytes that are not plain characters (a quote, a backslash, a control character,
 * DEL, a byte of non-ASCII) are found at once, and then taken one after another from that mask, an escape
 * clearing the bits of the bytes it spans, so text dense with escapes is not loaded again for each.
 */
export function scanString(i: i32): i32 {
  sawEscape = false;
  i++;
  // 16 bytes a mask, and 64 once a mask finds none (plain text: fewer loads and trips for each special byte),
  // back to 16 when an escape run goes past the 64 (dense escapes: a 64-byte mask from each run's end would
  // scan its bytes up to four times).
  while (i >= 0 && i <= E - 16) {
    while (i <= E - 64) {
      const a = <usize>i;
      const v0 = v128.load(a);
      const v1 = v128.load(a, 16);
      const v2 = v128.load(a, 32);
      const v3 = v128.load(a, 48);
      const m0 = special(v0);
      const m1 = special(v1);
      const m2 = special(v2);
      const m3 = special(v3);
      let mask = <i64>m0 | (<i64>m1 << 16) | (<i64>m2 << 32) | (<i64>m3 << 48);
      const w = i;
      i += 64;
      // The window's usual escapes (fastEscapes), found at its first backslash.
      let fast: i64 = 0;
      let looked = false;
      while (mask != 0) {
        const p = w + <i32>ctz<i64>(mask);
        const c = <i32>load<u8>(<usize>p);
        if (c == 0x22) return p + 1;
        if (c != 0x5c) return FAIL;
        sawEscape = true;
        if (!looked) {
          looked = true;
          fast = fastEscapes(<usize>w);
        }
        if (((fast >> <i64>(p - w)) & 1) != 0) {
          // This escape is taken, and so is every later one of them: on to the next special byte that is not one.
          mask &= ~fast;
          continue;
        }
        const q = escapeEnd(p);
        if (q < 0) return FAIL;
        if (q - w >= 64) {
          i = q;
          break;
        }
        mask &= <i64>-1 << <i64>(q - w);
      }
      if (mask != 0) break;
    }
    while (i <= E - 16) {
      const v = v128.load(<usize>i);
      let mask = special(v);
      const w = i;
      i += 16;
      if (mask == 0) break;
      while (mask != 0) {
        const p = w + ctz<i32>(mask);
        const c = <i32>load<u8>(<usize>p);
        if (c == 0x22) return p + 1;
        if (c != 0x5c) return FAIL;
        sawEscape = true;
        const q = escapeEnd(p);
        if (q < 0) return FAIL;
        if (q - w >= 16) {
          i = q;
          break;
        }
        mask &= -1 << (q - w);
      }
    }
  }
  // The last bytes of the block, one at a time.
  for (;;) {
    const c = ch(i);
    if (c == 0x22) return i + 1;
    if (c == 0x5c) {
      sawEscape = true;
      i = escapeEnd(i);
      if (i < 0) return FAIL;
      continue;
    }
    if (c < 0x20 || c > 0x7e) return FAIL;
    i++;
  }
  return FAIL; // not reached
}

/**
 * scanString for a string at i whose closing quote is among the 16 bytes after its opening one, with plain
 * characters before it (most keys, most short values): found from one mask, inline where it is called.
 */
@inline export function shortString(i: i32): i32 {
  const p = i + 1;
  if (p >= 0 && p <= E - 16) {
    const v = v128.load(<usize>p);
    const quotes = i8x16.bitmask(i8x16.eq(v, i8x16.splat(0x22)));
    const others = i8x16.bitmask(
      v128.or(
        v128.or(i8x16.lt_s(v, i8x16.splat(0x20)), i8x16.eq(v, i8x16.splat(0x7f))),
        i8x16.eq(v, i8x16.splat(0x5c)),
      ),
    );
    // A quote, and no other byte that is not a plain character before the first one.
    if (quotes != 0 && (others & ((quotes & -quotes) - 1)) == 0) {
      sawEscape = false;
      return p + ctz<i32>(quotes) + 1;
    }
  }
  return scanString(i);
}

/** Key [a0, a1) < key [b0, b1) (both with their quotes, no escapes): bytewise. */
export function keyLess(a0: i32, a1: i32, b0: i32, b1: i32): bool {
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
export function escapedKeyLess(a0: i32, a1: i32, b0: i32, b1: i32): i32 {
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
