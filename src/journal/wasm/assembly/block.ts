// AssemblyScript (compiled into the scanner by scripts/build-wasm.mjs; not part of the tsc project).
//
// The block being scanned and the byte-level primitives every part of the scanner reads it with. The block
// end `E` is module state shared by the scanner's modules (AssemblyScript compiles them into one WebAssembly
// module, so an imported `let` is the same global): scan() and decideFloat() set it.
//
// Safety: scan() writes GUARD zero bytes at the block end (JS leaves room for them after every block), and a zero
// byte is matched by no rule (not a digit, a structural character, a letter of a literal or a string's character),
// so a byte-at-a-time read (`ch`) stops at the block end without a bounds check of its own: every such read is of
// the byte after one that was not zero (so at most the block end), or at a position checked against E first. SIMD
// loads and multi-byte matches (`lit`, `hexAt`) are guarded by explicit bounds.

export const FAIL: i32 = -1;

/** Block end (exclusive). */
export let E: i32 = 0;

/** Zero bytes scan() writes after the block (scanner.ts leaves 64 bytes of room after the largest block). */
export const GUARD: i32 = 16;

/** Writes the GUARD zero bytes at the block end e and makes it the block end. */
export function setEnd(e: i32): void {
  E = e;
  v128.store(<usize>e, i8x16.splat(0));
}

/**
 * The byte at i (in the block, or the zero at its end). Was `i < E && i >= 0 ? load : 0x100`: the compare and
 * branch on every byte read were a quarter of the scanner's instructions on deeply nested rows.
 */
@inline export function ch(i: i32): i32 {
  return <i32>load<u8>(<usize>i);
}

@inline export function isDigit(c: i32): bool {
  return <u32>(c - 0x30) < 10;
}

@inline function isHex(c: i32): bool {
  return <u32>(c - 0x30) < 10 || <u32>(c - 0x61) < 6;
}

/** The bytes at i spell `lit` (an ASCII literal). */
@inline export function lit(i: i32, s: string): bool {
  const n = s.length;
  if (i < 0 || i > E - n) return false;
  const p = changetype<usize>(s);
  // Eight bytes at a time, the last eight overlapping the first (a row's keys are 6 to 15 bytes, ten a row: a byte
  // at a time they were most of scanRow's time). n is a constant where this is inlined: one of these is left.
  if (n >= 8 && n <= 16) return litEight(i, p, 0) && litEight(i, p, n - 8);
  for (let k = 0; k < n; k++) {
    if (<i32>load<u8>(<usize>(i + k)) != <i32>load<u16>(p + (<usize>k << 1))) return false;
  }
  return true;
}

/** The 8 bytes at i + k are the ASCII string's (at p, UTF-16) 8 characters from k. */
@inline function litEight(i: i32, p: usize, k: i32): bool {
  const chars = v128.load(p + (<usize>k << 1));
  return i64x2.extract_lane(i8x16.narrow_i16x8_u(chars, chars), 0) == load<u64>(<usize>(i + k));
}

/** 64 lowercase hex digits at i (16 bytes at a time: each a digit or a to f). */
export function hexAt(i: i32): bool {
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
export const HEX: usize = memory.data(256);
export let hexReady = false;

export function fillHex(): void {
  for (let c = 0; c < 256; c++) store<u8>(HEX + <usize>c, <u8>(isHex(c) ? hexVal(c) : 0x80));
  hexReady = true;
}

/** One lowercase hex digit's value, or -1. */
@inline function hexVal(c: i32): i32 {
  if (<u32>(c - 0x30) < 10) return c - 0x30;
  if (<u32>(c - 0x61) < 6) return c - 0x57;
  return -1;
}
