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

/** fast-line's NUMBER, whole (ts's check): a token of number characters not all one number fails fastRow's rest. */
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
const SHORT_ESCAPE = new Uint8Array(256);
for (const c of '"\\bfnrt') SHORT_ESCAPE[c.charCodeAt(0)] = 1;

/**
 * fast-line's NUMBER as a byte automaton, so that an integer is judged without being made into text (arrays of small
 * integers: 48 MiB/s with a regex and a string a number, 150 with this). Which part of the token a byte is in:
 */
const N_START = 0;
const N_SIGN = 1; // `-`
const N_ZERO = 2; // `0`: an integer, or a float's first digit
const N_MINUS_ZERO = 3; // `-0`: not an integer Python writes, but `-0.5` goes on from it
const N_INT = 4;
const N_DOT = 5;
const N_FRACTION = 6;
const N_E = 7;
const N_EXPONENT_SIGN = 8;
const N_EXPONENT = 9;
const N_BAD = 10; // no longer a number's start: the token fails whatever follows
/** The automaton's next part, at `(part << 8) | byte`. */
const NEXT = new Uint8Array(11 << 8).fill(N_BAD);
function edges(from: number[], bytes: string, to: number): void {
  for (const f of from) for (const c of bytes) NEXT[(f << 8) | c.charCodeAt(0)] = to;
}
edges([N_START], '-', N_SIGN);
edges([N_START], '0', N_ZERO);
edges([N_SIGN], '0', N_MINUS_ZERO);
edges([N_START, N_SIGN, N_INT], '123456789', N_INT);
edges([N_INT], '0', N_INT);
edges([N_ZERO, N_MINUS_ZERO, N_INT], '.', N_DOT);
edges([N_DOT, N_FRACTION], '0123456789', N_FRACTION);
edges([N_ZERO, N_MINUS_ZERO, N_INT, N_FRACTION], 'eE', N_E);
edges([N_E], '+-', N_EXPONENT_SIGN);
edges([N_E, N_EXPONENT_SIGN, N_EXPONENT], '0123456789', N_EXPONENT);

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

/** The length of the canonical escape at `b[k]` (a `\`): 2 or 6; 0 when the piece ends first; -1 when not canonical. */
function escapeAt(b: Uint8Array, k: number, to: number): number {
  if (k + 1 >= to) return 0;
  const d = b[k + 1]!;
  if (SHORT_ESCAPE[d] === 1) return 2;
  if (d !== 0x75) return -1;
  if (k + 6 > to) return 0;
  const u = (HEX[b[k + 2]!]! << 12) | (HEX[b[k + 3]!]! << 8) | (HEX[b[k + 4]!]! << 4) | HEX[b[k + 5]!]!;
  // A digit that is not lowercase hex (-1) makes u negative. A character with a literal or short form has no \u form.
  return u < 0 || u === 8 || u === 9 || u === 10 || u === 12 || u === 13 || (u >= 0x20 && u <= 0x7e) ? -1 : 6;
}

/** A canonical value's check, fed its bytes a run at a time; `start` readies it for the next value. */
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
  /** The number token: its automaton part, its length, and its text from the pieces before this one. */
  private numberPart = N_START;
  private tokenLength = 0;
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

  /** The hot loop: a string's plain bytes and the escapes whole in this piece, then what ends the run. */
  private stringRun(b: Uint8Array, j: number, to: number): number {
    let k = j;
    while (k < to && PLAIN[b[k]!] === 1) k++;
    if (k < to && b[k] === 0x5c) k = this.escapesRun(b, k, to);
    if (this.inKey && k > j) this.keyChars(b, j, k);
    if (k === to || this.dead) return k;
    const c = b[k]!;
    if (c === 0x22) this.stringEnd();
    else if (c === 0x5c) this.vs = V_ESCAPE;
    else this.dead = true; // a control, a byte past ASCII
    return k + 1;
  }

  /**
   * From an escape at k: escapes and plain bytes while the escapes are whole in this piece. Text past ASCII is all
   * `\u` escapes: read here rather than a state a byte (CJK text: 138 -> 630 MiB/s here). Where it stopped.
   */
  private escapesRun(b: Uint8Array, k: number, to: number): number {
    if (this.inKey) this.keyEscape = true;
    while (k < to && b[k] === 0x5c) {
      const n = escapeAt(b, k, to);
      if (n === 0) return k; // cut by the piece's end: the state machine reads it
      if (n < 0) {
        this.dead = true;
        return to;
      }
      k += n;
      while (k < to && PLAIN[b[k]!] === 1) k++;
    }
    return k;
  }

  /** A number token's characters; judged whole when another byte comes (which is not taken). */
  private numberRun(b: Uint8Array, j: number, to: number): number {
    let k = j;
    let part = this.numberPart;
    for (; k < to; k++) {
      const c = b[k]!;
      if (NUMERIC[c] !== 1) break;
      part = NEXT[(part << 8) | c]!;
    }
    this.numberPart = part;
    this.tokenLength += k - j;
    if (k === to) {
      if (this.tokenLength > MAX_TOKEN) this.dead = true;
      else this.token += latin1(b, j, k); // a float's repr is checked on its text
      return k;
    }
    if (part === N_SIGN && b[k] === 0x49) {
      // `-Infinity`: scanValue tries it before a number.
      this.vs = V_WORD;
      this.word = '-Infinity';
      this.wordAt = 2;
      return k + 1;
    }
    if (!this.numberOk(part, b, j, k)) {
      this.dead = true;
      return to;
    }
    this.valueEnd();
    return k;
  }

  /** scanNumber's verdict on the token that ends at `b[k]` (its last run from j). */
  private numberOk(part: number, b: Uint8Array, j: number, k: number): boolean {
    if (part === N_ZERO || part === N_INT) return this.tokenLength <= MAX_INT_CHARS;
    if (part !== N_FRACTION && part !== N_EXPONENT) return false; // `-0` too: Python writes no such integer
    return this.tokenLength <= MAX_TOKEN && isPythonFloatRepr(this.token + latin1(b, j, k));
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
        this.numberPart = NEXT[(N_START << 8) | c]!;
        this.tokenLength = 1;
        this.token = String.fromCharCode(c); // one character: V8 keeps these, none is made
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
    } else if (SHORT_ESCAPE[c] === 1) {
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
