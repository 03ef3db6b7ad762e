import { createHash, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import fc from 'fast-check';
import { Point } from '@noble/ed25519';
import { verifyEd25519Pieces } from '../src/receipt/ed25519-stream';
import { heldManifestPieces, rebuiltManifest, type HeldManifest } from '../src/receipt/held-manifest';
import { DigestSet } from '../src/util/digest-set';

/**
 * The streamed signature check (src/receipt/ed25519-stream.ts) against node:crypto (OpenSSL) on the same bytes:
 * the two must agree on every signature, not only on good ones. The crafted cases are where Ed25519 verifiers are
 * known to differ: S not reduced, R of small order, a torsion point added to R or to the key (a check that
 * multiplies by the cofactor accepts what OpenSSL refuses, and the other way round for some keys).
 */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** The eight points of small order, as their canonical encodings (and two that are not canonical). */
const SMALL_ORDER = [
  '0100000000000000000000000000000000000000000000000000000000000000',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  '0000000000000000000000000000000000000000000000000000000000000000',
  '0000000000000000000000000000000000000000000000000000000000000080',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85',
].map((h) => Buffer.from(h, 'hex'));
const TORSION = SMALL_ORDER.slice(1).map((b) => Point.fromBytes(b, true));

const le = (n: bigint): Buffer => {
  const out = Buffer.alloc(32);
  for (let i = 0; i < 32; i++, n >>= 8n) out[i] = Number(n & 0xffn);
  return out;
};
const fromLe = (b: Uint8Array): bigint => b.reduceRight((n, x) => (n << 8n) | BigInt(x), 0n);
const h512 = (...parts: Uint8Array[]): bigint => {
  const h = createHash('sha512');
  for (const p of parts) h.update(p);
  return fromLe(h.digest()) % L;
};

function keyObject(raw: Uint8Array): KeyObject | undefined {
  try {
    return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
  } catch {
    return undefined;
  }
}

/** node:crypto's answer (false where it refuses the key or the signature outright). */
function openssl(message: Buffer, signature: Buffer, raw: Uint8Array): boolean {
  const key = keyObject(raw);
  if (key === undefined) return false;
  try {
    return verify(null, message, key, signature);
  } catch {
    return false;
  }
}

/** The message in pieces cut at `cuts` (positions taken modulo its length). */
function piecesOf(message: Buffer, cuts: number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => (message.length === 0 ? 0 : c % message.length)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const c of at) {
    out.push(message.subarray(from, c));
    from = c;
  }
  out.push(message.subarray(from));
  return out;
}

function expectAgree(message: Buffer, signature: Buffer, raw: Uint8Array, cuts: number[] = []): boolean {
  const streamed = verifyEd25519Pieces(piecesOf(message, cuts), signature, raw);
  expect(streamed).toBe(openssl(message, signature, raw));
  return streamed!;
}

/** A key pair by its secret scalar: A = [a]B, plus `torsion` (a key of mixed order, which node:crypto loads). */
function scalarKey(a: bigint, torsion?: Point): { a: bigint; raw: Uint8Array } {
  let p = Point.BASE.multiply(a);
  if (torsion !== undefined) p = p.add(torsion);
  return { a, raw: p.toBytes() };
}

/** S = r + k·a for R = [r]B + `rTorsion`: a signature made by hand, so R and A can carry torsion. */
function handSign(message: Buffer, key: { a: bigint; raw: Uint8Array }, r: bigint, rTorsion?: Point): Buffer {
  let rp = Point.BASE.multiply(r);
  if (rTorsion !== undefined) rp = rp.add(rTorsion);
  const R = rp.toBytes();
  const k = h512(R, key.raw, message);
  return Buffer.concat([R, le((r + k * key.a) % L)]);
}

const scalar = fc.bigInt({ min: 1n, max: L - 1n });
const message = fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b));
const cuts = fc.array(fc.nat(), { maxLength: 5 });

describe('verifyEd25519Pieces agrees with node:crypto', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(12);

  it('on good signatures and on every one-bit change of them, however the message is cut', () => {
    fc.assert(
      fc.property(message, cuts, fc.nat({ max: 64 * 8 - 1 }), (m, c, bit) => {
        const sig = sign(null, m, privateKey);
        expect(expectAgree(m, sig, raw, c)).toBe(true);
        const bad = Buffer.from(sig);
        bad[bit >> 3]! ^= 1 << (bit & 7);
        expectAgree(m, bad, raw, c);
        if (m.length > 0) expect(expectAgree(Buffer.concat([m, Buffer.from([0])]), sig, raw, c)).toBe(false);
      }),
      { numRuns: 100 },
    );
  });

  it('on S not reduced (S + L, S + 2L while it fits), on S = 0 and on random bytes', () => {
    fc.assert(
      fc.property(message, fc.uint8Array({ minLength: 64, maxLength: 64 }), (m, junk) => {
        const sig = sign(null, m, privateKey);
        for (let s = fromLe(sig.subarray(32)) + L; s < 2n ** 256n; s += L)
          expect(expectAgree(m, Buffer.concat([sig.subarray(0, 32), le(s)]), raw)).toBe(false);
        expectAgree(m, Buffer.concat([sig.subarray(0, 32), le(0n)]), raw);
        expectAgree(m, Buffer.from(junk), raw);
      }),
      { numRuns: 25 },
    );
  });

  it('on R of small order, and on torsion added to R (refused without a cofactor, as OpenSSL does)', () => {
    fc.assert(
      fc.property(message, scalar, scalar, fc.nat({ max: TORSION.length - 1 }), (m, a, r, t) => {
        const key = scalarKey(a);
        expect(expectAgree(m, handSign(m, key, r), key.raw)).toBe(true);
        expect(expectAgree(m, handSign(m, key, r, TORSION[t]), key.raw)).toBe(false);
        for (const small of SMALL_ORDER) expectAgree(m, Buffer.concat([small, le(0n)]), key.raw);
      }),
      { numRuns: 25 },
    );
  });

  it('under keys of mixed order: both accept exactly when the torsion vanishes from k·A', () => {
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(message, scalar, scalar, fc.nat({ max: TORSION.length - 1 }), (m, a, r, t) => {
        const key = scalarKey(a, TORSION[t]);
        if (expectAgree(m, handSign(m, key, r), key.raw)) accepted++;
        else refused++;
      }),
      { numRuns: 80 },
    );
    // Both outcomes were reached (else the property compared only one side of the rule).
    expect(accepted).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
  });

  it('says nothing (undefined) for a key it does not decode: y not reduced, or x = 0 with its sign bit set', () => {
    const sig = Buffer.alloc(64);
    const notReduced = Buffer.from('edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f', 'hex');
    expect(verifyEd25519Pieces([Buffer.from('m')], sig, notReduced)).toBeUndefined();
    expect(verifyEd25519Pieces([Buffer.from('m')], sig, SMALL_ORDER[3]!)).toBeDefined();
    const minusZero = Buffer.from(SMALL_ORDER[0]!);
    minusZero[31]! |= 0x80;
    expect(verifyEd25519Pieces([Buffer.from('m')], sig, minusZero)).toBeUndefined();
    expect(verifyEd25519Pieces([Buffer.from('m')], sig, Buffer.alloc(31))).toBeUndefined();
  });
});

describe('heldManifestPieces', () => {
  const digestHex = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex'));
  const held = fc
    .record({
      head: fc.string({ maxLength: 40 }),
      tail: fc.string({ maxLength: 40 }),
      digests: fc.uniqueArray(digestHex, { maxLength: 60 }),
    })
    .map(({ head, tail, digests }) => {
      const set = new DigestSet();
      for (const d of digests) set.addHex(d);
      const text = Buffer.from(`${head}[${digests.map((d) => `"${d}"`).join(',')}]${tail}`, 'utf8');
      const h: HeldManifest = {
        head: Buffer.from(head, 'utf8'),
        tail: Buffer.from(tail, 'utf8'),
        digests: set,
        size: text.length,
        sha256: createHash('sha256').update(text).digest(),
      };
      return { text, h };
    });

  it('makes the bytes read again, in pieces of any size, and rebuiltManifest the same whole', () => {
    fc.assert(
      fc.property(held, fc.integer({ min: 1, max: 300 }), ({ text, h }, size) => {
        // Each piece copied as it comes: the next one overwrites its buffer.
        const pieces: Buffer[] = [];
        for (const p of heldManifestPieces(h, size)) pieces.push(Buffer.from(p));
        expect(pieces.every((p) => p.length <= Math.max(68, size))).toBe(true);
        expect(Buffer.concat(pieces).equals(text)).toBe(true);
        expect(rebuiltManifest(h).equals(text)).toBe(true);
      }),
    );
  });

  it('throws after the last piece when what it made is not what was read', () => {
    fc.assert(
      fc.property(held, ({ h }) => {
        const wrong = { ...h, sha256: Buffer.alloc(32, 1) };
        expect(() => [...heldManifestPieces(wrong, 64)]).toThrow(/not the one read/);
        expect(() => rebuiltManifest({ ...h, size: h.size + 1 })).toThrow(/not the one read/);
      }),
      { numRuns: 30 },
    );
  });
});
