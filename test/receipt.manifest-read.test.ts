import fc from 'fast-check';
import { encodeManifest, readManifest, readManifestText, type Manifest } from '../src/receipt/manifest';
import { applyEdit, edit, manifest, outcome } from './helpers/manifest-arbitraries';

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
