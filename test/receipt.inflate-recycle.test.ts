import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { createGunzip, gzipSync } from 'node:zlib';
import { Journal, journalDir, journalFile } from '../src/journal';
import {
  buildReceipt,
  generateKeyPair,
  inspectReceipt,
  parsePrivateKey,
  parsePublicKey,
  readTar,
  verifyReceiptFile,
} from '../src/receipt';
import { RecycledOutput } from '../src/receipt/inflate-recycle';
import { writeTar } from '../src/receipt/tar-write';
import { tempDir } from './helpers/tmp';

/**
 * A gzipped receipt is inflated into a few output buffers used again and again (src/receipt/inflate-recycle.ts),
 * each handed back to the inflater only once every piece of it was taken. A buffer handed back too soon would have
 * the inflater write over bytes not yet walked: the verdict read from the file would then differ from the verdict
 * of the same receipt held whole, on a journal that spans many of those buffers.
 */
const root = tempDir('stepchain-recycle-');
const MB = 1024 * 1024;

/** What a run of pieces read from a gunzip holds, and how many distinct buffers they were in. */
async function inflatePieces(gz: Buffer, recycle: boolean): Promise<{ sha256: string; buffers: number }> {
  const gunzip = createGunzip({ chunkSize: MB });
  const recycled = recycle ? RecycledOutput.install(gunzip, MB) : undefined;
  if (recycle) expect(recycled).toBeDefined();
  const hash = createHash('sha256');
  const seen = new Set<ArrayBufferLike>();
  await new Promise<void>((resolve, reject) => {
    gunzip.on('readable', () => {
      for (let c = gunzip.read() as Buffer | null; c !== null; c = gunzip.read() as Buffer | null) {
        hash.update(c);
        seen.add(c.buffer);
      }
      recycled?.taken();
    });
    gunzip.once('end', resolve);
    gunzip.once('error', reject);
    gunzip.end(gz);
  });
  return { sha256: hash.digest('hex'), buffers: seen.size };
}

test("on this Node the inflater's output buffers are used again, and every byte comes out as it went in", async () => {
  // Varied bytes (no two pieces alike) in runs that compress, 24 MiB in all.
  const parts: Buffer[] = [];
  for (let i = 0; i < 24; i++) parts.push(Buffer.concat([randomBytes(64 * 1024), Buffer.alloc(MB - 64 * 1024, i)]));
  const data = Buffer.concat(parts);
  const gz = gzipSync(data, { level: 1 });
  const want = createHash('sha256').update(data).digest('hex');
  const fresh = await inflatePieces(gz, false);
  const reused = await inflatePieces(gz, true);
  expect(fresh.sha256).toBe(want);
  expect(reused.sha256).toBe(want);
  // One buffer a megabyte without it; a handful with it.
  expect(fresh.buffers).toBeGreaterThanOrEqual(24);
  expect(reused.buffers).toBeLessThanOrEqual(8);
});

test('an inflater whose output buffer is not the one read here is left as it is', () => {
  const gunzip = createGunzip({ chunkSize: 64 * 1024 });
  expect(RecycledOutput.install(gunzip, MB)).toBeUndefined();
  gunzip.destroy();
});

describe('a gzipped receipt spanning many inflated buffers: the verdict read from its file is the one held whole', () => {
  const keys = generateKeyPair();
  const signKey = parsePrivateKey(Buffer.from(keys.privateKeyPem), 'k');
  const pub = parsePublicKey(Buffer.from(keys.publicKeyPem), 'k.pub');
  const j = Journal.open(journalDir(root, 'agent'), { durability: 'none' });
  // ~9 MB of journal: rows of different lengths, so row ends fall everywhere in the inflated megabytes.
  for (let i = 0; i < 3000; i++)
    j.append({
      prompt: `step ${i} ${'abcdefghij'.repeat(100 + ((i * 37) % 300))}`,
      model: 'm',
      ts: 1_700_000_000 + i,
      blobs: i % 50 === 0 ? [Buffer.from(`blob ${i} `.repeat(2000))] : [],
    });
  const good = buildReceipt(journalFile(root, 'agent'), { signKey }).bytes;

  async function same(bytes: Buffer, name: string): Promise<void> {
    const file = path.join(root, name);
    writeFileSync(file, gzipSync(bytes, { level: 1 }));
    const whole = inspectReceipt(bytes, { publicKeys: [pub] });
    const streamed = await verifyReceiptFile(file, { publicKeys: [pub] });
    expect(streamed.verdict).toEqual(whole.verdict);
    // The manifest's bytes handed back (what a keyless check's statement is made of) are read after every inflated
    // buffer was used again: a view kept of the one the manifest was inflated in would hold later bytes by then
    // (its signature, judged as soon as it is in, would not show it).
    expect(streamed.manifestBytes?.toString('latin1')).toBe(whole.receipt?.manifestBytes.toString('latin1'));
  }

  it('as built: verifies', async () => {
    expect(good.length).toBeGreaterThan(8 * MB);
    await same(good, 'good.tar.gz');
    const file = path.join(root, 'good.tar.gz');
    expect((await verifyReceiptFile(file, { publicKeys: [pub] })).verdict.ok).toBe(true);
  });

  it('the blobs first, then the manifest and signature, then the journal: verifies, the same manifest bytes', async () => {
    // A view kept of the manifest's piece would go unseen as built: the manifest spans the first two inflated pieces
    // (the first is what the first 512 gzip bytes make), which a member's end can only join into a copy. Here it
    // lies inside one piece, of a buffer used again while the journal's megabytes after it are inflated.
    const files = readTar(good).filter((e) => e.type === 'file');
    const blobs = files.filter((e) => e.name.startsWith('blobs/'));
    expect(blobs.length).toBeGreaterThan(0);
    const order = [
      ...blobs,
      ...files.filter((e) => e.name.startsWith('manifest.')),
      ...files.filter((e) => e.name.startsWith('journal/')),
    ];
    expect(order.length).toBe(files.length);
    const moved = writeTar(
      order.map((e) => ({ name: e.name, data: Buffer.from(e.data) })),
      1_700_000_000,
    );
    expect(inspectReceipt(moved, { publicKeys: [pub] }).verdict.ok).toBe(true);
    await same(moved, 'moved.tar.gz');
  });

  it('one byte changed in each of many places: the same faults, at the same lines', async () => {
    for (let k = 1; k <= 8; k++) {
      const bytes = Buffer.from(good);
      const at = Math.floor((bytes.length * k) / 9);
      bytes[at] = bytes[at] === 0x41 ? 0x42 : 0x41;
      await same(bytes, `flip${k}.tar.gz`);
    }
  });
});
