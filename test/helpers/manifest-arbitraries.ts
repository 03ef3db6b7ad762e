import fc from 'fast-check';
import { readManifest, type Manifest } from '../../src/receipt/manifest';
import { ReceiptFormatError } from '../../src/receipt/tar';

/**
 * Manifests as written and edited anyhow, and what a reading of them gave: what readManifest's differential tests
 * (receipt.manifest-read, receipt.manifest-stream) generate and compare.
 */
export const hex = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex'));

export const manifest: fc.Arbitrary<Manifest> = fc.record({
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
export type Edit =
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
export const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ at: fc.nat(), kind: fc.constant('set' as const), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ at: fc.nat(), kind: fc.constant('insert' as const), text: fc.constantFrom(...PIECES) }),
  fc.record({ at: fc.nat(), kind: fc.constant('cut' as const), n: fc.integer({ min: 1, max: 70 }) }),
);

export function applyEdit(b: Buffer, e: Edit): Buffer {
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
export function outcome(read: () => ReturnType<typeof readManifest>): unknown {
  try {
    const { manifest: m, digests } = read();
    return { manifest: JSON.parse(JSON.stringify(m)) as unknown, digests: [...digests.hex()] };
  } catch (e) {
    if (!(e instanceof ReceiptFormatError)) throw e;
    return { kind: e.kind, message: e.message, member: e.member };
  }
}
