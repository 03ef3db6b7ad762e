import { spawnSync } from 'node:child_process';
import { createHash, createPublicKey, generateKeyPairSync, verify as cryptoVerify } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { canonical, parse } from '../src/canonical';
import { auditDir, queryAudit } from '../src/audit';
import { InputError, IntegrityError } from '../src/errors';
import { Journal, journalDir, journalFile, readJournalBytes } from '../src/journal';
import {
  buildPublishedReceipt,
  buildReceipt,
  encodeManifest,
  exportReceipt,
  keyIdOf,
  inspectReceipt,
  loadReceipt,
  newManifest,
  packReceipt,
  parsePrivateKey,
  parsePublicKey,
  parseRedactFields,
  publicKeyProblem,
  publishReceipt,
  readTar,
  REDACTED,
  verifyReceipt,
  writeTar,
  type Manifest,
  type PublicKey,
  type ReceiptVerifyResult,
  type SigningKey,
} from '../src/receipt';
import { ED_D, ED_SQRT_M1 } from '../src/receipt/keys';
import { conformanceDir } from './helpers/paths';
import { paxMember, rawTar, type RawMember } from './helpers/tar';
import { tempDir } from './helpers/tmp';

const root = tempDir('stepchain-receipt-');
const AGENT = 'agent-r';
const sha = (b: string | Buffer): string => createHash('sha256').update(b).digest('hex');

function newKeys(): { signing: SigningKey; pub: PublicKey } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const signing = parsePrivateKey(
    Buffer.from(privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()),
    'test.pem',
  );
  const pub = parsePublicKey(Buffer.from(publicKey.export({ format: 'pem', type: 'spki' }).toString()), 'test.pub.pem');
  return { signing, pub };
}
const { signing, pub } = newKeys();
const other = newKeys();

beforeAll(() => {
  const j = Journal.open(journalDir(root, AGENT), { durability: 'none' });
  j.append({
    input: Buffer.from('first input'),
    model: 'm',
    prompt: 'héllo ✓',
    tool_call: { name: 'run', n: 123456789012345678901234567890n },
    tool_result: { ok: true, ratio: 0.5 },
  });
  j.append({
    input: Buffer.from('second'),
    blobs: [Buffer.from('a blob'), Buffer.from('first input')],
    prompt: null,
    tool_call: null,
    tool_result: 'done',
  });
  j.append({ inputHash: 'ab'.repeat(32), model: 'm', prompt: 'third', tool_result: null });
});

const jfile = (): string => journalFile(root, AGENT);

/** The members of an exported receipt, as a name -> bytes map (in order). */
function membersOf(bytes: Buffer): RawMember[] {
  return readTar(bytes).map((e) => ({ name: e.name, data: Buffer.from(e.data) }));
}

function kinds(r: ReceiptVerifyResult): string[] {
  return r.errors.map((e) => e.kind);
}

describe('export and verify (library)', () => {
  it('round-trips a signed receipt: manifest, canonical journal, blobs in first-occurrence order', () => {
    const built = buildReceipt(jfile(), { signKey: signing, now: new Date('2026-12-02T10:11:12.345Z') });
    const names = readTar(built.bytes).map((e) => e.name);
    const inputs = [sha('first input'), sha('second'), sha('a blob')];
    expect(names).toEqual([
      'manifest.json',
      'manifest.sig',
      'journal/000000.jsonl',
      ...inputs.map((d) => `blobs/${d}`),
    ]);
    expect(built.manifest).toMatchObject({
      agent_id: AGENT,
      steps: 3,
      bernstein_version: 'stepchain/0.1.0',
      created_at: '2026-12-02T10:11:12Z',
      blob_digests: inputs,
      format_version: 1,
    });
    expect(built.blobs).toEqual({ bundled: inputs, missing: [] });
    const loaded = loadReceipt(built.bytes);
    expect(loaded.journal.equals(readFileSync(jfile()))).toBe(true);
    expect(loaded.manifestBytes.toString()).toBe(canonical(parse(loaded.manifestBytes.toString())));
    expect(loaded.signature).toHaveLength(64);
    const r = verifyReceipt(built.bytes, {
      publicKeys: [other.pub, pub],
      requireBlobs: true,
      expectedHead: built.manifest.head_hash,
    });
    expect(r).toEqual({
      ok: true,
      head_hash: built.manifest.head_hash,
      steps: 3,
      signed: true,
      signature_ok: true,
      key_id: pub.keyId,
      blobs: { bundled: inputs, missing: [] },
      published: false,
      redacted_fields: [],
      errors: [],
      fault_count: 0,
    });
    expect(pub.keyId).toBe(sha(pub.raw).slice(0, 16));
  });

  it('is deterministic for a given created_at and key (Ed25519 signatures are deterministic)', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(
      buildReceipt(jfile(), { signKey: signing, now }).bytes.equals(
        buildReceipt(jfile(), { signKey: signing, now }).bytes,
      ),
    ).toBe(true);
  });

  it("verifies the reference implementation's receipt and its expected values", () => {
    const expected = JSON.parse(readFileSync(path.join(conformanceDir, 'reference-expected.json'), 'utf8'));
    const refPub = parsePublicKey(
      readFileSync(path.join(conformanceDir, 'reference-verify.pem')),
      'reference-verify.pem',
    );
    const r = verifyReceipt(path.join(conformanceDir, 'reference-receipt.tar'), {
      publicKeys: [refPub],
      expectedHead: expected.journal_head,
    });
    expect(r.errors).toEqual([]);
    expect(r).toMatchObject({
      ok: true,
      head_hash: expected.journal_head,
      steps: expected.steps,
      signed: expected.receipt_signed,
      signature_ok: true,
    });
    // The reference signing key, as PEM or as a raw seed, is the same key.
    const refPriv = parsePrivateKey(
      readFileSync(path.join(conformanceDir, 'reference-signing.pem')),
      'reference-signing.pem',
    );
    const der = refPriv.key.export({ format: 'der', type: 'pkcs8' });
    const seed = parsePrivateKey(Buffer.from(der.subarray(der.length - 32)), 'seed');
    expect(seed.keyId).toBe(refPub.keyId);
    expect(refPriv.keyId).toBe(refPub.keyId);
    // Gzip-compressed receipts are read too.
    const gz = gzipSync(readFileSync(path.join(conformanceDir, 'reference-receipt.tar')));
    expect(verifyReceipt(gz, { publicKeys: [refPub] }).ok).toBe(true);
  });

  it('exports gzip when the name says so, and refuses a broken chain', () => {
    const out = path.join(root, 'r.tar.gz');
    exportReceipt(jfile(), out, {});
    const bytes = readFileSync(out);
    expect(bytes.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect(verifyReceipt(out).ok).toBe(true);

    const bad = path.join(root, 'bad', '000000.jsonl');
    mkdirSync(path.dirname(bad), { recursive: true });
    writeFileSync(bad, readFileSync(jfile(), 'utf8').replace('"third"', '"THIRD"'));
    expect(() => buildReceipt(bad)).toThrow(IntegrityError);
    expect(() => buildReceipt(bad)).toThrow(/000000\.jsonl:3: step_hash_mismatch/);
    expect(() => exportReceipt(jfile(), jfile())).toThrow(InputError);
  });

  it('reports blobs missing from the CAS, and --require-blobs fails on them', () => {
    const digest = sha('first input');
    const casFile = path.join(root, '.sdd', 'runtime', 'cas', digest.slice(0, 2), digest);
    const saved = readFileSync(casFile);
    writeFileSync(casFile, 'corrupted');
    try {
      const built = buildReceipt(jfile());
      expect(built.blobs.missing).toEqual([digest]);
      expect(built.warnings[0]).toMatch(/does not match its digest/);
      const r = verifyReceipt(built.bytes);
      expect(r.ok).toBe(true);
      expect(r.blobs.missing).toEqual([digest]);
      const strict = verifyReceipt(built.bytes, { requireBlobs: true });
      expect(strict.ok).toBe(false);
      expect(strict.errors).toEqual([{ kind: 'missing_blob', message: expect.any(String), member: `blobs/${digest}` }]);
    } finally {
      writeFileSync(casFile, saved);
    }
  });
});

describe('verify: what a receipt claims must hold', () => {
  const base = (): { manifest: Manifest; journal: Buffer; blobs: [string, Buffer][] } => {
    const loaded = loadReceipt(buildReceipt(jfile()).bytes);
    return { manifest: loaded.manifest, journal: loaded.journal, blobs: [...loaded.blobs] };
  };

  it('a tampered journal line: step_hash_mismatch with member and line, even under a good signature', () => {
    const b = base();
    const tampered = Buffer.from(b.journal.toString().replace('"third"', '"THIRD"'));
    const r = verifyReceipt(packReceipt(b.manifest, tampered, b.blobs, { signKey: signing }).bytes, {
      publicKeys: [pub],
    });
    expect(r.signature_ok).toBe(true);
    expect(r.errors).toContainEqual({
      kind: 'step_hash_mismatch',
      message: expect.any(String),
      member: 'journal/000000.jsonl',
      line: 3,
    });
    // The walked head is the last *stored* step_hash, so only the tampered line is reported.
    expect(kinds(r)).toEqual(['step_hash_mismatch']);
  });

  it('manifest head, steps and blob_digests must match the chain', () => {
    const b = base();
    const pack = (m: Partial<Manifest>): ReceiptVerifyResult =>
      verifyReceipt(packReceipt({ ...b.manifest, ...m }, b.journal, b.blobs, {}).bytes);
    expect(kinds(pack({ head_hash: 'cd'.repeat(32) }))).toEqual(['manifest_head_mismatch']);
    expect(kinds(pack({ steps: 4 }))).toEqual(['manifest_steps_mismatch']);
    expect(kinds(pack({ blob_digests: [...b.manifest.blob_digests].reverse() }))).toEqual(['blob_digests_mismatch']);
    expect(kinds(pack({ blob_digests: b.manifest.blob_digests.slice(1) }))).toEqual([
      'blob_digests_mismatch',
      'unexpected_blob',
    ]);
  });

  it('a blob whose bytes are not its name, and a blob no step refers to', () => {
    const b = base();
    const wrong = b.blobs.map(([d, data], i): [string, Buffer] => [d, i === 0 ? Buffer.from('other') : data]);
    expect(verifyReceipt(packReceipt(b.manifest, b.journal, wrong, {}).bytes).errors).toEqual([
      { kind: 'blob_digest_mismatch', message: expect.any(String), member: `blobs/${b.blobs[0]![0]}` },
    ]);
    const extra: [string, Buffer][] = [...b.blobs, [sha('stray'), Buffer.from('stray')]];
    expect(kinds(verifyReceipt(packReceipt(b.manifest, b.journal, extra, {}).bytes))).toEqual(['unexpected_blob']);
  });

  it('a non-canonical journal line is refused even when its hash holds', () => {
    const b = base();
    const lines = b.journal.toString().split('\n');
    lines[1] = lines[1]!.replace('{"blob_refs"', '{ "blob_refs"');
    const r = verifyReceipt(packReceipt(b.manifest, Buffer.from(lines.join('\n')), b.blobs, {}).bytes);
    expect(r.errors).toEqual([
      { kind: 'non_canonical', message: expect.any(String), member: 'journal/000000.jsonl', line: 2 },
    ]);
  });

  it('signatures: signed without a key, unsigned with a key, a wrong key, several keys', () => {
    const b = base();
    const signed = packReceipt(b.manifest, b.journal, b.blobs, { signKey: signing }).bytes;
    const unsigned = packReceipt(b.manifest, b.journal, b.blobs, {}).bytes;
    const noKey = verifyReceipt(signed);
    expect(noKey).toMatchObject({ ok: false, signed: true, signature_ok: null, key_id: null });
    expect(kinds(noKey)).toEqual(['no_trusted_key']);
    expect(kinds(verifyReceipt(unsigned, { publicKeys: [pub] }))).toEqual(['unsigned']);
    const wrong = verifyReceipt(signed, { publicKeys: [other.pub] });
    expect(wrong).toMatchObject({ ok: false, signature_ok: false, key_id: null });
    expect(kinds(wrong)).toEqual(['signature_invalid']);
    expect(verifyReceipt(unsigned)).toMatchObject({ ok: true, signed: false, signature_ok: null });
    // A signature over other manifest bytes does not carry over.
    const m2 = { ...b.manifest, created_at: '2020-01-01T00:00:00Z' };
    const sigOf2 = membersOf(packReceipt(m2, b.journal, b.blobs, { signKey: signing }).bytes).find(
      (m) => m.name === 'manifest.sig',
    )!;
    const swapped = membersOf(signed).map((m) => (m.name === 'manifest.sig' ? sigOf2 : m));
    expect(
      kinds(
        verifyReceipt(
          writeTar(
            swapped.map((m) => ({ name: m.name, data: Buffer.from(m.data!) })),
            0,
          ),
          { publicKeys: [pub] },
        ),
      ),
    ).toEqual(['signature_invalid']);
  });

  it('an expected head that differs is head_mismatch', () => {
    const r = verifyReceipt(buildReceipt(jfile()).bytes, { expectedHead: '0'.repeat(64) });
    expect(kinds(r)).toEqual(['head_mismatch']);
  });
});

/** A receipt from the base parts with some members replaced or added, as a raw tar. */
function variant(edit: (members: RawMember[]) => RawMember[]): Buffer {
  return rawTar(edit(membersOf(buildReceipt(jfile(), { signKey: signing }).bytes)));
}

describe('hostile receipts: a named fault, never a crash, nothing interpreted', () => {
  const cases: [string, () => Buffer, string][] = [
    ['path traversal', () => variant((m) => [...m, { name: '../evil.txt', data: 'x' }]), 'unsafe_member'],
    ['nested traversal', () => variant((m) => [...m, { name: 'blobs/../../evil', data: 'x' }]), 'unsafe_member'],
    ['absolute name', () => variant((m) => [...m, { name: '/tmp/stepchain-evil', data: 'x' }]), 'unsafe_member'],
    [
      'absolute via ustar prefix',
      () => variant((m) => [...m, { name: 'evil', prefix: '/tmp', data: 'x' }]),
      'unsafe_member',
    ],
    [
      'traversal via pax path',
      () => variant((m) => [...m, paxMember({ path: '../../evil' }), { name: 'innocent', data: 'x' }]),
      'unsafe_member',
    ],
    [
      'symlink member',
      () => variant((m) => [...m, { name: 'blobs/' + 'a'.repeat(64), type: '2', linkname: '/etc/passwd' }]),
      'unsafe_member',
    ],
    [
      'symlink journal',
      () =>
        variant((m) => [
          ...m.filter((x) => x.name !== 'journal/000000.jsonl'),
          { name: 'journal/000000.jsonl', type: '2', linkname: '/etc/passwd' },
        ]),
      'unsafe_member',
    ],
    [
      'hardlink member',
      () => variant((m) => [...m, { name: 'manifest.json', type: '1', linkname: 'journal/000000.jsonl' }]),
      'unsafe_member',
    ],
    ['character device', () => variant((m) => [...m, { name: 'dev', type: '3' }]), 'unsafe_member'],
    ['FIFO', () => variant((m) => [...m, { name: 'fifo', type: '6' }]), 'unsafe_member'],
    [
      'GNU long name',
      () => variant((m) => [...m, { name: '././@LongLink', type: 'L', data: '../evil\0' }]),
      'unsafe_member',
    ],
    ['unknown member', () => variant((m) => [...m, { name: 'notes.txt', data: 'hi' }]), 'unknown_member'],
    ['unknown directory', () => variant((m) => [...m, { name: 'other/', type: '5' }]), 'unknown_member'],
    [
      'duplicate journal (first good, last tampered)',
      () =>
        variant((m) => [
          ...m,
          {
            name: 'journal/000000.jsonl',
            data: Buffer.from(m.find((x) => x.name === 'journal/000000.jsonl')!.data!)
              .toString()
              .replace('third', 'THIRD'),
          },
        ]),
      'duplicate_member',
    ],
    ['duplicate manifest', () => variant((m) => [...m, m[0]!]), 'duplicate_member'],
    [
      'member far larger than its header claims',
      () => variant((m) => m.map((x) => (x.name === 'journal/000000.jsonl' ? { ...x, size: 10 } : x))),
      'corrupt_archive',
    ],
    ['truncated archive (cut inside a member)', () => variant((m) => m).subarray(0, 512 * 3 + 100), 'truncated'],
    ['truncated archive (cut inside a header)', () => variant((m) => m).subarray(0, 512 * 2 + 300), 'truncated'],
    [
      '2 GB declared size',
      () => rawTar([{ name: 'journal/000000.jsonl', size: 2 * 1024 ** 3, data: 'tiny' }]),
      'truncated',
    ],
    [
      'huge declared size (8 GB, base-256: refused, as every numeric field not in plain octal)',
      () => {
        const t = rawTar([{ name: 'manifest.json', data: 'x' }]);
        t.fill(0, 124, 136);
        t[124] = 0x80;
        t[131] = 0x02; // 2 * 256^4 = 8 GiB
        let sum = 0;
        t.fill(0x20, 148, 156);
        for (let i = 0; i < 512; i++) sum += t[i]!;
        t.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'latin1');
        return t;
      },
      'corrupt_archive',
    ],
    [
      'non-zero bytes after the end marker',
      () => Buffer.concat([variant((m) => m), Buffer.from('hidden member')]),
      'trailing_data',
    ],
    ['not a tar (text)', () => Buffer.from('this is not a receipt\n'.repeat(50)), 'not_a_receipt'],
    ['not a tar (short)', () => Buffer.from('hi'), 'not_a_receipt'],
    ['empty file', () => Buffer.alloc(0), 'not_a_receipt'],
    ['only zero blocks', () => Buffer.alloc(10240), 'not_a_receipt'],
    [
      'corrupt gzip',
      () => Buffer.concat([gzipSync(Buffer.alloc(4096)).subarray(0, 20), Buffer.from('garbage')]),
      'not_a_receipt',
    ],
    [
      'manifest not JSON',
      () => variant((m) => m.map((x) => (x.name === 'manifest.json' ? { ...x, data: '{"agent_id": nope' } : x))),
      'manifest_not_json',
    ],
    [
      'manifest not UTF-8',
      () =>
        variant((m) =>
          m.map((x) => (x.name === 'manifest.json' ? { ...x, data: Buffer.from([0x7b, 0xff, 0x7d]) } : x)),
        ),
      'manifest_not_json',
    ],
    [
      'manifest not canonical (pretty-printed)',
      () =>
        variant((m) =>
          m.map((x) =>
            x.name === 'manifest.json'
              ? { ...x, data: JSON.stringify(JSON.parse(Buffer.from(x.data!).toString()), null, 1) }
              : x,
          ),
        ),
      'manifest_not_canonical',
    ],
    [
      'manifest with a trailing newline',
      () =>
        variant((m) =>
          m.map((x) => (x.name === 'manifest.json' ? { ...x, data: `${Buffer.from(x.data!).toString()}\n` } : x)),
        ),
      'manifest_not_canonical',
    ],
    [
      'manifest format_version 2',
      () =>
        variant((m) =>
          m.map((x) =>
            x.name === 'manifest.json'
              ? { ...x, data: Buffer.from(x.data!).toString().replace('"format_version":1', '"format_version":2') }
              : x,
          ),
        ),
      'unknown_format_version',
    ],
    [
      'manifest missing a key',
      () =>
        variant((m) =>
          m.map((x) =>
            x.name === 'manifest.json'
              ? {
                  ...x,
                  data: Buffer.from(x.data!)
                    .toString()
                    .replace(/"steps":3/, '"stepz":3'),
                }
              : x,
          ),
        ),
      'manifest_invalid',
    ],
    [
      'manifest a JSON array',
      () => variant((m) => m.map((x) => (x.name === 'manifest.json' ? { ...x, data: '[]' } : x))),
      'manifest_invalid',
    ],
    ['no manifest', () => variant((m) => m.filter((x) => x.name !== 'manifest.json')), 'missing_member'],
    ['no journal', () => variant((m) => m.filter((x) => x.name !== 'journal/000000.jsonl')), 'missing_member'],
    [
      'signature not base64',
      () => variant((m) => m.map((x) => (x.name === 'manifest.sig' ? { ...x, data: '!!!! not base64 ####' } : x))),
      'signature_not_base64',
    ],
    [
      'signature with inner whitespace',
      () =>
        variant((m) =>
          m.map((x) =>
            x.name === 'manifest.sig'
              ? {
                  ...x,
                  data: `${Buffer.from(x.data!).toString().slice(0, 40)} ${Buffer.from(x.data!).toString().slice(40)}`,
                }
              : x,
          ),
        ),
      'signature_not_base64',
    ],
    [
      'signature of the wrong length',
      () =>
        variant((m) =>
          m.map((x) => (x.name === 'manifest.sig' ? { ...x, data: Buffer.alloc(63, 7).toString('base64') } : x)),
        ),
      'signature_wrong_length',
    ],
  ];

  it.each(cases)('%s', (_name, make, kind) => {
    const r = verifyReceipt(make(), { publicKeys: [pub] });
    expect(r.ok).toBe(false);
    expect(kinds(r)).toContain(kind);
    for (const e of r.errors) {
      expect(typeof e.message).toBe('string');
      expect(e.message).not.toMatch(/\n/);
    }
    expect(() => loadReceipt(make())).toThrow(IntegrityError);
  });

  it('hostile layouts are refused inside gzip too', () => {
    const traversal = gzipSync(variant((m) => [...m, { name: '../evil.txt', data: 'x' }]));
    expect(kinds(verifyReceipt(traversal, { publicKeys: [pub] }))).toEqual(['unsafe_member']);
    const truncated = gzipSync(variant((m) => m).subarray(0, 1000));
    expect(kinds(verifyReceipt(truncated))).toEqual(['truncated']);
  });

  it('fuzz: flipped, inserted and cut bytes never crash the reader; anything it accepts really verifies', () => {
    const good = buildReceipt(jfile(), { signKey: signing, now: new Date('2026-01-01T00:00:00Z') }).bytes;
    const g = loadReceipt(good);
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            at: fc.nat({ max: good.length - 1 }),
            byte: fc.integer({ min: 0, max: 255 }),
            op: fc.constantFrom('set', 'insert', 'cut'),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        (edits) => {
          let b = Buffer.from(good);
          for (const e of edits) {
            const at = Math.min(e.at, b.length - 1);
            if (e.op === 'set') b[at] = e.byte;
            else if (e.op === 'insert') b = Buffer.concat([b.subarray(0, at), Buffer.from([e.byte]), b.subarray(at)]);
            else b = b.subarray(0, at);
          }
          const r = verifyReceipt(b, { publicKeys: [pub], requireBlobs: true });
          // One expect a run (each builds an error for its stack): every fault has a kind.
          expect(r.errors.filter((err) => typeof err.kind !== 'string')).toEqual([]);
          if (r.ok) {
            // Accepted: then it is the same receipt where it matters (the edit hit padding or unused header bytes).
            const l = loadReceipt(b);
            expect([l.manifestBytes.equals(g.manifestBytes), l.journal.equals(g.journal)]).toEqual([true, true]);
          }
        },
      ),
      { numRuns: 400, seed: 20261202 },
    );
  });

  it('a gzip bomb past the cap is too_large; a file past the cap is too_large before it is read', () => {
    const bomb = gzipSync(Buffer.alloc(4 * 1024 * 1024));
    expect(kinds(verifyReceipt(bomb, { maxBytes: 1024 * 1024 }))).toEqual(['too_large']);
    const big = path.join(root, 'big.tar');
    writeFileSync(big, Buffer.alloc(2 * 1024 * 1024));
    expect(kinds(verifyReceipt(big, { maxBytes: 1024 * 1024 }))).toEqual(['too_large']);
  });

  it('directory members journal/ and blobs/ (as tar -c writes them) are accepted', () => {
    const r = verifyReceipt(
      variant((m) => [m[0]!, m[1]!, { name: 'journal/', type: '5' }, { name: 'blobs/', type: '5' }, ...m.slice(2)]),
      { publicKeys: [pub] },
    );
    expect(r.errors).toEqual([]);
  });

  it('count bombs: 50,000 directory headers in a small gzip are 100 faults and a stop, not a stack overflow', () => {
    const dirHeader = rawTar([{ name: 'journal/', type: '5' }], false);
    // Past any walk that recursed once a member (Node 20's default stack takes 13,920 frames of an empty function,
    // measured): 50,000 keeps that 3.6x margin. 200,000 cost 4.5 s here (a 100 MB archive inflated and walked).
    const n = 50_000;
    const tar = Buffer.alloc((n + 2) * 512);
    for (let i = 0; i < n; i++) dirHeader.copy(tar, i * 512);
    const gz = gzipSync(tar);
    expect(gz.length).toBeLessThan(1024 * 1024);
    const r = verifyReceipt(gz, { publicKeys: [pub] });
    expect(r.ok).toBe(false);
    expect(r.errors).toHaveLength(101);
    expect(
      kinds(r)
        .slice(0, 99)
        .every((k) => k === 'duplicate_member'),
    ).toBe(true);
    expect(kinds(r)[100]).toBe('too_many_faults');
    expect(() => loadReceipt(gz)).toThrow(IntegrityError);
  });

  it('count bombs: members beyond what the manifest allows (its blobs + 5) are refused as too_many_members', () => {
    const good = membersOf(buildReceipt(jfile(), { signKey: signing }).bytes);
    const extra: RawMember[] = [];
    for (let i = 0; i < 10; i++) extra.push({ name: `blobs/${sha(`extra ${i}`)}`, data: `extra ${i}` });
    const r = verifyReceipt(rawTar([...good, ...extra]), { publicKeys: [pub] });
    expect(kinds(r)).toEqual(['too_many_members']);
    expect(r.errors[0]!.message).toMatch(/the manifest names 3 blob\(s\), so a receipt holds at most 8/);
  });

  it('read once: the bytes verified are the bytes displayed (inspectReceipt returns both from one read)', () => {
    const file = path.join(root, 'once.tar');
    writeFileSync(file, buildReceipt(jfile(), { signKey: signing }).bytes);
    const { verdict, receipt } = inspectReceipt(file, { publicKeys: [pub] });
    expect(verdict.ok).toBe(true);
    // The file is replaced after the read: what was verified is still what is held.
    const other = buildReceipt(jfile(), { signKey: signing, now: new Date('2030-01-01T00:00:00Z') });
    writeFileSync(file, other.bytes);
    expect(receipt!.manifest.created_at).not.toBe(other.manifest.created_at);
    expect(receipt!.journal.equals(readFileSync(jfile()))).toBe(true);
    // A broken layout gives a verdict and no parts.
    const bad = inspectReceipt(rawTar([{ name: '../evil', data: 'x' }]));
    expect(bad.receipt).toBeUndefined();
    expect(kinds(bad.verdict)).toEqual(['unsafe_member']);
  });

  it('one read of the file: over the cap is too_large; a FIFO is refused at once, never waited on', () => {
    const big = path.join(root, 'big-once.tar');
    writeFileSync(big, Buffer.alloc(3000));
    expect(kinds(verifyReceipt(big, { maxBytes: 2048 }))).toEqual(['too_large']);
    const fifo = path.join(root, 'receipt.fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    expect(() => verifyReceipt(fifo)).toThrow(/not a regular file/);
  });

  it('a missing receipt file is an input error (exit 2)', () => {
    expect(() => verifyReceipt(path.join(root, 'nope.tar'))).toThrow(InputError);
    expect(() => verifyReceipt(root)).toThrow(InputError);
  });
});

describe('keys', () => {
  it('accepts PEM PKCS#8 and raw seeds; PEM SPKI and raw public keys; refuses everything else (exit 2)', () => {
    const der = signing.key.export({ format: 'der', type: 'pkcs8' });
    const seed = Buffer.from(der.subarray(der.length - 32));
    expect(parsePrivateKey(seed, 'seed').keyId).toBe(signing.keyId);
    expect(parsePublicKey(pub.raw, 'raw').keyId).toBe(pub.keyId);
    expect(keyIdOf(pub.raw)).toBe(pub.keyId);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const rsaPriv = Buffer.from(rsa.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString());
    const rsaPub = Buffer.from(rsa.publicKey.export({ format: 'pem', type: 'spki' }).toString());
    const privPem = Buffer.from(signing.key.export({ format: 'pem', type: 'pkcs8' }).toString());
    const pubPem = Buffer.from(pub.key.export({ format: 'pem', type: 'spki' }).toString());
    const bad: [string, () => unknown][] = [
      ['RSA private', () => parsePrivateKey(rsaPriv, 'k')],
      ['RSA public', () => parsePublicKey(rsaPub, 'k')],
      ['public as private', () => parsePrivateKey(pubPem, 'k')],
      ['private as public', () => parsePublicKey(privPem, 'k')],
      ['seed with a newline', () => parsePrivateKey(Buffer.concat([seed, Buffer.from('\n')]), 'k')],
      ['31 bytes', () => parsePublicKey(pub.raw.subarray(1), 'k')],
      ['garbage text', () => parsePrivateKey(Buffer.from('hello'), 'k')],
      [
        'broken PEM',
        () => parsePublicKey(Buffer.from('-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n'), 'k'),
      ],
      [
        'encrypted PEM',
        () =>
          parsePrivateKey(
            Buffer.from('-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n'),
            'k',
          ),
      ],
      [
        'OpenSSH key',
        () =>
          parsePrivateKey(
            Buffer.from('-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n'),
            'k',
          ),
      ],
    ];
    for (const [name, f] of bad) {
      let err: unknown;
      try {
        f();
      } catch (e) {
        err = e;
      }
      expect([name, err instanceof InputError]).toEqual([name, true]);
    }
  });

  // libsodium's blocklist: every encoding of the eight points of small order, with the sign bit clear (and set below).
  const SMALL_ORDER = [
    '0000000000000000000000000000000000000000000000000000000000000000',
    '0100000000000000000000000000000000000000000000000000000000000000',
    '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
    'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
    'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
    'edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
    'eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  ];
  const SPKI = Buffer.from('302a300506032b6570032100', 'hex');
  const pemOf = (raw: Buffer): Buffer =>
    Buffer.from(
      createPublicKey({ key: Buffer.concat([SPKI, raw]), format: 'der', type: 'spki' })
        .export({ format: 'pem', type: 'spki' })
        .toString(),
    );

  it('a PEM public key reads as OpenSSL reads it: in the form OpenSSL writes (read without its decoder) and others', () => {
    // The form OpenSSL writes is read from its 32 bytes (src/receipt/keys.ts, ed25519SpkiPem); any other spelling
    // goes to OpenSSL's decoder. Either way the key, or the refusal, is OpenSSL's.
    const asOpenSsl = (pem: string): string | undefined => {
      try {
        const key = createPublicKey({ key: pem, format: 'pem' });
        const der = key.export({ format: 'der', type: 'spki' });
        return key.asymmetricKeyType === 'ed25519' ? keyIdOf(der.subarray(der.length - 32)) : undefined;
      } catch {
        return undefined;
      }
    };
    const ours = (pem: string): string | undefined => {
      try {
        return parsePublicKey(Buffer.from(pem), 'k.pub').keyId;
      } catch (e) {
        if (!(e instanceof InputError)) throw e;
        return undefined;
      }
    };
    const keys = [pub.raw];
    for (let i = 0; i < 8; i++) {
      const der = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' });
      keys.push(Buffer.from(der.subarray(der.length - 32)));
    }
    for (const raw of keys) {
      const pem = pemOf(raw).toString();
      const body = pem.split('\n')[1]!;
      // The last character with a stray bit set: the same 44 bytes, a spelling OpenSSL never writes.
      const last = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
      const stray = body.slice(0, 58) + last[last.indexOf(body[58]!) ^ 1] + '=';
      for (const variant of [
        pem,
        pem.trimEnd(),
        pem.replaceAll('\n', '\r\n'),
        `${pem}\n\n`,
        pem.replace(body, `${body.slice(0, 30)}\n${body.slice(30)}`),
        pem.replace(body, stray),
        pem.replace(body, body.slice(4)),
      ]) {
        expect([variant, ours(variant)]).toEqual([variant, asOpenSsl(variant)]);
      }
      expect(ours(pem)).toBe(keyIdOf(raw));
    }
    // Another key of the same length and form (X25519: the same bytes but for its algorithm's OID) is not Ed25519.
    const x25519 = generateKeyPairSync('x25519').publicKey.export({ format: 'pem', type: 'spki' }).toString();
    expect([ours(x25519), asOpenSsl(x25519)]).toEqual([undefined, undefined]);
  });

  it('small-order public keys (all eight points, canonical or not, raw or PEM) are refused when loaded', () => {
    // Why: under the identity, a "signature" R = identity, S = 0 verifies any manifest in node:crypto.
    const identity = Buffer.from(SMALL_ORDER[1]!, 'hex');
    const forged = Buffer.concat([identity, Buffer.alloc(32)]);
    const idKey = createPublicKey({ key: Buffer.concat([SPKI, identity]), format: 'der', type: 'spki' });
    expect(cryptoVerify(null, Buffer.from('{"any":"manifest"}'), idKey, forged)).toBe(true);
    let refused = 0;
    for (const hex of SMALL_ORDER) {
      for (const signBit of [0, 0x80]) {
        const raw = Buffer.from(hex, 'hex');
        raw[31]! |= signBit;
        for (const [form, bytes] of [
          ['raw', raw],
          ['pem', pemOf(raw)],
        ] as const) {
          let err: unknown;
          try {
            parsePublicKey(bytes, 'evil.pub');
          } catch (e) {
            err = e;
          }
          expect([hex, signBit, form, err instanceof InputError]).toEqual([hex, signBit, form, true]);
          expect((err as Error).message).toMatch(/^evil\.pub: .*(small order|non-canonical)/);
          refused++;
        }
      }
    }
    expect(refused).toBe(28);
    // A real key still loads, raw and PEM.
    expect(parsePublicKey(pub.raw, 'ok').keyId).toBe(pub.keyId);
    expect(parsePublicKey(pemOf(pub.raw), 'ok').keyId).toBe(pub.keyId);
  });

  it('the small-order check (projective doubling) answers as the affine computation does: keys, keys plus a small-order point, the small-order points', () => {
    // The reference: the affine Edwards law (RFC 8032 §5.1.4), two inversions a doubling, d and sqrt(-1) computed.
    const P = 2n ** 255n - 19n;
    const mod = (a: bigint): bigint => ((a % P) + P) % P;
    const pow = (b: bigint, e: bigint): bigint => {
      let r = 1n;
      for (let x = mod(b), k = e; k > 0n; k >>= 1n, x = (x * x) % P) if (k & 1n) r = (r * x) % P;
      return r;
    };
    const inv = (a: bigint): bigint => pow(a, P - 2n);
    const d = mod(-121665n * inv(121666n));
    expect([d, pow(2n, (P - 1n) / 4n)]).toEqual([ED_D, ED_SQRT_M1]);
    type Pt = { x: bigint; y: bigint };
    const add = (a: Pt, b: Pt): Pt => {
      const t = mod(d * a.x * b.x * a.y * b.y);
      return { x: mod((a.x * b.y + a.y * b.x) * inv(1n + t)), y: mod((a.y * b.y + a.x * b.x) * inv(1n - t)) };
    };
    const decode = (raw: Buffer): Pt => {
      const y = BigInt(`0x${Buffer.from(raw).reverse().toString('hex')}`) & ((1n << 255n) - 1n);
      const u = mod(y * y - 1n);
      const v = mod(d * y * y + 1n);
      let x = mod(u * pow(v, 3n) * pow(u * pow(v, 7n), (P - 5n) / 8n));
      if (mod(v * x * x) !== u) x = mod(x * ED_SQRT_M1);
      if (Number(x & 1n) !== raw[31]! >> 7) x = mod(-x);
      return { x, y };
    };
    const encode = (p: Pt): Buffer => {
      const b = Buffer.from(p.y.toString(16).padStart(64, '0'), 'hex').reverse();
      b[31]! |= Number(p.x & 1n) << 7;
      return b;
    };
    const smallOrder = (p: Pt): boolean => {
      let q = p;
      for (let i = 0; i < 3; i++) q = add(q, q);
      return q.x === 0n && q.y === 1n;
    };
    const torsion = SMALL_ORDER.slice(0, 4).map((h) => decode(Buffer.from(h, 'hex')));
    torsion.push(...torsion.map((t) => ({ x: mod(-t.x), y: t.y })));
    let cases = 0;
    for (let k = 0; k < 6; k++) {
      const raw = generateKeyPairSync('ed25519').publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
      for (const t of [undefined, ...torsion]) {
        const p = t === undefined ? decode(raw) : add(decode(raw), t);
        expect(publicKeyProblem(encode(p)) === undefined).toBe(!smallOrder(p));
        expect(smallOrder(p)).toBe(false);
        cases++;
      }
    }
    for (const t of torsion)
      expect([publicKeyProblem(encode(t))?.startsWith('a point of small order'), smallOrder(t)]).toEqual([true, true]);
    expect(cases).toBe(54);
  });

  it('a file with several keys is refused (one key per file; --public-key may be repeated), as is text around the key', () => {
    const pemA = Buffer.from(pub.key.export({ format: 'pem', type: 'spki' }).toString());
    const pemB = Buffer.from(other.pub.key.export({ format: 'pem', type: 'spki' }).toString());
    expect(() => parsePublicKey(Buffer.concat([pemA, pemB]), 'two.pem')).toThrow(/two\.pem: holds 2 keys/);
    expect(() => parsePublicKey(Buffer.concat([pemA, Buffer.from('trailing words\n')]), 'x.pem')).toThrow(
      /text outside the PEM block/,
    );
    const privA = Buffer.from(signing.key.export({ format: 'pem', type: 'pkcs8' }).toString());
    const privB = Buffer.from(other.signing.key.export({ format: 'pem', type: 'pkcs8' }).toString());
    expect(() => parsePrivateKey(Buffer.concat([privA, privB]), 'two.key')).toThrow(/holds 2 keys/);
    expect(parsePublicKey(Buffer.concat([Buffer.from('\n'), pemA, Buffer.from('\n\n')]), 'ws.pem').keyId).toBe(
      pub.keyId,
    );
  });

  it('a raw 32-byte private seed given as a public key: said so, when loaded or when it fails to verify', () => {
    // Seeds are random bytes: about half are not curve points (refused on load), the rest are (caught at verify).
    const seeds = Array.from({ length: 40 }, (_, i) => Buffer.from(sha(`seed ${i}`), 'hex'));
    const notPoint = seeds.find((s) => publicKeyProblem(s) === 'not a point on the curve')!;
    const isPoint = seeds.find((s) => publicKeyProblem(s) === undefined)!;
    expect(() => parsePublicKey(notPoint, 'seed.bin')).toThrow(/seed\.bin: .*is this a raw private seed\?/);
    const signer = parsePrivateKey(isPoint, 'seed.bin');
    const asPublic = parsePublicKey(isPoint, 'seed.bin');
    const receipt = buildReceipt(jfile(), { signKey: signer });
    const r = verifyReceipt(receipt.bytes, { publicKeys: [asPublic] });
    expect(kinds(r)).toEqual(['signature_invalid']);
    expect(r.errors[0]!.message).toMatch(/seed\.bin is the signer's PRIVATE seed, not its public key/);
    // The same failure under an unrelated key says nothing of seeds.
    const r2 = verifyReceipt(receipt.bytes, { publicKeys: [other.pub] });
    expect(r2.errors[0]!.message).not.toMatch(/seed/);
  });
});

describe('publish (library)', () => {
  it('refuses without opt-in, writing nothing', () => {
    const out = path.join(root, 'never.tar');
    expect(() => publishReceipt(jfile(), out, { optIn: false })).toThrow(InputError);
    expect(() => readFileSync(out)).toThrow();
    expect(() => parseRedactFields('prompt,input_hash')).toThrow(InputError);
    expect(() => parseRedactFields('')).toThrow(InputError);
    expect(parseRedactFields('tool_call,model,tool_call')).toEqual(['tool_call', 'model']);
  });

  it('redacts non-null values, re-anchors the chain, empties blob_refs, bundles no blobs, leaves the journal byte for byte', () => {
    const before = sha(readFileSync(jfile()));
    const r = buildPublishedReceipt(jfile(), { optIn: true, signKey: signing });
    expect(sha(readFileSync(jfile()))).toBe(before);
    const original = readJournalBytes(readFileSync(jfile()));
    expect(r.original_head).toBe(original.head_hash);
    expect(r.published_head).not.toBe(original.head_hash);
    expect(r.redacted).toEqual(['prompt', 'tool_result']);
    const v = verifyReceipt(r.bytes, { publicKeys: [pub], expectedHead: r.published_head, requireBlobs: true });
    expect(v.errors).toEqual([]);
    const loaded = loadReceipt(r.bytes);
    expect(loaded.blobs.size).toBe(0);
    expect(loaded.manifest.blob_digests).toEqual([]);
    const rows = readJournalBytes(loaded.journal).entries.map((e) => e.row);
    expect(rows.map((x) => x.prompt)).toEqual([REDACTED, null, REDACTED]);
    expect(rows.map((x) => x.tool_result)).toEqual([REDACTED, REDACTED, null]);
    expect(rows[0]!.model).toBe('m');
    expect(rows.every((x) => x.blob_refs.length === 0)).toBe(true);
    expect(rows.map((x) => x.ts)).toEqual(original.entries.map((e) => e.row.ts));
    expect(encodeManifest(loaded.manifest).equals(loaded.manifestBytes)).toBe(true);
    const all = buildPublishedReceipt(jfile(), { optIn: true, redact: ['model', 'tool_call'] });
    const rows2 = readJournalBytes(loadReceipt(all.bytes).journal).entries.map((e) => e.row);
    expect(rows2.map((x) => [x.model, x.tool_call])).toEqual([
      [REDACTED, REDACTED],
      [null, null],
      [REDACTED, null],
    ]);
    expect(rows2[0]!.prompt).toBe('héllo ✓');
  });

  it('export and publish are mirrored into the audit chain when asked (replay.export, replay.publish)', () => {
    const env = { STEPCHAIN_AUDIT_KEY_PATH: path.join(root, 'audit-key', 'audit.key'), STEPCHAIN_ACTOR: 'tester' };
    const e = exportReceipt(jfile(), path.join(root, 'audited.tar'), { audit: { root, env } });
    const p = publishReceipt(jfile(), path.join(root, 'audited-pub.tar'), { optIn: true, audit: { root, env } });
    expect([...e.warnings, ...p.warnings]).toEqual([]);
    const exp = queryAudit(auditDir(root), { event_type: 'replay.export' });
    expect(exp).toHaveLength(1);
    expect(exp[0]!.entry).toMatchObject({
      actor: 'tester',
      resource_id: AGENT,
      details: { agent: AGENT, head_hash: e.manifest.head_hash, steps: 3 },
    });
    const pub = queryAudit(auditDir(root), { event_type: 'replay.publish' });
    expect(pub[0]!.entry).toMatchObject({
      details: {
        original_head: p.original_head,
        published_head: p.published_head,
        redacted: ['prompt', 'tool_result'],
      },
    });
  });

  it('newManifest refuses an unsafe agent id', () => {
    expect(() => newManifest('../x', '0'.repeat(64), 0, [])).toThrow(InputError);
  });
});
