import { encode, NONFINITE_KEY } from './encode';
import { parse, type ParseOptions } from './parse';
import { JsonFloat, setKey, type JsonObject, type JsonValue } from './value';

/**
 * JSON for other programs: every `--json` document (docs/format.md §1, "JSON outputs"). A journal row may hold NaN
 * and the infinities (Python's json writes them bare, and the hashes are over those bytes), which RFC 8259 has no
 * place for: `JSON.parse`, jq or Go refused the whole document. Here, and only here, they are written as the tag
 * object `{"$nonfinite":"NaN"}` (`"Infinity"`, `"-Infinity"`), and an object whose only member is named `$nonfinite`
 * as `{"$nonfinite":[value]}`, so that an object of exactly one member `$nonfinite` is always stepchain's: a string
 * inside is a number, a one-item array an escaped object. The hashed and stored forms keep the bare tokens
 * (canonical, canonicalOfRead); human text keeps showing NaN.
 */
export interface OutputOptions {
  /** Keys sorted by code point; default false: the order the value holds them (a `Map`'s, a record's). */
  sortKeys?: boolean;
  /** Default compact. */
  separators?: 'compact' | 'pretty';
  /** Nesting allowed (the encoder's default: MAX_NESTING); an escaped object's array is a level of its own. */
  maxNesting?: number;
}

/** A value as strict JSON by the rule above. */
export function outputJson(value: JsonValue, options: OutputOptions = {}): string {
  return encode(value, { sortKeys: false, ...options, tagNonFinite: true });
}

/**
 * Text some encoder wrote with the bare tokens allowed (a canonical row as stored, an entry as read), as `outputJson`
 * writes its value. The same text when it cannot hold what the rule changes; else parsed (keys in their order) and
 * written again. `MAY_CHANGE` decides without parsing (a row of megabytes is not parsed for that): a bare token
 * starts the text or follows `:`, `,` or `[` (and blank space, in pretty text); a `$nonfinite` key is followed by `:`.
 * A string holding such text (`"a, NaN"`) only costs the parse; a key with a letter escaped (`"$\u006eonfinite"`)
 * is not what the encoders write (ensure_ascii escapes no printable ASCII).
 */
export function outputOfText(text: string, options: OutputOptions = {}): string {
  return MAY_CHANGE.test(text) ? outputJson(parse(text, { objects: 'map' }), options) : text;
}
// `nonfinite"`, not `"$nonfinite"`: a key escaped as `\u0024nonfinite` (read as the same key) is caught too.
const MAY_CHANGE = /(?:^|[:,[])[ \t\n\r]*-?(?:NaN|Infinity)|nonfinite"[ \t\n\r]*:/;

/** What a tag's string stands for. */
const TAGGED: ReadonlyMap<string, number> = new Map([
  ['NaN', NaN],
  ['Infinity', Infinity],
  ['-Infinity', -Infinity],
]);

/** Raised by `decodeOutput` for an object of the one member `$nonfinite` that is neither form of the rule. */
export class OutputTagError extends Error {
  override name = 'OutputTagError';
}

/**
 * The value an output document stands for (the rule above, read back): each tag the number it names (a `JsonFloat`,
 * as `parse` reads a bare NaN), each escaped object the object. Objects stay records or `Map`s as given.
 */
export function decodeOutput(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(decodeOutput);
  if (v instanceof Map) {
    if (v.size === 1 && v.has(NONFINITE_KEY)) return decodeTag(v.get(NONFINITE_KEY)!, true);
    return new Map([...v].map(([k, x]) => [k, decodeOutput(x)]));
  }
  if (typeof v !== 'object' || v === null || v instanceof JsonFloat) return v;
  const keys = Object.keys(v);
  if (keys.length === 1 && keys[0] === NONFINITE_KEY) return decodeTag(v[NONFINITE_KEY]!, false);
  const out: JsonObject = {};
  for (const k of keys) setKey(out, k, decodeOutput(v[k]!));
  return out;
}

function decodeTag(inner: JsonValue, asMap: boolean): JsonValue {
  if (typeof inner === 'string') {
    const n = TAGGED.get(inner);
    if (n === undefined)
      throw new OutputTagError(`{"${NONFINITE_KEY}": ...} names no number: ${JSON.stringify(inner)}`);
    return new JsonFloat(n);
  }
  if (!Array.isArray(inner) || inner.length !== 1) {
    throw new OutputTagError(`{"${NONFINITE_KEY}": ...} holds neither a number's name nor a one-item array`);
  }
  const value = decodeOutput(inner[0]!);
  if (asMap) return new Map([[NONFINITE_KEY, value]]);
  const out: JsonObject = {};
  setKey(out, NONFINITE_KEY, value);
  return out;
}

/** `decodeOutput(parse(text, options))`: a `--json` document as the values it stands for. */
export function readOutputJson(text: string, options: ParseOptions = {}): JsonValue {
  return decodeOutput(parse(text, options));
}
