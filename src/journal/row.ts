import {
  canonical,
  canonicalOfRead,
  decodeUtf8,
  float,
  isJsonInteger,
  isJsonObject,
  JsonParseError,
  numericValue,
  parse,
  type JsonObject,
  type JsonValue,
} from '../canonical';
import { isSha256Hex } from '../util/hash';
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

/** A line that reads as a row: its fields, its recomputed hash, and whether its bytes are canonical. */
export interface ReadRow {
  kind: 'row';
  row: StepRow;
  /** The parsed object, lossless (extra keys included). */
  value: JsonObject;
  computedHash: string;
  canonical: boolean;
}
export interface BadLine {
  kind: 'malformed';
  reason: string;
}

/** Reads one line's bytes (without the newline) as a row; never throws. */
export function readRowLine(bytes: Uint8Array): ReadRow | BadLine {
  let value: JsonValue;
  let text: string;
  try {
    text = decodeUtf8(bytes);
    value = parse(text);
  } catch (e) {
    if (e instanceof JsonParseError) return { kind: 'malformed', reason: e.message };
    if (e instanceof RangeError) return { kind: 'malformed', reason: 'line too large or too deeply nested' };
    throw e;
  }
  return rowFromValue(value, text);
}

/** Checks the shape of a parsed row; `text` (when known) decides canonicality. */
export function rowFromValue(value: JsonValue, text?: string): ReadRow | BadLine {
  if (!isJsonObject(value)) return { kind: 'malformed', reason: 'line is not a JSON object' };
  for (const k of ROW_KEYS) {
    if (!Object.prototype.hasOwnProperty.call(value, k)) return { kind: 'malformed', reason: `row has no "${k}" key` };
  }
  const v = value as Record<(typeof ROW_KEYS)[number], JsonValue>;
  if (typeof v.prev_hash !== 'string') return { kind: 'malformed', reason: '"prev_hash" is not a string' };
  if (typeof v.step_hash !== 'string') return { kind: 'malformed', reason: '"step_hash" is not a string' };
  if (typeof v.input_hash !== 'string') return { kind: 'malformed', reason: '"input_hash" is not a string' };
  if (!isJsonInteger(v.seq) || typeof v.seq === 'bigint' || v.seq < 0) {
    return { kind: 'malformed', reason: '"seq" is not a non-negative integer' };
  }
  const refs = v.blob_refs;
  if (!Array.isArray(refs) || !refs.every((r) => isSha256Hex(r))) {
    return { kind: 'malformed', reason: '"blob_refs" is not a list of SHA-256 hex digests' };
  }
  const ts = numericValue(v.ts);
  if (ts === undefined) return { kind: 'malformed', reason: '"ts" is not a number' };
  const row: StepRow = {
    blob_refs: refs as string[],
    input_hash: v.input_hash,
    model: v.model,
    prev_hash: v.prev_hash,
    prompt: v.prompt,
    seq: v.seq,
    step_hash: v.step_hash,
    tool_call: v.tool_call,
    tool_result: v.tool_result,
    ts,
  };
  let isCanonical = false;
  if (text !== undefined) {
    try {
      isCanonical = canonicalOfRead(value) === text && Object.keys(value).length === ROW_KEYS.length;
    } catch {
      isCanonical = false;
    }
  }
  return { kind: 'row', row, value, computedHash: computeStepHash(row, true), canonical: isCanonical };
}
