import { writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { encodeManifest, readManifest, readManifestText, type Manifest } from '../src/receipt/manifest';
import { verifyReceiptFile } from '../src/receipt/stream-verify';
import { ReceiptFormatError } from '../src/receipt/tar';
import { writeTar } from '../src/receipt/tar-write';
import { inspectReceipt, loadReceipt, verifyReceipt } from '../src/receipt/verify';
import { DigestSet } from '../src/util/digest-set';
import { applyEdit, edit, manifest, outcome } from './helpers/manifest-arbitraries';
import { refReceiptParts } from './helpers/ref-receipt';
import { tempDir } from './helpers/tmp';

/**
 * readManifest reads a canonical manifest's digests straight into a DigestSet and the rest as text; every other
 * manifest the general way (readManifestText). Either way the outcome must be the general reading's: the same
 * manifest and digests, or the same fault (kind, message, member), for manifests as written and mutated anyhow.
 */
describe('readManifest reads what the general reading reads', () => {
  it('manifests as written, and edited anyhow: the same manifest, digests or fault', () => {
    fc.assert(
      fc.property(manifest, fc.array(edit, { maxLength: 3 }), (m, edits) => {
        let bytes = encodeManifest(m);
        for (const e of edits) bytes = applyEdit(bytes, e);
        const fast = outcome(() => readManifest(bytes));
        expect(fast).toEqual(outcome(() => readManifestText(bytes)));
      }),
      { numRuns: 3000, seed: 2503 },
    );
  });

  it('a manifest as written reads back, its digests in order, blob_digests made from them', () => {
    fc.assert(
      fc.property(manifest, (m) => {
        const unique = {
          ...m,
          format_version: 1,
          created_at: '2026-12-06T00:00:00Z',
          blob_digests: [...new Set(m.blob_digests)],
        };
        const { manifest: read, digests } = readManifest(encodeManifest(unique));
        expect([...digests.hex()]).toEqual(unique.blob_digests);
        // Read the compact way (its list made when first read), not the general one.
        expect(Object.getOwnPropertyDescriptor(read, 'blob_digests')?.get).toBeDefined();
        expect(read).toEqual(unique);
      }),
      { numRuns: 300, seed: 2504 },
    );
  });

  it('a digest listed twice is said as the general reading says it, after the checks before it', () => {
    const d = 'ab'.repeat(32);
    const m: Manifest = {
      agent_id: 'a',
      head_hash: '0'.repeat(64),
      steps: 1,
      bernstein_version: 'stepchain/0.1.0',
      created_at: '2026-12-06T00:00:00Z',
      blob_digests: [d, 'cd'.repeat(32), d],
      format_version: 1,
    };
    const twice = encodeManifest(m);
    expect(outcome(() => readManifest(twice))).toEqual({
      kind: 'manifest_invalid',
      message: 'manifest "blob_digests" lists a digest twice',
      member: 'manifest.json',
    });
    // A fault before that check is the one said.
    const bad = encodeManifest({ ...m, agent_id: '../x' });
    expect(outcome(() => readManifest(bad))).toEqual(outcome(() => readManifestText(bad)));
    expect((outcome(() => readManifest(bad)) as { message: string }).message).toContain('agent_id');
  });
});

describe("a receipt's faulty manifest is read once", () => {
  /**
   * The scan reads the manifest; the verdict and the receipt's parts name the fault it found. They read it again
   * each (verifyReceipt three times: a 17 MiB manifest's whole process took 0.35 s of CPU, 0.17 s read once). Counted by the digests the readings take
   * from the bytes (DigestSet.addHexBytes: the listed reading's, n for n digests, whoever calls it).
   */
  const n = 2000;
  const listed = Array.from({ length: n }, (_, i) => (i + 1).toString(16).padStart(64, '0'));
  const { manifest: good, journal } = refReceiptParts(listed, [[]]);
  const faulty: [string, Buffer][] = [
    // The last digest not lowercase: the listed reading walks all n, then the general one names it.
    ['an upper-case digit in the last digest', Buffer.from(good.toString().replace(/0"\]/, 'A"]'))],
    // The list in form, the rest not: the listed reading walks all n, its rest fails, the general reading names it.
    ['an unsafe agent_id', Buffer.from(good.toString().replace('"agent_id":"a"', '"agent_id":"../a"'))],
  ];
  const dir = tempDir();

  it.each(faulty)('%s: one reading, the fault as readManifest names it', async (_, bytes) => {
    expect(bytes.equals(good)).toBe(false);
    const receipt = writeTar(
      [
        { name: 'manifest.json', data: bytes },
        { name: 'journal/000000.jsonl', data: journal },
      ],
      1_700_000_000,
    );
    const file = path.join(dir, 'r.tar');
    writeFileSync(file, receipt);
    const spy = jest.spyOn(DigestSet.prototype, 'addHexBytes');
    try {
      const reads = <T>(f: () => T): { got: T; digests: number } => {
        spy.mockClear();
        const got = f();
        return { got, digests: spy.mock.calls.length };
      };
      const once = reads(() => outcome(() => readManifest(bytes)));
      expect(once.digests).toBe(n);
      expect(once.got).toHaveProperty('kind');
      const whole = reads(() => verifyReceipt(receipt));
      expect({ faults: whole.got.errors, digests: whole.digests }).toEqual({ faults: [once.got], digests: n });
      const inspected = reads(() => inspectReceipt(receipt));
      expect(inspected.got.receipt).toBeUndefined();
      expect({ faults: inspected.got.verdict.errors, digests: inspected.digests }).toEqual({
        faults: [once.got],
        digests: n,
      });
      const loaded = reads(() => {
        try {
          return loadReceipt(receipt);
        } catch (e) {
          if (!(e instanceof ReceiptFormatError)) throw e;
          return { kind: e.kind, message: e.message, member: e.member };
        }
      });
      expect(loaded).toEqual({ got: once.got, digests: n });
      spy.mockClear();
      const streamed = await verifyReceiptFile(file);
      expect({ faults: streamed.verdict.errors, digests: spy.mock.calls.length }).toEqual({
        faults: [once.got],
        digests: n,
      });
    } finally {
      spy.mockRestore();
    }
  });
});
