#!/usr/bin/env node
/******/ (() => { // webpackBootstrap
/******/ 	"use strict";
/******/ 	// The require scope
/******/ 	var __nccwpck_require__ = {};
/******/ 	
/************************************************************************/
/******/ 	/* webpack/runtime/compat get default export */
/******/ 	(() => {
/******/ 		// getDefaultExport function for compatibility with non-harmony modules
/******/ 		__nccwpck_require__.n = (module) => {
/******/ 			var getter = module && module.__esModule ?
/******/ 				() => (module['default']) :
/******/ 				() => (module);
/******/ 			__nccwpck_require__.d(getter, { a: getter });
/******/ 			return getter;
/******/ 		};
/******/ 	})();
/******/ 	
/******/ 	/* webpack/runtime/define property getters */
/******/ 	(() => {
/******/ 		// define getter functions for harmony exports
/******/ 		__nccwpck_require__.d = (exports, definition) => {
/******/ 			for(var key in definition) {
/******/ 				if(__nccwpck_require__.o(definition, key) && !__nccwpck_require__.o(exports, key)) {
/******/ 					Object.defineProperty(exports, key, { enumerable: true, get: definition[key] });
/******/ 				}
/******/ 			}
/******/ 		};
/******/ 	})();
/******/ 	
/******/ 	/* webpack/runtime/hasOwnProperty shorthand */
/******/ 	(() => {
/******/ 		__nccwpck_require__.o = (obj, prop) => (Object.prototype.hasOwnProperty.call(obj, prop))
/******/ 	})();
/******/ 	
/************************************************************************/
var __webpack_exports__ = {};

;// CONCATENATED MODULE: ./src/errors.ts
/**
 * The library's errors carry the exit code a command ends with and one clear line
 * of message (naming the file and line where there is one). SPEC §6: 0 holds,
 * 1 does not hold, 2 usage or input error. The CLI and the Action print `message`
 * and never a stack trace.
 */
class StepchainError extends Error {
    exitCode;
    name = 'StepchainError';
    constructor(message, exitCode) {
        super(message);
        this.exitCode = exitCode;
    }
}
/** Bad arguments, a missing or unreadable file, a bad id or key: exit 2. */
class errors_InputError extends StepchainError {
    name = 'InputError';
    constructor(message) {
        super(message, 2);
    }
}
/** Something checked does not hold (or an operation was refused for integrity reasons): exit 1. */
class errors_IntegrityError extends StepchainError {
    name = 'IntegrityError';
    constructor(message) {
        super(message, 1);
    }
}
/** The file and 1-based line a problem was found at, as `file:line`. */
function at(file, line) {
    return line === undefined || line === null ? file : `${file}:${line}`;
}

;// CONCATENATED MODULE: ./src/cli/args.ts

/**
 * A small, strict argument parser: unknown options are usage errors, `--x=v` and
 * `--x v` both work, `--` ends options, and a lone `-` is a positional (stdin).
 */
function parseArgs(argv, spec, command) {
    const out = { positionals: [], flags: new Set(), values: new Map(), lists: new Map() };
    const byShort = new Map();
    for (const [name, s] of Object.entries(spec))
        if (s.short)
            byShort.set(s.short, name);
    let i = 0;
    while (i < argv.length) {
        const arg = argv[i++];
        if (arg === '--') {
            out.positionals.push(...argv.slice(i));
            break;
        }
        let name;
        let inline;
        if (arg.startsWith('--')) {
            const eq = arg.indexOf('=');
            name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
            inline = eq < 0 ? undefined : arg.slice(eq + 1);
        }
        else if (arg.length === 2 && arg[0] === '-' && arg !== '-') {
            name = byShort.get(arg[1]);
            if (name === undefined)
                throw new errors_InputError(`${command}: unknown option ${arg}`);
        }
        else {
            out.positionals.push(arg);
            continue;
        }
        const s = spec[name];
        if (s === undefined)
            throw new errors_InputError(`${command}: unknown option --${name}`);
        if (s.kind === 'flag') {
            if (inline !== undefined)
                throw new errors_InputError(`${command}: --${name} takes no value`);
            out.flags.add(name);
            continue;
        }
        const value = inline ?? argv[i++];
        if (value === undefined)
            throw new errors_InputError(`${command}: --${name} needs a value`);
        if (s.kind === 'value') {
            if (out.values.has(name))
                throw new errors_InputError(`${command}: --${name} given twice`);
            out.values.set(name, value);
        }
        else {
            out.lists.set(name, [...(out.lists.get(name) ?? []), value]);
        }
    }
    return out;
}
/** Exactly `count` positionals (named for the error message). */
function expectPositionals(args, names, command, optional = 0) {
    const min = names.length - optional;
    if (args.positionals.length < min) {
        throw new errors_InputError(`${command}: missing ${names.slice(args.positionals.length).map((n) => `<${n}>`).join(' ')}`);
    }
    if (args.positionals.length > names.length) {
        throw new errors_InputError(`${command}: unexpected argument ${JSON.stringify(args.positionals[names.length])}`);
    }
    return args.positionals;
}

;// CONCATENATED MODULE: ./src/canonical/value.ts
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
class JsonFloat {
    value;
    constructor(value) {
        this.value = value;
    }
}
/** A float that keeps its float-ness through an encode, whatever its value. */
function value_float(value) {
    return Number.isInteger(value) || !Number.isFinite(value) || Object.is(value, -0)
        ? new JsonFloat(value)
        : value;
}
function isJsonObject(v) {
    return (typeof v === 'object' &&
        v !== null &&
        !Array.isArray(v) &&
        !(v instanceof JsonFloat) &&
        !(v instanceof Map));
}
/** The numeric value of an int or float, or undefined for anything else. */
function numericValue(v) {
    if (typeof v === 'number')
        return v;
    if (typeof v === 'bigint')
        return Number(v);
    if (v instanceof JsonFloat)
        return v.value;
    return undefined;
}
/** True for a value that Python would hold as an `int` (not a bool). */
function isJsonInteger(v) {
    return (typeof v === 'number' && Number.isInteger(v)) || typeof v === 'bigint';
}
/** Sets a key on a record without tripping over `__proto__`. */
function setKey(obj, key, value) {
    if (key === '__proto__') {
        Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
    }
    else {
        obj[key] = value;
    }
}

;// CONCATENATED MODULE: ./src/canonical/float-repr.ts
/**
 * Python's `repr(float)`: the shortest digits that round-trip (JavaScript's
 * `Number#toString` picks the same digits: shortest, then closest), laid out the
 * Python way: fixed notation when the first digit's decimal exponent is in
 * [-4, 16), scientific otherwise, always a fractional part in fixed notation.
 */
function pythonFloatRepr(x) {
    if (Number.isNaN(x))
        return 'NaN';
    if (x === Infinity)
        return 'Infinity';
    if (x === -Infinity)
        return '-Infinity';
    if (x === 0)
        return Object.is(x, -0) ? '-0.0' : '0.0';
    const sign = x < 0 ? '-' : '';
    const s = String(Math.abs(x));
    const ei = s.indexOf('e');
    const mantissa = ei < 0 ? s : s.slice(0, ei);
    const shift = ei < 0 ? 0 : Number(s.slice(ei + 1));
    const dot = mantissa.indexOf('.');
    const intPart = dot < 0 ? mantissa : mantissa.slice(0, dot);
    const all = dot < 0 ? mantissa : intPart + mantissa.slice(dot + 1);
    let lead = 0;
    while (lead < all.length - 1 && all.charCodeAt(lead) === 48)
        lead++;
    let end = all.length;
    while (end > lead + 1 && all.charCodeAt(end - 1) === 48)
        end--;
    const digits = all.slice(lead, end);
    // Decimal exponent of the first significant digit.
    const exp = intPart.length + shift - lead - 1;
    if (exp >= -4 && exp < 16) {
        if (exp >= 0) {
            const whole = digits.length > exp + 1 ? digits.slice(0, exp + 1) : digits.padEnd(exp + 1, '0');
            const frac = digits.length > exp + 1 ? digits.slice(exp + 1) : '0';
            return `${sign}${whole}.${frac}`;
        }
        return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
    }
    const m = digits.length === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
    const e = `${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
    return `${sign}${m}e${e}`;
}

;// CONCATENATED MODULE: ./src/canonical/key-order.ts
/**
 * Compares two strings by Unicode code point, as Python compares `str`.
 * JavaScript's default order compares UTF-16 code units, which disagrees once
 * a surrogate pair (code point >= U+10000) meets a BMP character >= U+E000.
 * Lone surrogates compare by their own value, as in Python.
 */
function compareCodePoints(a, b) {
    const n = Math.min(a.length, b.length);
    let i = 0;
    while (i < n && a.charCodeAt(i) === b.charCodeAt(i))
        i++;
    if (i === n)
        return a.length - b.length;
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    if (ca < 0xd800 && cb < 0xd800)
        return ca - cb;
    // A low surrogate after a shared high surrogate: step back so the pair is read whole.
    const low = (c) => c >= 0xdc00 && c <= 0xdfff;
    if (i > 0 && (low(ca) || low(cb))) {
        const prev = a.charCodeAt(i - 1);
        if (prev >= 0xd800 && prev <= 0xdbff)
            i--;
    }
    return (a.codePointAt(i) ?? 0) - (b.codePointAt(i) ?? 0);
}

;// CONCATENATED MODULE: ./src/canonical/encode.ts



/** Raised for values that have no canonical encoding (NaN given to a writer, a function, ...). */
class CanonicalEncodeError extends Error {
    name = 'CanonicalEncodeError';
}
const MAX_DEPTH = 4096;
const SHORT_ESCAPES = {
    0x22: '\\"',
    0x5c: '\\\\',
    0x0a: '\\n',
    0x0d: '\\r',
    0x09: '\\t',
    0x08: '\\b',
    0x0c: '\\f',
};
const PLAIN_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
/** Python `json.dumps` string encoding with `ensure_ascii=True`. */
function encodeString(s) {
    if (PLAIN_ASCII.test(s))
        return `"${s}"`;
    let out = '"';
    let run = 0;
    for (let i = 0; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x20 && c <= 0x7e && c !== 0x22 && c !== 0x5c)
            continue;
        out += s.slice(run, i);
        out += SHORT_ESCAPES[c] ?? `\\u${c.toString(16).padStart(4, '0')}`;
        run = i + 1;
    }
    return `${out}${s.slice(run)}"`;
}
function encodeNumber(n, allowNonFinite) {
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
function encode(value, options = {}) {
    const sortKeys = options.sortKeys ?? true;
    const pretty = options.separators === 'pretty';
    const itemSep = pretty ? ', ' : ',';
    const keySep = pretty ? ': ' : ':';
    const allowNonFinite = options.allowNonFinite ?? false;
    const entriesOf = (obj) => {
        const entries = obj instanceof Map ? [...obj] : Object.entries(obj);
        if (sortKeys)
            entries.sort((x, y) => compareCodePoints(x[0], y[0]));
        return entries;
    };
    const walk = (v, depth) => {
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
                if (v === null)
                    return 'null';
                if (depth > MAX_DEPTH)
                    throw new CanonicalEncodeError(`value nested deeper than ${MAX_DEPTH} levels`);
                if (v instanceof JsonFloat) {
                    if (!Number.isFinite(v.value) && !allowNonFinite) {
                        throw new CanonicalEncodeError(`${String(v.value)} is not allowed in a written value (JSON has no NaN or Infinity)`);
                    }
                    return pythonFloatRepr(v.value);
                }
                if (Array.isArray(v)) {
                    let out = '[';
                    for (let i = 0; i < v.length; i++) {
                        if (i > 0)
                            out += itemSep;
                        out += walk(v[i], depth + 1);
                    }
                    return `${out}]`;
                }
                let out = '{';
                let first = true;
                for (const [k, item] of entriesOf(v)) {
                    if (item === undefined)
                        continue;
                    if (!first)
                        out += itemSep;
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
function canonical(value) {
    return encode(value);
}
/** Re-encodes a value that was read (so NaN and infinities are kept as read). */
function canonicalOfRead(value) {
    return encode(value, { allowNonFinite: true });
}
/** `json.dumps(v, sort_keys=True)`: the audit log's form. */
function prettySorted(value) {
    return encode(value, { separators: 'pretty' });
}
/** `json.dumps(v)`: insertion order, default separators (run journal rows). */
function prettyInsertionOrder(value) {
    return encode(value, { sortKeys: false, separators: 'pretty' });
}

;// CONCATENATED MODULE: ./src/canonical/parse.ts

/** Malformed JSON, with the 1-based column (in UTF-16 units) where reading stopped. */
class JsonParseError extends Error {
    reason;
    column;
    name = 'JsonParseError';
    constructor(reason, column) {
        super(`${reason} at column ${column}`);
        this.reason = reason;
        this.column = column;
    }
}
const parse_MAX_DEPTH = 4096;
/** Python 3.11+ refuses to read integers of more than 4300 digits; so do we, to agree on what verifies. */
const MAX_INT_DIGITS = 4300;
const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
/** Decodes UTF-8 strictly (invalid sequences are an error, not U+FFFD). */
function decodeUtf8(bytes) {
    try {
        return utf8.decode(bytes);
    }
    catch {
        throw new JsonParseError('invalid UTF-8', 1);
    }
}
/**
 * Parses JSON text the way Python's `json.loads` does: `NaN`, `Infinity` and
 * `-Infinity` are accepted, control characters in strings, trailing commas and
 * comments are not, the last duplicate key wins, and numbers keep their exact
 * value and their int-or-float kind (see `value.ts`).
 */
function parse(text, options = {}) {
    const asMap = options.objects === 'map';
    let i = 0;
    const n = text.length;
    const fail = (reason, at = i) => {
        throw new JsonParseError(reason, at + 1);
    };
    const skipWs = () => {
        while (i < n) {
            const c = text.charCodeAt(i);
            if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09)
                i++;
            else
                break;
        }
    };
    const parseString = () => {
        // At the opening quote.
        const start = ++i;
        let out = '';
        let run = start;
        for (;;) {
            if (i >= n)
                fail('unterminated string', start - 1);
            const c = text.charCodeAt(i);
            if (c === 0x22) {
                out += text.slice(run, i);
                i++;
                return out;
            }
            if (c < 0x20)
                fail('invalid control character in string');
            if (c !== 0x5c) {
                i++;
                continue;
            }
            out += text.slice(run, i);
            const e = text.charCodeAt(i + 1);
            switch (e) {
                case 0x22:
                    out += '"';
                    break;
                case 0x5c:
                    out += '\\';
                    break;
                case 0x2f:
                    out += '/';
                    break;
                case 0x62:
                    out += '\b';
                    break;
                case 0x66:
                    out += '\f';
                    break;
                case 0x6e:
                    out += '\n';
                    break;
                case 0x72:
                    out += '\r';
                    break;
                case 0x74:
                    out += '\t';
                    break;
                case 0x75: {
                    const hex = text.slice(i + 2, i + 6);
                    if (!/^[0-9a-fA-F]{4}$/.test(hex))
                        fail('invalid \\uXXXX escape');
                    out += String.fromCharCode(parseInt(hex, 16));
                    i += 4;
                    break;
                }
                default:
                    fail('invalid escape');
            }
            i += 2;
            run = i;
        }
    };
    const parseNumber = () => {
        NUMBER.lastIndex = i;
        const m = NUMBER.exec(text);
        if (m === null)
            return fail('expecting value');
        const token = m[0];
        const start = i;
        i += token.length;
        if (m[1] !== undefined || m[2] !== undefined) {
            const f = Number(token);
            return Number.isInteger(f) || Object.is(f, -0) || !Number.isFinite(f) ? new JsonFloat(f) : f;
        }
        const digits = token.length - (token.charCodeAt(0) === 0x2d ? 1 : 0);
        if (digits <= 15)
            return Number(token);
        if (digits > MAX_INT_DIGITS)
            fail(`integer of ${digits} digits exceeds the ${MAX_INT_DIGITS}-digit limit`, start);
        const big = BigInt(token);
        return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
    };
    const parseValue = (depth) => {
        if (depth > parse_MAX_DEPTH)
            fail(`nested deeper than ${parse_MAX_DEPTH} levels`);
        skipWs();
        const c = text.charCodeAt(i);
        switch (c) {
            case 0x22:
                return parseString();
            case 0x7b: {
                i++;
                const obj = {};
                const map = new Map();
                skipWs();
                if (text.charCodeAt(i) === 0x7d) {
                    i++;
                    return asMap ? map : obj;
                }
                for (;;) {
                    skipWs();
                    if (text.charCodeAt(i) !== 0x22)
                        fail('expecting property name enclosed in double quotes');
                    const key = parseString();
                    skipWs();
                    if (text.charCodeAt(i) !== 0x3a)
                        fail("expecting ':' delimiter");
                    i++;
                    const value = parseValue(depth + 1);
                    if (asMap)
                        map.set(key, value);
                    else
                        setKey(obj, key, value);
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
                const arr = [];
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
                if (text.startsWith('-Infinity', i))
                    return literal('-Infinity', new JsonFloat(-Infinity));
                return parseNumber();
            default:
                if (c >= 0x30 && c <= 0x39)
                    return parseNumber();
                return fail('expecting value');
        }
    };
    const literal = (word, value) => {
        if (!text.startsWith(word, i))
            fail('expecting value');
        i += word.length;
        return value;
    };
    const value = parseValue(0);
    skipWs();
    if (i < n)
        fail('extra data');
    return value;
}
/** Parses UTF-8 bytes (strictly decoded). A byte-order mark is malformed, as for Python `str`. */
function parseBytes(bytes, options = {}) {
    return parse(decodeUtf8(bytes), options);
}

;// CONCATENATED MODULE: ./src/canonical/index.ts






;// CONCATENATED MODULE: external "node:fs"
const external_node_fs_namespaceObject = require("node:fs");
;// CONCATENATED MODULE: external "node:path"
const external_node_path_namespaceObject = require("node:path");
var external_node_path_default = /*#__PURE__*/__nccwpck_require__.n(external_node_path_namespaceObject);
;// CONCATENATED MODULE: external "node:crypto"
const external_node_crypto_namespaceObject = require("node:crypto");
;// CONCATENATED MODULE: ./src/util/hash.ts

const ZERO_HASH = '0'.repeat(64);
const HEX64 = /^[0-9a-f]{64}$/;
function sha256Hex(data) {
    return (0,external_node_crypto_namespaceObject.createHash)('sha256').update(data).digest('hex');
}
/** A lowercase 64-digit SHA-256 hex string. */
function isSha256Hex(s) {
    return typeof s === 'string' && HEX64.test(s);
}

;// CONCATENATED MODULE: ./src/util/fs.ts

/** Writes every byte (a single write(2) may be short on some file systems). */
function writeAll(fd, bytes) {
    let off = 0;
    while (off < bytes.length)
        off += (0,external_node_fs_namespaceObject.writeSync)(fd, bytes, off, bytes.length - off);
}
/** fsync a directory so a created or renamed entry survives a crash. */
function fsyncDir(dir) {
    let fd;
    try {
        fd = (0,external_node_fs_namespaceObject.openSync)(dir, 'r');
        (0,external_node_fs_namespaceObject.fsyncSync)(fd);
    }
    catch {
        /* some file systems refuse to fsync directories; the data itself was synced */
    }
    finally {
        if (fd !== undefined)
            (0,external_node_fs_namespaceObject.closeSync)(fd);
    }
}

;// CONCATENATED MODULE: ./src/journal/cas.ts





/** The content-addressed blob store: `<dir>/<first two hex>/<sha256 hex>`. */
class Cas {
    dir;
    durable;
    constructor(dir, durable = true) {
        this.dir = dir;
        this.durable = durable;
    }
    pathOf(digest) {
        if (!isSha256Hex(digest))
            throw new errors_InputError(`not a SHA-256 digest: ${JSON.stringify(digest)}`);
        return external_node_path_default().join(this.dir, digest.slice(0, 2), digest);
    }
    has(digest) {
        try {
            return (0,external_node_fs_namespaceObject.statSync)(this.pathOf(digest)).isFile();
        }
        catch {
            return false;
        }
    }
    /** The blob's bytes, or undefined when it is not stored. */
    get(digest) {
        try {
            return (0,external_node_fs_namespaceObject.readFileSync)(this.pathOf(digest));
        }
        catch {
            return undefined;
        }
    }
    /** Stores bytes (write to a temporary name, fsync, rename) and returns their digest. */
    put(bytes) {
        const digest = sha256Hex(bytes);
        const file = this.pathOf(digest);
        try {
            if ((0,external_node_fs_namespaceObject.statSync)(file).size === bytes.length)
                return digest;
        }
        catch {
            /* not stored yet */
        }
        const dir = external_node_path_default().dirname(file);
        (0,external_node_fs_namespaceObject.mkdirSync)(dir, { recursive: true });
        const tmp = external_node_path_default().join(dir, `.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`);
        const fd = (0,external_node_fs_namespaceObject.openSync)(tmp, 'wx', 0o644);
        try {
            writeAll(fd, bytes);
            if (this.durable)
                (0,external_node_fs_namespaceObject.fsyncSync)(fd);
        }
        catch (e) {
            (0,external_node_fs_namespaceObject.closeSync)(fd);
            (0,external_node_fs_namespaceObject.unlinkSync)(tmp);
            throw e;
        }
        (0,external_node_fs_namespaceObject.closeSync)(fd);
        (0,external_node_fs_namespaceObject.renameSync)(tmp, file);
        if (this.durable)
            fsyncDir(dir);
        return digest;
    }
}

;// CONCATENATED MODULE: ./src/journal/chain.ts

const chain_short = (h) => (h.length > 16 ? `${h.slice(0, 12)}…` : h);
/**
 * The chain rules of SPEC §2, fed one well-formed row at a time. The expected seq
 * resynchronises on the row's own seq, and the chain follows the *stored*
 * step_hash, so one edit is reported once rather than at every later line.
 */
class ChainChecker {
    expectedSeq = 0;
    prevHash = ZERO_HASH;
    steps = 0;
    check(line, row, computedHash) {
        const faults = [];
        if (row.seq !== this.expectedSeq) {
            faults.push({ line, kind: 'seq_mismatch', message: `seq ${row.seq}, expected ${this.expectedSeq}` });
        }
        if (row.prev_hash !== this.prevHash) {
            faults.push({
                line,
                kind: 'prev_hash_mismatch',
                message: `chain break: prev_hash ${chain_short(row.prev_hash)} does not match the previous step_hash ${chain_short(this.prevHash)}`,
            });
        }
        if (computedHash !== row.step_hash) {
            faults.push({
                line,
                kind: 'step_hash_mismatch',
                message: `field tamper: stored step_hash ${chain_short(row.step_hash)}, recomputed ${chain_short(computedHash)}`,
            });
        }
        this.expectedSeq = row.seq + 1;
        this.prevHash = row.step_hash;
        this.steps++;
        return faults;
    }
    get head() {
        return this.prevHash;
    }
}

;// CONCATENATED MODULE: external "node:os"
const external_node_os_namespaceObject = require("node:os");
;// CONCATENATED MODULE: ./src/util/lock.ts



const sleeper = new Int32Array(new SharedArrayBuffer(4));
function sleepMs(ms) {
    Atomics.wait(sleeper, 0, 0, ms);
}
function isAlive(pid) {
    try {
        process.kill(pid, 0);
        return true;
    }
    catch (e) {
        return e.code === 'EPERM';
    }
}
function readOwner(file) {
    try {
        return (0,external_node_fs_namespaceObject.readFileSync)(file, 'utf8');
    }
    catch {
        return undefined;
    }
}
function isStale(owner) {
    const [pid, host] = owner.split(' ');
    const n = Number(pid);
    if (!Number.isInteger(n) || n <= 0)
        return true; // torn lock file: its writer died mid-write
    return host === (0,external_node_os_namespaceObject.hostname)() && !isAlive(n);
}
function acquireLock(file, options = {}) {
    const timeout = options.timeoutMs ?? 30_000;
    const deadline = Date.now() + timeout;
    const me = `${process.pid} ${(0,external_node_os_namespaceObject.hostname)()} ${Math.random().toString(36).slice(2)}`;
    let delay = 1;
    for (;;) {
        try {
            const fd = (0,external_node_fs_namespaceObject.openSync)(file, 'wx', 0o644);
            try {
                (0,external_node_fs_namespaceObject.writeSync)(fd, me);
            }
            finally {
                (0,external_node_fs_namespaceObject.closeSync)(fd);
            }
            return () => {
                // Only remove the lock if it is still ours.
                if (readOwner(file) === me) {
                    try {
                        (0,external_node_fs_namespaceObject.unlinkSync)(file);
                    }
                    catch {
                        /* already gone */
                    }
                }
            };
        }
        catch (e) {
            if (e.code !== 'EEXIST')
                throw e;
        }
        const owner = readOwner(file);
        if (owner !== undefined && isStale(owner)) {
            breakStale(file, owner);
            continue;
        }
        if (Date.now() > deadline) {
            throw new errors_IntegrityError(`${file}: locked by another writer (${owner?.split(' ').slice(0, 2).join(' on ') ?? 'unknown'}) for over ${timeout} ms`);
        }
        sleepMs(delay);
        delay = Math.min(delay * 2, 50);
    }
}
function breakStale(file, owner) {
    const aside = `${file}.stale-${process.pid}-${Math.random().toString(36).slice(2)}`;
    try {
        (0,external_node_fs_namespaceObject.renameSync)(file, aside);
    }
    catch {
        return; // someone else broke or released it
    }
    const taken = readOwner(aside);
    if (taken === owner) {
        (0,external_node_fs_namespaceObject.unlinkSync)(aside);
        return;
    }
    // We moved a lock that was taken after we looked: put it back unless another was made.
    try {
        (0,external_node_fs_namespaceObject.renameSync)(aside, file);
    }
    catch {
        /* lost race; the lock file was replaced and the holder keeps its claim */
    }
}

;// CONCATENATED MODULE: ./src/util/ids.ts

const ID = /^[A-Za-z0-9_.-]{1,128}$/;
/** Whether `id` is a safe single path segment (SPEC §2): never `.` or `..`. */
function isSafeId(id) {
    return ID.test(id) && id !== '.' && id !== '..';
}
/** Refuses an unsafe agent, run, session or fork id before any path is built from it. */
function assertSafeId(id, what = 'id') {
    if (!isSafeId(id)) {
        throw new errors_InputError(`unsafe ${what} ${JSON.stringify(id)}: ids are 1-128 characters of A-Z a-z 0-9 _ . - and never "." or ".."`);
    }
    return id;
}

;// CONCATENATED MODULE: ./src/journal/layout.ts


/** The on-disk layout of SPEC §2, relative to a project root. */
const JOURNAL_FILE = '000000.jsonl';
function runtimeDir(root) {
    return external_node_path_default().join(root, '.sdd', 'runtime');
}
function journalsDir(root) {
    return external_node_path_default().join(runtimeDir(root), 'journal');
}
/** `<root>/.sdd/runtime/journal/<agent_id>/` (the id is validated first). */
function journalDir(root, agentId) {
    return external_node_path_default().join(journalsDir(root), assertSafeId(agentId, 'agent id'));
}
function journalFile(root, agentId) {
    return external_node_path_default().join(journalDir(root, agentId), JOURNAL_FILE);
}
function casDir(root) {
    return external_node_path_default().join(runtimeDir(root), 'cas');
}

;// CONCATENATED MODULE: ./src/journal/step-hash.ts


function payloadOf(f) {
    return {
        prev_hash: f.prev_hash,
        input_hash: f.input_hash,
        model: f.model,
        prompt: f.prompt,
        tool_call: f.tool_call,
        tool_result: f.tool_result,
    };
}
/**
 * The canonical payload a peer hashes by hand:
 * `canonical({prev_hash, input_hash, model, prompt, tool_call, tool_result})`.
 * `read` values may carry NaN/Infinity (Python writes them); values being written may not.
 */
function stepPayload(f, read = false) {
    return read ? canonicalOfRead(payloadOf(f)) : canonical(payloadOf(f));
}
/** `step_hash = sha256_hex(canonical(six fields))`. */
function computeStepHash(f, read = false) {
    return sha256Hex(stepPayload(f, read));
}

;// CONCATENATED MODULE: ./src/journal/row.ts



const ROW_KEYS = [
    'blob_refs',
    'input_hash',
    'model',
    'prev_hash',
    'prompt',
    'seq',
    'step_hash',
    'tool_call',
    'tool_result',
    'ts',
];
/** The row as a JSON value (ts kept a float even when integral). */
function rowValue(row) {
    return {
        blob_refs: row.blob_refs,
        input_hash: row.input_hash,
        model: row.model,
        prev_hash: row.prev_hash,
        prompt: row.prompt,
        seq: row.seq,
        step_hash: row.step_hash,
        tool_call: row.tool_call,
        tool_result: row.tool_result,
        ts: value_float(row.ts),
    };
}
/** The line for a row, without its newline. */
function encodeRow(row) {
    return canonical(rowValue(row));
}
/** Reads one line's bytes (without the newline) as a row; never throws. */
function readRowLine(bytes) {
    let value;
    let text;
    try {
        text = decodeUtf8(bytes);
        value = parse(text);
    }
    catch (e) {
        if (e instanceof JsonParseError)
            return { kind: 'malformed', reason: e.message };
        if (e instanceof RangeError)
            return { kind: 'malformed', reason: 'line too large or too deeply nested' };
        throw e;
    }
    return rowFromValue(value, text);
}
/** Checks the shape of a parsed row; `text` (when known) decides canonicality. */
function rowFromValue(value, text) {
    if (!isJsonObject(value))
        return { kind: 'malformed', reason: 'line is not a JSON object' };
    for (const k of ROW_KEYS) {
        if (!Object.prototype.hasOwnProperty.call(value, k))
            return { kind: 'malformed', reason: `row has no "${k}" key` };
    }
    const v = value;
    if (typeof v.prev_hash !== 'string')
        return { kind: 'malformed', reason: '"prev_hash" is not a string' };
    if (typeof v.step_hash !== 'string')
        return { kind: 'malformed', reason: '"step_hash" is not a string' };
    if (typeof v.input_hash !== 'string')
        return { kind: 'malformed', reason: '"input_hash" is not a string' };
    if (!isJsonInteger(v.seq) || typeof v.seq === 'bigint' || v.seq < 0) {
        return { kind: 'malformed', reason: '"seq" is not a non-negative integer' };
    }
    const refs = v.blob_refs;
    if (!Array.isArray(refs) || !refs.every((r) => isSha256Hex(r))) {
        return { kind: 'malformed', reason: '"blob_refs" is not a list of SHA-256 hex digests' };
    }
    const ts = numericValue(v.ts);
    if (ts === undefined)
        return { kind: 'malformed', reason: '"ts" is not a number' };
    const row = {
        blob_refs: refs,
        input_hash: v.input_hash,
        model: v.model,
        prev_hash: v.prev_hash,
        prompt: v.prompt,
        seq: v.seq,
        step_hash: v.step_hash,
        tool_call: v.tool_call,
        tool_result: v.tool_result,
        ts,
    };
    let isCanonical = false;
    if (text !== undefined) {
        try {
            isCanonical = canonicalOfRead(value) === text && Object.keys(value).length === ROW_KEYS.length;
        }
        catch {
            isCanonical = false;
        }
    }
    return { kind: 'row', row, value, computedHash: computeStepHash(row, true), canonical: isCanonical };
}

;// CONCATENATED MODULE: ./src/journal/verify.ts





/** Calls `fn(start, end, line, terminated)` for each line of `buf` (end excludes the newline). */
function forEachLine(buf, fn) {
    let start = 0;
    let line = 1;
    while (start < buf.length) {
        const nl = buf.indexOf(0x0a, start);
        const end = nl < 0 ? buf.length : nl;
        fn(start, end, line, nl >= 0);
        start = end + 1;
        line++;
    }
}
function walk(buf, options, keep) {
    const chain = new ChainChecker();
    const errors = [];
    const entries = [];
    forEachLine(buf, (start, end, line, terminated) => {
        const bytes = buf.subarray(start, end);
        if (bytes.length === 0) {
            errors.push({ line, kind: 'malformed_json', message: 'empty line' });
            return;
        }
        const read = readRowLine(bytes);
        if (read.kind === 'malformed') {
            errors.push({ line, kind: 'malformed_json', message: read.reason });
            return;
        }
        errors.push(...chain.check(line, read.row, read.computedHash));
        if (options.strict && !read.canonical) {
            errors.push({ line, kind: 'non_canonical', message: 'line bytes are not the canonical encoding of the row' });
        }
        if (options.strict && !terminated) {
            errors.push({ line, kind: 'non_canonical', message: 'last line has no trailing newline' });
        }
        if (keep)
            entries.push({ line, row: read.row, bytes, canonical: read.canonical });
    });
    if (buf.length === 0)
        errors.push({ line: null, kind: 'empty_journal', message: 'journal has no steps' });
    const head = chain.steps > 0 ? chain.head : ZERO_HASH;
    if (options.expectedHead !== undefined && options.expectedHead !== head) {
        errors.push({ line: null, kind: 'head_mismatch', message: `head ${head}, expected ${options.expectedHead}` });
    }
    return { ok: errors.length === 0, head_hash: head, steps: chain.steps, errors, entries };
}
/** Verifies journal bytes: every fault with its line and kind (SPEC §2). */
function verifyJournalBytes(buf, options = {}) {
    const { entries: _entries, ...result } = walk(buf, options, false);
    return result;
}
/** Reads and verifies journal bytes, keeping the well-formed rows. */
function readJournalBytes(buf, options = {}) {
    return walk(buf, options, true);
}
/** Reads a journal file's bytes; a missing or unreadable file is an input error. */
function readJournalFileBytes(file) {
    let st;
    try {
        st = (0,external_node_fs_namespaceObject.statSync)(file);
    }
    catch {
        throw new errors_InputError(`${file}: no such journal file`);
    }
    if (!st.isFile())
        throw new errors_InputError(`${file}: not a regular file`);
    try {
        return (0,external_node_fs_namespaceObject.readFileSync)(file);
    }
    catch (e) {
        throw new errors_InputError(`${file}: cannot read: ${e.code ?? e.message}`);
    }
}
function verifyJournalFile(file, options = {}) {
    return verifyJournalBytes(readJournalFileBytes(file), options);
}
function verify_readJournalFile(file, options = {}) {
    return readJournalBytes(readJournalFileBytes(file), options);
}

;// CONCATENATED MODULE: ./src/journal/recover.ts





const GENESIS = { offset: 0, head: ZERO_HASH, steps: 0 };
/** Refusal to open: names the file, the line and the remedy. Exit 1. */
class JournalRecoveryError extends errors_IntegrityError {
    file;
    line;
    kind;
    name = 'JournalRecoveryError';
    constructor(file, line, kind, detail) {
        super(`${file}:${line}: ${kind}: ${detail}; refusing to append. ` +
            `Remedy: move the journal aside (mv ${file} ${file}.corrupt) so a fresh chain can start, ` +
            `and keep it for \`stepchain verify\``);
        this.file = file;
        this.line = line;
        this.kind = kind;
    }
}
/**
 * Recovery on open (SPEC §2, fail-closed): revalidate every row of `tail` (the
 * file's bytes from `from.offset` on), chaining onto the verified prefix `from`;
 * take the tip from the last recomputed hash, tolerate only a torn tail.
 * Throws JournalRecoveryError for a parseable row that does not verify, or a
 * malformed line followed by a well-formed row.
 */
function recoverTail(file, tail, from = GENESIS) {
    const chain = new ChainChecker();
    chain.prevHash = from.head;
    chain.expectedSeq = from.steps;
    chain.steps = from.steps;
    let validEnd = from.offset;
    let firstBad;
    let unterminatedRowEnd;
    forEachLine(tail, (start, end, relLine, terminated) => {
        const line = from.steps + relLine;
        const bytes = tail.subarray(start, end);
        const read = bytes.length === 0 ? undefined : readRowLine(bytes);
        if (read === undefined || read.kind === 'malformed') {
            firstBad ??= { line, offset: from.offset + start, reason: read?.reason ?? 'empty line' };
            return;
        }
        if (firstBad !== undefined) {
            throw new JournalRecoveryError(file, firstBad.line, 'malformed_json', `${firstBad.reason} (interior corruption: a well-formed row follows at line ${line})`);
        }
        const faults = chain.check(line, read.row, read.computedHash);
        if (faults.length > 0)
            throw new JournalRecoveryError(file, line, faults[0].kind, faults[0].message);
        if (terminated)
            validEnd = from.offset + end + 1;
        else
            unterminatedRowEnd = from.offset + end;
    });
    const result = { validEnd, head: chain.steps > 0 ? chain.prevHash : ZERO_HASH, steps: chain.steps };
    if (unterminatedRowEnd !== undefined)
        result.unterminatedRowEnd = unterminatedRowEnd;
    if (firstBad !== undefined)
        result.tornFrom = validEnd;
    return result;
}

;// CONCATENATED MODULE: ./src/journal/journal.ts













/** `<root>` of a journal at `<root>/.sdd/runtime/journal/<id>/000000.jsonl`, if it is laid out so. */
function projectRootOf(journalDirPath) {
    const parts = external_node_path_default().resolve(journalDirPath).split((external_node_path_default()).sep);
    const n = parts.length;
    if (n >= 5 && parts[n - 2] === 'journal' && parts[n - 3] === 'runtime' && parts[n - 4] === '.sdd') {
        return parts.slice(0, n - 4).join((external_node_path_default()).sep) || (external_node_path_default()).sep;
    }
    return undefined;
}
function nowSeconds() {
    return (performance.timeOrigin + performance.now()) / 1000;
}
function checkWritable(name, v) {
    if (v === undefined)
        return null;
    try {
        canonical(v);
    }
    catch (e) {
        if (e instanceof CanonicalEncodeError)
            throw new errors_InputError(`${name}: ${e.message}`);
        throw e;
    }
    return v;
}
/**
 * A per-step journal opened for appending. Opening takes the journal's lock,
 * revalidates the whole chain (fail-closed), moves a torn tail aside, and
 * releases the lock. Each append re-takes the lock, catches up on rows other
 * processes appended meanwhile (verifying them too), and writes one canonical
 * row with a single write.
 */
class Journal {
    dir;
    file;
    lockFile;
    cas;
    durable;
    lockTimeoutMs;
    state = GENESIS;
    constructor(dir, options) {
        this.dir = dir;
        this.file = external_node_path_default().join(dir, JOURNAL_FILE);
        this.lockFile = `${this.file}.lock`;
        this.durable = (options.durability ?? 'durable') === 'durable';
        this.lockTimeoutMs = options.lockTimeoutMs;
        const root = projectRootOf(dir);
        this.cas = options.cas ?? (root === undefined ? undefined : new Cas(casDir(root), this.durable));
    }
    /** Opens (creating the directory if needed) and recovers. Throws JournalRecoveryError on a bad chain. */
    static open(dir, options = {}) {
        const j = new Journal(dir, options);
        (0,external_node_fs_namespaceObject.mkdirSync)(dir, { recursive: true });
        j.locked(() => j.catchUp());
        return j;
    }
    /** The head (step_hash of the last row, or 64 zeros). */
    get head() {
        return this.state.head;
    }
    /** The number of steps in the chain. */
    get length() {
        return this.state.steps;
    }
    append(step) {
        return this.appendMany([step])[0];
    }
    /** Appends several steps with one write and (when durable) one fsync. */
    appendMany(steps) {
        const prepared = steps.map((s) => this.prepare(s));
        return this.locked(() => {
            this.catchUp();
            let prev = this.state.head;
            let seq = this.state.steps;
            const rows = [];
            for (const p of prepared) {
                const fields = { prev_hash: prev, ...p.fields };
                const row = { ...fields, seq, step_hash: computeStepHash(fields), blob_refs: p.refs, ts: p.ts };
                rows.push(row);
                prev = row.step_hash;
                seq++;
            }
            const data = Buffer.from(rows.map((r) => `${encodeRow(r)}\n`).join(''), 'utf8');
            const created = this.state.offset === 0;
            const fd = (0,external_node_fs_namespaceObject.openSync)(this.file, 'a', 0o644);
            try {
                writeAll(fd, data);
                if (this.durable)
                    (0,external_node_fs_namespaceObject.fsyncSync)(fd);
            }
            finally {
                (0,external_node_fs_namespaceObject.closeSync)(fd);
            }
            if (created && this.durable)
                fsyncDir(this.dir);
            this.state = { offset: this.state.offset + data.length, head: prev, steps: seq };
            return rows;
        });
    }
    /** All rows, verified (a fault is reported in the result, nothing is hidden). */
    read(options = {}) {
        return verify_readJournalFile(this.file, options);
    }
    prepare(s) {
        const model = checkWritable('model', s.model);
        const prompt = checkWritable('prompt', s.prompt);
        const tool_call = checkWritable('tool_call', s.tool_call);
        const tool_result = checkWritable('tool_result', s.tool_result);
        if (s.input !== undefined && s.inputHash !== undefined)
            throw new errors_InputError('give the input or its hash, not both');
        if (s.inputHash !== undefined && !isSha256Hex(s.inputHash)) {
            throw new errors_InputError(`input hash must be 64 lowercase hex digits, got ${JSON.stringify(s.inputHash)}`);
        }
        const ts = s.ts ?? nowSeconds();
        if (!Number.isFinite(ts))
            throw new errors_InputError('ts must be a finite number');
        const refs = [];
        const store = (bytes) => {
            if (this.cas === undefined)
                throw new errors_InputError(`${this.dir}: no blob store for this journal (give a CAS directory)`);
            const d = this.cas.put(bytes);
            if (!refs.includes(d))
                refs.push(d);
            return d;
        };
        // Blobs are stored before the row is written, so a row never names a missing blob.
        const input_hash = s.input !== undefined ? store(s.input) : (s.inputHash ?? sha256Hex(new Uint8Array()));
        for (const b of s.blobs ?? [])
            store(b);
        return { fields: { input_hash, model, prompt, tool_call, tool_result }, refs, ts };
    }
    locked(fn) {
        const release = acquireLock(this.lockFile, this.lockTimeoutMs === undefined ? {} : { timeoutMs: this.lockTimeoutMs });
        try {
            return fn();
        }
        finally {
            release();
        }
    }
    /** Under the lock: verify whatever was appended since we last looked, repair a torn tail. */
    catchUp() {
        let fd;
        try {
            fd = (0,external_node_fs_namespaceObject.openSync)(this.file, 'r+');
        }
        catch (e) {
            if (e.code === 'ENOENT') {
                this.state = GENESIS;
                return;
            }
            throw new errors_InputError(`${this.file}: cannot open: ${e.code ?? e.message}`);
        }
        try {
            const size = (0,external_node_fs_namespaceObject.fstatSync)(fd).size;
            if (size === this.state.offset)
                return;
            // Grown: verify only the new bytes. Shrunk (truncated by someone): start over.
            const from = size > this.state.offset ? this.state : GENESIS;
            const tail = readRange(fd, from.offset, size - from.offset);
            const t = recoverTail(this.file, tail, from);
            let end = t.validEnd;
            if (t.unterminatedRowEnd !== undefined) {
                // A complete, valid row whose newline never made it: finish the line.
                writeAll(fd, Buffer.from('\n'));
                if (this.durable)
                    (0,external_node_fs_namespaceObject.fsyncSync)(fd);
                end = t.unterminatedRowEnd + 1;
            }
            else if (t.tornFrom !== undefined) {
                this.moveTornAside(tail.subarray(t.tornFrom - from.offset));
                (0,external_node_fs_namespaceObject.ftruncateSync)(fd, t.tornFrom);
                if (this.durable)
                    (0,external_node_fs_namespaceObject.fsyncSync)(fd);
            }
            this.state = { offset: end, head: t.head, steps: t.steps };
        }
        finally {
            (0,external_node_fs_namespaceObject.closeSync)(fd);
        }
    }
    /** Copies torn bytes to `000000.jsonl.torn-<unix ms>` (durably) before the journal is truncated. */
    moveTornAside(bytes) {
        const base = `${this.file}.torn-${Date.now()}`;
        for (let n = 0;; n++) {
            const side = n === 0 ? base : `${base}-${n}`;
            let fd;
            try {
                fd = (0,external_node_fs_namespaceObject.openSync)(side, 'wx', 0o644);
            }
            catch (e) {
                if (e.code === 'EEXIST')
                    continue;
                throw e;
            }
            try {
                writeAll(fd, bytes);
                if (this.durable)
                    (0,external_node_fs_namespaceObject.fsyncSync)(fd);
            }
            finally {
                (0,external_node_fs_namespaceObject.closeSync)(fd);
            }
            if (this.durable)
                fsyncDir(this.dir);
            return;
        }
    }
}
function readRange(fd, position, length) {
    const buf = Buffer.allocUnsafe(length);
    let off = 0;
    while (off < length) {
        const n = (0,external_node_fs_namespaceObject.readSync)(fd, buf, off, length - off, position + off);
        if (n === 0)
            break;
        off += n;
    }
    return buf.subarray(0, off);
}

;// CONCATENATED MODULE: ./src/journal/locate.ts





function kindOf(p) {
    try {
        const st = (0,external_node_fs_namespaceObject.statSync)(p);
        return st.isDirectory() ? 'dir' : st.isFile() ? 'file' : undefined;
    }
    catch {
        return undefined;
    }
}
/**
 * Resolves `<agent|dir|file>`: an agent id is looked up under
 * `<root>/.sdd/runtime/journal/<id>/`; anything with a path separator, or that
 * exists as a path while no such agent exists, is a journal directory or file.
 * With `mustExist` a missing journal is an input error (exit 2).
 */
function resolveJournal(target, root, mustExist = true) {
    const looksLikePath = target.includes('/') || target.includes((external_node_path_default()).sep) || target.endsWith('.jsonl');
    if (!looksLikePath && isSafeId(target)) {
        const dir = journalDir(root, target);
        if (kindOf(dir) === 'dir' || kindOf(target) === undefined) {
            const file = external_node_path_default().join(dir, JOURNAL_FILE);
            if (mustExist && kindOf(file) !== 'file')
                throw new errors_InputError(`no journal for agent ${JSON.stringify(target)} (looked for ${file})`);
            return { file, dir, agentId: target };
        }
    }
    const k = kindOf(target);
    if (k === 'dir') {
        const file = external_node_path_default().join(target, JOURNAL_FILE);
        if (mustExist && kindOf(file) !== 'file')
            throw new errors_InputError(`${target}: no ${JOURNAL_FILE} in this directory`);
        return { file, dir: target, agentId: external_node_path_default().basename(external_node_path_default().resolve(target)) };
    }
    if (k === 'file') {
        const dir = external_node_path_default().dirname(target);
        return { file: target, dir, agentId: external_node_path_default().basename(external_node_path_default().resolve(dir)) };
    }
    if (!looksLikePath && !isSafeId(target)) {
        throw new errors_InputError(`unsafe agent id ${JSON.stringify(target)}: ids are 1-128 characters of A-Z a-z 0-9 _ . - and never "." or ".."`);
    }
    throw new errors_InputError(`${target}: no such journal file or directory`);
}

;// CONCATENATED MODULE: ./src/journal/read.ts


/** `file:line: kind: message` for one fault. */
function describeFault(file, f) {
    return `${f.line === null ? file : `${file}:${f.line}`}: ${f.kind}: ${f.message}`;
}
/**
 * Reads a journal for display or use: verified first, so a tampered chain is never
 * laid out as if it were intact. Throws IntegrityError naming the first fault.
 */
function readVerifiedJournal(file, options = {}) {
    const r = readJournalFile(file, options);
    if (!r.ok) {
        const more = r.errors.length > 1 ? ` (and ${r.errors.length - 1} more fault${r.errors.length > 2 ? 's' : ''})` : '';
        throw new IntegrityError(`${describeFault(file, r.errors[0])}${more}`);
    }
    return r;
}
/** Steps `[a..b]` (inclusive, 0-based seqs) of a verified journal. */
function readWindow(file, a, b) {
    const r = readVerifiedJournal(file);
    if (!Number.isInteger(a) || !Number.isInteger(b) || a < 0 || b < a)
        throw new InputError(`bad step window [${a}..${b}]`);
    if (b >= r.steps)
        throw new InputError(`${file}: step ${b} is out of range (the journal has ${r.steps} steps, 0..${r.steps - 1})`);
    return r.entries.slice(a, b + 1);
}
/** One step of a verified journal. */
function readStep(file, seq) {
    return readWindow(file, seq, seq)[0];
}
/** The verified head hash. */
function journalHead(file) {
    return readVerifiedJournal(file).head_hash;
}

;// CONCATENATED MODULE: ./src/journal/index.ts











;// CONCATENATED MODULE: ./src/cli/common.ts




const ROOT_OPTION = { root: { kind: 'value' } };
const JSON_OPTION = { json: { kind: 'flag' } };
/** The project root: `--root DIR` or the current directory. */
function rootOf(args, io) {
    return external_node_path_default().resolve(io.cwd, args.values.get('root') ?? '.');
}
/** Reads a file named on the command line (`-` is stdin); errors name the file. */
function readInputFile(name, io, what = 'file') {
    if (name === '-')
        return io.readStdin();
    try {
        return (0,external_node_fs_namespaceObject.readFileSync)(external_node_path_default().resolve(io.cwd, name));
    }
    catch (e) {
        const code = e.code;
        const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : code === 'EACCES' ? 'permission denied' : (code ?? 'unreadable');
        throw new errors_InputError(`${name}: cannot read ${what}: ${why}`);
    }
}
/** A `--expected-head` style option: absent, or 64 lowercase hex digits. */
function hashOption(args, name) {
    const v = args.values.get(name);
    if (v === undefined)
        return undefined;
    if (!isSha256Hex(v))
        throw new errors_InputError(`--${name}: expected 64 lowercase hex digits, got ${JSON.stringify(v)}`);
    return v;
}
/** A non-negative integer option or positional. */
function intArg(value, what) {
    if (!/^[0-9]+$/.test(value) || !Number.isSafeInteger(Number(value))) {
        throw new InputError(`${what}: expected a non-negative integer, got ${JSON.stringify(value)}`);
    }
    return Number(value);
}

;// CONCATENATED MODULE: ./src/cli/commands/append.ts






function jsonOption(name, text) {
    if (text === undefined)
        return undefined;
    try {
        return parse(text);
    }
    catch (e) {
        if (e instanceof JsonParseError)
            throw new errors_InputError(`--${name}: not JSON: ${e.message}`);
        throw e;
    }
}
const appendCommand = {
    name: ['append'],
    usage: '<agent> [--root DIR] [--input FILE|-] [--input-hash HEX] [--model M] [--prompt TEXT | --prompt-file FILE] ' +
        '[--tool-call JSON] [--tool-result JSON] [--blob FILE]... [--json]',
    summary: 'Append one step to an agent\'s journal (recovering and verifying the chain first) and print the row.',
    options: {
        ...ROOT_OPTION,
        ...JSON_OPTION,
        input: { kind: 'value' },
        'input-hash': { kind: 'value' },
        model: { kind: 'value' },
        prompt: { kind: 'value' },
        'prompt-file': { kind: 'value' },
        'tool-call': { kind: 'value' },
        'tool-result': { kind: 'value' },
        blob: { kind: 'list' },
    },
    run(args, io) {
        const [target] = args.positionals;
        if (target === undefined)
            throw new errors_InputError('append: missing <agent>');
        if (args.positionals.length > 1)
            throw new errors_InputError(`append: unexpected argument ${JSON.stringify(args.positionals[1])}`);
        const root = rootOf(args, io);
        if (args.values.has('prompt') && args.values.has('prompt-file'))
            throw new errors_InputError('append: give --prompt or --prompt-file, not both');
        if (args.values.has('input') && args.values.has('input-hash'))
            throw new errors_InputError('append: give --input or --input-hash, not both');
        const step = {};
        const tc = jsonOption('tool-call', args.values.get('tool-call'));
        const tr = jsonOption('tool-result', args.values.get('tool-result'));
        if (tc !== undefined)
            step.tool_call = tc;
        if (tr !== undefined)
            step.tool_result = tr;
        const model = args.values.get('model');
        if (model !== undefined)
            step.model = model;
        const promptFile = args.values.get('prompt-file');
        if (promptFile !== undefined) {
            const bytes = readInputFile(promptFile, io, 'prompt file');
            try {
                step.prompt = decodeUtf8(bytes);
            }
            catch {
                throw new errors_InputError(`${promptFile}: prompt file is not valid UTF-8`);
            }
        }
        else if (args.values.has('prompt')) {
            step.prompt = args.values.get('prompt');
        }
        const input = args.values.get('input');
        if (input !== undefined)
            step.input = readInputFile(input, io, 'input');
        const inputHash = args.values.get('input-hash');
        if (inputHash !== undefined)
            step.inputHash = inputHash;
        const blobs = args.lists.get('blob') ?? [];
        if (blobs.length > 0)
            step.blobs = blobs.map((b) => readInputFile(b, io, 'blob'));
        // An agent id (validated before it becomes a path), or a journal directory.
        const dir = isSafeId(target) && !target.includes('/') ? journalDir(root, target) : resolveJournal(target, root, false).dir;
        const journal = Journal.open(dir);
        const row = journal.append(step);
        if (args.flags.has('json')) {
            io.out(encodeRow(row));
        }
        else {
            io.out(`appended step ${row.seq} to ${journal.file}`);
            io.out(`  step_hash  ${row.step_hash}`);
            io.out(`  prev_hash  ${row.prev_hash}`);
            io.out(`  input_hash ${row.input_hash}`);
            if (row.blob_refs.length > 0)
                io.out(`  blob_refs  ${row.blob_refs.join(' ')}`);
        }
        return 0;
    },
};

;// CONCATENATED MODULE: external "node:child_process"
const external_node_child_process_namespaceObject = require("node:child_process");
;// CONCATENATED MODULE: ./src/cli/io.ts


/**
 * One JSON document for `--json`: keys in the order the command built them, with
 * exact integers (bigint) and float-ness kept, so rows print exactly as stored.
 */
function jsonDocument(doc) {
    return encode(doc, { sortKeys: false, allowNonFinite: true });
}
function processIO() {
    return {
        out: (line) => process.stdout.write(`${line}\n`),
        err: (line) => process.stderr.write(`${line}\n`),
        json: (doc) => process.stdout.write(`${jsonDocument(doc)}\n`),
        readStdin: () => (0,external_node_fs_namespaceObject.readFileSync)(0),
        isTTY: Boolean(process.stdout.isTTY && process.stdin.isTTY),
        env: process.env,
        cwd: process.cwd(),
    };
}

;// CONCATENATED MODULE: ./src/demo/context.ts


function makeContext(root, env, write) {
    const ctx = {
        root,
        env,
        epilogue: [],
        section: (title) => write(`\n== ${title} ==\n`),
        say: (line) => write(`${line}\n`),
        async run(argv, options = {}) {
            const cwd = options.cwd ?? root;
            let stdout = '';
            let stderr = '';
            const io = {
                out: (l) => void (stdout += `${l}\n`),
                err: (l) => void (stderr += `${l}\n`),
                json: (d) => void (stdout += `${jsonDocument(d)}\n`),
                readStdin: () => options.stdin ?? Buffer.alloc(0),
                isTTY: false,
                env,
                cwd,
            };
            const code = await runCli(argv, io);
            if (!options.quiet) {
                write(`$ stepchain ${argv.map((a) => (/^[\w./:=@-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`)).join(' ')}\n`);
                const indent = (s) => s.replace(/\n$/, '').split('\n').map((l) => `  ${l}`).join('\n');
                if (stdout)
                    write(`${indent(stdout)}\n`);
                if (stderr)
                    write(`${indent(stderr)}\n`);
                write(`  (exit ${code})\n`);
            }
            return { code, stdout, stderr };
        },
    };
    return ctx;
}

;// CONCATENATED MODULE: ./src/demo/sample.ts
/** The embedded sample: a short agent run that fixes a bug in a tiny project. */
const SAMPLE_AGENT = 'agent-demo';
const SAMPLE_FILES = {
    'README.md': '# calc\n\nA tiny calculator the demo agent works on.\n',
    'src/calc.py': 'def add(a, b):\n    return a - b  # bug: should add\n',
    'tests/test_calc.py': 'from src.calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n',
};
const SAMPLE_STEPS = [
    {
        model: 'claude-3-7-sonnet-20250219',
        prompt: 'The test suite fails. Find out why.',
        tool_call: { name: 'run', args: { cmd: 'pytest -q' } },
        tool_result: { exit_code: 1, stdout: 'FAILED tests/test_calc.py::test_add - assert -1 == 5' },
    },
    {
        model: 'claude-3-7-sonnet-20250219',
        prompt: 'Read the implementation of add().',
        tool_call: { name: 'read_file', args: { path: 'src/calc.py' } },
        tool_result: { content: 'def add(a, b):\n    return a - b  # bug: should add\n' },
    },
    {
        model: 'claude-3-7-sonnet-20250219',
        prompt: 'Fix the bug in add().',
        tool_call: { name: 'edit_file', args: { path: 'src/calc.py', old: 'a - b  # bug: should add', new: 'a + b' } },
        tool_result: { ok: true },
        writes: { 'src/calc.py': 'def add(a, b):\n    return a + b\n' },
    },
    {
        model: 'claude-3-7-sonnet-20250219',
        prompt: 'Run the tests again.',
        tool_call: { name: 'run', args: { cmd: 'pytest -q' } },
        tool_result: { exit_code: 0, stdout: '1 passed in 0.01s' },
    },
    {
        model: 'claude-3-7-sonnet-20250219',
        prompt: 'Summarise the change for the pull request. Résumé ✓',
        tool_call: null,
        tool_result: { summary: 'add() subtracted instead of adding; fixed and the test passes.' },
    },
];

;// CONCATENATED MODULE: ./src/demo/journal.ts




/** Records the sample run step by step, verifies it, then tampers with a copy. */
async function demoJournal(ctx) {
    ctx.section('Record a run: one hash-chained journal row per step');
    for (const [i, step] of SAMPLE_STEPS.entries()) {
        for (const [file, content] of Object.entries(step.writes ?? {}))
            (0,external_node_fs_namespaceObject.writeFileSync)(external_node_path_default().join(ctx.root, file), content);
        const input = external_node_path_default().join(ctx.root, '.sdd', 'demo-inputs', `step-${i}.txt`);
        (0,external_node_fs_namespaceObject.mkdirSync)(external_node_path_default().dirname(input), { recursive: true });
        (0,external_node_fs_namespaceObject.writeFileSync)(input, `user turn ${i}: ${step.prompt}\n`);
        const argv = ['append', SAMPLE_AGENT, '--input', input, '--model', step.model, '--prompt', step.prompt];
        if (step.tool_call !== null)
            argv.push('--tool-call', JSON.stringify(step.tool_call));
        argv.push('--tool-result', JSON.stringify(step.tool_result));
        const r = await ctx.run(argv, { quiet: i > 0 });
        if (r.code !== 0)
            throw new Error(`demo: append failed: ${r.stderr}`);
        if (i > 0)
            ctx.say(`  step ${i}: ${step.prompt}`);
    }
    ctx.section('Verify the chain from genesis');
    await ctx.run(['verify', SAMPLE_AGENT]);
    ctx.section('Tamper with a copy: change one tool result, keep the stored hash');
    const original = journalFile(ctx.root, SAMPLE_AGENT);
    const tamperedDir = external_node_path_default().join(ctx.root, '.sdd', 'tampered-copy');
    (0,external_node_fs_namespaceObject.mkdirSync)(tamperedDir, { recursive: true });
    const tampered = external_node_path_default().join(tamperedDir, '000000.jsonl');
    (0,external_node_fs_namespaceObject.copyFileSync)(original, tampered);
    const lines = (0,external_node_fs_namespaceObject.readFileSync)(tampered, 'utf8').split('\n');
    lines[3] = lines[3].replace('1 passed in 0.01s', '9 passed in 0.01s');
    (0,external_node_fs_namespaceObject.writeFileSync)(tampered, lines.join('\n'));
    ctx.say('The copy claims 9 tests passed at step 3. The operator sees:');
    await ctx.run(['verify', tampered]);
    ctx.say('and appending to a tampered journal is refused (fail-closed):');
    await ctx.run(['append', tamperedDir, '--prompt', 'continue']);
}

;// CONCATENATED MODULE: ./src/demo/run.ts







/** The demo's sections, in order; each capability adds its own. */
const DEMO_SECTIONS = [demoJournal];
function git(root, args) {
    (0,external_node_child_process_namespaceObject.execFileSync)('git', args, { cwd: root, stdio: 'ignore' });
}
/**
 * `npm start`: records a sample agent run into a temporary project (a git
 * repository), then walks every capability over it. Touches nothing outside
 * the temporary directory.
 */
async function runDemo(write, env) {
    const root = (0,external_node_fs_namespaceObject.mkdtempSync)(external_node_path_default().join((0,external_node_os_namespaceObject.tmpdir)(), 'stepchain-demo-'));
    for (const [file, content] of Object.entries(SAMPLE_FILES)) {
        (0,external_node_fs_namespaceObject.mkdirSync)(external_node_path_default().dirname(external_node_path_default().join(root, file)), { recursive: true });
        (0,external_node_fs_namespaceObject.writeFileSync)(external_node_path_default().join(root, file), content);
    }
    (0,external_node_fs_namespaceObject.writeFileSync)(external_node_path_default().join(root, '.gitignore'), '.sdd/\n');
    git(root, ['init', '-q', '-b', 'main']);
    git(root, ['add', '-A']);
    git(root, ['-c', 'user.name=demo', '-c', 'user.email=demo@stepchain.invalid', 'commit', '-q', '-m', 'initial']);
    const demoEnv = {
        ...env,
        STEPCHAIN_AUDIT_KEY_PATH: external_node_path_default().join(root, '.sdd-keys', 'audit.key'),
        GIT_AUTHOR_NAME: 'stepchain demo',
        GIT_AUTHOR_EMAIL: 'demo@stepchain.invalid',
        GIT_COMMITTER_NAME: 'stepchain demo',
        GIT_COMMITTER_EMAIL: 'demo@stepchain.invalid',
    };
    write(`stepchain demo: a sample agent run in ${root}\n`);
    const ctx = makeContext(root, demoEnv, write);
    for (const section of DEMO_SECTIONS)
        await section(ctx);
    write('\n== Walk it yourself ==\n');
    write(`cd ${root}\n`);
    for (const line of ctx.epilogue)
        write(`${line}\n`);
    return root;
}

;// CONCATENATED MODULE: ./src/cli/commands/demo.ts

const demoCommand = {
    name: ['demo'],
    usage: '',
    summary: 'Record a sample agent run into a temporary project and show every capability on it (npm start).',
    options: {},
    async run(_args, io) {
        await runDemo((s) => process.stdout.write(s), io.env);
        return 0;
    },
};

;// CONCATENATED MODULE: ./src/cli/commands/verify.ts



const verifyCommand = {
    name: ['verify'],
    usage: '<agent|dir|file> [--root DIR] [--expected-head HEX] [--strict] [--json]',
    summary: 'Verify a per-step journal from genesis: every fault with its line and kind. Exit 0 intact, 1 not.',
    options: { ...ROOT_OPTION, ...JSON_OPTION, 'expected-head': { kind: 'value' }, strict: { kind: 'flag' } },
    run(args, io) {
        const [target] = expectPositionals(args, ['agent|dir|file'], 'verify');
        const expectedHead = hashOption(args, 'expected-head');
        const { file } = resolveJournal(target, rootOf(args, io));
        const result = verifyJournalFile(file, {
            ...(expectedHead === undefined ? {} : { expectedHead }),
            strict: args.flags.has('strict'),
        });
        if (args.flags.has('json')) {
            io.json({ ok: result.ok, head_hash: result.head_hash, steps: result.steps, errors: result.errors });
        }
        else if (result.ok) {
            io.out(`OK ${file}: ${result.steps} step${result.steps === 1 ? '' : 's'}, head ${result.head_hash}`);
        }
        else {
            io.out(`FAIL ${file}: ${result.errors.length} fault${result.errors.length === 1 ? '' : 's'} in ${result.steps} well-formed rows`);
        }
        if (!result.ok)
            for (const f of result.errors)
                io.err(describeFault(file, f));
        return result.ok ? 0 : 1;
    },
};

;// CONCATENATED MODULE: ./src/cli/commands/index.ts



/**
 * Every CLI command, one module each, each a thin layer over the library.
 * Add a command by importing it here.
 */
const commands = [appendCommand, verifyCommand, demoCommand];

;// CONCATENATED MODULE: ./src/version.ts
/** The producer name written into receipts (`bernstein_version`) and shown by `--version`. */
const VERSION = '0.1.0';
const PRODUCER = (/* unused pure expression or super */ null && (`stepchain/${VERSION}`));

;// CONCATENATED MODULE: ./src/cli/main.ts





function usageText() {
    const lines = [`stepchain ${VERSION}: tamper-evident, replayable AI-agent runs`, '', 'Commands:'];
    for (const c of commands)
        lines.push(`  stepchain ${c.name.join(' ')} ${c.usage}`.trimEnd(), `      ${c.summary}`);
    lines.push('', 'Exit codes: 0 holds, 1 does not hold, 2 usage or input error. `--json` prints one JSON document.');
    return lines.join('\n');
}
/** Picks the command whose name words are the longest prefix of argv. */
function findCommand(argv) {
    let best;
    for (const c of commands) {
        if (c.name.every((w, i) => argv[i] === w) && (best === undefined || c.name.length > best.name.length))
            best = c;
    }
    return best && { command: best, rest: argv.slice(best.name.length) };
}
/** Runs one command line; returns the exit code. Never throws, never prints a stack trace. */
async function runCli(argv, io = processIO()) {
    if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
        io.out(usageText());
        return argv.length === 0 ? 2 : 0;
    }
    if (argv[0] === '--version' || argv[0] === 'version') {
        io.out(VERSION);
        return 0;
    }
    const found = findCommand(argv);
    if (found === undefined) {
        io.err(`stepchain: unknown command ${JSON.stringify(argv[0])} (see \`stepchain help\`)`);
        return 2;
    }
    const { command, rest } = found;
    if (rest.includes('--help') || rest.includes('-h')) {
        io.out(`usage: stepchain ${command.name.join(' ')} ${command.usage}\n\n${command.summary}`);
        return 0;
    }
    try {
        const args = parseArgs(rest, command.options, command.name.join(' '));
        return await command.run(args, io);
    }
    catch (e) {
        if (e instanceof StepchainError) {
            io.err(`stepchain: ${e.message}`);
            return e.exitCode;
        }
        // An unexpected failure is still one line; STEPCHAIN_DEBUG shows the stack.
        const err = e;
        io.err(`stepchain: internal error: ${err?.message ?? String(e)}`);
        if (io.env.STEPCHAIN_DEBUG)
            io.err(String(err?.stack));
        return 1;
    }
}

;// CONCATENATED MODULE: ./src/cli/index.ts

// The single-file bundle's entry (dist/cli.js).
void runCli(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
});

module.exports = __webpack_exports__;
/******/ })()
;