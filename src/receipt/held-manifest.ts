import { createHash } from 'node:crypto';
import type { DigestSet } from '../util/digest-set';
import type { ReadManifest } from './manifest';

/**
 * A manifest's bytes let go during a streamed verify, or never held (read as they streamed: manifest-stream.ts): a
 * manifest is mostly its digests' text (67 bytes a digest, 67 MB for a million), which the digest set holds again in
 * 32. What is not that text is kept, and the bytes are made again from it and the set when something asks for them
 * (the signature, a keyless check's statement). Only a manifest whose array has the form a canonical one gives it
 * (`listed`): its bytes are then exactly the rest with the digests written back, in order, as `"<64 hex>"` joined by
 * commas.
 */
export interface HeldManifest {
  /** The bytes before the digests' `[`. */
  head: Buffer;
  /** The bytes after their `]`. */
  tail: Buffer;
  digests: DigestSet;
  size: number;
  /** The SHA-256 of the bytes let go: what is made again must be them (a fault of ours otherwise, not a verdict). */
  sha256: Buffer;
}

/** Manifests smaller than this are kept as they are (what letting go saves is then not worth two digests). */
export const HOLD_MIN_BYTES = 1024 * 1024;

/** What to keep of a manifest read with its array in canonical form; undefined for one that is not, or is small. */
export function holdManifest(bytes: Buffer, read: ReadManifest, minBytes = HOLD_MIN_BYTES): HeldManifest | undefined {
  const listed = read.listed;
  if (listed === undefined || bytes.length < minBytes) return undefined;
  return {
    head: Buffer.from(bytes.subarray(0, listed.open)),
    tail: Buffer.from(bytes.subarray(listed.end)),
    digests: read.digests,
    size: bytes.length,
    sha256: createHash('sha256').update(bytes).digest(),
  };
}

const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');

/** Each byte's two lowercase hex digits as a 16-bit little-endian value (the first digit in the low byte). */
const HEX_PAIRS = new Uint16Array(256);
for (let b = 0; b < 256; b++) {
  const digit = (d: number): number => '0123456789abcdef'.charCodeAt(d);
  HEX_PAIRS[b] = digit(b >> 4) | (digit(b & 15) << 8);
}

/**
 * Writes the digests as a canonical manifest lists them, `"<64 hex>"` joined by commas (no brackets), into `out` at
 * `at`; returns where they end (67 bytes a digest, less the last comma). Also what a streamed manifest's bytes so far
 * are made again from (manifest-stream.ts). Read from the set's bytes in one view, two bytes' four digits written at
 * once (unaligned, through a DataView): a million made again, their SHA-256 checked, took 230 ms with a view a
 * digest (bytesAt) and a store a digit, 110 ms so.
 */
export function writeListed(digests: DigestSet, out: Buffer, at: number): number {
  const data = digests.view();
  const view = new DataView(out.buffer, out.byteOffset, out.length);
  for (let o = 0; o < data.length;) {
    if (o > 0) out[at++] = 0x2c; // ,
    out[at++] = 0x22; // "
    for (const end = o + 32; o < end; o += 2, at += 4)
      view.setUint32(at, HEX_PAIRS[data[o]!]! | (HEX_PAIRS[data[o + 1]!]! << 16), true);
    out[at++] = 0x22;
  }
  return at;
}

/** The bytes a held manifest was read from, made again. */
export function rebuiltManifest(held: HeldManifest): Buffer {
  // One piece of the whole size: the generator's own buffer, made for this call.
  let whole: Buffer | undefined;
  for (const piece of heldManifestPieces(held, held.size)) whole = piece;
  return whole ?? Buffer.alloc(0);
}

/** What one listed digest takes as text: `"`, 64 digits, `"`, and the comma or bracket after it. */
const ITEM = 67;

/**
 * The bytes a held manifest was read from, made again in pieces of at most `pieceBytes` (each a view of one buffer
 * the next piece overwrites: use it before asking for the next), so a large manifest is never whole in memory again
 * (its signature checked as it streams: ed25519-stream.ts). After the last piece, throws when what was made is not
 * what was read (its size and SHA-256): a fault of stepchain, never a verdict; whoever consumes the pieces decides
 * nothing before the end.
 */
export function* heldManifestPieces(held: HeldManifest, pieceBytes = 1 << 20): Generator<Buffer, void, undefined> {
  const buf = Buffer.allocUnsafe(Math.max(ITEM + 1, Math.min(pieceBytes, held.size)));
  const hash = createHash('sha256');
  let fill = 0;
  let made = 0;
  const flush = function* (): Generator<Buffer, void, undefined> {
    if (fill === 0) return;
    const piece = buf.subarray(0, fill);
    hash.update(piece);
    made += fill;
    fill = 0;
    yield piece;
  };
  const bytes = function* (b: Buffer): Generator<Buffer, void, undefined> {
    for (let at = 0; at < b.length;) {
      if (fill === buf.length) yield* flush();
      const n = b.copy(buf, fill, at);
      fill += n;
      at += n;
    }
  };
  yield* bytes(held.head);
  const n = held.digests.size;
  if (n === 0) yield* bytes(Buffer.from('[]', 'latin1'));
  for (let i = 0; i < n;) {
    // The item whole in this piece (and its `[` before the first): so the piece of a whole-size buffer is the one.
    if (buf.length - fill < ITEM + (i === 0 ? 1 : 0)) yield* flush();
    const end = writeItems(held.digests, i, buf, fill);
    fill += (end - i) * ITEM + (i === 0 ? 1 : 0);
    i = end;
  }
  yield* bytes(held.tail);
  yield* flush();
  if (made !== held.size || !hash.digest().equals(held.sha256))
    throw new Error('stepchain: a manifest made again from its digests is not the one read (a fault of stepchain)');
}

/**
 * Writes the listed digests from the i-th as text into `buf` at `at` (the first with the `[` before it, the last with
 * the `]` after it), as many as fit whole; returns the index of the first not written. A function of its own: a loop
 * in the generator's body ran several times slower.
 */
function writeItems(digests: DigestSet, i: number, buf: Buffer, at: number): number {
  const n = digests.size;
  if (i === 0) buf[at++] = 0x5b; // [
  for (; i < n && buf.length - at >= ITEM; i++) {
    buf[at++] = 0x22; // "
    const d = digests.bytesAt(i);
    for (let k = 0; k < d.length; k++) {
      buf[at++] = HEX_DIGITS[d[k]! >> 4]!;
      buf[at++] = HEX_DIGITS[d[k]! & 15]!;
    }
    buf[at++] = 0x22;
    buf[at++] = i === n - 1 ? 0x5d : 0x2c; // ] or ,
  }
  return i;
}

/** Where a receipt's manifest is: its bytes, or what was kept of them (a receipt's `Members`). */
interface ManifestMembers {
  manifest?: Buffer;
  heldManifest?: HeldManifest;
}

/** The manifest's bytes, as read or made again (undefined: the receipt has none). */
export function manifestBytesOf(members: ManifestMembers): Buffer | undefined {
  if (members.manifest !== undefined) return members.manifest;
  return members.heldManifest === undefined ? undefined : rebuiltManifest(members.heldManifest);
}

/** The receipt has a manifest member (its bytes kept, or let go and held). */
export function hasManifest(members: ManifestMembers): boolean {
  return members.manifest !== undefined || members.heldManifest !== undefined;
}
