/**
 * zlib streams (RFC 1950 around RFC 1951) for git's small objects, in-process: an agent's hook reads HEAD's commit
 * (loose, or from a pack after `git gc`) and writes a snapshot's trees and commit on every tool call, and loading
 * node:zlib and its first calls cost the hook ~1.8 ms of its main thread, these ~0.4 ms (measured in the hook, in V8's
 * interpreter: a large object is slower here than in zlib, ~5 ms for a first 64 KiB, ~0.25 ms warm). Written from
 * the RFCs; node:zlib stays for everything large (receipts, archives, the proxy, a loose object past 32 KiB:
 * ./loose.ts).
 *
 * `inflate` accepts exactly what zlib's inflate (node's inflateSync) accepts, with the same output
 * (test/git.zlib-small.test.ts checks it against node's): the same header rules (method 8, window <= 32 KiB, the check bits, no preset
 * dictionary), the same Huffman code rules (an over-subscribed code is refused; an incomplete one only as zlib allows
 * it: a literal/length or distance code of a single one-bit code; the code-length code must be complete), no
 * distance before the output's start, and the Adler-32. It refuses past `maxLength` bytes of output and never
 * allocates more. Bytes after the stream's end are ignored, as zlib does; the caller is told where the stream ended
 * (`end`), since git refuses them in a loose object (a pack's next object follows a packed one).
 */

/** A zlib stream that is malformed, truncated, or that holds more than the caller allows. */
export class ZlibError extends Error {}

export interface Inflated {
  data: Buffer;
  /** The offset in the input just past the stream (its Adler-32). */
  end: number;
}

// RFC 1951 3.2.5: the base and extra bits of lengths (symbols 257-285) and distances (symbols 0-29).
const LEN_BASE = [
  3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258,
];
const LEN_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_BASE = [
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
  8193, 12289, 16385, 24577,
];
const DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
/** RFC 1951 3.2.7: the order in which the code-length code's lengths are sent. */
const CL_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

/**
 * A canonical Huffman code (RFC 1951 3.2.2): how many codes of each length, and the symbols in code order (by
 * length, then value), which is all decoding needs (`count`, `symbol`); plus, to decode the usual short codes in one
 * step, a table indexed by the next `bits` (<= FAST_BITS) input bits as they arrive (LSB first): symbol << 4 | code
 * length, 0 where no code of at most `bits` bits starts (a longer code, or an incomplete code's gap: see `slow`).
 */
interface Code {
  count: Uint16Array;
  symbol: Uint16Array;
  table: Uint16Array;
  bits: number;
}

/**
 * The fast table's width. A wider one is filled at a cost (2^bits entries per block) that small objects, decoded
 * once per process in V8's interpreter, do not win back; 9 covers the fixed code whole.
 */
const FAST_BITS = 9;

/** Which code a table is for: zlib's inflate_table allows an incomplete code only for LENS and DISTS. */
type Kind = 'code-lengths' | 'lit-len' | 'dist';

function buildCode(lengths: ArrayLike<number>, n: number, kind: Kind): Code {
  const count = new Uint16Array(16);
  for (let s = 0; s < n; s++) count[lengths[s]!]!++;
  count[0] = 0;
  let max = 15;
  while (max > 0 && count[max] === 0) max--;
  let left = 1;
  for (let len = 1; len <= 15; len++) {
    left = (left << 1) - count[len]!;
    if (left < 0) throw new ZlibError('invalid code lengths: over-subscribed');
  }
  // zlib (inftrees.c): incomplete only as a single one-bit literal/length or distance code, or no code at all (a
  // table that fails when used). No code-length code at all zlib accepts too, but then reads every length as 0 and
  // fails on the missing end-of-block: refused here at once.
  if (left > 0 && (kind === 'code-lengths' || max > 1)) throw new ZlibError('invalid code lengths: incomplete');
  const offs = new Uint16Array(16);
  for (let len = 1; len < 15; len++) offs[len + 1] = offs[len]! + count[len]!;
  const symbol = new Uint16Array(n);
  for (let s = 0; s < n; s++) if (lengths[s] !== 0) symbol[offs[lengths[s]!]!++] = s;
  const bits = Math.min(max, FAST_BITS);
  const table = new Uint16Array(1 << bits);
  // Codes in order, each as its bits arrive: the reversed code, incremented as zlib's inflate_table does.
  const codes = offs[15]!; // (each length's offset has moved to the next length's start)
  for (let i = 0, huff = 0; i < codes; i++) {
    const s = symbol[i]!;
    const len = lengths[s]!;
    if (len > bits) break;
    for (let at = huff; at < table.length; at += 1 << len) table[at] = (s << 4) | len;
    let incr = 1 << (len - 1);
    while (huff & incr) incr >>= 1;
    huff = incr === 0 ? 0 : (huff & (incr - 1)) + incr;
  }
  return { count, symbol, table, bits };
}

let fixed: { lit: Code; dist: Code } | undefined;

/** RFC 1951 3.2.6, built once per process; symbols 286-287 and distances 30-31 are in the code but invalid. */
function fixedCodes(): { lit: Code; dist: Code } {
  if (fixed === undefined) {
    const l = new Uint8Array(288);
    l.fill(8, 0, 144).fill(9, 144, 256).fill(7, 256, 280).fill(8, 280, 288);
    // Distances 30-31 complete the five-bit code: decoded, then refused as zlib does.
    fixed = { lit: buildCode(l, 288, 'lit-len'), dist: buildCode(new Uint8Array(32).fill(5), 32, 'dist') };
  }
  return fixed;
}

class Inflater {
  private pos = 0;
  private bitBuf = 0;
  private bitCount = 0;
  private out: Buffer;
  private len = 0;

  constructor(
    private readonly src: Uint8Array,
    private readonly max: number,
  ) {
    this.out = Buffer.allocUnsafe(Math.min(max, Math.max(1024, src.length * 4)));
  }

  /** `n` (<= 16) more bits, LSB first; throws at the input's end. */
  private bits(n: number): number {
    while (this.bitCount < n) {
      if (this.pos >= this.src.length) throw new ZlibError('unexpected end of file');
      this.bitBuf |= this.src[this.pos++]! << this.bitCount;
      this.bitCount += 8;
    }
    const v = this.bitBuf & ((1 << n) - 1);
    this.bitBuf >>>= n;
    this.bitCount -= n;
    return v;
  }

  /** The next symbol of `code`: from the fast table, else walking the canonical code a bit at a time. */
  private symbol(code: Code): number {
    while (this.bitCount < code.bits && this.pos < this.src.length) {
      this.bitBuf |= this.src[this.pos++]! << this.bitCount;
      this.bitCount += 8;
    }
    const entry = code.table[this.bitBuf & ((1 << code.bits) - 1)]!;
    const len = entry & 15;
    if (len === 0) return this.slow(code);
    if (len > this.bitCount) throw new ZlibError('unexpected end of file');
    this.bitBuf >>>= len;
    this.bitCount -= len;
    return entry >> 4;
  }

  /** A code longer than the fast table, or none (an incomplete code's gap): as RFC 1951's canonical codes decode. */
  private slow(code: Code): number {
    while (this.bitCount < 15 && this.pos < this.src.length) {
      this.bitBuf |= this.src[this.pos++]! << this.bitCount;
      this.bitCount += 8;
    }
    // `c` is the bits read so far (MSB first), `first` the first code of this length, `index` its symbol's.
    for (let len = 1, c = 0, first = 0, index = 0; len <= 15; len++) {
      if (len > this.bitCount) throw new ZlibError('unexpected end of file');
      c |= (this.bitBuf >>> (len - 1)) & 1;
      const n = code.count[len]!;
      if (c - first < n) {
        this.bitBuf >>>= len;
        this.bitCount -= len;
        return code.symbol[index + c - first]!;
      }
      index += n;
      first = (first + n) << 1;
      c <<= 1;
    }
    throw new ZlibError('invalid code');
  }

  /** Drops the bits left of the current byte and hands back whole bytes read ahead (symbol() looks ahead). */
  private alignToByte(): void {
    this.pos -= this.bitCount >> 3;
    this.bitBuf = 0;
    this.bitCount = 0;
  }

  /** Room for `n` more output bytes: grows up to `max`, never past it. */
  private room(n: number): void {
    const need = this.len + n;
    if (need > this.max) throw new ZlibError(`more than ${this.max} bytes`);
    if (need <= this.out.length) return;
    const grown = Buffer.allocUnsafe(Math.min(this.max, Math.max(need, this.out.length * 2)));
    grown.set(this.out.subarray(0, this.len));
    this.out = grown;
  }

  private stored(): void {
    this.alignToByte();
    const s = this.src;
    const p = this.pos;
    if (p + 4 > s.length) throw new ZlibError('unexpected end of file');
    const n = s[p]! | (s[p + 1]! << 8);
    if ((s[p + 2]! | (s[p + 3]! << 8)) !== (~n & 0xffff)) throw new ZlibError('invalid stored block lengths');
    if (p + 4 + n > s.length) throw new ZlibError('unexpected end of file');
    this.room(n);
    this.out.set(s.subarray(p + 4, p + 4 + n), this.len);
    this.len += n;
    this.pos = p + 4 + n;
  }

  /** A Huffman-coded block's symbols up to its end-of-block. */
  /**
   * Decodes literals up to the next other symbol (or one the fast table does not hold, or a full buffer), which it
   * then decodes as symbol() does: most of a block's symbols are literals, and V8 runs this once a process, in its
   * interpreter, where a local costs less than a field (first call in a process, measured: a 3 KB tree ~1.6 -> ~1.0
   * ms, a 180-byte commit ~0.37 -> ~0.30 ms).
   */
  private literals(lit: Code): number {
    const src = this.src;
    const out = this.out;
    const { table, bits } = lit;
    const mask = (1 << bits) - 1;
    let buf = this.bitBuf;
    let cnt = this.bitCount;
    let pos = this.pos;
    let n = this.len;
    for (;;) {
      while (cnt < bits && pos < src.length) {
        buf |= src[pos++]! << cnt;
        cnt += 8;
      }
      const entry = table[buf & mask]!;
      const len = entry & 15;
      if (len === 0 || len > cnt || entry >= 256 << 4 || n === out.length) break;
      buf >>>= len;
      cnt -= len;
      out[n++] = entry >> 4;
    }
    this.bitBuf = buf;
    this.bitCount = cnt;
    this.pos = pos;
    this.len = n;
    return this.symbol(lit);
  }

  private codes(lit: Code, dist: Code): void {
    for (;;) {
      const sym = this.literals(lit);
      if (sym < 256) {
        if (this.len === this.out.length) this.room(1); // out.length <= max: past max, room() throws
        this.out[this.len++] = sym;
        continue;
      }
      if (sym === 256) return;
      if (sym > 285) throw new ZlibError('invalid literal/length code');
      const length = LEN_BASE[sym - 257]! + this.bits(LEN_EXTRA[sym - 257]!);
      const d = this.symbol(dist);
      if (d > 29) throw new ZlibError('invalid distance code');
      const distance = DIST_BASE[d]! + this.bits(DIST_EXTRA[d]!);
      if (distance > this.len) throw new ZlibError('invalid distance too far back');
      this.room(length);
      const o = this.out;
      let at = this.len;
      const end = at + length;
      if (distance >= length) o.copyWithin(at, at - distance, end - distance);
      else for (; at < end; at++) o[at] = o[at - distance]!;
      this.len = end;
    }
  }

  /** RFC 1951 3.2.7: a dynamic block's code lengths, then its codes. */
  private dynamic(): void {
    const nlen = this.bits(5) + 257;
    const ndist = this.bits(5) + 1;
    const ncode = this.bits(4) + 4;
    // zlib refuses the counts the format can say but no code uses (288 and 289 lengths, 31 and 32 distances).
    if (nlen > 286 || ndist > 30) throw new ZlibError('too many length or distance symbols');
    const cl = new Uint8Array(19);
    for (let i = 0; i < ncode; i++) cl[CL_ORDER[i]!] = this.bits(3);
    const clCode = buildCode(cl, 19, 'code-lengths');
    const lengths = new Uint8Array(nlen + ndist);
    for (let i = 0; i < nlen + ndist;) {
      const sym = this.symbol(clCode);
      if (sym < 16) {
        lengths[i++] = sym;
        continue;
      }
      let value = 0;
      let repeat: number;
      if (sym === 16) {
        if (i === 0) throw new ZlibError('invalid bit length repeat');
        value = lengths[i - 1]!;
        repeat = 3 + this.bits(2);
      } else repeat = sym === 17 ? 3 + this.bits(3) : 11 + this.bits(7);
      if (i + repeat > nlen + ndist) throw new ZlibError('invalid bit length repeat');
      lengths.fill(value, i, i + repeat);
      i += repeat;
    }
    if (lengths[256] === 0) throw new ZlibError('invalid code -- missing end-of-block');
    const lit = buildCode(lengths, nlen, 'lit-len');
    const dist = buildCode(lengths.subarray(nlen), ndist, 'dist');
    this.codes(lit, dist);
  }

  run(): Inflated {
    const s = this.src;
    if (s.length < 2) throw new ZlibError('unexpected end of file');
    const cmf = s[0]!;
    const flg = s[1]!;
    if (((cmf << 8) | flg) % 31 !== 0) throw new ZlibError('incorrect header check');
    if ((cmf & 15) !== 8) throw new ZlibError('unknown compression method');
    if (cmf >> 4 > 7) throw new ZlibError('invalid window size');
    if (flg & 0x20) throw new ZlibError('missing dictionary');
    this.pos = 2;
    for (let last = 0; !last;) {
      last = this.bits(1);
      const type = this.bits(2);
      if (type === 0) this.stored();
      else if (type === 1) this.codes(fixedCodes().lit, fixedCodes().dist);
      else if (type === 2) this.dynamic();
      else throw new ZlibError('invalid block type');
    }
    this.alignToByte();
    const p = this.pos;
    if (p + 4 > s.length) throw new ZlibError('unexpected end of file');
    const want = ((s[p]! << 24) | (s[p + 1]! << 16) | (s[p + 2]! << 8) | s[p + 3]!) >>> 0;
    if (adler32(this.out, this.len) !== want) throw new ZlibError('incorrect data check');
    return { data: this.out.subarray(0, this.len), end: p + 4 };
  }
}

/**
 * RFC 1950's Adler-32 of `b[0..n)`. The sums are reduced every 3800 bytes: the most that keeps them under 2^31
 * (3800 * 65520 + 255 * 3800 * 3801 / 2), V8's small integers, where zlib's 5552 would make them doubles.
 */
export function adler32(b: Uint8Array, n: number = b.length): number {
  let a = 1;
  let c = 0;
  for (let i = 0; i < n;) {
    const stop = Math.min(n, i + 3800);
    for (; i < stop; i++) {
      a += b[i]!;
      c += a;
    }
    a %= 65521;
    c %= 65521;
  }
  return ((c << 16) | a) >>> 0;
}

/**
 * The data of the zlib stream at the start of `input` and where the stream ends; throws a ZlibError when the
 * stream is malformed or truncated, or holds more than `maxLength` bytes (no more than that is ever allocated).
 */
export function inflate(input: Uint8Array, maxLength: number): Inflated {
  return new Inflater(input, maxLength).run();
}

/**
 * `data` as a zlib stream of stored blocks (zlib's level 0: what git writes with core.looseCompression=0, and
 * reads like any other). Stored, not compressed: a snapshot's trees and commit are a few KB, writing them must not
 * load a compressor on the agent's path, and `git gc` compresses them when it packs them.
 */
export function deflateStored(data: Uint8Array): Buffer {
  const blocks = Math.max(1, Math.ceil(data.length / 65535));
  const out = Buffer.allocUnsafe(2 + blocks * 5 + data.length + 4);
  out[0] = 0x78; // method 8, 32 KiB window
  out[1] = 0x01; // no dictionary, "fastest" level; (0x78 << 8 | 0x01) % 31 === 0
  let o = 2;
  for (let i = 0, b = 0; b < blocks; b++) {
    const n = Math.min(65535, data.length - i);
    // BFINAL, BTYPE 00, LEN and NLEN little-endian. (Bytes stored one by one: Buffer's write methods are JS
    // functions this process would compile for these few bytes.)
    out[o] = b === blocks - 1 ? 1 : 0;
    out[o + 1] = n & 0xff;
    out[o + 2] = n >> 8;
    out[o + 3] = ~n & 0xff;
    out[o + 4] = (~n >> 8) & 0xff;
    out.set(data.subarray(i, i + n), o + 5);
    o += 5 + n;
    i += n;
  }
  const sum = adler32(data);
  out[o] = sum >>> 24;
  out[o + 1] = (sum >>> 16) & 0xff;
  out[o + 2] = (sum >>> 8) & 0xff;
  out[o + 3] = sum & 0xff;
  return out;
}
