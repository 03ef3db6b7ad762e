import { pythonFloatRepr } from './float-repr';
import { MAX_NESTING } from './limits';
import { compareCodePoints } from './key-order';
import { JsonFloat, type JsonValue } from './value';

/** Raised for values that have no canonical encoding (NaN given to a writer, a function, ...). */
export class CanonicalEncodeError extends Error {
  override name = 'CanonicalEncodeError';
}

export interface EncodeOptions {
  /** Sort object keys by code point (Python `sort_keys=True`). Default true. */
  sortKeys?: boolean;
  /** `compact` = `(",", ":")`; `pretty` = Python's default `(", ", ": ")`. Default compact. */
  separators?: 'compact' | 'pretty';
  /** Accept NaN and infinities (they are only accepted when re-encoding read values). Default false. */
  allowNonFinite?: boolean;
  /**
   * Nesting allowed (default MAX_NESTING). Only documents that wrap values already
   * within the limit (a command's --json output around a row) go a few levels deeper.
   */
  maxNesting?: number;
}

/** JSON's short escapes (`\n`, `\"`...) by code unit: the encoder's, and the report page's display of strings. */
export const SHORT_ESCAPES: Readonly<Record<number, string>> = {
  0x22: '\\"',
  0x5c: '\\\\',
  0x0a: '\\n',
  0x0d: '\\r',
  0x09: '\\t',
  0x08: '\\b',
  0x0c: '\\f',
};
const PLAIN_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
/**
 * ASCII below DEL: there JSON.stringify escapes exactly what json.dumps does (`\"`, `\\`, the short escapes, `\u00xx`
 * in lowercase for the other control characters), natively. The loop below builds its result a piece per escape:
 * a string of millions of newlines took seconds, most of them collecting the pieces.
 */
const ASCII_BELOW_DEL = /^[\x00-\x7e]*$/;

/** Python `json.dumps` string encoding with `ensure_ascii=True`. */
export function encodeString(s: string): string {
  if (PLAIN_ASCII.test(s)) return `"${s}"`;
  if (ASCII_BELOW_DEL.test(s)) return JSON.stringify(s);
  let out = '"';
  let run = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c <= 0x7e && c !== 0x22 && c !== 0x5c) continue;
    out += s.slice(run, i);
    out += SHORT_ESCAPES[c] ?? `\\u${c.toString(16).padStart(4, '0')}`;
    run = i + 1;
  }
  return `${out}${s.slice(run)}"`;
}

function encodeNumber(n: number, allowNonFinite: boolean): string {
  if (Number.isInteger(n)) {
    return Number.isSafeInteger(n) ? String(n === 0 ? 0 : n) : BigInt(n).toString();
  }
  if (!Number.isFinite(n) && !allowNonFinite) {
    throw new CanonicalEncodeError(`${String(n)} is not allowed in a written value (JSON has no NaN or Infinity)`);
  }
  return pythonFloatRepr(n);
}

/**
 * Encodes a value as Python's `json.dumps` would: by default
 * `json.dumps(v, sort_keys=True, separators=(",", ":"))`.
 */
export function encode(value: JsonValue, options: EncodeOptions = {}): string {
  const sortKeys = options.sortKeys ?? true;
  const pretty = options.separators === 'pretty';
  const itemSep = pretty ? ', ' : ',';
  const keySep = pretty ? ': ' : ':';
  const allowNonFinite = options.allowNonFinite ?? false;
  const maxNesting = options.maxNesting ?? MAX_NESTING;

  const entriesOf = (obj: object): [string, JsonValue][] => {
    const entries = obj instanceof Map ? [...(obj as Map<string, JsonValue>)] : Object.entries(obj);
    if (sortKeys) entries.sort((x, y) => compareCodePoints(x[0], y[0]));
    return entries as [string, JsonValue][];
  };

  const walk = (v: JsonValue, depth: number): string => {
    switch (typeof v) {
      case 'string':
        return encodeString(v);
      case 'number':
        return encodeNumber(v, allowNonFinite);
      case 'bigint':
        return v.toString();
      case 'boolean':
        return v ? 'true' : 'false';
      case 'object': {
        if (v === null) return 'null';
        if (v instanceof JsonFloat) {
          if (!Number.isFinite(v.value) && !allowNonFinite) {
            throw new CanonicalEncodeError(
              `${String(v.value)} is not allowed in a written value (JSON has no NaN or Infinity)`,
            );
          }
          return pythonFloatRepr(v.value);
        }
        // `depth` containers are open around this one (docs/journal.md: one limit for readers and writers).
        if (depth >= maxNesting) throw new CanonicalEncodeError(`value nested deeper than ${maxNesting} levels`);
        if (Array.isArray(v)) {
          let out = '[';
          for (let i = 0; i < v.length; i++) {
            if (i > 0) out += itemSep;
            out += walk(v[i] as JsonValue, depth + 1);
          }
          return `${out}]`;
        }
        let out = '{';
        let first = true;
        for (const [k, item] of entriesOf(v)) {
          if (item === undefined) continue;
          if (!first) out += itemSep;
          first = false;
          out += encodeString(k) + keySep + walk(item, depth + 1);
        }
        return `${out}}`;
      }
      default:
        throw new CanonicalEncodeError(`a ${typeof v} has no JSON encoding`);
    }
  };
  return walk(value, 0);
}

/** `json.dumps(v, sort_keys=True, separators=(",", ":"))`: the hashed form. */
export function canonical(value: JsonValue): string {
  return encode(value);
}

/** Re-encodes a value that was read (so NaN and infinities are kept as read). */
export function canonicalOfRead(value: JsonValue): string {
  return encode(value, { allowNonFinite: true });
}

/** `json.dumps(v, sort_keys=True)`: the audit log's form. */
export function prettySorted(value: JsonValue): string {
  return encode(value, { separators: 'pretty' });
}

/** `json.dumps(v)`: insertion order, default separators (run journal rows). */
export function prettyInsertionOrder(value: JsonValue): string {
  return encode(value, { sortKeys: false, separators: 'pretty' });
}
