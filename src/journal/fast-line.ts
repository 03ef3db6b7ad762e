// Named, not a namespace import: a bundle makes a copy of a namespace's every export when it starts (a hook call).
import { createHash, hash } from 'node:crypto';
import { compareCodePoints, isPythonFloatRepr } from '../canonical';

/**
 * The fast path of verification. A row line that is byte-for-byte canonical
 * carries the canonical encoding of each hashed field as a substring, in the
 * order the payload needs them:
 *
 *   {"blob_refs":[..],"input_hash":..,"model":..,"prev_hash":..,"prompt":..,
 *    "seq":..,"step_hash":..,"tool_call":..,"tool_result":..,"ts":..}
 *
 * so once the line is checked to be canonical, the step payload is
 * `{` + (input_hash .. prompt) + `,` + (tool_call .. tool_result) + `}` and is
 * hashed straight from the line's bytes, with no parse tree and no re-encode.
 * The check is a validator of canonical JSON (pure ASCII, sorted unique keys,
 * canonical escapes and numbers). Anything it does not accept goes to the
 * lossless slow path, which decides whether the line is malformed, valid but
 * not canonical, or something this path does not handle.
 */
export interface FastRow {
  seq: number;
  prev_hash: string;
  step_hash: string;
  computedHash: string;
}

/**
 * Where a canonical row's values lie in its line (start, end; offsets of the text `fastRow` read): each is the
 * canonical encoding of its field, so a row can be rewritten from them without a parse or an encode (publish).
 */
export interface RowSpans {
  input_hash: [number, number];
  model: [number, number];
  prompt: [number, number];
  tool_call: [number, number];
  tool_result: [number, number];
  ts: [number, number];
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;
const MAX_DEPTH = 512;
const MAX_INT_DIGITS = 4300;

let s = '';

/**
 * A canonical string literal, matched by one sticky regex (linear: every
 * alternative starts with a different character): printable ASCII but `"` and
 * `\`, the short escapes, and `\u` + 4 lowercase hex digits for code units
 * that have neither a literal nor a short form.
 */
const STRING =
  /"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\bfnrt]|\\u(?!00(?:0[89acd]|[2-6][0-9a-f]|7[0-9a-e]))[0-9a-f]{4})*"/y;

function scanString(i: number): number {
  STRING.lastIndex = i;
  return STRING.test(s) ? STRING.lastIndex : -1;
}

function scanNumber(i: number): number {
  NUMBER.lastIndex = i;
  const m = NUMBER.exec(s);
  if (m === null) return -1;
  const token = m[0];
  if (m[1] !== undefined || m[2] !== undefined) {
    return isPythonFloatRepr(token) ? i + token.length : -1;
  }
  if (token === '-0' || token.length > MAX_INT_DIGITS) return -1;
  return i + token.length;
}

function keyLess(a0: number, a1: number, b0: number, b1: number): boolean {
  const a = s.slice(a0 + 1, a1 - 1);
  const b = s.slice(b0 + 1, b1 - 1);
  if (a.indexOf('\\') < 0 && b.indexOf('\\') < 0) return a < b;
  return compareCodePoints(JSON.parse(`"${a}"`) as string, JSON.parse(`"${b}"`) as string) < 0;
}

function scanValue(i: number, depth: number): number {
  const c = s.charCodeAt(i);
  switch (c) {
    case 0x22:
      return scanString(i);
    case 0x7b: {
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
        if (s.charCodeAt(k1) !== 0x3a) return -1;
        j = scanValue(k1 + 1, depth + 1);
        if (j < 0) return -1;
        const d = s.charCodeAt(j);
        if (d === 0x7d) return j + 1;
        if (d !== 0x2c) return -1;
        j++;
      }
    }
    case 0x5b: {
      if (depth > MAX_DEPTH) return -1;
      let j = i + 1;
      if (s.charCodeAt(j) === 0x5d) return j + 1;
      for (;;) {
        j = scanValue(j, depth + 1);
        if (j < 0) return -1;
        const d = s.charCodeAt(j);
        if (d === 0x5d) return j + 1;
        if (d !== 0x2c) return -1;
        j++;
      }
    }
    case 0x6e:
      return s.startsWith('null', i) ? i + 4 : -1;
    case 0x74:
      return s.startsWith('true', i) ? i + 4 : -1;
    case 0x66:
      return s.startsWith('false', i) ? i + 5 : -1;
    case 0x4e:
      return s.startsWith('NaN', i) ? i + 3 : -1;
    case 0x49:
      return s.startsWith('Infinity', i) ? i + 8 : -1;
    case 0x2d:
      if (s.startsWith('-Infinity', i)) return i + 9;
      return scanNumber(i);
    default:
      return c >= 0x30 && c <= 0x39 ? scanNumber(i) : -1;
  }
}

/** 64 lowercase hex digits at i (a loop: cheaper than a regex call for 64 characters). */
function hexAt(i: number): boolean {
  for (let k = i; k < i + 64; k++) {
    const c = s.charCodeAt(k);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}

/** One-shot SHA-256 of an ASCII string (crypto.hash where Node has it: no Hash object per row). */
const oneShot = hash as ((alg: string, data: string, enc: 'hex') => string) | undefined;
export function sha256Ascii(text: string): string {
  return oneShot !== undefined
    ? oneShot('sha256', text, 'hex')
    : createHash('sha256').update(text, 'latin1').digest('hex');
}

/**
 * Checks the line `text[a..b)` (a latin1 view of the line's bytes) and hashes
 * its payload; undefined when the line is not a canonical row this path
 * handles (the slow path then decides).
 */
export function fastRow(
  text: string,
  a: number,
  b: number,
  expectedPrev?: string,
  refs?: string[],
  spans?: RowSpans,
): FastRow | undefined {
  s = text;
  const refsAt = refs === undefined ? 0 : refs.length;
  if (!s.startsWith('{"blob_refs":[', a)) return undefined;
  let i = a + 14;
  if (s.charCodeAt(i) === 0x5d) i++;
  else {
    for (;;) {
      if (s.charCodeAt(i) !== 0x22 || !hexAt(i + 1) || s.charCodeAt(i + 65) !== 0x22) return dropRefs(refs, refsAt);
      refs?.push(s.slice(i + 1, i + 65));
      i += 66;
      const d = s.charCodeAt(i++);
      if (d === 0x5d) break;
      if (d !== 0x2c) return dropRefs(refs, refsAt);
    }
  }
  let row: FastRow | undefined;
  try {
    row = fastRowRest(i, b, expectedPrev, spans);
  } catch (e) {
    // The string regex backtracks on its own stack: a string of megabytes overflows it.
    if (!(e instanceof RangeError)) throw e;
  }
  return row === undefined ? dropRefs(refs, refsAt) : row;
}

/** A line the fast path gives up on leaves no refs behind (the slow path collects them). */
function dropRefs(refs: string[] | undefined, at: number): undefined {
  if (refs !== undefined) refs.length = at;
  return undefined;
}

function fastRowRest(
  i: number,
  b: number,
  expectedPrev: string | undefined,
  spans: RowSpans | undefined,
): FastRow | undefined {
  if (!s.startsWith(',"input_hash":"', i) || !hexAt(i + 15) || s.charCodeAt(i + 79) !== 0x22) return undefined;
  const p1 = i + 1;
  const inputHash = i + 14;
  i += 80;
  if (!s.startsWith(',"model":', i)) return undefined;
  const model = i + 9;
  i = scanValue(model, 0);
  const modelEnd = i;
  if (i < 0 || !s.startsWith(',"prev_hash":"', i) || s.charCodeAt(i + 78) !== 0x22) return undefined;
  const prev = s.slice(i + 14, i + 78);
  // Equal to the expected (hex) link, it is hex; only a mismatch needs the digit check.
  if (prev !== expectedPrev && !hexAt(i + 14)) return undefined;
  i += 79;
  if (!s.startsWith(',"prompt":', i)) return undefined;
  const prompt = i + 10;
  i = scanValue(prompt, 0);
  if (i < 0 || !s.startsWith(',"seq":', i)) return undefined;
  const p1end = i;
  i += 7;
  const seqStart = i;
  if (s.charCodeAt(i) === 0x30) i++;
  else while (i < b && s.charCodeAt(i) >= 0x30 && s.charCodeAt(i) <= 0x39) i++;
  if (i === seqStart || i - seqStart > 15) return undefined;
  const seq = Number(s.slice(seqStart, i));
  if (!s.startsWith(',"step_hash":"', i) || s.charCodeAt(i + 78) !== 0x22) return undefined;
  const stored = s.slice(i + 14, i + 78);
  const storedAt = i + 14;
  i += 79;
  if (!s.startsWith(',"tool_call":', i)) return undefined;
  const p2 = i + 1;
  const toolCall = i + 13;
  i = scanValue(toolCall, 0);
  if (i < 0 || !s.startsWith(',"tool_result":', i)) return undefined;
  const toolCallEnd = i;
  const toolResult = i + 15;
  i = scanValue(toolResult, 0);
  if (i < 0 || !s.startsWith(',"ts":', i)) return undefined;
  const p2end = i;
  i += 6;
  const ts = i;
  NUMBER.lastIndex = i;
  const m = NUMBER.exec(s);
  if (m === null || (m[1] === undefined && m[2] === undefined)) return undefined;
  if (!isPythonFloatRepr(m[0])) return undefined;
  i += m[0].length;
  if (i !== b - 1 || s.charCodeAt(i) !== 0x7d) return undefined;
  // The line is pure ASCII here, so the string's code units are its bytes.
  const computedHash = sha256Ascii(`{${s.slice(p1, p1end)},${s.slice(p2, p2end)}}`);
  if (stored !== computedHash && !hexAt(storedAt)) return undefined;
  if (spans !== undefined) {
    spans.input_hash = [inputHash, inputHash + 66];
    spans.model = [model, modelEnd];
    spans.prompt = [prompt, p1end];
    spans.tool_call = [toolCall, toolCallEnd];
    spans.tool_result = [toolResult, p2end];
    spans.ts = [ts, b - 1];
  }
  return { seq, prev_hash: prev, step_hash: stored, computedHash };
}
