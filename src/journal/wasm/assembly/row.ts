// AssemblyScript (compiled into the scanner by scripts/build-wasm.mjs; not part of the tsc project).
//
// One row line: scanRow checks that a line is a byte-canonical row (its keys in order, each value canonical
// JSON, scanValue) and leaves the addresses of its fields for the line's record.

import { E, FAIL, ch, hexAt, isDigit, lit } from './block';
import { lastWasFloat, scanNumber, unsignedAt } from './numbers';
import { escapedKeyLess, keyLess, sawEscape, shortString } from './strings';

const MAX_DEPTH: i32 = 512;

/** Per open container (index: its depth): the previous key's span [PREV0, PREV1) of an object, -1 for an array. */
const PREV0: usize = memory.data((MAX_DEPTH + 1) << 2);
const PREV1: usize = memory.data((MAX_DEPTH + 1) << 2);
/** Per open object: its previous key held an escape (1) or not (0). */
const PREV_ESC: usize = memory.data(MAX_DEPTH + 1);

/** The key at i (an object member's): ordered after the previous key of the object at depth d; the index after its `:`. */
@inline function memberKey(i: i32, d: i32): i32 {
  if (ch(i) != 0x22) return FAIL;
  const k1 = shortString(i);
  if (k1 < 0) return FAIL;
  const escaped = sawEscape;
  const at = <usize>d << 2;
  const prev0 = load<i32>(PREV0 + at);
  if (prev0 >= 0) {
    const prev1 = load<i32>(PREV1 + at);
    if (escaped || load<u8>(PREV_ESC + <usize>d) != 0) {
      if (escapedKeyLess(prev0, prev1, i, k1) != 1) return FAIL;
    } else if (!keyLess(prev0, prev1, i, k1)) return FAIL;
  }
  store<i32>(PREV0 + at, i);
  store<i32>(PREV1 + at, k1);
  store<u8>(PREV_ESC + <usize>d, escaped ? 1 : 0);
  return ch(k1) == 0x3a ? k1 + 1 : FAIL;
}

/**
 * The JSON value at i, canonical: the index after it, or FAIL. One loop over the value's bytes, the containers
 * open around the current one kept in PREV0/PREV1 by depth (no call per value: a nested value costs what its
 * bytes do); a container opened deeper than MAX_DEPTH fails.
 */
function scanValue(i: i32): i32 {
  let d = 0; // containers open
  for (;;) {
    // A value at i.
    const c = ch(i);
    if (c == 0x22) i = shortString(i);
    else if (isDigit(c)) i = unsignedAt(i, c);
    else if (c == 0x7b || c == 0x5b) {
      if (d > MAX_DEPTH) return FAIL;
      const close = c + 2; // } or ]
      if (ch(i + 1) == close) i += 2;
      else if (c == 0x5b) {
        store<i32>(PREV0 + (<usize>d << 2), -1);
        d++;
        i++;
        continue;
      } else {
        store<i32>(PREV0 + (<usize>d << 2), -1);
        i = memberKey(i + 1, d);
        if (i < 0) return FAIL;
        d++;
        continue;
      }
    } else if (c == 0x2d) {
      if (isDigit(ch(i + 1))) i = scanNumber(i);
      else i = lit(i, '-Infinity') ? i + 9 : FAIL;
    } else if (c == 0x6e) i = lit(i, 'null') ? i + 4 : FAIL;
    else if (c == 0x74) i = lit(i, 'true') ? i + 4 : FAIL;
    else if (c == 0x66) i = lit(i, 'false') ? i + 5 : FAIL;
    else if (c == 0x4e) i = lit(i, 'NaN') ? i + 3 : FAIL;
    else if (c == 0x49) i = lit(i, 'Infinity') ? i + 8 : FAIL;
    else return FAIL;
    if (i < 0) return FAIL;
    // What follows a value: the containers it closes, then a separator and the next member.
    for (;;) {
      if (d == 0) return i;
      const t = d - 1;
      const isObject = load<i32>(PREV0 + (<usize>t << 2)) >= 0;
      const e = ch(i);
      if (e == (isObject ? 0x7d : 0x5d)) {
        d = t;
        i++;
        continue;
      }
      if (e != 0x2c) return FAIL;
      i++;
      if (isObject) {
        i = memberKey(i, t);
        if (i < 0) return FAIL;
      }
      break;
    }
  }
  return FAIL; // not reached
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
  i = scanValue(i + 9);
  if (i < 0 || !lit(i, ',"prev_hash":"') || !hexAt(i + 14) || ch(i + 78) != 0x22) return FAIL;
  fPrev = i + 14;
  i += 79;
  if (!lit(i, ',"prompt":')) return FAIL;
  i = scanValue(i + 10);
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
  i = scanValue(i + 13);
  if (i < 0 || !lit(i, ',"tool_result":')) return FAIL;
  i = scanValue(i + 15);
  if (i < 0 || !lit(i, ',"ts":')) return FAIL;
  fP2End = i;
  i = scanNumber(i + 6);
  if (i < 0 || !lastWasFloat) return FAIL;
  if (ch(i) != 0x7d) return FAIL;
  i++;
  if (i < E && ch(i) != 0x0a) return FAIL;
  return i;
}
