import { verify as ed25519Verify, hashes as ed25519Hashes } from '@noble/ed25519';
import { sha512 } from '@noble/hashes/sha2.js';
import { sha256Hex } from './hash';

/**
 * Ed25519 in the report page (@noble/ed25519, SHA-512 from @noble/hashes), offline:
 * the receipt's `manifest.sig` over the exact bytes of `manifest.json`
 * (docs/format.md §3), and the public keys a reviewer pastes.
 */
ed25519Hashes.sha512 = sha512;

/** The DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410); the raw key follows. */
const SPKI_PREFIX = [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00];

export type ParsedKey = { ok: true; raw: Uint8Array; keyId: string } | { ok: false; reason: string };

/** key id = the first 16 hex digits of sha256(raw 32-byte public key), as the CLI prints it. */
export function keyIdOf(raw: Uint8Array): string {
  return sha256Hex(raw).slice(0, 16);
}

export function base64Bytes(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function rawKey(raw: Uint8Array): ParsedKey {
  return { ok: true, raw, keyId: keyIdOf(raw) };
}

/**
 * A public key as a reviewer pastes it: PEM SPKI (`-----BEGIN PUBLIC KEY-----`),
 * or the raw 32 bytes as 64 hex digits or base64. Anything else is refused with a reason.
 */
export function parsePastedKey(text: string): ParsedKey {
  const t = text.trim();
  if (t === '') return { ok: false, reason: 'paste a public key first' };
  const pem = /^-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----$/.exec(t);
  if (pem !== null) {
    if (pem[1]!.includes('PRIVATE')) return { ok: false, reason: 'this is a PRIVATE key: paste the public key only' };
    if (pem[1] !== 'PUBLIC KEY') return { ok: false, reason: `a PEM "${pem[1]}"; expected "PUBLIC KEY" (SPKI)` };
    const body = pem[2]!.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) return { ok: false, reason: 'the PEM body is not base64' };
    const der = base64Bytes(body);
    if (der.length !== 44 || SPKI_PREFIX.some((b, i) => der[i] !== b))
      return { ok: false, reason: 'not an Ed25519 public key (another algorithm, or a malformed SPKI)' };
    return rawKey(der.slice(12));
  }
  if (/^[0-9a-fA-F]{64}$/.test(t)) {
    const raw = new Uint8Array(32);
    for (let i = 0; i < 32; i++) raw[i] = parseInt(t.slice(i * 2, i * 2 + 2), 16);
    return rawKey(raw);
  }
  if (/^[A-Za-z0-9+/]{43}=$/.test(t)) return rawKey(base64Bytes(t));
  return {
    ok: false,
    reason: 'not a public key: expected PEM "PUBLIC KEY", or the raw 32 bytes as 64 hex digits or base64',
  };
}

/**
 * Whether `signature` (64 bytes) verifies over `message` under `publicKey` (32 bytes).
 * RFC 8032's strict rules (`zip215: false`), as OpenSSL (node:crypto, the CLI) applies them;
 * a malformed key or signature is false, never an exception.
 */
export function verifyEd25519(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  if (signature.length !== 64 || publicKey.length !== 32) return false;
  try {
    return ed25519Verify(signature, message, publicKey, { zip215: false });
  } catch {
    return false;
  }
}
