/**
 * Hand-made deflate streams for the tests of src/git/zlib-small.ts: a stream written bit by bit (fields LSB first,
 * Huffman codes MSB first, RFC 1951 3.1.1) and the canonical codes of a set of lengths (RFC 1951 3.2.2), so a test
 * can break one rule of the format at a time.
 */
export class Bits {
  private bytes: number[] = [];
  private acc = 0;
  private n = 0;

  put(value: number, count: number): this {
    for (let i = 0; i < count; i++) this.bit((value >> i) & 1);
    return this;
  }

  code(code: number, len: number): this {
    for (let i = len - 1; i >= 0; i--) this.bit((code >> i) & 1);
    return this;
  }

  private bit(b: number): void {
    this.acc |= b << this.n++;
    if (this.n === 8) {
      this.bytes.push(this.acc);
      this.acc = 0;
      this.n = 0;
    }
  }

  /** The zlib stream: header, these bits (padded), the Adler-32 of `data` (what they should inflate to). */
  zlib(data: Buffer = Buffer.alloc(0)): Buffer {
    const tail = this.n > 0 ? [this.acc] : [];
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(adler32(data));
    return Buffer.concat([Buffer.from([0x78, 0x01, ...this.bytes, ...tail]), sum]);
  }
}

/** Canonical codes for `lengths` (RFC 1951 3.2.2), over-subscribed or not; -1 for a length of 0. */
export function canonical(lengths: number[]): number[] {
  const count = new Array<number>(16).fill(0);
  for (const l of lengths) if (l) count[l]!++;
  const next = new Array<number>(16).fill(0);
  for (let len = 1, code = 0; len < 16; len++) next[len] = code = (code + count[len - 1]!) << 1;
  return lengths.map((l) => (l ? next[l]!++ : -1));
}

/** RFC 1950's Adler-32, written plainly here (not the one under test). */
function adler32(b: Uint8Array): number {
  let a = 1;
  let s = 0;
  for (const x of b) {
    a = (a + x) % 65521;
    s = (s + a) % 65521;
  }
  return ((s << 16) | a) >>> 0;
}
