import { closeSync, fchmodSync, fsyncSync, openSync, statSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { InputError, isOsError, osError } from '../errors';
import { sha256Hex } from '../util/hash';
import { writeAll } from '../util/fs';
import { readRegularFile } from '../util/nofollow';
import { bufferView } from '../util/buffer-view';

/**
 * Ed25519 keys for receipts (node:crypto). Accepted forms (docs/format.md §3):
 * - private: PEM PKCS#8 (`-----BEGIN PRIVATE KEY-----`) or a raw 32-byte seed file;
 * - public: PEM SPKI (`-----BEGIN PUBLIC KEY-----`) or a raw 32-byte key file.
 * Anything else (another algorithm, an encrypted key, a private key where a public
 * one is expected, a seed with a trailing newline, a file with several keys) is
 * an input error (exit 2). A public key must be a canonical encoding of a point
 * on the curve that is not of small order: the identity and the other seven
 * small-order points verify any message with S = 0 (docs/receipts.md, "Keys").
 *
 * key_id = the first 16 hex digits of sha256(raw 32-byte public key): short enough
 * to print, stable across PEM and raw encodings of the same key.
 */
export interface PublicKey {
  key: KeyObject;
  /** The raw 32-byte public key. */
  raw: Buffer;
  keyId: string;
  /** Where it came from (a file name), for messages. */
  source: string;
  /** `raw` when read from a bare 32-byte file (which could also be a private seed given by mistake). */
  form?: 'pem' | 'raw';
}

export interface SigningKey {
  key: KeyObject;
  publicKey: PublicKey;
  keyId: string;
  source: string;
  /** The file it was read from (readPrivateKeyFile): what a receipt signed with it checks the mode of. */
  file?: string;
}

// DER prefixes that wrap a raw 32-byte Ed25519 seed / public key (RFC 8410).
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export function keyIdOf(rawPublicKey: Uint8Array): string {
  return sha256Hex(rawPublicKey).slice(0, 16);
}

/**
 * An Ed25519 public key's 32 bytes: its JWK's `x` (the same bytes the SPKI DER ends with). OpenSSL's DER encoder was
 * ~0.35 ms of every `receipt verify` given a key (it loads its encoders), the JWK ~0.03 ms (measured).
 */
function rawOfPublic(key: KeyObject): Buffer {
  const { x } = key.export({ format: 'jwk' });
  if (typeof x !== 'string') throw new TypeError(`not an Ed25519 public key (${key.asymmetricKeyType ?? 'no type'})`);
  return Buffer.from(x, 'base64url');
}

/**
 * The key of a PEM block that is, byte for byte, the form OpenSSL writes for an Ed25519 SPKI public key (one base64
 * line of the RFC 8410 prefix and the 32 bytes); undefined for any other, which OpenSSL's decoder then reads (and
 * words its refusal). Made from its 32 bytes as a JWK: the same key, without OpenSSL's decoder search, ~0.35 ms of a
 * `receipt verify` given a key (measured).
 */
function ed25519SpkiPem(pem: string): KeyObject | undefined {
  const m = /^-----BEGIN PUBLIC KEY-----\r?\n([A-Za-z0-9+/]{59}=)\r?\n-----END PUBLIC KEY-----$/.exec(pem);
  if (m === null) return undefined;
  const der = Buffer.from(m[1]!, 'base64');
  if (der.length !== SPKI_PREFIX.length + 32 || !der.subarray(0, SPKI_PREFIX.length).equals(SPKI_PREFIX))
    return undefined;
  // Only a canonical encoding (no stray bits in the padded last character): then OpenSSL reads the same bytes.
  if (der.toString('base64') !== m[1]) return undefined;
  const x = der.subarray(SPKI_PREFIX.length).toString('base64url');
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
}

function publicFromKeyObject(key: KeyObject, source: string, form: 'pem' | 'raw' = 'pem'): PublicKey {
  const raw = rawOfPublic(key);
  return { key, raw, keyId: keyIdOf(raw), source, form };
}

// Curve25519 in Edwards form (RFC 8032 §5.1): p = 2^255 - 19, d = -121665/121666, sqrt(-1) = 2^((p-1)/4).
// d and sqrt(-1) are written out: computing them was two 255-bit exponentiations in every process that loads a key
// (test/receipt.test.ts computes them again and compares).
const P = 2n ** 255n - 19n;
export const ED_D = 37095705934669439343138083508754565189542113879843219016388785533085940283555n;
export const ED_SQRT_M1 = 19681161376707505956807079304988542015446066515923890162744021073123829784752n;
const modP = (a: bigint): bigint => ((a % P) + P) % P;
function powP(b: bigint, e: bigint): bigint {
  let r = 1n;
  let x = modP(b);
  for (let k = e; k > 0n; k >>= 1n) {
    if (k & 1n) r = (r * x) % P;
    x = (x * x) % P;
  }
  return r;
}

/** Decodes a 32-byte point (RFC 8032 §5.1.3), or says why it is not one: non-canonical, or off the curve. */
function decodePoint(raw: Uint8Array): { x: bigint; y: bigint } | 'non-canonical' | 'not on the curve' {
  let y = 0n;
  for (let i = 31; i >= 0; i--) y = (y << 8n) | BigInt(i === 31 ? raw[i]! & 0x7f : raw[i]!);
  const sign = raw[31]! >> 7;
  if (y >= P) return 'non-canonical';
  const u = modP(y * y - 1n);
  const v = modP(ED_D * y * y + 1n);
  let x = modP(u * powP(v, 3n) * powP(u * powP(v, 7n), (P - 5n) / 8n));
  const vxx = modP(v * x * x);
  if (vxx === modP(-u)) x = modP(x * ED_SQRT_M1);
  else if (vxx !== u) return 'not on the curve';
  if (x === 0n && sign === 1) return 'non-canonical';
  if (Number(x & 1n) !== sign) x = P - x;
  return { x, y };
}

/**
 * Doubling in projective coordinates (X:Y:Z, x = X/Z, y = Y/Z; "dbl-2008-hwcd" for a = -1): no inversion, where
 * the affine formula took two, a 255-bit exponentiation each (six for 8·A: most of a key's load). Z never becomes
 * 0: it is (1 + d·x²·y²)(d·x²·y² - 1) of the point doubled, non-zero on this curve (its addition law is complete).
 */
function doublePoint(p: { x: bigint; y: bigint; z: bigint }): { x: bigint; y: bigint; z: bigint } {
  const a = (p.x * p.x) % P;
  const b = (p.y * p.y) % P;
  const c = (2n * p.z * p.z) % P;
  const e = modP((p.x + p.y) * (p.x + p.y) - a - b);
  const g = modP(b - a);
  const f = modP(g - c);
  const h = modP(-a - b);
  return { x: (e * f) % P, y: (g * h) % P, z: (f * g) % P };
}

/** Why 32 bytes are not a usable public key (small order: 8·A is the identity), or undefined. */
export function publicKeyProblem(raw: Uint8Array): string | undefined {
  const pt = decodePoint(raw);
  if (typeof pt === 'string')
    return pt === 'non-canonical' ? 'a non-canonical point encoding' : 'not a point on the curve';
  let q = { x: pt.x, y: pt.y, z: 1n };
  for (let i = 0; i < 3; i++) q = doublePoint(q);
  // The identity is (0, 1): X = 0 and Y = Z.
  if (q.x === 0n && q.y === q.z)
    return 'a point of small order (such a key verifies signatures nobody made: any manifest with S = 0)';
  return undefined;
}

/** PEM blocks in a key file: exactly one, with nothing but whitespace around it. */
function singlePem(text: string, source: string): string {
  const blocks = text.match(/-----BEGIN [A-Z0-9 ]+-----[\s\S]*?-----END [A-Z0-9 ]+-----/g) ?? [];
  if (blocks.length > 1)
    throw new InputError(`${source}: holds ${blocks.length} keys; a key file holds one (give each key its own file)`);
  if (blocks.length === 1 && text.replace(blocks[0]!, '').trim() !== '')
    throw new InputError(`${source}: text outside the PEM block; a key file holds one PEM key and nothing else`);
  return blocks[0] ?? text;
}

function pemLabel(text: string): string | undefined {
  const m = /^-----BEGIN ([A-Z0-9 ]+)-----/m.exec(text);
  return m?.[1];
}

function looksLikeText(bytes: Buffer): boolean {
  return bytes.length > 0 && /^[\x09\x0a\x0d\x20-\x7e]*$/.test(bytes.toString('latin1'));
}

/** A private key from a file's bytes: PEM PKCS#8 Ed25519 or a raw 32-byte seed. */
export function parsePrivateKey(given: Uint8Array, source: string): SigningKey {
  const bytes = bufferView(given);
  let key: KeyObject;
  const text = looksLikeText(bytes) ? bytes.toString('latin1') : undefined;
  const label = text === undefined ? undefined : pemLabel(text);
  if (label !== undefined) {
    if (label === 'ENCRYPTED PRIVATE KEY')
      throw new InputError(`${source}: encrypted private keys are not supported (use an unencrypted PKCS#8 PEM)`);
    if (label === 'PUBLIC KEY')
      throw new InputError(
        `${source}: this is a public key; a private key (PEM PKCS#8 or a raw 32-byte seed) is needed`,
      );
    if (label !== 'PRIVATE KEY')
      throw new InputError(
        `${source}: not a PKCS#8 private key (PEM "${label}"); expected "PRIVATE KEY" or a raw 32-byte seed`,
      );
    const pem = singlePem(text!, source);
    try {
      key = createPrivateKey({ key: pem, format: 'pem' });
    } catch {
      throw new InputError(`${source}: malformed PEM private key`);
    }
  } else if (bytes.length === 32) {
    key = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, bytes]), format: 'der', type: 'pkcs8' });
  } else {
    throw new InputError(
      `${source}: not an Ed25519 private key: expected PEM PKCS#8 or a raw 32-byte seed, got ${bytes.length} bytes`,
    );
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new InputError(
      `${source}: a ${key.asymmetricKeyType ?? 'non-Ed25519'} key; receipts are signed with Ed25519`,
    );
  }
  const publicKey = publicFromKeyObject(createPublicKey(key), source);
  return { key, publicKey, keyId: publicKey.keyId, source };
}

/** A public key from a file's bytes: PEM SPKI Ed25519 or 32 raw bytes. */
export function parsePublicKey(given: Uint8Array, source: string): PublicKey {
  const bytes = bufferView(given);
  let key: KeyObject;
  let form: 'pem' | 'raw' = 'pem';
  const text = looksLikeText(bytes) ? bytes.toString('latin1') : undefined;
  const label = text === undefined ? undefined : pemLabel(text);
  if (label !== undefined) {
    if (label.includes('PRIVATE KEY'))
      throw new InputError(`${source}: this is a private key; give the public key (PEM SPKI or 32 raw bytes)`);
    if (label !== 'PUBLIC KEY')
      throw new InputError(`${source}: not an SPKI public key (PEM "${label}"); expected "PUBLIC KEY" or 32 raw bytes`);
    const pem = singlePem(text!, source);
    try {
      key = ed25519SpkiPem(pem) ?? createPublicKey({ key: pem, format: 'pem' });
    } catch {
      throw new InputError(`${source}: malformed PEM public key`);
    }
  } else if (bytes.length === 32) {
    const problem = publicKeyProblem(bytes);
    // About half of all random 32-byte strings are not points: a raw private seed given by mistake usually lands here.
    if (problem === 'not a point on the curve')
      throw new InputError(
        `${source}: 32 bytes that are not an Ed25519 public key (not a point on the curve): is this a raw private seed? ` +
          'Give the public key (PEM SPKI, as `stepchain keygen --public` writes it) and keep the seed secret',
      );
    try {
      key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, bytes]), format: 'der', type: 'spki' });
    } catch {
      throw new InputError(`${source}: 32 bytes that are not an Ed25519 public key`);
    }
    form = 'raw';
  } else {
    throw new InputError(
      `${source}: not an Ed25519 public key: expected PEM SPKI or 32 raw bytes, got ${bytes.length} bytes`,
    );
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new InputError(
      `${source}: a ${key.asymmetricKeyType ?? 'non-Ed25519'} key; receipts are signed with Ed25519`,
    );
  }
  const pub = publicFromKeyObject(key, source, form);
  const problem = publicKeyProblem(pub.raw);
  if (problem !== undefined) throw new InputError(`${source}: refused as a trusted key: ${problem}`);
  return pub;
}

/**
 * When a signature fails under a key read from a bare 32-byte file: whether
 * those bytes, taken as a private seed, are the signer's key. Then the file is
 * a private key given as a public one, and the operator should hear so.
 */
export function isSignersSeed(data: Uint8Array, signature: Uint8Array, key: PublicKey): boolean {
  const seeds = seedsPublicKey(key);
  return seeds !== undefined && verifyBytes(data, signature, seeds);
}

/** The public key of a key read from a bare 32-byte file, those bytes taken as a private seed (undefined: not such a key). */
export function seedsPublicKey(key: PublicKey): PublicKey | undefined {
  if (key.form !== 'raw') return undefined;
  try {
    const priv = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, key.raw]), format: 'der', type: 'pkcs8' });
    return publicFromKeyObject(createPublicKey(priv), key.source);
  } catch {
    return undefined;
  }
}

function readKeyBytes(file: string, what: string): Buffer {
  let st;
  try {
    st = statSync(file);
  } catch {
    throw new InputError(`${file}: cannot read ${what}: no such file`);
  }
  if (!st.isFile()) throw new InputError(`${file}: cannot read ${what}: not a regular file`);
  if (st.size > 64 * 1024) throw new InputError(`${file}: not a key file (${st.size} bytes)`);
  // The operator's path (a link of theirs is followed); what it holds is read as a regular file, no more than the cap.
  const bytes = readRegularFile(file, { follow: true, maxBytes: 64 * 1024 });
  if (bytes === undefined) throw new InputError(`${file}: cannot read ${what}: no such file`);
  return bytes;
}

export function readPrivateKeyFile(file: string): SigningKey {
  return { ...parsePrivateKey(readKeyBytes(file, 'private key'), file), file };
}

/**
 * A warning when the private key file at `file` (the operator's path, a link followed) can be read by its group or by
 * others: whoever can read it can sign receipts as its owner. Not a refusal (a key a CI step writes from a secret
 * under the usual umask is 0644 on a one-user runner), but said, as ssh says it; undefined when it is private.
 */
export function privateKeyExposure(file: string): string | undefined {
  if (process.platform === 'win32') return undefined;
  let mode: number;
  try {
    mode = statSync(file).mode & 0o777;
  } catch {
    return undefined;
  }
  if ((mode & 0o077) === 0) return undefined;
  return (
    `${file}: the private key has mode ${mode.toString(8).padStart(4, '0')} (group or others can access it): ` +
    `whoever can read it can sign receipts as you; chmod 600 ${file}`
  );
}

/**
 * The warnings a receipt signed with `key` carries about the key itself: its file's exposure (privateKeyExposure),
 * when it was read from one. Every writer of a signed receipt (export, publish, streamed or in memory) starts its
 * `warnings` with these, so the rule is said once, by the library, and a caller prints what it is told.
 */
export function signingKeyWarnings(key: SigningKey | undefined): string[] {
  const exposed = key?.file === undefined ? undefined : privateKeyExposure(key.file);
  return exposed === undefined ? [] : [exposed];
}

export function readPublicKeyFile(file: string): PublicKey {
  return parsePublicKey(readKeyBytes(file, 'public key'), file);
}

/** The 64-byte Ed25519 signature over `data`. */
export function signBytes(data: Uint8Array, key: SigningKey): Buffer {
  return sign(null, data, key.key);
}

/** Whether `signature` verifies over `data` under `key` (never throws). */
export function verifyBytes(data: Uint8Array, signature: Uint8Array, key: PublicKey): boolean {
  try {
    return verify(null, data, key.key, signature);
  } catch {
    return false;
  }
}

export interface GeneratedKeyPair {
  privateKeyPem: string;
  publicKeyPem: string;
  keyId: string;
}

export function generateKeyPair(): GeneratedKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    keyId: keyIdOf(rawOfPublic(publicKey)),
  };
}

function writeNew(file: string, text: string, mode: number): void {
  let fd: number;
  try {
    fd = openSync(file, 'wx', mode);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw new InputError(`${file}: already exists; refusing to overwrite a key file`);
    if (code === 'ENOENT' || code === 'ENOTDIR')
      throw new InputError(`${file}: cannot create: the directory ${path.dirname(path.resolve(file))} does not exist`);
    if (isOsError(e)) throw osError(e, file, 'cannot create');
    throw e;
  }
  try {
    fchmodSync(fd, mode); // the umask could only remove bits, but be explicit
    writeAll(fd, Buffer.from(text));
    fsyncSync(fd);
  } catch (e) {
    // A key file cut short (a full disk) would block the next keygen ("already exists"): never leave one.
    closeSync(fd);
    try {
      unlinkSync(file);
    } catch {
      /* already gone */
    }
    if (isOsError(e)) throw osError(e, file, 'cannot write');
    throw e;
  }
  closeSync(fd);
}

function exists(file: string): boolean {
  try {
    statSync(file);
    return true;
  } catch {
    return false;
  }
}

/**
 * Writes a new key pair: the private key (PEM PKCS#8) with mode 0600 and,
 * when asked, the public key (PEM SPKI). Refuses to overwrite either file and
 * leaves nothing behind on failure.
 */
export function writeKeyPair(privateFile: string, publicFile?: string): GeneratedKeyPair {
  if (publicFile !== undefined && publicFile === privateFile)
    throw new InputError('the private and public key files must differ');
  for (const f of [privateFile, publicFile]) {
    if (f !== undefined && exists(f)) throw new InputError(`${f}: already exists; refusing to overwrite a key file`);
  }
  const pair = generateKeyPair();
  writeNew(privateFile, pair.privateKeyPem, 0o600);
  if (publicFile !== undefined) {
    try {
      writeNew(publicFile, pair.publicKeyPem, 0o644);
    } catch (e) {
      unlinkSync(privateFile);
      throw e;
    }
  }
  return pair;
}
