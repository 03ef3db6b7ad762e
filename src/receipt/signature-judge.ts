import { verifyEd25519Pieces } from './ed25519-stream';
import { seedsPublicKey, verifyBytes, type PublicKey } from './keys';
import { hasManifest, heldManifestPieces, manifestBytesOf } from './held-manifest';
import { faultOf, SIGNATURE_MEMBER, type Members, type ReceiptFault } from './members';
import { ReceiptFormatError } from './tar';

/**
 * `manifest.sig`: standard base64 (with padding, optionally one trailing
 * newline) of exactly 64 bytes. Throws ReceiptFormatError otherwise.
 */
export function decodeSignature(bytes: Buffer): Buffer {
  let text = bytes.toString('latin1');
  if (text.endsWith('\n')) text = text.slice(0, -1);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0 || text.length === 0) {
    throw new ReceiptFormatError('signature_not_base64', 'manifest.sig is not base64', SIGNATURE_MEMBER);
  }
  const sig = Buffer.from(text, 'base64');
  if (sig.toString('base64') !== text)
    throw new ReceiptFormatError('signature_not_base64', 'manifest.sig is not canonical base64', SIGNATURE_MEMBER);
  if (sig.length !== 64) {
    throw new ReceiptFormatError(
      'signature_wrong_length',
      `manifest.sig decodes to ${sig.length} bytes; an Ed25519 signature is 64`,
      SIGNATURE_MEMBER,
    );
  }
  return sig;
}

/** What the signature check found: its faults, and the verdict's `signature_ok` and `key_id`. */
export interface SignatureOutcome {
  errors: ReceiptFault[];
  ok: boolean | null;
  keyId: string | null;
}

/**
 * The signature over the manifest under the trusted keys (a signed receipt with no key to check it fails). Judged
 * as soon as a streamed verify has both members (the manifest's bytes can then be let go), or with the verdict.
 */
export function judgeSignature(members: Members, keys: readonly PublicKey[]): SignatureOutcome {
  const out: SignatureOutcome = { errors: [], ok: null, keyId: null };
  const errors = out.errors;
  if (members.signature === undefined) {
    if (keys.length > 0)
      errors.push({
        kind: 'unsigned',
        message: 'a trusted key was given but the receipt is not signed (no manifest.sig)',
        member: SIGNATURE_MEMBER,
      });
    return out;
  }
  let sig: Buffer | undefined;
  try {
    sig = decodeSignature(members.signature);
  } catch (e) {
    if (!(e instanceof ReceiptFormatError)) throw e;
    errors.push(faultOf(e));
  }
  if (keys.length === 0) {
    errors.push({
      kind: 'no_trusted_key',
      message: 'the receipt is signed but no public key was given to check it',
      member: SIGNATURE_MEMBER,
    });
  } else if (sig !== undefined && hasManifest(members)) {
    const verifies = manifestVerifier(members, sig);
    const good = keys.find(verifies);
    out.ok = good !== undefined;
    out.keyId = good?.keyId ?? null;
    if (good === undefined) {
      const seed = keys.find((k) => {
        const seeds = seedsPublicKey(k);
        return seeds !== undefined && verifies(seeds);
      });
      errors.push({
        kind: 'signature_invalid',
        message:
          seed === undefined
            ? `the signature does not verify under any trusted key (${keys.map((k) => k.keyId).join(', ')})`
            : `the signature does not verify under any trusted key: ${seed.source} is the signer's PRIVATE seed, not its public key (give the public key; treat that file as leaked)`,
        member: SIGNATURE_MEMBER,
      });
    }
  } else if (sig !== undefined) {
    out.ok = false;
  }
  return out;
}

/**
 * Whether `sig` verifies over the receipt's manifest under a key: over its bytes when they are kept, else over the
 * bytes made again as they stream (a large manifest let go: held-manifest.ts), never whole in memory again; a key
 * the streamed check does not decode is checked over the bytes made whole (keys.ts loads no such key).
 */
function manifestVerifier(members: Members, sig: Buffer): (key: PublicKey) => boolean {
  const held = members.heldManifest;
  if (members.manifest !== undefined || held === undefined) {
    const manifest = manifestBytesOf(members)!;
    return (key) => verifyBytes(manifest, sig, key);
  }
  return (key) =>
    verifyEd25519Pieces(heldManifestPieces(held), sig, key.raw) ?? verifyBytes(manifestBytesOf(members)!, sig, key);
}
