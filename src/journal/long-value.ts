import { compareCodePoints, isPythonFloatRepr } from '../canonical';

/**
 * The check of one canonical JSON value (src/canonical/text-scan.ts's scanValue with fast-line's ROW_STYLE: compact,
 * NaN and the infinities taken, integers of at most 4,300 digits, `-0` refused, floats as Python's repr writes them,
 * keys in code-point order, containers up to depth 512) for a value that streams by in pieces: src/journal/long-row.ts
 * reads a row's four free values with it. It holds the previous key of each open object, the current number token and
 * a little state, never the value.
 *
 * Caps keep that small whatever the value: a key over MAX_KEY characters (as written, escapes included), or held keys
 * together over MAX_HELD_KEYS, or a number token over MAX_TOKEN characters fail the check (scanValue takes a key of any
 * length: the one intended difference). No number token past 4,300 characters is canonical anyway (an integer's
 * limit; a float's repr is at most 24), so that cap changes no answer.
 */
const MAX_KEY = 64 * 1024;
const MAX_HELD_KEYS = 1024 * 1024;
export const MAX_TOKEN = 4400;
/** ROW_STYLE's maxDepth: a container whose depth (a field's value is at 0) is past it is not taken. */
const MAX_DEPTH = 512;
/** Python's limit on an integer's digits (ROW_STYLE's intOk). */
const MAX_INT_CHARS = 4300;

/** fast-line's NUMBER, whole: a token of number characters that is not all one number fails fastRow at its rest. */
export const NUMBER = /^-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$/;

/** Bytes a canonical string holds as they are (printable ASCII but `"` and `\`): the inner loop's one test. */
const PLAIN = new Uint8Array(256);
for (let c = 0x20; c <= 0x7e; c++) PLAIN[c] = c === 0x22 || c === 0x5c ? 0 : 1;
/** Bytes a number token is made of: the token runs until another byte, and is then judged whole. */
export const NUMERIC = new Uint8Array(256);
for (const c of '0123456789+-.eE') NUMERIC[c.charCodeAt(0)] = 1;
/** Lowercase hex digit values, -1 for other bytes. */
export const HEX = new Int8Array(256).fill(-1);
for (let c = 0; c < 16; c++) HEX['0123456789abcdef'.charCodeAt(c)] = c;
/** The short escapes' letters (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`); `\/` is not canonical. */
const SHORT_ESCAPE = new Set([0x22, 0x5c, 0x62, 0x66, 0x6e, 0x72, 0x74]);

// Where the value scanner is.
const V_VALUE = 0; // a value starts
const V_ARRAY_FIRST = 1; // after `[`: a value or `]`
const V_OBJECT_FIRST = 2; // after `{`: a key or `}`
const V_KEY = 3; // after `,` in an object: a key
const V_COLON = 4;
const V_AFTER = 5; // after a member or item: `,` or the container's close
const V_STRING = 6;
const V_ESCAPE = 7; // after `\`
const V_UNICODE = 8; // in `\u`'s four digits
const V_NUMBER = 9;
const V_WORD = 10; // in null, true, false, NaN, Infinity, -Infinity

const ARRAY = 1;
const OBJECT = 2;

/** `b[from..to)` as text, a byte a character (only short runs and ASCII keys are made into text). */
export function latin1(b: Uint8Array, from: number, to: number): string {
  if (to - from < 16) {
    let out = '';
    for (let i = from; i < to; i++) out += String.fromCharCode(b[i]!);
    return out;
  }
  return Buffer.from(b.buffer, b.byteOffset + from, to - from).toString('latin1');
}

/** The number token's verdict as scanNumber gives it (the characters after it are the caller's). */
function numberOk(token: string): boolean {
  const m = NUMBER.exec(token);
  if (m === null) return false;
  if (m[1] !== undefined || m[2] !== undefined) return isPythonFloatRepr(token);
  return token !== '-0' && token.length <= MAX_INT_CHARS;
}

/** A canonical value's check, fed its bytes a run at a time; `start` makes it ready for the next value. */
export class ValueCheck {
  /** The value is not canonical (or over a cap): what is pushed after it is not looked at. */
  dead = false;
  /** The value ended just before the index `run` returned. */
  done = false;
  private vs = V_VALUE;
  private depth = 0;
  private readonly kinds = new Uint8Array(MAX_DEPTH + 1);
  /** The previous key of the object at each depth (decoded) and whether its literal had an escape. */
  private readonly keys: (string | undefined)[] = [];
  private readonly keyEscaped: boolean[] = [];
  private heldKeys = 0;
  private inKey = false;
  private key = '';
  private keyEscape = false;
  private unicode = 0;
  private unicodeDigits = 0;
  private word = '';
  private wordAt = 0;
  private token = '';

  /** A new value at depth 0 (the last one ended whole, so no container is open). */
  start(): void {
    this.vs = V_VALUE;
    this.done = false;
  }

  /** The value's bytes from j: where it stopped (the piece's end, or just past the value: `done`). */
  run(b: Uint8Array, j: number, to: number): number {
    while (j < to) {
      const vs = this.vs;
      if (vs === V_STRING) j = this.stringRun(b, j, to);
      else if (vs === V_NUMBER) j = this.numberRun(b, j, to);
      else this.structural(b[j++]!);
      if (this.dead) return to;
      if (this.done) return j;
    }
    return j;
  }

  /** The hot loop: a string's plain bytes, then what ends the run. */
  private stringRun(b: Uint8Array, j: number, to: number): number {
    let k = j;
    while (k < to && PLAIN[b[k]!] === 1) k++;
    if (this.inKey && k > j) this.keyChars(b, j, k);
    if (k === to || this.dead) return k;
    const c = b[k]!;
    if (c === 0x22) this.stringEnd();
    else if (c === 0x5c) this.vs = V_ESCAPE;
    else this.dead = true; // a control, a byte past ASCII
    return k + 1;
  }

  /** A number token's characters; judged whole when another byte comes (which is not taken). */
  private numberRun(b: Uint8Array, j: number, to: number): number {
    let k = j;
    while (k < to && NUMERIC[b[k]!] === 1) k++;
    if (this.token.length + (k - j) > MAX_TOKEN) {
      this.dead = true;
      return to;
    }
    this.token += latin1(b, j, k);
    if (k === to) return k;
    if (this.token === '-' && b[k] === 0x49) {
      // `-Infinity`: scanValue tries it before a number.
      this.vs = V_WORD;
      this.word = '-Infinity';
      this.wordAt = 2;
      return k + 1;
    }
    if (!numberOk(this.token)) {
      this.dead = true;
      return to;
    }
    this.valueEnd();
    return k;
  }

  /** One byte outside strings and numbers. */
  private structural(c: number): void {
    switch (this.vs) {
      case V_ARRAY_FIRST:
        if (c === 0x5d) return this.close(ARRAY);
        this.vs = V_VALUE;
        return this.valueStart(c);
      case V_VALUE:
        return this.valueStart(c);
      case V_OBJECT_FIRST:
        if (c === 0x7d) return this.close(OBJECT);
        return this.keyStart(c);
      case V_KEY:
        return this.keyStart(c);
      case V_COLON:
        if (c === 0x3a) this.vs = V_VALUE;
        else this.dead = true;
        return;
      case V_AFTER: {
        const kind = this.kinds[this.depth - 1];
        if (c === 0x2c) this.vs = kind === ARRAY ? V_VALUE : V_KEY;
        else if (c === (kind === ARRAY ? 0x5d : 0x7d)) this.close(kind!);
        else this.dead = true;
        return;
      }
      case V_ESCAPE:
        return this.escape(c);
      case V_UNICODE:
        return this.unicodeDigit(c);
      default: // V_WORD
        if (c !== this.word.charCodeAt(this.wordAt)) this.dead = true;
        else if (++this.wordAt === this.word.length) this.valueEnd();
    }
  }

  private valueStart(c: number): void {
    switch (c) {
      case 0x22:
        this.vs = V_STRING;
        this.inKey = false;
        return;
      case 0x7b:
      case 0x5b:
        return this.open(c === 0x5b ? ARRAY : OBJECT);
      case 0x6e:
      case 0x74:
      case 0x66:
      case 0x4e:
      case 0x49:
        this.vs = V_WORD;
        this.word = c === 0x6e ? 'null' : c === 0x74 ? 'true' : c === 0x66 ? 'false' : c === 0x4e ? 'NaN' : 'Infinity';
        this.wordAt = 1;
        return;
      default:
        if (c !== 0x2d && (c < 0x30 || c > 0x39)) {
          this.dead = true;
          return;
        }
        this.vs = V_NUMBER;
        this.token = String.fromCharCode(c);
    }
  }

  /** A container opens at the depth of the ones open around it (scanValue's count: a field's value is at 0). */
  private open(kind: number): void {
    if (this.depth > MAX_DEPTH) {
      this.dead = true;
      return;
    }
    this.kinds[this.depth] = kind;
    if (kind === OBJECT) this.keys[this.depth] = undefined;
    this.depth++;
    this.vs = kind === ARRAY ? V_ARRAY_FIRST : V_OBJECT_FIRST;
  }

  private close(kind: number): void {
    this.depth--;
    if (kind === OBJECT) {
      this.heldKeys -= this.keys[this.depth]?.length ?? 0;
      this.keys[this.depth] = undefined;
    }
    this.valueEnd();
  }

  /** A value is whole: the container's next member or item, or the free value's end. */
  private valueEnd(): void {
    if (this.depth === 0) this.done = true;
    else this.vs = V_AFTER;
  }

  private keyStart(c: number): void {
    if (c !== 0x22) {
      this.dead = true;
      return;
    }
    this.vs = V_STRING;
    this.inKey = true;
    this.key = '';
    this.keyEscape = false;
  }

  /** A key's characters, as written (escapes included): capped, so a key cannot grow without bound. */
  private keyChars(b: Uint8Array, j: number, k: number): void {
    const n = this.key.length + (k - j);
    if (n > MAX_KEY || this.heldKeys + n > MAX_HELD_KEYS) this.dead = true;
    else this.key += latin1(b, j, k);
  }

  private stringEnd(): void {
    if (!this.inKey) return this.valueEnd();
    const d = this.depth - 1;
    const key = this.keyEscape ? (JSON.parse(`"${this.key}"`) as string) : this.key;
    const prev = this.keys[d];
    // text-scan's keyLess: strictly after the previous key, by code point (a plain `<` where neither had an escape).
    if (prev !== undefined) {
      const less = this.keyEscaped[d] || this.keyEscape ? compareCodePoints(prev, key) < 0 : prev < key;
      if (!less) {
        this.dead = true;
        return;
      }
    }
    this.heldKeys += key.length - (prev?.length ?? 0);
    if (this.heldKeys > MAX_HELD_KEYS) this.dead = true;
    this.keys[d] = key;
    this.keyEscaped[d] = this.keyEscape;
    this.key = '';
    this.vs = V_COLON;
  }

  /** After `\`: a short escape, or `\u` and four lowercase hex digits. */
  private escape(c: number): void {
    if (c === 0x75) {
      this.vs = V_UNICODE;
      this.unicode = 0;
      this.unicodeDigits = 0;
    } else if (SHORT_ESCAPE.has(c)) {
      this.vs = V_STRING;
    } else {
      this.dead = true;
      return;
    }
    if (this.inKey) {
      this.keyEscape = true;
      this.keyAppend(`\\${String.fromCharCode(c)}`);
    }
  }

  private unicodeDigit(c: number): void {
    const v = HEX[c]!;
    if (v < 0) {
      this.dead = true;
      return;
    }
    this.unicode = this.unicode * 16 + v;
    if (this.inKey) this.keyAppend(String.fromCharCode(c));
    if (++this.unicodeDigits < 4) return;
    const u = this.unicode;
    // A character with a short escape or a literal form has no `\u` form in canonical text.
    if (u === 8 || u === 9 || u === 10 || u === 12 || u === 13 || (u >= 0x20 && u <= 0x7e)) this.dead = true;
    else this.vs = V_STRING;
  }

  private keyAppend(text: string): void {
    const n = this.key.length + text.length;
    if (n > MAX_KEY || this.heldKeys + n > MAX_HELD_KEYS) this.dead = true;
    else this.key += text;
  }
}
