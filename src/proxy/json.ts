import { isJsonObject, type JsonObject, type JsonValue } from '../canonical';

/** Reading untrusted JSON without trusting its shape: each accessor gives a value of its type or nothing. */
export function objectAt(v: JsonValue | undefined, key: string): JsonObject | undefined {
  if (!isJsonObject(v)) return undefined;
  const x = Object.prototype.hasOwnProperty.call(v, key) ? v[key] : undefined;
  return isJsonObject(x) ? x : undefined;
}

export function arrayAt(v: JsonValue | undefined, key: string): JsonValue[] {
  if (!isJsonObject(v)) return [];
  const x = Object.prototype.hasOwnProperty.call(v, key) ? v[key] : undefined;
  return Array.isArray(x) ? x : [];
}

export function stringAt(v: JsonValue | undefined, key: string): string | undefined {
  if (!isJsonObject(v)) return undefined;
  const x = Object.prototype.hasOwnProperty.call(v, key) ? v[key] : undefined;
  return typeof x === 'string' ? x : undefined;
}

export function valueAt(v: JsonValue | undefined, key: string): JsonValue | undefined {
  if (!isJsonObject(v)) return undefined;
  return Object.prototype.hasOwnProperty.call(v, key) ? v[key] : undefined;
}

export function objects(list: JsonValue[]): JsonObject[] {
  return list.filter((x): x is JsonObject => isJsonObject(x));
}
