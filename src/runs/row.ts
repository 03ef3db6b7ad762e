import {
  canonicalOfRead,
  decodeUtf8,
  float,
  isJsonInteger,
  JsonParseError,
  numericValue,
  parse,
  prettyInsertionOrder,
  encode,
  type JsonValue,
  valueStartError,
} from '../canonical';
import { sha256Hex } from '../util/hash';

/** The run journal's genesis `prev_hash` (the reference's `_GENESIS_HASH`). */
export const RUN_GENESIS = '';

/** Row keys that are not payload: excluded from `payload_hash` (the reference's `_NON_DETERMINISTIC_FIELDS`). */
export const ENVELOPE_KEYS = ['ts', 'elapsed_s', 'index', 'prev_hash', 'payload_hash', 'event_hash'] as const;
const ENVELOPE = new Set<string>(ENVELOPE_KEYS);
/** Keys a payload may not use (they would overwrite the envelope or the event type on the row). */
export const RESERVED_PAYLOAD_KEYS = new Set<string>([...ENVELOPE_KEYS, 'event']);

export type Payload = Map<string, JsonValue>;

/**
 * `payload_hash = sha256(canonical(payload minus the envelope, plus "event": type))`.
 * `payload` may be a whole row: the envelope keys are dropped and `event` is set.
 */
export function computePayloadHash(eventType: string, payload: Payload): string {
  const projected = new Map<string, JsonValue>();
  for (const [k, v] of payload) if (!ENVELOPE.has(k)) projected.set(k, v);
  projected.set('event', eventType);
  return sha256Hex(canonicalOfRead(projected));
}

/** `event_hash = sha256(canonical({prev_hash, event_type, payload_hash, index}))`. */
export function computeEventHash(prevHash: string, eventType: string, payloadHash: string, index: number): string {
  return sha256Hex(canonicalOfRead({ prev_hash: prevHash, event_type: eventType, payload_hash: payloadHash, index }));
}

/** One run journal row. `payload` keeps the payload keys in their written order. */
export interface RunRow {
  ts: number;
  elapsed_s: number;
  index: number;
  event: string;
  prev_hash: string;
  payload_hash: string;
  event_hash: string;
  payload: Payload;
}

/** The row as a JSON value, keys in the reference's order: envelope, event, chain fields, then the payload. */
export function runRowValue(row: RunRow): Map<string, JsonValue> {
  const m = new Map<string, JsonValue>([
    ['ts', float(row.ts)],
    ['elapsed_s', float(row.elapsed_s)],
    ['index', row.index],
    ['event', row.event],
    ['prev_hash', row.prev_hash],
    ['payload_hash', row.payload_hash],
    ['event_hash', row.event_hash],
  ]);
  for (const [k, v] of row.payload) m.set(k, v);
  return m;
}

/** The line for a row (no newline): Python `json.dumps(row)`, insertion order, default separators. */
export function encodeRunRow(row: RunRow): string {
  return prettyInsertionOrder(runRowValue(row));
}

export interface ReadRunRow {
  kind: 'row';
  row: RunRow;
  /** The payload_hash recomputed from the line. */
  computedPayloadHash: string;
  /** Whether the line's bytes are `json.dumps(row)` of its own values. */
  canonical: boolean;
}
export interface BadRunLine {
  kind: 'malformed';
  reason: string;
}

/** Reads one line (without its newline) as a run journal row; never throws. */
export function readRunLine(bytes: Uint8Array): ReadRunRow | BadRunLine {
  let text: string;
  let value: JsonValue;
  try {
    text = decodeUtf8(bytes);
    // A garbage line is answered without the parser's exception (see valueStartError).
    const garbage = valueStartError(text);
    if (garbage !== undefined) return { kind: 'malformed', reason: garbage };
    value = parse(text, { objects: 'map' });
  } catch (e) {
    if (e instanceof JsonParseError) return { kind: 'malformed', reason: e.message };
    if (e instanceof RangeError) return { kind: 'malformed', reason: 'line too large or too deeply nested' };
    throw e;
  }
  if (!(value instanceof Map)) return { kind: 'malformed', reason: 'line is not a JSON object' };
  const get = (k: string): JsonValue | undefined => value.get(k);
  for (const k of ['event', 'prev_hash', 'payload_hash', 'event_hash'] as const) {
    if (typeof get(k) !== 'string') return { kind: 'malformed', reason: `row has no string "${k}"` };
  }
  const index = get('index');
  if (!isJsonInteger(index) || typeof index === 'bigint' || index < 0) {
    return { kind: 'malformed', reason: 'row has no non-negative integer "index"' };
  }
  const payload: Payload = new Map();
  for (const [k, v] of value) if (!RESERVED_PAYLOAD_KEYS.has(k)) payload.set(k, v);
  const row: RunRow = {
    ts: numericValue(get('ts')) ?? NaN,
    elapsed_s: numericValue(get('elapsed_s')) ?? NaN,
    index,
    event: get('event') as string,
    prev_hash: get('prev_hash') as string,
    payload_hash: get('payload_hash') as string,
    event_hash: get('event_hash') as string,
    payload,
  };
  let canonical: boolean;
  try {
    canonical = encode(value, { sortKeys: false, separators: 'pretty', allowNonFinite: true }) === text;
  } catch {
    canonical = false;
  }
  return { kind: 'row', row, computedPayloadHash: computePayloadHash(row.event, value), canonical };
}
