import {
  canonical,
  canonicalOfRead,
  decodeUtf8,
  float,
  INVALID_UTF8,
  isJsonInteger,
  isJsonObject,
  JsonParseError,
  numericValue,
  parse,
  type JsonObject,
  type JsonValue,
} from '../canonical';
import { isSha256Hex } from '../util/hash';
import { pyStrip } from './lines';
import { computeStepHash } from './step-hash';

/** One journal row: exactly these keys, written as `canonical(row)` (docs/format.md §2). */
export interface StepRow {
  blob_refs: string[];
  input_hash: string;
  model: JsonValue;
  prev_hash: string;
  prompt: JsonValue;
  seq: number;
  step_hash: string;
  tool_call: JsonValue;
  tool_result: JsonValue;
  /** Unix seconds, written as a float. */
  ts: number;
}

export const ROW_KEYS = [
  'blob_refs',
  'input_hash',
  'model',
  'prev_hash',
  'prompt',
  'seq',
  'step_hash',
  'tool_call',
  'tool_result',
  'ts',
] as const;

const ROW_KEY_SET: ReadonlySet<string> = new Set(ROW_KEYS);

/**
 * The keys of a stored row outside the ten of the format (docs/format.md §2), in their order. No hash
 * covers them: anyone who can write the file can add or change them without breaking the chain, so they
 * are shown apart from the step, as unverified, never as part of it (docs/journal.md, "Keys outside the row").
 */
export function unhashedKeys(keys: Iterable<string>): string[] {
  const out: string[] = [];
  for (const k of keys) if (!ROW_KEY_SET.has(k)) out.push(k);
  return out;
}

/** The row as a JSON value (ts kept a float even when integral). */
export function rowValue(row: StepRow): JsonObject {
  return {
    blob_refs: row.blob_refs,
    input_hash: row.input_hash,
    model: row.model,
    prev_hash: row.prev_hash,
    prompt: row.prompt,
    seq: row.seq,
    step_hash: row.step_hash,
    tool_call: row.tool_call,
    tool_result: row.tool_result,
    ts: float(row.ts),
  };
}

/** The line for a row, without its newline. */
export function encodeRow(row: StepRow): string {
  return canonical(rowValue(row));
}

/**
 * The fields the chain checks read from a row (docs/journal.md): undefined where
 * the row's shape is wrong, so that check is left out (the shape fault says why).
 */
export interface RowView {
  seq: number | bigint | undefined;
  prev_hash: string | undefined;
  step_hash: string | undefined;
  /** The recomputed step hash; undefined when a hashed field is missing or mistyped. */
  computedHash: string | undefined;
}

/**
 * A line that is a JSON object: a row, walked as the reference walks it (it
 * counts toward the expected seq and the chain follows its step_hash) even when
 * its shape is wrong, which `shape` then names.
 */
export interface ReadRow {
  kind: 'row';
  view: RowView;
  /** The row, when its shape is right. */
  row: StepRow | undefined;
  /** What is wrong with the shape, naming every bad field; undefined when it is right. */
  shape: string | undefined;
  /** The parsed object, lossless (extra keys included). */
  value: JsonObject;
  /** The line's text is exactly `canonical(row)` (no whitespace around it, no extra keys). */
  canonical: boolean;
}
/** A line that is not a JSON object (not JSON at all, invalid UTF-8, too deep, or another JSON value). */
export interface BadLine {
  kind: 'malformed';
  reason: string;
}
/** A line that Python's `str.strip()` leaves empty: skipped, as the reference skips it. */
export interface BlankLine {
  kind: 'blank';
}
export type LineRead = ReadRow | BadLine | BlankLine;

/** The first character of any JSON text Python reads (a BOM is not one). */
const JSON_START = /^[{["0-9tfnNI-]/;

/** Reads one line's bytes (without its terminator) by the reference's reading rules; never throws. */
export function readRowLine(bytes: Uint8Array): LineRead {
  let value: JsonValue;
  let raw: string;
  try {
    raw = decodeUtf8(bytes);
  } catch (e) {
    // Where the bytes stop being UTF-8, as a parse error says where reading stopped; a line too long to hold is not
    // a place in it.
    if (!(e instanceof JsonParseError)) return { kind: 'malformed', reason: INVALID_UTF8 };
    return { kind: 'malformed', reason: e.reason === INVALID_UTF8 ? e.message : e.reason };
  }
  const text = pyStrip(raw);
  if (text.length === 0) return { kind: 'blank' };
  // A line that cannot even start a JSON value is answered without the parser's exception (garbage is cheap).
  if (!JSON_START.test(text)) return { kind: 'malformed', reason: 'expecting value at column 1' };
  try {
    value = parse(text);
  } catch (e) {
    if (e instanceof JsonParseError) return { kind: 'malformed', reason: e.message };
    if (e instanceof RangeError) return { kind: 'malformed', reason: 'line too large to read' };
    throw e;
  }
  if (!isJsonObject(value)) return { kind: 'malformed', reason: 'line is not a JSON object' };
  try {
    return rowFromValue(value, text === raw ? text : undefined);
  } catch (e) {
    // Its canonical encoding (what the hash covers) can be six times the line: a line of 90 MB of DEL bytes in a
    // string encodes to more than the longest string Node.js holds; that ended the walk as an internal error.
    if (e instanceof RangeError) return { kind: 'malformed', reason: ROW_TOO_LARGE };
    throw e;
  }
}

/** Why a row whose canonical encoding is longer than one string can hold is not checked. */
export const ROW_TOO_LARGE =
  'row too large to check: its canonical encoding (what step_hash covers) is longer than the longest string Node.js holds';

const has = (o: JsonObject, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/**
 * Reads a parsed object as a row; `text` (the line, when it had no whitespace
 * around it) decides canonicality.
 */
export function rowFromValue(
  value: JsonObject,
  text?: string,
  known?: { computedHash: string; canonical: boolean },
): ReadRow {
  const bad: string[] = [];
  const v = value as Partial<Record<(typeof ROW_KEYS)[number], JsonValue>>;
  const field = (k: (typeof ROW_KEYS)[number], ok: boolean, what: string): boolean => {
    if (!has(value, k)) bad.push(`no "${k}" key`);
    else if (!ok) bad.push(`"${k}" ${what}`);
    return has(value, k) && ok;
  };
  const seqOk = field('seq', isJsonInteger(v.seq), 'is not an integer');
  const prevOk = field('prev_hash', typeof v.prev_hash === 'string', 'is not a string');
  const stepOk = field('step_hash', typeof v.step_hash === 'string', 'is not a string');
  const inputOk = field('input_hash', typeof v.input_hash === 'string', 'is not a string');
  let hashedPresent = true;
  for (const k of ['model', 'prompt', 'tool_call', 'tool_result'] as const)
    hashedPresent = field(k, true, '') && hashedPresent;
  const refs = v.blob_refs;
  field('blob_refs', Array.isArray(refs) && refs.every((r) => isSha256Hex(r)), 'is not a list of SHA-256 hex digests');
  const ts = numericValue(v.ts);
  field('ts', ts !== undefined, 'is not a number');

  const fields =
    prevOk && inputOk && hashedPresent
      ? {
          prev_hash: v.prev_hash as string,
          input_hash: v.input_hash as string,
          model: v.model as JsonValue,
          prompt: v.prompt as JsonValue,
          tool_call: v.tool_call as JsonValue,
          tool_result: v.tool_result as JsonValue,
        }
      : undefined;
  const view: RowView = {
    seq: seqOk ? (v.seq as number | bigint) : undefined,
    prev_hash: prevOk ? (v.prev_hash as string) : undefined,
    step_hash: stepOk ? (v.step_hash as string) : undefined,
    computedHash: fields === undefined ? undefined : (known?.computedHash ?? computeStepHash(fields, true)),
  };
  if (bad.length > 0) {
    return { kind: 'row', view, row: undefined, shape: `row shape: ${bad.join('; ')}`, value, canonical: false };
  }
  const row: StepRow = {
    ...fields!,
    blob_refs: refs as string[],
    seq: Number(v.seq),
    step_hash: v.step_hash as string,
    ts: ts!,
  };
  let isCanonical = known?.canonical ?? false;
  if (known === undefined && text !== undefined && Object.keys(value).length === ROW_KEYS.length) {
    try {
      isCanonical = canonicalOfRead(value) === text;
    } catch {
      isCanonical = false;
    }
  }
  return { kind: 'row', view, row, shape: undefined, value, canonical: isCanonical };
}
