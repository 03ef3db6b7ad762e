import { generateKeyPairSync } from 'node:crypto';
import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { canonical as canonicalText, type JsonValue } from '../src/canonical';
import { ArchiveScan } from '../src/receipt/archive-scan';
import { rebuiltManifest } from '../src/receipt/held-manifest';
import { parsePrivateKey, parsePublicKey, signBytes, type PublicKey } from '../src/receipt/keys';
import { encodeManifest, readManifest, type Manifest } from '../src/receipt/manifest';
import { GENERAL_MANIFEST_MAX_BYTES, ManifestStream } from '../src/receipt/manifest-stream';
import { verifyReceiptFile } from '../src/receipt/stream-verify';
import { TarWriter, writeTar } from '../src/receipt/tar-write';
import { verdictOf, verifyReceipt, type VerifyReceiptOptions } from '../src/receipt/verify';
import { cliPath } from './helpers/paths';
import { applyEdit, edit, hex, manifest, outcome } from './helpers/manifest-arbitraries';
import { peakRss } from './helpers/peak-rss';
import { refReceiptParts } from './helpers/ref-receipt';
import { tempDir } from './helpers/tmp';

/**
 * A streamed verify reads a large manifest as its pieces arrive (src/receipt/manifest-stream.ts): its digests
 * straight into a set, its bytes never whole. Whatever the bytes and however they are cut into pieces, the outcome
 * must be readManifest's on the whole bytes (the manifest, its digests in order, or the fault's kind and message),
 * and what is kept must make the bytes again. Only a manifest over 16 MiB that is not in canonical form reads
 * otherwise: `manifest_too_large`, in memory that does not grow with it.
 */
const root = tempDir();

/** The manifest streamed in pieces cut at `cuts` (each piece a buffer scribbled over once handed: nothing kept of it). */
function streamed(bytes: Buffer, cuts: readonly number[], bytewise = false): { how: string; outcome: unknown } {
  const at = bytewise
    ? Array.from({ length: bytes.length + 1 }, (_, i) => i)
    : [...new Set([0, ...cuts.map((c) => c % (bytes.length + 1)), bytes.length])].sort((a, b) => a - b);
  const s = new ManifestStream(bytes.length);
  for (let i = 1; i < at.length; i++) {
    const piece = Buffer.from(bytes.subarray(at[i - 1], at[i]));
    s.data(piece);
    piece.fill(0x7e);
  }
  const out = s.end();
  if (out.kind === 'read') {
    expect(rebuiltManifest(out.held).equals(bytes)).toBe(true);
    return { how: out.kind, outcome: outcome(() => out.read) };
  }
  if (out.kind === 'bytes') {
    expect(out.bytes.equals(bytes)).toBe(true);
    return { how: out.kind, outcome: outcome(() => readManifest(out.bytes)) };
  }
  throw new Error(`a manifest of ${bytes.length} bytes was refused: ${out.fault.message}`);
}

const cuts = fc.array(fc.nat(), { maxLength: 12 });
const canonical: fc.Arbitrary<Manifest> = fc.record({
  agent_id: fc.constantFrom('a', 'agent-1', 'x.y_z'),
  head_hash: hex,
  steps: fc.nat({ max: 1000 }),
  bernstein_version: fc.oneof(fc.constantFrom('stepchain/0.1.0', '"blob_digests":[', 'é\u{1f600}'), fc.string()),
  created_at: fc.constant('2026-12-06T00:00:00Z'),
  blob_digests: fc.uniqueArray(hex, { maxLength: 120 }),
  format_version: fc.constant(1),
});

/** A canonical manifest broken where its digests are (the item `at`), as a hostile writer might. */
type Break = 'upper' | 'space' | 'quote' | 'twice' | 'nonhex' | 'cut' | 'key' | 'version' | 'head' | 'tail';
const BREAKS: Break[] = ['upper', 'space', 'quote', 'twice', 'nonhex', 'cut', 'key', 'version', 'head', 'tail'];
function broken(m: Manifest, how: Break, at: number): Buffer {
  const n = m.blob_digests.length;
  const i = n === 0 ? 0 : at % n;
  const list = [...m.blob_digests];
  const big = 'v'.repeat(70 * 1024);
  if (how === 'twice' && n > 1) list[i] = list[(i + 1) % n]!;
  if (how === 'upper' && n > 0) list[i] = list[i]!.replace(/[a-f]/, (c) => c.toUpperCase());
  if (how === 'nonhex' && n > 0) list[i] = `${list[i]!.slice(0, 63)}g`;
  const withKey = how === 'key' ? { x: 1 } : how === 'tail' ? { zz: big } : {};
  const text = canonicalText({
    ...m,
    ...withKey,
    blob_digests: list,
    bernstein_version: how === 'head' ? big : m.bernstein_version,
    format_version: how === 'version' ? 2 : 1,
  } as JsonValue);
  const item = text.indexOf('"blob_digests":[') + 16 + i * 67;
  if (how === 'space') return Buffer.from(`${text.slice(0, item)} ${text.slice(item)}`);
  if (how === 'quote') return Buffer.from(`${text.slice(0, item)}${text.slice(item + 1)}`);
  if (how === 'cut') return Buffer.from(text.slice(0, item + (at % 67)));
  return Buffer.from(text);
}

/**
 * Runs: of 10 faults put into manifest-stream.ts (the key looked for from the wrong place, a fallback from the wrong
 * byte, a comma or an item's bytes lost in the bytes made again, `]` taken with an item begun, an item's closing quote
 * not checked, ...), the 8 these properties find are found with these seeds by run 30 of the canonical one, 117 of the
 * broken one, 691 of the edited one (a fault the canonical one finds by run 30); each that only one of them finds, by
 * its run 9 (broken) or 108 (edited). They had 400, 600 and 2,000 runs.
 */
describe('a manifest streamed in pieces reads as it does whole', () => {
  it('canonical ones are read as they stream, their bytes made again, in any pieces', () => {
    fc.assert(
      fc.property(canonical, cuts, fc.boolean(), (m, c, bytewise) => {
        const bytes = encodeManifest(m);
        const got = streamed(bytes, c, bytewise && bytes.length < 3000);
        expect(got).toEqual({ how: 'read', outcome: outcome(() => readManifest(bytes)) });
      }),
      { numRuns: 200, seed: 2601 },
    );
  });

  it('ones broken where the digests are: the same manifest or fault', () => {
    fc.assert(
      fc.property(canonical, fc.constantFrom(...BREAKS), fc.nat(), cuts, (m, how, at, c) => {
        const bytes = broken(m, how, at);
        const got = streamed(bytes, c);
        expect(got.outcome).toEqual(outcome(() => readManifest(bytes)));
        // A head or tail past its cap is read whole, and reads (or fails) as it always did.
        if (how === 'head') expect(got.how).toBe('bytes');
      }),
      { numRuns: 300, seed: 2602 },
    );
  });

  it('ones edited anyhow: the same manifest, digests or fault', () => {
    fc.assert(
      fc.property(manifest, fc.array(edit, { maxLength: 3 }), cuts, (m, edits, c) => {
        let bytes = encodeManifest(m);
        for (const e of edits) bytes = applyEdit(bytes, e);
        expect(streamed(bytes, c).outcome).toEqual(outcome(() => readManifest(bytes)));
      }),
      { numRuns: 600, seed: 2603 },
    );
  });
});

function keyPair(): { sign: (b: Buffer) => Buffer; pub: PublicKey } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const priv = parsePrivateKey(Buffer.from(privateKey.export({ type: 'pkcs8', format: 'pem' })), 'test key');
  const pub = parsePublicKey(Buffer.from(publicKey.export({ type: 'spki', format: 'pem' })), 'test key.pub');
  return { sign: (b) => Buffer.from(signBytes(b, priv).toString('base64'), 'latin1'), pub };
}

/** Digests that cost nothing to make: distinct, 64 lowercase hex digits. */
const digestOf = (i: number): string => i.toString(16).padStart(64, '0');
const HEX = '0123456789abcdef';

describe('a large manifest streamed by a verify: the verdict of the receipt read whole', () => {
  // 16,400 digests: a 1.1 MB manifest, past the size read as it streams (HOLD_MIN_BYTES).
  const N = 16_400;
  const digests = Array.from({ length: N }, (_, i) => digestOf(i + 1));
  const rows = Array.from({ length: N / 100 }, (_, r) => digests.slice(r * 100, r * 100 + 100));
  const parts = refReceiptParts(digests, rows);
  const signer = keyPair();
  const m = readManifest(parts.manifest).manifest;
  const plain = { ...m, blob_digests: digests };
  const cases: [string, Buffer][] = [
    ['canonical', parts.manifest],
    ...BREAKS.map((how): [string, Buffer] => [how, broken(plain, how, 16_000)]),
    ['cut in its tail', parts.manifest.subarray(0, parts.manifest.length - 3)],
  ];

  it.each(cases)('%s', async (label, manifestBytes) => {
    expect(manifestBytes.length).toBeGreaterThan(1 << 20);
    const file = path.join(root, `${label}.tar`);
    const members = [
      { name: 'manifest.json', data: manifestBytes },
      { name: 'manifest.sig', data: signer.sign(manifestBytes) },
      { name: 'journal/000000.jsonl', data: parts.journal },
    ];
    writeFileSync(file, writeTar(members, 1_700_000_000));
    const options: VerifyReceiptOptions = { publicKeys: [signer.pub] };
    const whole = verifyReceipt(readFileSync(file), options);
    const streamedVerdict = await verifyReceiptFile(file, options);
    if (!isDeepStrictEqual(streamedVerdict.verdict, whole)) expect(streamedVerdict.verdict).toEqual(whole);
    // Pieces cut anywhere (a gzip's inflater hands on what it has): the same verdict.
    const bytes = readFileSync(file);
    const scan = new ArchiveScan(false, [signer.pub]);
    for (let at = 0; at < bytes.length; at += 4093) scan.push(bytes.subarray(at, at + 4093));
    scan.finish();
    const { result } = verdictOf(scan, options);
    if (!isDeepStrictEqual(result, whole)) expect(result).toEqual(whole);
    expect(whole.signature_ok).toBe(true);
    if (label === 'canonical') {
      expect(whole.ok).toBe(true);
      // Never held whole: what makes the bytes again is kept, and made again they are the bytes read.
      expect(scan.members.manifest).toBeUndefined();
      expect(streamedVerdict.manifestBytes?.equals(manifestBytes)).toBe(true);
    } else if (label !== 'head') expect(whole.ok).toBe(false);
  });
});

describe('a manifest over 16 MiB not in canonical form', () => {
  /**
   * An unsigned receipt whose manifest lists `n` digests (digestOf(1) to digestOf(n)), the one at `bad` with an
   * upper-case digit. Its list is written straight into bytes and the archive straight to its file: made as strings
   * (a million of them, joined, then copied into a tar in memory), the two 70 MB receipts below cost the test ~4 s
   * of CPU, several times what the verifies they are made for cost.
   */
  function writeLarge(name: string, n: number, bad: number): { file: string; size: number } {
    const { manifest: empty, journal } = refReceiptParts([], [[]]);
    const open = empty.indexOf('"blob_digests":[') + 16;
    const list = Buffer.alloc(n * 67 - 1, '0');
    for (let i = 0; i < n; i++) {
      const at = i * 67;
      list[at] = list[at + 65] = 0x22;
      if (i < n - 1) list[at + 66] = 0x2c;
      for (let v = i + 1, d = at + 64; v > 0; v = Math.floor(v / 16), d--) list[d] = HEX.charCodeAt(v % 16);
    }
    list[bad * 67 + 1] = 0x41;
    const parts = [empty.subarray(0, open), list, empty.subarray(open)];
    const size = parts.reduce((sum, p) => sum + p.length, 0);
    const file = path.join(root, name);
    const fd = openSync(file, 'w');
    try {
      const tar = new TarWriter((b) => writeSync(fd, b), 1_700_000_000);
      tar.member('manifest.json', size, (put) => parts.forEach(put));
      tar.member('journal/000000.jsonl', journal.length, (put) => put(journal));
      tar.end();
    } finally {
      closeSync(fd);
    }
    return { file, size };
  }

  it('is manifest_too_large, read whole or streamed (every reader of the bytes says the same)', async () => {
    const n = Math.ceil((17 * 1024 * 1024) / 67);
    const { file, size } = writeLarge('17mib.tar', n, n - 1);
    const whole = verifyReceipt(readFileSync(file));
    const { verdict } = await verifyReceiptFile(file);
    const fault = {
      kind: 'manifest_too_large',
      message: `manifest.json is ${size} bytes and not in canonical form: a manifest read the general way is at most ${GENERAL_MANIFEST_MAX_BYTES} bytes (16 MiB)`,
      member: 'manifest.json',
    };
    expect(whole.errors[0]).toEqual(fault);
    expect(verdict).toEqual(whole);
  });

  /**
   * Peak RSS of `receipt verify` on a receipt whose 70 MB manifest breaks its form at its first digest, or at its
   * last: its bytes are not collected, nor read as text (read whole, as before, such a manifest held ~6 times its
   * size). The digest set of a million is ~40 MB of it.
   */
  it('is refused in memory that does not grow with it', () => {
    const n = 1_050_000;
    const env = { ...process.env, STEPCHAIN_AUDIT: 'off' };
    for (const [name, bad] of [
      ['first.tar', 0],
      ['last.tar', n - 1],
    ] as const) {
      const { file } = writeLarge(name, n, bad);
      // More digests than a verify holds by default (too_many_digests first, for the one broken last): raised here.
      const r = peakRss([process.execPath, cliPath, 'receipt', 'verify', file, '--json', '--max-digests', '2000000'], {
        env,
      });
      expect(r.code).toBe(1);
      expect((JSON.parse(r.out) as { errors: { kind: string }[] }).errors[0]!.kind).toBe('manifest_too_large');
      expect(r.mb).toBeLessThan(150);
      if (bad === 0) continue;
      // Under the default budget the one broken last stops at its 1,000,001st digest: too_many_digests, as bounded.
      const d = peakRss([process.execPath, cliPath, 'receipt', 'verify', file, '--json'], { env });
      expect(d.code).toBe(1);
      expect((JSON.parse(d.out) as { errors: { kind: string }[] }).errors.map((e) => e.kind)).toEqual([
        'too_many_digests',
      ]);
      expect(d.mb).toBeLessThan(150);
    }
  }, 120_000);
});
