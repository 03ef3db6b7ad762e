import { peakRss, type PeakRun } from './helpers/peak-rss';
import { writeSyntheticJournalFast } from './helpers/journal-rows';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { Cas, casDir, journalDir, journalFile } from '../src/journal';
import { recordStep } from '../src/record';
import {
  buildPublishedReceipt,
  buildReceipt,
  exportReceipt,
  generateKeyPair,
  parsePrivateKey,
  parsePublicKey,
  publishReceipt,
  verifyReceiptFile,
  writeTar,
} from '../src/receipt';
import { ReceiptSink } from '../src/receipt/export-file';
import { TarWriter } from '../src/receipt/tar-write';
import { cliPath } from './helpers/paths';
import { cliChangedWhilePaused } from './helpers/proc';
import { tempDir } from './helpers/tmp';

/**
 * `export` writes a receipt as it reads the journal and the blobs, never holding them: the bytes are the ones the
 * in-memory build gives (buildReceipt, for the same moment), memory does not follow the journal's size, and a
 * journal written to while it is exported is either exported as it was walked or refused, never half of each.
 */
const root = tempDir('stepchain-export-stream-');
const ENV = { ...process.env, STEPCHAIN_AUDIT: 'off' };
const NOW = new Date('2026-12-05T10:00:00Z');
const keys = generateKeyPair();
const signKey = parsePrivateKey(Buffer.from(keys.privateKeyPem), 'test key');
const pub = parsePublicKey(Buffer.from(keys.publicKeyPem), 'test key.pub');

/** A command's exit code and peak RSS (MB), run under Python. */
const peakOf = (argv: string[]): PeakRun => peakRss(argv, { env: ENV });

/** `stepchain receipt verify --json` of a receipt. */
const verifiedCli = (receipt: string): unknown =>
  JSON.parse(
    spawnSync(process.execPath, [cliPath, 'receipt', 'verify', receipt, '--json'], { env: ENV, encoding: 'utf8' })
      .stdout,
  );

/**
 * A project journal of `n` steps with blobs in the CAS (one large, the rest small), and one blob listed but absent.
 * `large: false`: no large blob, for the tests no blob's reading path is part of (publish leaves blobs out; a
 * journal changed while exported): its 17 MB were written, hashed and read again in each (~12 journals).
 */
function projectJournal(id: string, n: number, large = true): string {
  const dir = journalDir(root, id);
  for (let i = 0; i < n; i++) {
    const blobs = [Buffer.from(`blob ${id} ${i}\n`.repeat(i + 1))];
    if (i === 1 && large) blobs.push(Buffer.alloc(17 * 1024 * 1024, `${id}-large`)); // over the size read whole
    recordStep(
      dir,
      {
        input: Buffer.from(`input ${i}`),
        prompt: `step ${i}: ${'é'.repeat(i)}`,
        model: 'm',
        tool_call: { n: i, f: 0.1 * i },
        tool_result: null,
        blobs,
      },
      { root, env: ENV, snapshot: false },
    );
  }
  return journalFile(root, id);
}

const exported = (file: string, out: string, o: { gzip?: boolean; sign?: boolean }) =>
  exportReceipt(file, out, { now: NOW, ...(o.sign ? { signKey } : {}), ...(o.gzip ? { gzip: true } : {}) });
const built = (file: string, o: { gzip?: boolean; sign?: boolean }) =>
  buildReceipt(file, { now: NOW, ...(o.sign ? { signKey } : {}), ...(o.gzip ? { gzip: true } : {}) });

describe('the streamed receipt is the built one, byte for byte', () => {
  const file = projectJournal('same', 6);
  for (const o of [{}, { sign: true }, { gzip: true }, { gzip: true, sign: true }]) {
    test(`${JSON.stringify(o)}`, async () => {
      const out = path.join(root, `same-${Object.keys(o).join('-') || 'plain'}.tar`);
      const r = exported(file, out, o);
      const bytes = readFileSync(out);
      const b = built(file, o);
      expect(bytes.equals(b.bytes)).toBe(true);
      expect(r.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(r.size).toBe(bytes.length);
      expect({ ...r, file: undefined, sha256: undefined, size: undefined }).toEqual({
        ...b,
        bytes: undefined,
        file: undefined,
        sha256: undefined,
        size: undefined,
      });
      expect(r.blobs.bundled).toHaveLength(r.manifest.blob_digests.length);
      const v = (await verifyReceiptFile(out, 'sign' in o ? { publicKeys: [pub] } : {})).verdict;
      expect(v.ok).toBe(true);
      expect(v.signature_ok).toBe('sign' in o ? true : null);
    });
  }

  test('a CAS blob missing, or not matching its digest: left out with the same warning', () => {
    const f = projectJournal('holes', 3);
    const refs = buildReceipt(f, { now: NOW }).manifest.blob_digests;
    const cas = new Cas(casDir(root));
    writeFileSync(cas.pathOf(refs[0]!), 'not the blob');
    spawnSync('rm', [cas.pathOf(refs[1]!)]);
    const out = path.join(root, 'holes.tar');
    const r = exported(f, out, {});
    const b = built(f, {});
    expect(readFileSync(out).equals(b.bytes)).toBe(true);
    expect(r.blobs).toEqual(b.blobs);
    expect(r.blobs.missing).toEqual([refs[0], refs[1]]);
    expect(r.warnings).toEqual([`CAS blob ${refs[0]} does not match its digest; left out of the receipt`]);
  });

  test('a journal whose lines are not all canonical is re-encoded (in memory), as before', async () => {
    const f = projectJournal('spaced', 3, false);
    const lines = readFileSync(f, 'utf8').split('\n');
    lines[1] = lines[1]!.replace('{"blob_refs"', '{ "blob_refs"');
    writeFileSync(f, lines.join('\n'));
    const out = path.join(root, 'spaced.tar');
    exported(f, out, {});
    expect(readFileSync(out).equals(built(f, {}).bytes)).toBe(true);
    expect((await verifyReceiptFile(out)).verdict.ok).toBe(true);
  });
});

test("TarWriter fed in any pieces gives writeTar's bytes; the sink's gzip gives gzipSync's", () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.stringMatching(/^[a-z]{1,20}$/), fc.uint8Array({ maxLength: 3000 })), { maxLength: 5 }),
      fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 8 }),
      (members, cuts) => {
        const out: Buffer[] = [];
        const tar = new TarWriter((b) => out.push(Buffer.from(b)), 1796000000);
        for (const [name, data] of members)
          tar.member(name, data.length, (put) => {
            for (let at = 0, k = 0; at < data.length; k++) {
              const n = cuts[k % cuts.length]!;
              put(data.subarray(at, at + n));
              at += n;
            }
          });
        tar.end();
        const whole = writeTar(
          members.map(([name, data]) => ({ name, data })),
          1796000000,
        );
        expect(Buffer.concat(out).equals(whole)).toBe(true);
        const file = path.join(root, 'sink.gz');
        const fd = openSync(file, 'w');
        const sink = new ReceiptSink(fd, true);
        for (let at = 0, k = 0; at < whole.length; k++) {
          const n = cuts[k % cuts.length]! * 37;
          sink.write(whole.subarray(at, at + n));
          at += n;
        }
        const digest = sink.end();
        closeSync(fd);
        const gz = readFileSync(file);
        expect(gz.equals(gzipSync(whole, { level: 6 }))).toBe(true);
        expect(digest).toBe(createHash('sha256').update(gz).digest('hex'));
      },
    ),
    { numRuns: 60 },
  );
});

test('a tar member given more or fewer bytes than its header says is refused', () => {
  const tar = new TarWriter(() => undefined, 0);
  expect(() => tar.member('a', 3, (put) => put(Buffer.from('abcd')))).toThrow('longer than its 3 bytes');
  expect(() => tar.member('b', 3, (put) => put(Buffer.from('ab')))).toThrow('is 2 bytes, not its 3');
});

/**
 * A journal of 100 MB (50,000 rows of 2 KB). Peak RSS measured on Dec 7 at 100 MB and at 200 MB alike: export 75 MB,
 * publish 115 MB (they do not follow the journal). Each bound lies halfway between that and what holding the
 * journal would add (+100 MB): 125 and 165 MB. 200 MB of journal cost ~2.5 s more CPU to write, export, publish and
 * verify twice, for no fault this size misses.
 */
describe('a journal of 100 MB: exported in bounded memory', () => {
  const ROWS = 50_000;
  const file = path.join(root, 'big', '000000.jsonl');
  // Written 1,000 rows at a time (the test holds no more of it than export may), as text, every 10,000th row checked
  // against the encoder (writeSyntheticJournalFast): computeStepHash and encodeRow for every row were 3.1 of this
  // file's 9.7 s of CPU (its set-up alone: 5.7 -> 2.5 s user+sys).
  const filler = 'x'.repeat(2000);
  writeSyntheticJournalFast(file, ROWS, (seq) => ({
    model: 'm',
    prompt: `${seq} ${filler}`,
    tool_call: { seq },
    tool_result: null,
    ts: 1796000000 + seq,
  }));

  test('peak RSS under 125 MB (the journal is 100 MB); the receipt verifies', () => {
    const out = path.join(root, 'big.tar');
    const r = peakOf([process.execPath, cliPath, 'export', file, '-o', out]);
    expect(r.code).toBe(0);
    expect(r.mb).toBeLessThan(125);
    expect(statSync(file).size).toBeGreaterThan(100_000_000);
    expect(verifiedCli(out)).toMatchObject({ ok: true, steps: ROWS });
  });

  test('publish of it: peak RSS under 165 MB; the receipt verifies', () => {
    const out = path.join(root, 'big-public.tar');
    const r = peakOf([process.execPath, cliPath, 'publish', file, '-o', out, '--opt-in']);
    expect(r.code).toBe(0);
    expect(r.mb).toBeLessThan(165);
    expect(verifiedCli(out)).toMatchObject({ ok: true, steps: ROWS, published: true });
  });
});

describe('a journal written to while it is exported', () => {
  /** Runs `export` paused after the journal's copy, does `change`, resumes it; the exit code and stderr. */
  async function exportWhileChanged(id: string, change: (file: string) => void) {
    const file = projectJournal(id, 4, false);
    const out = path.join(root, `${id}.tar`);
    const args = ['export', file, '-o', out, '--json'];
    const r = await cliChangedWhilePaused(
      args,
      'export:copied',
      path.join(root, `${id}.resume`),
      () => change(file),
      ENV,
    );
    return { file, out, ...r };
  }

  test('a step appended meanwhile: the receipt is the journal as walked (the new step is not in it)', async () => {
    const before = buildReceipt(projectJournal('grown-ref', 4, false), { now: NOW }).manifest;
    const r = await exportWhileChanged('grown', (file) => {
      recordStep(path.dirname(file), { prompt: 'late', model: 'm' }, { root, env: ENV, snapshot: false });
    });
    expect(r.stderr).toEqual([]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, steps: 4 });
    expect(before.steps).toBe(4);
    const v = (await verifyReceiptFile(r.out)).verdict;
    expect(v.ok).toBe(true);
    expect(v.steps).toBe(4);
  });

  test('a row rewritten in place meanwhile: exit 1 naming the journal, nothing written, no temporary file left', async () => {
    const r = await exportWhileChanged('rewritten', (file) => {
      const text = readFileSync(file, 'utf8');
      writeFileSync(file, text.replace('step 2:', 'step 9:')); // same length, another prompt
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toEqual([
      `stepchain: ${r.file}: the journal changed while it was exported (its rows are not the rows walked first); nothing written`,
    ]);
    expect(existsSync(r.out)).toBe(false);
    expect(readdirSync(root).filter((n) => n.startsWith('rewritten.tar'))).toEqual([]);
  });

  test('a row edited where no hash reaches (its ts) meanwhile: the receipt holds the edited bytes, and verifies', async () => {
    const r = await exportWhileChanged('retimed', (file) => {
      const text = readFileSync(file, 'utf8');
      // Another time of the same length, written as Python writes a float (a torn or longer row would be a fault).
      const retimed = text.replace(/"ts":([0-9.]+)/, (_, v: string) => {
        const t = String(10 ** (v.length - 3) + 0.5);
        if (t.length !== v.length || t === v) throw new Error(`no other time as long as ${v}`);
        return `"ts":${t}`;
      });
      writeFileSync(file, retimed);
    });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: [] });
    expect((await verifyReceiptFile(r.out)).verdict.ok).toBe(true);
  });
});

test('a blob that is a link in the CAS: refused naming it, nothing written', () => {
  const f = projectJournal('linked', 2);
  const d = buildReceipt(f, { now: NOW }).manifest.blob_digests[0]!;
  const blob = new Cas(casDir(root)).pathOf(d);
  const elsewhere = path.join(root, 'elsewhere');
  mkdirSync(elsewhere, { recursive: true });
  writeFileSync(path.join(elsewhere, 'b'), readFileSync(blob));
  spawnSync('rm', [blob]);
  spawnSync('ln', ['-s', path.join(elsewhere, 'b'), blob]);
  const out = path.join(root, 'linked.tar');
  const r = spawnSync(process.execPath, [cliPath, 'export', f, '-o', out], { env: ENV, encoding: 'utf8' });
  expect(r.status).toBe(2);
  expect(r.stderr.trim().split('\n')).toEqual([expect.stringContaining(blob)]);
  expect(existsSync(out)).toBe(false);
  expect(readdirSync(root).filter((n) => n.startsWith('linked.tar'))).toEqual([]);
});

describe('publish streams too: the bytes of the in-memory build, in bounded memory', () => {
  for (const o of [{}, { sign: true }, { gzip: true }]) {
    test(`${JSON.stringify(o)}`, async () => {
      const id = `pub-${Object.keys(o).join('-') || 'plain'}`;
      const file = projectJournal(id, 5, false);
      const out = path.join(root, `${id}.tar`);
      const opts = {
        optIn: true,
        now: NOW,
        // The same blinding key for both builds (each publish draws its own).
        blindingKey: Buffer.alloc(32, 7),
        ...('sign' in o ? { signKey } : {}),
        ...('gzip' in o ? { gzip: true } : {}),
      };
      const r = publishReceipt(file, out, opts);
      const b = buildPublishedReceipt(file, opts);
      const bytes = readFileSync(out);
      expect(bytes.equals(b.bytes)).toBe(true);
      expect(r.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(r.published_head).toBe(b.published_head);
      const v = (await verifyReceiptFile(out, 'sign' in o ? { publicKeys: [pub] } : {})).verdict;
      expect(v).toMatchObject({ ok: true, published: true, steps: 5 });
      expect(readdirSync(root).filter((n) => n.startsWith(`${id}.tar.`))).toEqual([]);
    });
  }

  test('a journal that does not verify: exit 1 naming its line, nothing written, no scratch file left', () => {
    const f = projectJournal('pub-broken', 3, false);
    writeFileSync(f, readFileSync(f, 'utf8').replace('step 1:', 'step 7:'));
    const out = path.join(root, 'pub-broken.tar');
    const r = spawnSync(process.execPath, [cliPath, 'publish', f, '-o', out, '--opt-in'], {
      env: ENV,
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringContaining(`${f}:2: step_hash_mismatch`)]);
    expect(readdirSync(root).filter((n) => n.startsWith('pub-broken.tar'))).toEqual([]);
  });
});
