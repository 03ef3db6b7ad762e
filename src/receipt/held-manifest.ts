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

/** Each byte's two lowercase hex digits as a 16-bit little-endian value (the first digit in the low byte). */
const HEX_PAIRS = new Uint16Array(256);
for (let b = 0; b < 256; b++) {
  const digit = (d: number): number => '0123456789abcdef'.charCodeAt(d);
  HEX_PAIRS[b] = digit(b >> 4) | (digit(b & 15) << 8);
}

/**
 * Writes the digests as a canonical manifest lists them, `"<64 hex>"` joined by commas (no brackets), into `out` at
 * `at`; returns where they end (67 bytes a digest, less the last comma). `from`, `to`: only the digests of that
 * range, each after its comma but the list's first (what one piece of heldManifestPieces holds). Also what a streamed manifest's bytes so far
 * are made again from (manifest-stream.ts). Read from the set's bytes in one view, two bytes' four digits written at
 * once (unaligned, through a DataView): a million made again, their SHA-256 checked, took 230 ms with a view a
 * digest (bytesAt) and a store a digit, 110 ms so.
 */
export function writeListed(digests: DigestSet, out: Buffer, at: number, from = 0, to = digests.size): number {
  const data = digests.view();
  const view = new DataView(out.buffer, out.byteOffset, out.length);
  for (let o = from * 32, stop = to * 32; o < stop;) {
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
  yield* bytes(OPEN);
  const n = held.digests.size;
  for (let i = 0; i < n;) {
    // Whole items only (the first is 66 bytes, the rest 67 with their comma): the piece of a whole-size buffer is then
    // the one, and no item is cut.
    let k = itemsThatFit(i, buf.length - fill);
    if (k === 0) {
      yield* flush();
      k = itemsThatFit(i, buf.length);
    }
    const end = Math.min(n, i + k);
    fill = writeListed(held.digests, buf, fill, i, end);
    i = end;
  }
  yield* bytes(CLOSE);
  yield* bytes(held.tail);
  yield* flush();
  if (made !== held.size || !hash.digest().equals(held.sha256))
    throw new Error('stepchain: a manifest made again from its digests is not the one read (a fault of stepchain)');
}

const OPEN = Buffer.from('[', 'latin1');
const CLOSE = Buffer.from(']', 'latin1');

/** How many whole listed digests, from the i-th, fit in `room` bytes (the first is 66 bytes, the rest 67). */
function itemsThatFit(i: number, room: number): number {
  if (i > 0) return Math.floor(room / ITEM);
  return room < ITEM - 1 ? 0 : 1 + Math.floor((room - ITEM + 1) / ITEM);
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
