/**
 * The value model shared by the parser and the encoders.
 *
 * JavaScript's `number` cannot tell `1` from `1.0` and loses integers past 2^53,
 * while the hashes are defined over Python's values, where both matter. So:
 * - integers are `number` (when safe) or `bigint` (any size);
 * - floats are `number` when not integral, and `JsonFloat` when the value alone
 *   would read as an integer (`1.0`, `-0.0`) or is not finite (`NaN`, `Infinity`).
 * Objects are plain records; a `Map` is accepted where key insertion order matters
 * (JavaScript records put integer-like keys first, Python dicts do not).
 */
export class JsonFloat {
  constructor(readonly value: number) {}
}

export type JsonObject = { [key: string]: JsonValue };
export type JsonArray = JsonValue[];
export type JsonValue =
  null | boolean | number | bigint | string | JsonFloat | JsonArray | JsonObject | Map<string, JsonValue>;

/** A float that keeps its float-ness through an encode, whatever its value. */
export function float(value: number): JsonFloat | number {
  return Number.isInteger(value) || !Number.isFinite(value) || Object.is(value, -0) ? new JsonFloat(value) : value;
}

export function isJsonObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof JsonFloat) && !(v instanceof Map);
}

/** The numeric value of an int or float, or undefined for anything else. */
export function numericValue(v: JsonValue | undefined): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof JsonFloat) return v.value;
  return undefined;
}

/** True for a value that Python would hold as an `int` (not a bool). */
export function isJsonInteger(v: JsonValue | undefined): v is number | bigint {
  return (typeof v === 'number' && Number.isInteger(v)) || typeof v === 'bigint';
}

/** Sets a key on a record without tripping over `__proto__`. */
export function setKey(obj: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') {
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}
