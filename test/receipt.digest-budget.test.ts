import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { verifyReceiptFile } from '../src/receipt/stream-verify';
import { writeTar } from '../src/receipt/tar-write';
import { DEFAULT_MAX_DIGESTS, verifyReceipt, type ReceiptVerifyResult } from '../src/receipt/verify';
import { refReceiptParts } from './helpers/ref-receipt';
import { cli, expectNoStack } from './helpers/cli';
import { tempDir } from './helpers/tmp';

/**
 * A verify holds at most `maxDigests` blob digests (src/util/digest-set.ts DigestBudget): the manifest's list, the
 * bundled blobs and the chain's refs once they leave the list, together. Past it the reading stops with one fault,
 * too_many_digests, the same for every reader of the same bytes (held whole, streamed plain, streamed gzipped, the
 * journal pushed or walked among threads), so memory stays bounded whatever a receipt names.
 */
const root = tempDir();
const sha = (s: string): string => createHash('sha256').update(s).digest('hex');
const blob = (i: number): Buffer => Buffer.from(`blob ${i}`);
const digest = (i: number): string => sha(`blob ${i}`);

/** A receipt listing `listed` digests (rows of 10 refs in the list's order, then `stray` refs the list lacks), `bundled` of them bundled. */
function write(name: string, listed: number, bundled: number, stray = 0): string {
  const list = Array.from({ length: listed }, (_, i) => digest(i));
  const refs = [...list, ...Array.from({ length: stray }, (_, i) => digest(listed + i))];
  const rows = Array.from({ length: Math.max(1, Math.ceil(refs.length / 10)) }, (_, r) =>
    refs.slice(r * 10, r * 10 + 10),
  );
  const { manifest, journal } = refReceiptParts(list, rows);
  const file = path.join(root, name);
  const bytes = writeTar(
    [
      { name: 'manifest.json', data: manifest },
      { name: 'journal/000000.jsonl', data: journal },
      ...Array.from({ length: bundled }, (_, i) => ({ name: `blobs/${digest(i)}`, data: blob(i) })),
    ],
    1_700_000_000,
  );
  writeFileSync(file, bytes);
  writeFileSync(`${file}.gz`, gzipSync(bytes));
  return file;
}

const PUSHED = { ...process.env, STEPCHAIN_AUDIT: 'off' };
/** The journal walked where it lies, in slices among threads (each slice its own refs: maxRefs). */
const THREADS = { ...PUSHED, STEPCHAIN_PARALLEL_MIN_BYTES: '1', STEPCHAIN_THREADS: '4' };

/** Every reader's verdict under `maxDigests`; they must all be the one held whole. */
async function verdicts(file: string, maxDigests: number): Promise<ReceiptVerifyResult> {
  const whole = verifyReceipt(readFileSync(file), { maxDigests });
  for (const [f, env] of [
    [file, PUSHED],
    [file, THREADS],
    [`${file}.gz`, PUSHED],
  ] as const) {
    const { verdict } = await verifyReceiptFile(f, { maxDigests, env, fileDigest: false });
    expect(verdict).toEqual(whole);
  }
  return whole;
}

const kinds = (v: ReceiptVerifyResult): string[] => v.errors.map((e) => e.kind);

describe('a verify holds at most maxDigests blob digests', () => {
  it('a receipt needing exactly the budget verifies; one digest more is too_many_digests, for every reader', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 40 }), fc.nat({ max: 40 }), async (listed, extra) => {
        const bundled = Math.min(listed, extra);
        const file = write('r.tar', listed, bundled);
        const need = listed + bundled;
        const ok = await verdicts(file, need);
        expect(kinds(ok)).toEqual([]);
        expect(ok.ok).toBe(true);
        const over = await verdicts(file, need - 1);
        expect(kinds(over)).toEqual(['too_many_digests']);
        expect(over.ok).toBe(false);
      }),
      { numRuns: 15 },
    );
  });

  it('refs that leave the list count too (a failing receipt collects them), walked pushed or among threads', async () => {
    // 5 listed, 300 stray refs: the chain's refs are copied out of the list and collected from there.
    const file = write('stray.tar', 5, 0, 300);
    expect(kinds(await verdicts(file, 200))).toEqual(['too_many_digests']);
    const roomy = await verdicts(file, 400);
    expect(kinds(roomy)).toContain('blob_digests_mismatch');
    expect(kinds(roomy)).not.toContain('too_many_digests');
  });

  it('the default is DEFAULT_MAX_DIGESTS, and the CLI takes --max-digests (a bad value is exit 2, one line)', () => {
    expect(DEFAULT_MAX_DIGESTS).toBe(1_000_000);
    const file = write('cli.tar', 12, 3);
    const under = cli(['receipt', 'verify', file, '--max-digests', '15']);
    expect(under.code).toBe(0);
    const over = cli(['receipt', 'verify', file, '--max-digests', '14']);
    expect(over.code).toBe(1);
    expect(over.stderr).toContain('more than 14 blob digests');
    const json = cli(['receipt', 'verify', file, '--max-digests', '14', '--json']);
    expect(json.code).toBe(1);
    expect((JSON.parse(json.stdout) as ReceiptVerifyResult).errors.map((e) => e.kind)).toEqual(['too_many_digests']);
    const bad = cli(['receipt', 'verify', file, '--max-digests', 'lots']);
    expect(bad.code).toBe(2);
    expectNoStack(bad);
    expect(bad.stderr.trim().split('\n')).toEqual([
      'stepchain: --max-digests: expected a non-negative integer, got "lots"',
    ]);
  });
});
