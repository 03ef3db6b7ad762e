import { pythonFloatRepr } from './float-repr';
import { MAX_NESTING } from './limits';
import { compareCodePoints } from './key-order';
import { JsonFloat, type JsonValue } from './value';

/** Raised for values that have no canonical encoding (NaN given to a writer, a function, ...). */
export class CanonicalEncodeError extends Error {
  override name = 'CanonicalEncodeError';
}

/**
 * Raised for a value nested deeper than the encoder's `maxNesting`. A value read within the readers' limit can
 * still be too deep as an output document (src/canonical/output.ts: each escaped `$nonfinite` object is two levels),
 * which is a fact of that input, not a fault of the program: the CLI says so as an input error.
 */
export class EncodeNestingError extends CanonicalEncodeError {
  override name = 'EncodeNestingError';
}

export interface EncodeOptions {
  /** Sort object keys by code point (Python `sort_keys=True`). Default true. */
  sortKeys?: boolean;
  /** `compact` = `(",", ":")`; `pretty` = Python's default `(", ", ": ")`. Default compact. */
  separators?: 'compact' | 'pretty';
  /** Accept NaN and infinities (they are only accepted when re-encoding read values). Default false. */
  allowNonFinite?: boolean;
  /**
   * Strict JSON for other programs (RFC 8259: no bare NaN): a non-finite number is written as the tag object
   * `{"$nonfinite":"NaN"}` and an object whose only member is `$nonfinite` as `{"$nonfinite":[value]}`. Only the
   * output encoder sets it (src/canonical/output.ts holds the rule); never a hashed or stored form.
   */
  tagNonFinite?: boolean;
  /**
   * Nesting allowed (default MAX_NESTING). Only documents that wrap values already
   * within the limit (a command's --json output around a row) go a few levels deeper.
   */
  maxNesting?: number;
}

/** JSON's short escapes (`\n`, `\"`...) by code unit, as json.dumps writes them: the report page's display of strings. */
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
/** ASCII below DEL: there JSON.stringify escapes exactly what json.dumps does (the short escapes, `\u00xx` in lowercase). */
const ASCII_BELOW_DEL = /^[\x00-\x7e]*$/;

/** By code unit below 0x80: the letter of its short escape (`n` for a newline), 1 for `\u00xx`, 0 for as it is. */
const ESCAPE_OF = new Uint8Array(0x80);
for (let c = 0; c < 0x20; c++) ESCAPE_OF[c] = 1;
ESCAPE_OF[0x7f] = 1;
for (const [c, text] of Object.entries(SHORT_ESCAPES)) ESCAPE_OF[Number(c)] = text.charCodeAt(1);
const HEX_DIGITS = Uint8Array.from('0123456789abcdef', (d) => d.charCodeAt(0));
/** What reads the ASCII bytes back (no Buffer: the report page runs this module in a browser too). */
const ascii = new TextDecoder();
/** Code units escaped at a time into `scratch` (six bytes at most each). */
const ESCAPE_RUN = 1 << 16;
let scratch: Uint8Array | undefined;

/**
 * Python `json.dumps` string encoding with `ensure_ascii=True`. Below DEL, JSON.stringify (native). Otherwise the
 * string is written a run of units at a time as ASCII bytes (every unit beyond ASCII, a surrogate pair's halves each,
 * as `\uxxxx` in lowercase) and read back as text: a piece per escape (`out += ...`) took seconds for a string of
 * millions of escapes, most of them collecting the pieces.
 */
export function encodeString(s: string): string {
  if (PLAIN_ASCII.test(s)) return `"${s}"`;
  if (ASCII_BELOW_DEL.test(s)) return JSON.stringify(s);
  const buf = (scratch ??= new Uint8Array(ESCAPE_RUN * 6));
  let out = '"';
  for (let from = 0; from < s.length; from += ESCAPE_RUN) {
    const to = Math.min(s.length, from + ESCAPE_RUN);
    let o = 0;
    for (let i = from; i < to; i++) {
      const c = s.charCodeAt(i);
      const e = c < 0x80 ? ESCAPE_OF[c]! : 1;
      if (e === 0) buf[o++] = c;
      else if (e !== 1) {
        buf[o++] = 0x5c;
        buf[o++] = e;
      } else {
        buf[o++] = 0x5c;
        buf[o++] = 0x75;
        buf[o++] = HEX_DIGITS[c >> 12]!;
        buf[o++] = HEX_DIGITS[(c >> 8) & 15]!;
        buf[o++] = HEX_DIGITS[(c >> 4) & 15]!;
        buf[o++] = HEX_DIGITS[c & 15]!;
      }
    }
    out += ascii.decode(buf.subarray(0, o));
  }
  return `${out}"`;
}

/** The member name of the output encoder's tag (docs/format.md §1, "JSON outputs"). */
export const NONFINITE_KEY = '$nonfinite';

/** How the encoder writes NaN and the infinities: refused, bare as Python writes them, or as the output's tag. */
type NonFinite = 'refuse' | 'bare' | 'tag';

/** A float: Python's repr; NaN and the infinities as `nonFinite` says (`keySep` for the tag object). */
function encodeFloat(n: number, nonFinite: NonFinite, keySep: string): string {
  if (Number.isFinite(n) || nonFinite === 'bare') return pythonFloatRepr(n);
  if (nonFinite === 'tag') return `{"${NONFINITE_KEY}"${keySep}"${pythonFloatRepr(n)}"}`;
  throw new CanonicalEncodeError(`${String(n)} is not allowed in a written value (JSON has no NaN or Infinity)`);
}

function encodeNumber(n: number, nonFinite: NonFinite, keySep: string): string {
  if (Number.isInteger(n)) {
    return Number.isSafeInteger(n) ? String(n === 0 ? 0 : n) : BigInt(n).toString();
  }
  return encodeFloat(n, nonFinite, keySep);
}

/**
 * Refuses an object that is not plain data: a Date, a Set, a typed array or a class's instance was written as its
 * own enumerable properties (a Date as `{}`: the value lost, silently), where Python's `json` refuses every type but
 * dict, list and the scalars. Plain means a prototype that is null or has none above it (`Object.prototype` of any
 * realm: an object made in a `vm` context is plain too).
 */
function refuseNonPlain(v: object): void {
  if (isPlainObject(v)) return;
  const proto: unknown = Object.getPrototypeOf(v);
  const name = (proto as { constructor?: { name?: unknown } }).constructor?.name;
  throw new CanonicalEncodeError(
    `a ${typeof name === 'string' && name !== '' ? name : 'non-plain object'} has no JSON encoding (only plain objects, arrays and Maps are written)`,
  );
}

/** Whether `v` is written as a JSON object's members: its prototype null or with none above it (see refuseNonPlain). */
export function isPlainObject(v: object): boolean {
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === null || Object.getPrototypeOf(proto) === null;
}

/** The value of an object's only member (members holding `undefined` are not written) when it is named `$nonfinite`. */
function loneTagMember(entries: [string, JsonValue][]): JsonValue | undefined {
  let only: [string, JsonValue] | undefined;
  for (const e of entries) {
    if (e[1] === undefined) continue;
    if (only !== undefined) return undefined;
    only = e;
  }
  return only?.[0] === NONFINITE_KEY ? only[1] : undefined;
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
  const nonFinite: NonFinite = options.tagNonFinite ? 'tag' : options.allowNonFinite ? 'bare' : 'refuse';
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
        return encodeNumber(v, nonFinite, keySep);
      case 'bigint':
        return v.toString();
      case 'boolean':
        return v ? 'true' : 'false';
      case 'object': {
        if (v === null) return 'null';
        if (v instanceof JsonFloat) return encodeFloat(v.value, nonFinite, keySep);
        // `depth` containers are open around this one (docs/journal.md: one limit for readers and writers).
        if (depth >= maxNesting) throw new EncodeNestingError(`value nested deeper than ${maxNesting} levels`);
        if (Array.isArray(v)) {
          let out = '[';
          for (let i = 0; i < v.length; i++) {
            if (i > 0) out += itemSep;
            out += walk(v[i] as JsonValue, depth + 1);
          }
          return `${out}]`;
        }
        if (!(v instanceof Map)) refuseNonPlain(v);
        const entries = entriesOf(v);
        if (nonFinite === 'tag') {
          const only = loneTagMember(entries);
          // Escaped, so that it cannot read as a tag: the wrapping array is a level of its own.
          if (only !== undefined && depth + 1 >= maxNesting) {
            throw new EncodeNestingError(`value nested deeper than ${maxNesting} levels`);
          }
          if (only !== undefined) return `{"${NONFINITE_KEY}"${keySep}[${walk(only, depth + 2)}]}`;
        }
        let out = '{';
        let first = true;
        for (const [k, item] of entries) {
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
