import fc from 'fast-check';
import { encodeManifest, readManifest, readManifestText, type Manifest } from '../src/receipt/manifest';
import { ReceiptFormatError } from '../src/receipt/tar';

/**
 * readManifest reads a canonical manifest's digests straight into a DigestSet and the rest as text; every other
 * manifest the general way (readManifestText). Either way the outcome must be the general reading's: the same
 * manifest and digests, or the same fault (kind, message, member), for manifests as written and mutated anyhow.
 */
const hex = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex'));

const manifest: fc.Arbitrary<Manifest> = fc.record({
  agent_id: fc.constantFrom('a', 'agent-1', 'x.y_z'),
  head_hash: hex,
  steps: fc.nat({ max: 1000 }),
  bernstein_version: fc.oneof(
    fc.constantFrom('stepchain/0.1.0', '"blob_digests":[', '","blob_digests":["', 'é\u2028\u{1f600}', ''),
    fc.string({ maxLength: 12 }),
  ),
  created_at: fc.constantFrom('2026-12-06T00:00:00Z', '2026-12-06T00:00:00.5Z'),
  blob_digests: fc.array(
    fc.oneof({ weight: 5, arbitrary: hex }, { weight: 1, arbitrary: fc.constant('0'.repeat(64)) }),
    {
      maxLength: 8,
    },
  ),
  format_version: fc.constantFrom(1, 1, 1, 2),
});

/** Edits of the written bytes: a byte changed, bytes inserted or cut, a piece of text put anywhere. */
type Edit =
  | { at: number; kind: 'set'; byte: number }
  | { at: number; kind: 'insert'; text: string }
  | { at: number; kind: 'cut'; n: number };
const PIECES = [
  ' ',
  '\n',
  ',',
  ']',
  '[',
  '"',
  '\\',
  'A',
  'g',
  '0',
  '""',
  '"blob_digests":[',
  '],"x":[',
  '{}',
  '\u00e9',
  '\xff',
];
const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ at: fc.nat(), kind: fc.constant('set' as const), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ at: fc.nat(), kind: fc.constant('insert' as const), text: fc.constantFrom(...PIECES) }),
  fc.record({ at: fc.nat(), kind: fc.constant('cut' as const), n: fc.integer({ min: 1, max: 70 }) }),
);

function applyEdit(b: Buffer, e: Edit): Buffer {
  const at = b.length === 0 ? 0 : e.at % (b.length + 1);
  if (e.kind === 'set') {
    if (at >= b.length) return b;
    const c = Buffer.from(b);
    c[at] = e.byte;
    return c;
  }
  if (e.kind === 'insert')
    return Buffer.concat([
      b.subarray(0, at),
      Buffer.from(e.text, e.text === '\xff' ? 'latin1' : 'utf8'),
      b.subarray(at),
    ]);
  return Buffer.concat([b.subarray(0, at), b.subarray(at + e.n)]);
}

/** What a reading gave: the manifest and its digests in order, or its fault. */
function outcome(read: () => ReturnType<typeof readManifest>): unknown {
  try {
    const { manifest: m, digests } = read();
    return { manifest: JSON.parse(JSON.stringify(m)) as unknown, digests: [...digests.hex()] };
  } catch (e) {
    if (!(e instanceof ReceiptFormatError)) throw e;
    return { kind: e.kind, message: e.message, member: e.member };
  }
}

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
