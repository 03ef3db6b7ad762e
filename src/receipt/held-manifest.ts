import { createHash } from 'node:crypto';
import type { DigestSet } from '../util/digest-set';
import type { ReadManifest } from './manifest';

/**
 * A manifest's bytes let go during a streamed verify: a manifest is mostly its digests' text (67 bytes a digest,
 * 67 MB for a million), which the digest set holds again in 32. What is not that text is kept, and the bytes are
 * made again from it and the set when something asks for them (the signature when it comes after the journal, a
 * keyless check's statement). Only a manifest whose array has the form a canonical one gives it (`listed`): its
 * bytes are then exactly the rest with the digests written back, in order, as `"<64 hex>"` joined by commas.
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

/** The bytes a held manifest was read from, made again. */
export function rebuiltManifest(held: HeldManifest): Buffer {
  const out = Buffer.allocUnsafe(held.size);
  let at = held.head.copy(out, 0);
  out[at++] = 0x5b; // [
  const n = held.digests.size;
  for (let i = 0; i < n; i++) {
    if (i > 0) out[at++] = 0x2c; // ,
    out[at++] = 0x22; // "
    const d = held.digests.bytesAt(i);
    for (let k = 0; k < d.length; k++) {
      out[at++] = HEX_DIGITS[d[k]! >> 4]!;
      out[at++] = HEX_DIGITS[d[k]! & 15]!;
    }
    out[at++] = 0x22;
  }
  out[at++] = 0x5d; // ]
  at += held.tail.copy(out, at);
  if (at !== held.size || !createHash('sha256').update(out).digest().equals(held.sha256))
    throw new Error('stepchain: a manifest made again from its digests is not the one read (a fault of stepchain)');
  return out;
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
