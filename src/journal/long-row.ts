// Named, not a namespace import: a bundle makes a copy of a namespace's every export when it starts (a hook call).
import { createHash, hash, type Hash } from 'node:crypto';
import { encodeString, isPythonFloatRepr, LONG_LINE_BYTES } from '../canonical';
import type { FastRow } from './fast-line';
import { HEX, latin1, MAX_TOKEN, NUMBER, NUMERIC, ValueCheck } from './long-value';

/**
 * `fastRow` (src/journal/fast-line.ts) for a line too long to hold: the same check of a canonical row and the same
 * step hash, fed the line's bytes as they stream by, in pieces of any size. It holds the hash state, the previous key
 * of each open object, the current number token, the hex fields and a little state; never the line, never a piece.
 *
 * The line is read against the row's template: fixed text, the four free values (model, prompt, tool_call,
 * tool_result: canonical JSON, checked by src/journal/long-value.ts, equal to text-scan's scanValue with fast-line's
 * ROW_STYLE), the refs, the hex fields, seq and ts. The payload (`{` + input_hash..prompt + `,` +
 * tool_call..tool_result + `}`) is hashed a contiguous run of each piece at a time.
 *
 * One intended difference from fastRow: a key over 64 KiB, or the keys held together over 1 MiB, are not accepted
 * (fastRow takes a key of any length; see long-value.ts), so that what is held stays small whatever the line.
 */
export interface LongRow extends FastRow {
  /** Top-level keys whose value is exactly the JSON string `mark` (when a mark was given), in key order. */
  marked: string[];
}

// What the template is made of.
const LIT = 0; // fixed text
const REFS = 1; // the blob_refs list's items and its `]`
const HEX64 = 2; // 64 characters of a hash field (its quotes are in the fixed text)
const VALUE = 3; // a free value
const SEQ = 4;
const TS = 5;
const HASH_ON = 6; // the payload starts here (no byte)
const HASH_OFF = 7; // the payload's part ends here; `text` is what follows it in the payload
const END = 8; // the line must end here

interface Op {
  kind: number;
  text: string;
  /** The row key whose value this is. */
  key: string;
}
const op = (kind: number, text = '', key = ''): Op => ({ kind, text, key });

/** The canonical row, in its key order (the only order canonical text has). */
const TEMPLATE: readonly Op[] = [
  op(LIT, '{"blob_refs":['),
  op(REFS),
  op(LIT, ','),
  op(HASH_ON),
  op(LIT, '"input_hash":"'),
  op(HEX64, '', 'input_hash'),
  op(LIT, '","model":'),
  op(VALUE, '', 'model'),
  op(LIT, ',"prev_hash":"'),
  op(HEX64, '', 'prev_hash'),
  op(LIT, '","prompt":'),
  op(VALUE, '', 'prompt'),
  op(HASH_OFF, ','),
  op(LIT, ',"seq":'),
  op(SEQ),
  op(LIT, ',"step_hash":"'),
  op(HEX64, '', 'step_hash'),
  op(LIT, '",'),
  op(HASH_ON),
  op(LIT, '"tool_call":'),
  op(VALUE, '', 'tool_call'),
  op(LIT, ',"tool_result":'),
  op(VALUE, '', 'tool_result'),
  op(HASH_OFF, '}'),
  op(LIT, ',"ts":'),
  op(TS),
  op(LIT, '}'),
  op(END),
];

/**
 * fastRow hashes its payload as one string with crypto.hash where Node has it (UTF-8 of each character) and as
 * latin1 bytes otherwise. The payload is ASCII but for prev_hash, which fastRow takes whatever its bytes when they
 * equal `expectedPrev`; so prev_hash is hashed as fastRow hashes that character.
 */
const PREV_ENCODING: BufferEncoding = (hash as unknown) !== undefined ? 'utf8' : 'latin1';

function isHex64(text: string): boolean {
  if (text.length !== 64) return false;
  for (let i = 0; i < 64; i++) if (HEX[text.charCodeAt(i)]! < 0) return false;
  return true;
}

/** fastRow's ts: a number with a fraction or an exponent, as Python's repr writes that float. */
function tsOk(token: string): boolean {
  const m = NUMBER.exec(token);
  return m !== null && (m[1] !== undefined || m[2] !== undefined) && isPythonFloatRepr(token);
}

/** One line's check (a new one for each line): push its bytes, then finish. */
export class LongRowCheck {
  private readonly hash: Hash = createHash('sha256');
  private readonly markText: string | undefined;
  private pushed = 0;
  private dead = false;
  private result: LongRow | undefined;
  /** The template's op being read, and how far into it (a LIT's characters, a REFS item's state). */
  private at = 0;
  private pos = 0;
  /** Text held for the op: a hex field, a ref, seq's or ts's token. */
  private text = '';
  private hashing = false;
  /** Where, in the piece being pushed, the payload's current run started. */
  private hashFrom = 0;
  private readonly fields = new Map<string, string>();
  private readonly markedKeys = new Set<string>();
  private readonly value = new ValueCheck();
  /** The free value's first characters, up to one past the mark's length. */
  private head = '';

  /** `expectedPrev`: as fastRow's; `onRef`: each blob_refs digest (64 lowercase hex) as it is read, in order;
   *  `mark`: a string value (e.g. '<<redacted>>') whose top-level occurrences are reported in `marked`. */
  constructor(
    private readonly expectedPrev: string | undefined,
    private readonly onRef?: (hex: string) => void,
    mark?: string,
  ) {
    // Canonical text has one form for each string, so a value is `mark` exactly when its text is mark's encoding.
    this.markText = mark === undefined ? undefined : encodeString(mark);
    this.hash.update('{');
  }

  /** Bytes pushed so far. */
  get length(): number {
    return this.pushed;
  }

  /** The line's next bytes (any split: a piece may be one byte). Never holds a piece. */
  push(bytes: Uint8Array, from = 0, to = bytes.length): void {
    this.pushed += to - from;
    if (this.dead || this.result !== undefined) return;
    this.hashFrom = from;
    let j = from;
    while (j < to && !this.dead) j = this.step(bytes, j, to);
    if (!this.dead) this.flush(bytes, to);
  }

  /** The line ended (the bytes pushed were the whole line, its newline not included): the row, or undefined when
   *  fastRow would give undefined for the same bytes. */
  finish(): LongRow | undefined {
    if (this.result !== undefined) return this.result;
    if (this.dead || TEMPLATE[this.at]!.kind !== END) return undefined;
    this.dead = true; // the hash is spent: nothing more is read
    const f = this.fields;
    const marked = ['input_hash', 'model', 'prev_hash', 'prompt', 'step_hash', 'tool_call', 'tool_result'].filter((k) =>
      this.markedKeys.has(k),
    );
    this.result = {
      seq: Number(f.get('seq')),
      prev_hash: f.get('prev_hash')!,
      step_hash: f.get('step_hash')!,
      computedHash: this.hash.digest('hex'),
      marked,
    };
    return this.result;
  }

  /** Reads from `j` in the current op; where it stopped. */
  private step(b: Uint8Array, j: number, to: number): number {
    const o = TEMPLATE[this.at]!;
    switch (o.kind) {
      case LIT:
        for (; j < to; j++) {
          if (b[j] !== o.text.charCodeAt(this.pos)) return this.die(to);
          if (++this.pos === o.text.length) return this.next(b, j + 1);
        }
        return j;
      case REFS:
        return this.refs(b, j, to);
      case HEX64:
        return this.hex64(b, j, to, o.key);
      case VALUE: {
        const k = this.value.run(b, j, to);
        if (this.value.dead) return this.die(to);
        if (this.markText !== undefined) this.markHead(b, j, k);
        if (!this.value.done) return k;
        if (this.head === this.markText) this.markedKeys.add(o.key);
        return this.next(b, k);
      }
      case SEQ:
      case TS:
        return this.scalar(b, j, to, o.kind);
      default: // END: a byte past the row's `}`
        return this.die(to);
    }
  }

  /** Moves to the template's next op at `j`, through the ops that read no byte; returns j. */
  private next(b: Uint8Array, j: number): number {
    for (;;) {
      const o = TEMPLATE[++this.at]!;
      if (o.kind === HASH_ON) {
        this.hashing = true;
        this.hashFrom = j;
      } else if (o.kind === HASH_OFF) {
        this.flush(b, j);
        this.hashing = false;
        this.hash.update(o.text);
      } else break;
    }
    this.pos = 0;
    this.text = '';
    const o = TEMPLATE[this.at]!;
    // prev_hash is hashed when it is whole (PREV_ENCODING): the payload's run stops before it.
    if (o.key === 'prev_hash') {
      this.flush(b, j);
      this.hashing = false;
    }
    if (o.kind === VALUE) {
      this.value.start();
      this.head = '';
    }
    return j;
  }

  /** Hashes the payload's run of this piece up to `j`. */
  private flush(b: Uint8Array, j: number): void {
    if (this.hashing && j > this.hashFrom) this.hash.update(b.subarray(this.hashFrom, j));
    this.hashFrom = j;
  }

  private die(to: number): number {
    this.dead = true;
    return to;
  }

  /** blob_refs' items after its `[`: `]`, or `"hex"` items between commas (pos: 0 first, 1 in hex, 2 closing
   *  quote, 3 after an item, 4 after a comma). */
  private refs(b: Uint8Array, j: number, to: number): number {
    while (j < to) {
      const c = b[j++]!;
      if (this.pos === 1) {
        if (HEX[c]! < 0) return this.die(to);
        this.text += String.fromCharCode(c);
        if (this.text.length === 64) this.pos = 2;
      } else if ((this.pos === 0 || this.pos === 3) && c === 0x5d) {
        return this.next(b, j);
      } else if ((this.pos === 0 || this.pos === 4) && c === 0x22) {
        this.pos = 1;
        this.text = '';
      } else if (this.pos === 2 && c === 0x22) {
        this.onRef?.(this.text);
        this.pos = 3;
      } else if (this.pos === 3 && c === 0x2c) {
        this.pos = 4;
      } else return this.die(to);
    }
    return j;
  }

  /** A hash field's 64 characters: lowercase hex, or for prev_hash also exactly `expectedPrev` (as fastRow). */
  private hex64(b: Uint8Array, j: number, to: number, key: string): number {
    const any = key === 'prev_hash';
    while (j < to && this.text.length < 64) {
      const c = b[j++]!;
      if (!any && HEX[c]! < 0) return this.die(to);
      this.text += String.fromCharCode(c);
    }
    if (this.text.length < 64) return j;
    const text = this.text;
    if (any) {
      if (text !== this.expectedPrev && !isHex64(text)) return this.die(to);
      this.hash.update(Buffer.from(text, PREV_ENCODING));
      this.hashing = true;
      this.hashFrom = j;
    }
    this.fields.set(key, text);
    if (`"${text}"` === this.markText) this.markedKeys.add(key);
    return this.next(b, j);
  }

  /** seq (digits: `0` or no leading zero, at most 15) or ts (a float as Python writes it): a token, then judged. */
  private scalar(b: Uint8Array, j: number, to: number, kind: number): number {
    const seq = kind === SEQ;
    let k = j;
    if (seq) while (k < to && b[k]! >= 0x30 && b[k]! <= 0x39) k++;
    else while (k < to && NUMERIC[b[k]!] === 1) k++;
    if (this.text.length + (k - j) > (seq ? 15 : MAX_TOKEN)) return this.die(to);
    this.text += latin1(b, j, k);
    if (k === to) return k;
    const t = this.text;
    if (!(seq ? t.length > 0 && (t.length === 1 || t.charCodeAt(0) !== 0x30) : tsOk(t))) return this.die(to);
    this.fields.set(seq ? 'seq' : 'ts', t);
    return this.next(b, k);
  }

  /** Keeps the free value's first characters, enough to tell whether it is the mark's text. */
  private markHead(b: Uint8Array, j: number, k: number): void {
    const room = this.markText!.length + 1 - this.head.length;
    if (room > 0) this.head += latin1(b, j, Math.min(k, j + room));
  }
}

/**
 * Whether a receipt's reader refuses `line` (its bytes, no newline) for its length: a line longer than `limit` is
 * taken only as a row LongRowCheck takes (not a canonical one with a key over 64 KiB, say). What writes a receipt's
 * rows checks each long one with this, so that it never writes a receipt its own reader refuses.
 */
export function refusedAsLong(line: Uint8Array, limit = LONG_LINE_BYTES): boolean {
  if (line.length <= limit) return false;
  // No expected link: a published row's prev_hash is hex, and a receipt's walk takes only a hex one (fastRow's rule).
  const check = new LongRowCheck(undefined);
  check.push(line);
  return check.finish() === undefined;
}
