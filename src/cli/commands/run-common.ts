import { isJsonObject, JsonParseError, parse, type JsonObject, type JsonValue } from '../../canonical';
import { InputError } from '../../errors';
import type { ParsedArgs } from '../args';

/** A `--data`/`--detail` option: a JSON object (a Map when `ordered`, keeping the written key order). */
export function jsonObjectOption(args: ParsedArgs, name: string, ordered: true): Map<string, JsonValue> | undefined;
export function jsonObjectOption(args: ParsedArgs, name: string, ordered: false): JsonObject | undefined;
export function jsonObjectOption(
  args: ParsedArgs,
  name: string,
  ordered: boolean,
): Map<string, JsonValue> | JsonObject | undefined {
  const text = args.values.get(name);
  if (text === undefined) return undefined;
  let v: JsonValue;
  try {
    v = parse(text, ordered ? { objects: 'map' } : {});
  } catch (e) {
    if (e instanceof JsonParseError) throw new InputError(`--${name}: not JSON: ${e.message}`);
    throw e;
  }
  if (ordered ? !(v instanceof Map) : !isJsonObject(v)) throw new InputError(`--${name}: expected a JSON object`);
  return v as Map<string, JsonValue> | JsonObject;
}

/** A required single-value option. */
export function required(args: ParsedArgs, name: string, command: string): string {
  const v = args.values.get(name);
  if (v === undefined || v === '') throw new InputError(`${command}: --${name} is required`);
  return v;
}
