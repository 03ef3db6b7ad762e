export { JsonFloat, float, isJsonObject, isJsonInteger, numericValue, setKey } from './value';
export type { JsonArray, JsonObject, JsonValue } from './value';
export {
  CanonicalEncodeError,
  canonical,
  canonicalOfRead,
  encode,
  encodeString,
  EncodeNestingError,
  isPlainObject,
  NONFINITE_KEY,
  prettyInsertionOrder,
  prettySorted,
  SHORT_ESCAPES,
} from './encode';
export type { EncodeOptions } from './encode';
export { decodeOutput, outputJson, outputOfText, OutputTagError, readOutputJson } from './output';
export type { OutputOptions } from './output';
export { INVALID_UTF8, JsonParseError, decodeUtf8, parse, parseBytes, valueStartError, whyNotText } from './parse';
export type { ParseOptions } from './parse';
export { bareText } from './bare-text';
export { readOnce } from './read-once';
export { isPythonFloatRepr, pythonFloatRepr } from './float-repr';
export { compareCodePoints } from './key-order';
export { lineTooLong, LONG_LINE_BYTES, longLineRefused, MAX_LINE_BYTES, MAX_NESTING } from './limits';
