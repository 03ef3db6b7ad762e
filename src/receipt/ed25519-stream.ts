import { createHash } from 'node:crypto';
import { Point } from '@noble/ed25519';

/**
 * Ed25519 verification of a message that arrives in pieces (a large receipt's manifest, made again from what was
 * kept of it: held-manifest.ts), so no buffer of the whole message is made. node:crypto verifies only a message held
 * whole; the message enters Ed25519 only through k = SHA-512(R || A || M), which is hashed here as the pieces come,
 * and the group equation is @noble/ed25519's point arithmetic.
 *
 * The rule is OpenSSL's (what node:crypto applies to the same bytes, and every other path of stepchain): S must be
 * below L; the point [S]B - [k]A is encoded and compared byte for byte with R (no cofactor multiplied in, no decoding
 * of R: an R that is not the canonical encoding of that point never matches). test/receipt.ed25519-stream.test.ts
 * compares the two on valid, altered and crafted signatures (small-order R, torsion added to R or A, S + L).
 */

/** The order of the prime subgroup (RFC 8032's L). */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;

/** An integer from little-endian bytes. */
function littleEndian(bytes: Uint8Array): bigint {
  let n = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i]!);
  return n;
}

/**
 * Whether `signature` (64 bytes) is a signature of the pieces' concatenation under the raw public key `publicKey`
 * (32 bytes). Undefined when the key is not a canonical encoding of a curve point this check decodes (keys.ts loads
 * no other; a caller then asks node:crypto with the message whole). Reads the pieces once, in order.
 */
export function verifyEd25519Pieces(
  pieces: Iterable<Uint8Array>,
  signature: Uint8Array,
  publicKey: Uint8Array,
): boolean | undefined {
  if (publicKey.length !== 32) return undefined;
  let a: Point;
  try {
    a = Point.fromBytes(publicKey, false);
  } catch {
    return undefined;
  }
  // The message is read (and whatever reads it checked) even when the signature is malformed.
  const hash = createHash('sha512').update(signature.subarray(0, 32)).update(publicKey);
  for (const piece of pieces) hash.update(piece);
  if (signature.length !== 64) return false;
  const s = littleEndian(signature.subarray(32));
  if (s >= L) return false;
  const k = littleEndian(hash.digest()) % L;
  const r = Point.BASE.multiply(s, false).subtract(a.multiply(k, false)).toBytes();
  return Buffer.from(r).equals(signature.subarray(0, 32));
}
