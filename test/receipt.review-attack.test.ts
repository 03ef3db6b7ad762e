import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { verifyReceiptFile } from '../src/receipt/stream-verify';
import { writeTar } from '../src/receipt/tar-write';
import { verifyReceipt, type ReceiptVerifyResult } from '../src/receipt/verify';
import { refReceiptParts } from './helpers/ref-receipt';
import { tempDir } from './helpers/tmp';

/**
 * A review's attacks on the readers of one receipt's bytes that held: the gzip's compressed pieces read into one
 * reused buffer (stream-verify.ts gzipPieces) against gzips of many members, zero padding running over pieces and
 * garbage after the end; and the digest budget (DigestBudget) under every order of the members, which must need the
 * same number of digests from every reader.
 */
const root = tempDir();
const sha = (s: string): string => createHash('sha256').update(s).digest('hex');
const digest = (i: number): string => sha(`blob ${i}`);
const PUSHED = { ...process.env, STEPCHAIN_AUDIT: 'off' };
const THREADS = { ...PUSHED, STEPCHAIN_PARALLEL_MIN_BYTES: '1', STEPCHAIN_THREADS: '4' };
const kinds = (v: ReceiptVerifyResult): string[] => v.errors.map((e) => e.kind);

/** A receipt's tar: `listed` digests, the chain's refs the list in order (10 a row), `bundled` blobs, members in `order`. */
function tarOf(order: string, listed: number, bundled: number): Buffer {
  const list = Array.from({ length: listed }, (_, i) => digest(i));
  const rows = Array.from({ length: Math.max(1, Math.ceil(listed / 10)) }, (_, r) => list.slice(r * 10, r * 10 + 10));
  const { manifest, journal } = refReceiptParts(list, rows);
  const parts: Record<string, { name: string; data: Buffer }[]> = {
    m: [{ name: 'manifest.json', data: manifest }],
    j: [{ name: 'journal/000000.jsonl', data: journal }],
    b: Array.from({ length: bundled }, (_, i) => ({ name: `blobs/${digest(i)}`, data: Buffer.from(`blob ${i}`) })),
  };
  return writeTar(
    [...order].flatMap((k) => parts[k]!),
    1_700_000_000,
  );
}

describe('a gzip read into one reused buffer', () => {
  it('many members, zero padding over pieces, garbage after: streamed as held whole', async () => {
    // 3.4 MB of tar (a 1.3 MB manifest, streamed): several 1 MiB compressed pieces whatever the members' sizes.
    const tar = tarOf('mjb', 20_000, 50);
    let seed = 7;
    const rnd = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let round = 0; round < 8; round++) {
      const parts: Buffer[] = [];
      const most = [20_000, 65_536, 1 << 20, 3 << 20][round % 4]!;
      for (let at = 0; at < tar.length;) {
        const n = rnd(most) + 1;
        parts.push(gzipSync(tar.subarray(at, at + n), { level: rnd(10) }));
        at += n;
      }
      const after = [
        Buffer.alloc(0),
        Buffer.alloc(rnd(3 << 20) + 1),
        Buffer.concat([Buffer.alloc(rnd(2 << 20)), Buffer.from([1])]),
        Buffer.from('garbage'),
      ][round % 4]!;
      const file = path.join(root, `r${round}.tar.gz`);
      writeFileSync(file, Buffer.concat([...parts, after]));
      const whole = verifyReceipt(readFileSync(file));
      expect(kinds(whole)).toEqual(round % 4 < 2 ? [] : ['not_a_receipt']);
      const { verdict } = await verifyReceiptFile(file, { env: PUSHED, fileDigest: false });
      expect(verdict).toEqual(whole);
    }
  });
});

describe('the digest budget under every order of the members', () => {
  it('every reader needs the same digests, manifest before or after the journal and the blobs', async () => {
    const listed = 30;
    for (const order of ['mjb', 'jmb', 'bmj', 'mbj', 'jbm', 'bjm']) {
      const file = path.join(root, `${order}.tar`);
      const tar = tarOf(order, listed, listed);
      writeFileSync(file, tar);
      writeFileSync(`${file}.gz`, gzipSync(tar));
      // The chain's refs are held as a set of their own when the journal comes before the manifest.
      const need = order.indexOf('j') < order.indexOf('m') ? 3 * listed : 2 * listed;
      for (const max of [need - 1, need]) {
        const whole = verifyReceipt(readFileSync(file), { maxDigests: max });
        expect(kinds(whole)).toEqual(max < need ? ['too_many_digests'] : []);
        for (const [f, env] of [
          [file, PUSHED],
          [file, THREADS],
          [`${file}.gz`, PUSHED],
        ] as const) {
          const { verdict } = await verifyReceiptFile(f, { maxDigests: max, env, fileDigest: false });
          expect(verdict).toEqual(whole);
        }
      }
    }
  });
});

describe('maxDigests given as the API takes it', () => {
  it('a value that is no count (NaN, negative, fractional) is a TypeError naming the option, from every reader', async () => {
    // NaN was no limit where compared and NaN slots where a set was sized: "offset is out of bounds" (RangeError).
    const file = path.join(root, 'api.tar');
    writeFileSync(file, tarOf('mjb', 12, 3));
    for (const bad of [NaN, -1, 0.5]) {
      expect(() => verifyReceipt(readFileSync(file), { maxDigests: bad })).toThrow(
        new TypeError(`maxDigests: expected a non-negative integer (or Infinity), got ${String(bad)}`),
      );
      await expect(verifyReceiptFile(file, { maxDigests: bad, env: PUSHED })).rejects.toThrow(TypeError);
    }
    for (const good of [Infinity, 15]) expect(verifyReceipt(readFileSync(file), { maxDigests: good }).ok).toBe(true);
    expect(kinds(verifyReceipt(readFileSync(file), { maxDigests: 0 }))).toEqual(['too_many_digests']);
  });

  it('maxBytes the same way: NaN was no cap at all, now a TypeError naming it, from every reader', async () => {
    const file = path.join(root, 'api-bytes.tar');
    writeFileSync(file, tarOf('mjb', 12, 3));
    for (const bad of [NaN, -1, 0.5]) {
      const named = new TypeError(`maxBytes: expected a non-negative integer (or Infinity), got ${String(bad)}`);
      expect(() => verifyReceipt(readFileSync(file), { maxBytes: bad })).toThrow(named);
      expect(() => verifyReceipt(file, { maxBytes: bad })).toThrow(named);
      await expect(verifyReceiptFile(file, { maxBytes: bad, env: PUSHED })).rejects.toThrow(named);
    }
    for (const good of [Infinity, 1 << 30]) expect(verifyReceipt(file, { maxBytes: good }).ok).toBe(true);
    expect(kinds(verifyReceipt(file, { maxBytes: 512 }))).toEqual(['too_large']);
  });
});
