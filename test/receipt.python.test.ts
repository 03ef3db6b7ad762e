import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Journal, journalDir, journalFile } from '../src/journal';
import {
  buildPublishedReceipt,
  exportReceipt,
  loadReceipt,
  readPrivateKeyFile,
  readPublicKeyFile,
  readTar,
  verifyReceipt,
  writeKeyPair,
  writeTar,
} from '../src/receipt';
import { conformanceDir, repoRoot } from './helpers/paths';
import { tempDir } from './helpers/tmp';
import { python3 } from './helpers/python';

/**
 * Both directions with an independent reader/writer (test/python/receipt_peer.py:
 * python3 tarfile + json + hashlib + the reference walk; the signature through
 * the `cryptography` package when importable, and through openssl).
 */
const root = tempDir('stepchain-receipt-py-');
const peer = path.join(repoRoot, 'test', 'python', 'receipt_peer.py');
const AGENT = 'py-agent';
const priv = path.join(root, 'signing.pem');
const pubFile = path.join(root, 'verify.pem');
const hasCryptography = spawnSync(python3(), ['-c', 'import cryptography']).status === 0;

interface PeerResult {
  ok: boolean;
  head_hash: string;
  steps: number;
  signed: boolean;
  signature: string;
  errors: string[];
}

function runPeer(args: string[]): { code: number; doc: PeerResult | undefined; stderr: string } {
  const r = spawnSync(python3(), [peer, ...args], { encoding: 'utf8' });
  let doc: PeerResult | undefined;
  try {
    doc = JSON.parse(r.stdout) as PeerResult;
  } catch {
    doc = undefined;
  }
  return { code: r.status ?? -1, doc, stderr: r.stderr };
}

beforeAll(() => {
  writeKeyPair(priv, pubFile);
  const j = Journal.open(journalDir(root, AGENT), { durability: 'none' });
  j.append({
    input: Buffer.from('in 0'),
    model: 'claude',
    prompt: 'Étape — résumé ✓ 😀',
    tool_call: { n: 123456789012345678901234567890n, f: 1e-7, z: -0.5 },
    tool_result: { big: 1e22, s: 'a\u0000b\u007f' },
  });
  j.append({
    input: Buffer.from('in 1'),
    blobs: [Buffer.from([0, 1, 2, 255])],
    prompt: null,
    tool_call: [1, 2.5, 'x'],
    tool_result: null,
  });
  j.append({
    inputHash: 'cd'.repeat(32),
    model: null,
    prompt: '\ud83d',
    tool_result: { nested: { deep: [true, false, null] } },
  });
});

describe('stepchain receipts verify under an independent Python reader', () => {
  it('a signed receipt with blobs: tarfile + the reference walk + the signature', () => {
    const out = path.join(root, 'signed.tar');
    const built = exportReceipt(journalFile(root, AGENT), out, { signKey: readPrivateKeyFile(priv) });
    const r = runPeer(['verify', out, '--public-key', pubFile, '--expected-head', built.manifest.head_hash]);
    expect(r.stderr).toBe('');
    expect(r.doc).toMatchObject({ ok: true, head_hash: built.manifest.head_hash, steps: 3, signed: true, errors: [] });
    expect(r.doc!.signature).toBe(hasCryptography ? 'verified' : 'unchecked (no cryptography package)');
    expect(r.code).toBe(0);
  });

  it('gzip-compressed and published (redacted) receipts too', () => {
    const gz = path.join(root, 'signed.tar.gz');
    exportReceipt(journalFile(root, AGENT), gz, { signKey: readPrivateKeyFile(priv) });
    expect(runPeer(['verify', gz, '--public-key', pubFile]).doc).toMatchObject({ ok: true, steps: 3 });
    const pub = buildPublishedReceipt(journalFile(root, AGENT), {
      optIn: true,
      redact: ['prompt', 'model', 'tool_call', 'tool_result'],
    });
    const file = path.join(root, 'published.tar');
    writeFileSync(file, pub.bytes);
    expect(runPeer(['verify', file, '--expected-head', pub.published_head]).doc).toMatchObject({
      ok: true,
      head_hash: pub.published_head,
      signed: false,
    });
  });

  it('the peer is not vacuous: it fails a tampered stepchain receipt', () => {
    const bytes = readFileSync(path.join(root, 'signed.tar'));
    const members = readTar(bytes).map((e) => ({ name: e.name, data: Buffer.from(e.data) }));
    const j = members.find((m) => m.name === 'journal/000000.jsonl')!;
    j.data = Buffer.from(j.data.toString().replace('"claude"', '"claudf"'));
    const file = path.join(root, 'tampered.tar');
    writeFileSync(file, writeTar(members, 0));
    const r = runPeer(['verify', file]);
    expect(r.code).toBe(1);
    expect(r.doc!.errors).toContain('line 1: step hash');
    expect(verifyReceipt(file, { publicKeys: [readPublicKeyFile(pubFile)] }).errors.map((e) => e.kind)).toEqual([
      'step_hash_mismatch',
    ]);
  });

  it('openssl verifies manifest.sig, and its own Ed25519 signature is byte-identical to ours', () => {
    const loaded = loadReceipt(path.join(root, 'signed.tar'));
    const m = path.join(root, 'manifest.json');
    const sig = path.join(root, 'manifest.sig.bin');
    writeFileSync(m, loaded.manifestBytes);
    writeFileSync(sig, loaded.signature!);
    const v = spawnSync(
      'openssl',
      ['pkeyutl', '-verify', '-pubin', '-inkey', pubFile, '-rawin', '-in', m, '-sigfile', sig],
      { encoding: 'utf8' },
    );
    expect(v.stdout).toMatch(/Signature Verified Successfully/);
    expect(v.status).toBe(0);
    const s = spawnSync('openssl', ['pkeyutl', '-sign', '-inkey', priv, '-rawin', '-in', m]);
    expect(s.status).toBe(0);
    expect(Buffer.from(s.stdout).equals(loaded.signature!)).toBe(true);
  });
});

describe('receipts written by Python verify in stepchain', () => {
  it("the reference implementation's receipt (also under the peer)", () => {
    const ref = path.join(conformanceDir, 'reference-receipt.tar');
    const refPub = path.join(conformanceDir, 'reference-verify.pem');
    const expected = JSON.parse(readFileSync(path.join(conformanceDir, 'reference-expected.json'), 'utf8'));
    expect(runPeer(['verify', ref, '--public-key', refPub]).doc).toMatchObject({
      ok: true,
      head_hash: expected.journal_head,
    });
    const r = verifyReceipt(ref, { publicKeys: [readPublicKeyFile(refPub)], expectedHead: expected.journal_head });
    expect(r).toMatchObject({ ok: true, steps: expected.steps, signed: true, signature_ok: true, errors: [] });
  });

  it.each([
    ['plain tar (PAX headers for float mtimes)', false],
    ['gzip', true],
  ])('a Python tarfile receipt of our journal with blobs: %s', (_n, gz) => {
    const out = path.join(root, gz ? 'py.tar.gz' : 'py.tar');
    const args = [
      'write',
      journalFile(root, AGENT),
      out,
      '--agent-id',
      AGENT,
      '--blobs-dir',
      path.join(root, '.sdd', 'runtime', 'cas'),
    ];
    if (hasCryptography) args.push('--sign-key', priv);
    if (gz) args.push('--gz');
    const w = runPeer(args);
    expect(w.stderr).toBe('');
    expect(w.code).toBe(0);
    const keys = hasCryptography ? [readPublicKeyFile(pubFile)] : [];
    const r = verifyReceipt(out, { publicKeys: keys, requireBlobs: true });
    expect(r.errors).toEqual([]);
    expect(r).toMatchObject({ ok: true, steps: 3, signed: hasCryptography, blobs: { missing: [] } });
    expect(r.blobs.bundled).toHaveLength(3);
    if (!gz) {
      // The archive really uses pax headers, and we honoured them.
      expect(readFileSync(out).includes(Buffer.from('PaxHeader'))).toBe(true);
    }
  });
});
