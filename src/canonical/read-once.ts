import { CanonicalEncodeError, canonical } from './encode';
import { JsonParseError, parse } from './parse';
import type { JsonArray, JsonValue } from './value';

/**
 * A value built in code, read exactly once: its canonical encoding read back into plain data by the parser every
 * verifier uses. A writer hashes a value and then encodes its row from it: a getter or a Proxy that reads differently
 * each time would give a row whose stored hash is not the hash of its own bytes (a journal the library broke itself,
 * and then went on extending). Everything after this reads the copy, so the hash and the line are of the same data,
 * and only what a reader reads back is written: a value the parser refuses (an integer of more than 4,300 digits, which
 * Python refuses too) is refused here instead of becoming a row that `verify` calls malformed. Refuses as
 * `CanonicalEncodeError`, like `canonical` (NaN, the infinities, nesting past MAX_NESTING counting the level around it).
 */
export function readOnce(v: JsonValue): JsonValue {
  // One level down, as in a row or a payload (MAX_NESTING counts what is around the value).
  const text = canonical([v]);
  try {
    return (parse(text) as JsonArray)[0]!;
  } catch (e) {
    if (e instanceof JsonParseError) throw new CanonicalEncodeError(`not readable back: ${e.reason}`);
    throw e;
  }
}
