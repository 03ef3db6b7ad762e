// AssemblyScript (compiled into the scanner by scripts/build-wasm.mjs; not part of the tsc project).
//
// One row line: scanRow checks that a line is a byte-canonical row (its keys in order, each value canonical
// JSON, scanValue) and leaves the addresses of its fields for the line's record.

import { E, FAIL, ch, hexAt, isDigit, lit } from './block';
import { lastWasFloat, scanNumber, unsignedAt } from './numbers';
import { escapedKeyLess, keyLess, sawEscape, shortString } from './strings';

const MAX_DEPTH: i32 = 512;

function scanValue(i: i32, depth: i32): i32 {
  const c = ch(i);
  // The most common values first: strings, then numbers.
  if (c == 0x22) return shortString(i);
  if (isDigit(c)) return unsignedAt(i, c);
  if (c == 0x2d) {
    if (isDigit(ch(i + 1))) return scanNumber(i);
    return lit(i, '-Infinity') ? i + 9 : FAIL;
  }
  if (c == 0x7b) {
    if (depth > MAX_DEPTH) return FAIL;
    let j = i + 1;
    if (ch(j) == 0x7d) return j + 1;
    let prev0 = -1;
    let prev1 = -1;
    let prevEscaped = false;
    for (;;) {
      if (ch(j) != 0x22) return FAIL;
      const k1 = shortString(j);
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
  return FAIL;
}

/** Fields of the line being scanned, for its record. */
export let fPrev: i32 = 0;
export let fStored: i32 = 0;
export let fP1: i32 = 0;
export let fP1End: i32 = 0;
export let fP2: i32 = 0;
export let fP2End: i32 = 0;
export let fRefs: i32 = 0;
export let fSeq: f64 = 0;

/** Scans a row line at a; returns its end (at the newline or block end) or FAIL. */
export function scanRow(a: i32): i32 {
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
  if (i < 0 || !lit(i, ',"prev_hash":"') || !hexAt(i + 14) || ch(i + 78) != 0x22) return FAIL;
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
  if (!lit(i, ',"step_hash":"') || !hexAt(i + 14) || ch(i + 78) != 0x22) return FAIL;
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
