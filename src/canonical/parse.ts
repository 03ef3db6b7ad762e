import { MAX_LINE_BYTES, MAX_NESTING } from './limits';
import { jsonStringEnd, jsonStringFault } from './string-syntax';
import { invalidUtf8Column } from './utf8-fault';
import { JsonFloat, setKey, type JsonObject, type JsonValue } from './value';

/** Malformed JSON, with the 1-based column (in UTF-16 units) where reading stopped. */
export class JsonParseError extends Error {
  override name = 'JsonParseError';
  constructor(
    readonly reason: string,
    readonly column: number,
  ) {
    super(parseErrorMessage(reason, column));
  }
}

/** A parse error's one line: the reason, and the 1-based column where reading stopped. */
function parseErrorMessage(reason: string, column: number): string {
  return `${reason} at column ${column}`;
}

/**
 * A parse error without a captured stack: readers turn it into a fault message,
 * and capturing a stack per malformed line would make a journal of ten million
 * garbage lines take minutes instead of seconds.
 */
function parseError(reason: string, column: number): JsonParseError {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new JsonParseError(reason, column);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** The characters a JSON value (as `parse` reads it) can start with: `"{[`, `n t f N I -` and the digits. */
const VALUE_START = /^[ \t\n\r]*["{[ntfNI0-9-]/;

/**
 * The message of the error `parse(text)` would throw when `text` cannot even start a value (its first character
 * after whitespace, or its end), given without building or throwing the error: a reader of a file of garbage lines
 * pays for a test, not an exception per line. `undefined` when a value may start (then only `parse` can tell).
 */
export function valueStartError(text: string): string | undefined {
  if (VALUE_START.test(text)) return undefined;
  let i = 0;
  while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  return parseErrorMessage('expecting value', i + 1);
}

export interface ParseOptions {
  /** `map` builds objects as `Map`s, keeping Python's insertion order exactly. */
  objects?: 'record' | 'map';
}

/** Python 3.11+ refuses to read integers of more than 4300 digits; so do we, to agree on what verifies. */
const MAX_INT_DIGITS = 4300;
const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
/** decodeUtf8's reason for bytes that are not UTF-8 (its column says where). */
export const INVALID_UTF8 = 'invalid UTF-8';

/**
 * Decodes UTF-8 strictly (invalid sequences are an error, not U+FFFD), the error at the column where the first
 * invalid sequence starts (it said column 1 wherever that was). Text longer than the longest string the
 * JavaScript engine can hold (2^29 - 24 UTF-16 units in V8) is its own error: it was said to be invalid UTF-8.
 */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch (e) {
    // Told apart by Node's code, not by class: an error of another realm (a vm context, Jest's) is no instance here.
    if ((e as { code?: unknown } | null)?.code === 'ERR_STRING_TOO_LONG')
      throw parseError(tooLongToRead(bytes.length), 1);
    throw parseError(INVALID_UTF8, invalidUtf8Column(bytes) ?? 1);
  }
}

/** Why decodeUtf8 refused bytes, for a message: "not valid UTF-8", or that they are too long to hold as text. */
export function whyNotText(e: unknown): string {
  return e instanceof JsonParseError && e.reason !== INVALID_UTF8 ? e.reason : 'not valid UTF-8';
}

/** What a text too long for one string is called (its length in bytes, and the engine's limit). */
export function tooLongToRead(bytes: number): string {
  return `${bytes.toLocaleString('en-US')} bytes of text: longer than the longest string Node.js holds (${MAX_LINE_BYTES.toLocaleString('en-US')} characters)`;
}

/**
 * Parses JSON text the way Python's `json.loads` does: `NaN`, `Infinity` and
 * `-Infinity` are accepted, control characters in strings, trailing commas and
 * comments are not, the last duplicate key wins, and numbers keep their exact
 * value and their int-or-float kind (see `value.ts`).
 *
 * One function over 120 lines on purpose: a hand-written recursive-descent
 * parser whose closures share the cursor `i` (split into modules, every token
 * would pay for passing it around on the hottest path of every reader).
 */
// eslint-disable-next-line max-lines-per-function -- the hand-written parser, one function on purpose (above)
export function parse(text: string, options: ParseOptions = {}): JsonValue {
  const asMap = options.objects === 'map';
  let i = 0;
  const n = text.length;

  const fail = (reason: string, at = i): never => {
    throw parseError(reason, at + 1);
  };
  const skipWs = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
  };

  const parseString = (): string => {
    // At the opening quote. The literal is checked whole (./string-syntax.ts), then read in one piece: a piece per
    // escape (`out += ...`) built a tree of millions of pieces for a string of millions of newlines, seconds of
    // collection for a 12 MB row.
    const open = i;
    const close = jsonStringEnd(text, open);
    if (close < 0) {
      const at = -1 - close;
      const reason = jsonStringFault(text, at);
      fail(reason, reason === 'unterminated string' ? open : at);
    }
    i = close + 1;
    const body = text.slice(open + 1, close);
    // Every escape is one of JSON's and every other unit is taken as it is, in both grammars: the engine's own JSON
    // reader decodes exactly these, natively, to one flat string.
    return body.includes('\\') ? (JSON.parse(text.slice(open, close + 1)) as string) : body;
  };

  const parseNumber = (): JsonValue => {
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (m === null) return fail('expecting value');
    const token = m[0];
    const start = i;
    i += token.length;
    if (m[1] !== undefined || m[2] !== undefined) {
      const f = Number(token);
      return Number.isInteger(f) || Object.is(f, -0) || !Number.isFinite(f) ? new JsonFloat(f) : f;
    }
    const digits = token.length - (token.charCodeAt(0) === 0x2d ? 1 : 0);
    if (digits <= 15) return Number(token);
    if (digits > MAX_INT_DIGITS) fail(`integer of ${digits} digits exceeds the ${MAX_INT_DIGITS}-digit limit`, start);
    const big = BigInt(token);
    return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
  };

  const parseValue = (depth: number): JsonValue => {
    skipWs();
    const c = text.charCodeAt(i);
    // `depth` containers are open around this value; one more must stay within the limit.
    if ((c === 0x7b || c === 0x5b) && depth >= MAX_NESTING) fail(`nested deeper than ${MAX_NESTING} levels`);
    switch (c) {
      case 0x22:
        return parseString();
      case 0x7b: {
        i++;
        const obj: JsonObject = {};
        const map = new Map<string, JsonValue>();
        skipWs();
        if (text.charCodeAt(i) === 0x7d) {
          i++;
          return asMap ? map : obj;
        }
        for (;;) {
          skipWs();
          if (text.charCodeAt(i) !== 0x22) fail('expecting property name enclosed in double quotes');
          const key = parseString();
          skipWs();
          if (text.charCodeAt(i) !== 0x3a) fail("expecting ':' delimiter");
          i++;
          const value = parseValue(depth + 1);
          if (asMap) map.set(key, value);
          else setKey(obj, key, value);
          skipWs();
          const d = text.charCodeAt(i);
          if (d === 0x2c) {
            i++;
            continue;
          }
          if (d === 0x7d) {
            i++;
            return asMap ? map : obj;
          }
          fail("expecting ',' delimiter");
        }
      }
      case 0x5b: {
        i++;
        const arr: JsonValue[] = [];
        skipWs();
        if (text.charCodeAt(i) === 0x5d) {
          i++;
          return arr;
        }
        for (;;) {
          arr.push(parseValue(depth + 1));
          skipWs();
          const d = text.charCodeAt(i);
          if (d === 0x2c) {
            i++;
            continue;
          }
          if (d === 0x5d) {
            i++;
            return arr;
          }
          fail("expecting ',' delimiter");
        }
      }
      case 0x6e:
        return literal('null', null);
      case 0x74:
        return literal('true', true);
      case 0x66:
        return literal('false', false);
      case 0x4e:
        return literal('NaN', new JsonFloat(NaN));
      case 0x49:
        return literal('Infinity', new JsonFloat(Infinity));
      case 0x2d:
        if (text.startsWith('-Infinity', i)) return literal('-Infinity', new JsonFloat(-Infinity));
        return parseNumber();
      default:
        if (c >= 0x30 && c <= 0x39) return parseNumber();
        return fail('expecting value');
    }
  };

  const literal = (word: string, value: JsonValue): JsonValue => {
    if (!text.startsWith(word, i)) fail('expecting value');
    i += word.length;
    return value;
  };

  const value = parseValue(0);
  skipWs();
  if (i < n) fail('extra data');
  return value;
}

/** Parses UTF-8 bytes (strictly decoded). A byte-order mark is malformed, as for Python `str`. */
export function parseBytes(bytes: Uint8Array, options: ParseOptions = {}): JsonValue {
  return parse(decodeUtf8(bytes), options);
}
