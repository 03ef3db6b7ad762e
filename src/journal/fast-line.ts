// Named, not a namespace import: a bundle makes a copy of a namespace's every export when it starts (a hook call).
import { createHash, hash } from 'node:crypto';
import { isPythonFloatRepr } from '../canonical';
import { scanText, scanValue, type ScanStyle } from '../canonical/text-scan';

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

/** A row's values (src/canonical/text-scan.ts): compact, as deep as the format allows, Python's NaN and infinities. */
const ROW_STYLE: ScanStyle = {
  pretty: false,
  maxDepth: 512,
  nonFinite: true,
  // Python's limit on an integer's digits when it reads or prints one (sys.set_int_max_str_digits).
  intOk: (token) => token.length <= 4300,
};

let s = '';

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
  scanText(text, ROW_STYLE);
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
