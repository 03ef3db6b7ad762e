// AssemblyScript (compiled to WebAssembly by scripts/build-wasm.mjs; not part of the tsc project).
//
// The entry of the WebAssembly journal scanner: its exports are the module's. The scanner is split by what
// each part reads (block.ts: the block's bytes; strings.ts, numbers.ts: JSON strings and numbers; row.ts: one
// row line); AssemblyScript compiles them into one module, so their shared globals and inlining are unchanged.
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
// Safety: the block is followed by zero bytes scan() writes (block.ts: `ch`, a
// byte read, needs no bounds check of its own); SIMD loads and copies are guarded
// by explicit bounds (fastEscapes, strings.ts, reads the 16 bytes after a window
// that ends at the block end: GUARD's zeros, no part of an escape); the float check reads only the digits of a token scanNumber found in
// the block (and the 8 bytes ending at a run of them, all in the row, whose
// first 14 bytes precede any number). Every loop advances through the block, so
// the work is linear.

import { E, fillHex, hexReady, setEnd } from './block';
import { floatBase, floatCap, floatOverflow, nFloats } from './numbers';
import { fP1, fP1End, fP2, fP2End, fPrev, fRefs, fSeq, fStored, scanRow } from './row';

export { decideFloat } from './numbers';

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

/** Where the next call resumes (absolute address). */
let nextPos: i32 = 0;

export function heapBase(): i32 {
  return <i32>__heap_base;
}

export function next(): i32 {
  return nextPos;
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
  setEnd(end);
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
