import { createHmac } from 'node:crypto';
import { encode, type JsonObject, type JsonValue } from '../canonical';
import { preciseNowMs } from '../util/time';

/** The genesis `prev_hmac` (docs/format.md §5). */
export const GENESIS_HMAC = '0'.repeat(64);

/** The event types stepchain writes (docs/format.md §5). Other strings are accepted too. */
export const AUDIT_EVENT_TYPES = [
  'replay.step',
  'replay.fork',
  'replay.export',
  'replay.publish',
  'provider.state_mutation',
  'provenance.step_changes',
] as const;
export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

/** What a caller says about an event; the log adds timestamp and chain fields. */
export interface AuditFields {
  actor: string;
  resource_type: string;
  resource_id: string;
  details?: JsonObject;
}

/** One entry as stored (keys sorted on disk). */
export interface AuditEntry {
  timestamp: string;
  event_type: string;
  actor: string;
  resource_type: string;
  resource_id: string;
  details: JsonValue;
  prev_hmac: string;
  hmac: string;
}

export const ENTRY_KEYS = [
  'timestamp',
  'event_type',
  'actor',
  'resource_type',
  'resource_id',
  'details',
  'prev_hmac',
] as const;

/** Python `json.dumps(v, sort_keys=True)` (read values keep NaN/Infinity as read). */
export function prettySortedOfRead(v: JsonValue): string {
  return encode(v, { separators: 'pretty', allowNonFinite: true });
}

/** `hmac = HMAC-SHA256(key, prev_hmac + pretty_sorted(entry without hmac))`, hex. */
export function computeAuditHmac(key: Uint8Array, prevHmac: string, entryWithoutHmac: JsonValue): string {
  return auditHmacOfText(key, prevHmac, prettySortedOfRead(entryWithoutHmac));
}

/** The same HMAC given the pre-image's text, `pretty_sorted(entry without hmac)` (verify's fast path cuts it from the line). */
export function auditHmacOfText(key: Uint8Array, prevHmac: string, prettyWithoutHmac: string): string {
  return createHmac('sha256', key)
    .update(Buffer.from(prevHmac + prettyWithoutHmac, 'utf8'))
    .digest('hex');
}

/** The entry without its `hmac` key (the HMAC's pre-image object). */
export function withoutHmac(entry: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(entry)) {
    if (k === 'hmac') continue;
    Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** The reference timestamp form, `YYYY-MM-DDTHH:MM:SS.ffffffZ` (UTC, microseconds). */
export function auditTimestamp(unixMicros: number): string {
  const ms = Math.floor(unixMicros / 1000);
  const iso = new Date(ms).toISOString();
  const micros = String(Math.floor(unixMicros) % 1_000_000).padStart(6, '0');
  return `${iso.slice(0, 19)}.${micros}Z`;
}

/** Now, in unix microseconds (sub-millisecond from the monotonic clock). */
export function nowMicros(): number {
  return Math.floor(preciseNowMs() * 1000);
}
