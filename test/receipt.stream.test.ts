import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { Journal, journalDir, journalFile, readJournalBytes } from '../src/journal';
import {
  buildReceipt,
  generateKeyPair,
  inspectReceipt,
  parsePrivateKey,
  parsePublicKey,
  readTar,
  ReceiptFormatError,
  redactedFields,
  verifyReceiptFile,
  walkReceiptJournal,
  writeTar,
} from '../src/receipt';
import { JournalWalker } from '../src/receipt/journal-walk';
import { holdsRedactionMark } from '../src/receipt/redaction';
import { TarStream } from '../src/receipt/tar';
import { baseArchive, mutate, mutation } from './helpers/tar-gen';
import { tarEntries as wholeTarEntries } from './helpers/tar-whole-reference';
import { cliPath } from './helpers/paths';
import { tempDir } from './helpers/tmp';

/**
 * The streaming receipt reader against the reading rules it replaced: the tar
 * reader that held the whole archive (frozen in test/helpers), the journal's
 * whole-bytes strict walk, and the verdict of a receipt held in memory. Pieces
 * are cut at random points, so every check meets a piece boundary somewhere.
 */
const root = tempDir('stepchain-stream-');

type Outcome = { members: { name: string; type: string; data: string }[]; fault?: string };

function faultText(e: unknown): string {
  if (!(e instanceof Error) || !('kind' in e)) throw e;
  const f = e as Error & { kind: string; member?: string };
  return `${f.kind}|${f.message}|${f.member ?? ''}`;
}

function wholeReading(buf: Buffer): Outcome {
  const out: Outcome = { members: [] };
  try {
    for (const e of wholeTarEntries(buf))
      out.members.push({ name: e.name, type: e.type, data: e.data.toString('hex') });
  } catch (e) {
    out.fault = faultText(e);
  }
  return out;
}

/** Reads `buf` through TarStream in pieces ending at `cuts` (sorted offsets). */
function streamedReading(buf: Buffer, cuts: number[]): Outcome {
  const out: Outcome = { members: [] };
  let data: Buffer[] = [];
  const stream = new TarStream({
    start: () => {
      data = [];
      return { data: (p) => data.push(Buffer.from(p)) };
    },
    end: ({ name, type }) => out.members.push({ name, type, data: Buffer.concat(data).toString('hex') }),
  });
  try {
    let at = 0;
    for (const c of [...cuts, buf.length]) {
      if (c > at) stream.push(buf.subarray(at, c));
      at = Math.max(at, c);
    }
    stream.finish();
  } catch (e) {
    out.fault = faultText(e);
  }
  return out;
}

type Verdict = Awaited<ReturnType<typeof verifyReceiptFile>>['verdict'];

/** A plain receipt's journal walked where it lies whatever its size, in three slices (ArchiveScan.readInPlace). */
const IN_PLACE: NodeJS.ProcessEnv = { STEPCHAIN_PARALLEL_MIN_BYTES: '1', STEPCHAIN_THREADS: '3' };

const cutsOf = (len: number, seeds: number[]): number[] => seeds.map((s) => s % (len + 1)).sort((a, b) => a - b);

describe('the streaming tar reader reads what the whole-archive reader read', () => {
  it('hostile archives (mutated headers, padding, trailing bytes, cut ends), cut into pieces anywhere', () => {
    fc.assert(
      fc.property(baseArchive, mutation, fc.array(fc.nat(), { maxLength: 12 }), (good, m, seeds) => {
        const buf = mutate(good, m);
        const cuts = cutsOf(buf.length, seeds);
        expect(streamedReading(buf, cuts)).toEqual(wholeReading(buf));
        // One byte at a time, the finest cut of all.
        if (buf.length <= 8192) expect(streamedReading(buf, [...Array(buf.length).keys()])).toEqual(wholeReading(buf));
      }),
      { numRuns: 400, seed: 20261203 },
    );
  });

  it('short and empty inputs', () => {
    for (const buf of [Buffer.alloc(0), Buffer.alloc(100, 1), Buffer.alloc(511), Buffer.alloc(1024), Buffer.alloc(512)])
      expect(streamedReading(buf, [1, 7, 300])).toEqual(wholeReading(buf));
  });
});

/** Journal lines: canonical rows of a chain, then damage of every kind the walker reports. */
function journalOf(n: number): string[] {
  const dir = journalDir(root, `j${n}-${Math.random().toString(36).slice(2)}`);
  const j = Journal.open(dir, { durability: 'none' });
  for (let i = 0; i < n; i++)
    j.append({
      prompt: `p${i} ${'x'.repeat(i * 7)}`,
      model: 'm',
      ts: 1_700_000_000 + i / 3,
      tool_result: { v: i * 0.1 },
    });
  return readFileSync(path.join(dir, '000000.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '');
}

type Damage = { op: 'drop' | 'dup' | 'garbage' | 'blank' | 'cr' | 'space' | 'swap'; at: number };
const damage: fc.Arbitrary<Damage> = fc.record({
  op: fc.constantFrom('drop', 'dup', 'garbage', 'blank', 'cr', 'space', 'swap'),
  at: fc.nat(),
});

function damaged(lines: string[], ds: Damage[], lastNewline: boolean): Buffer {
  const ls = [...lines];
  for (const d of ds) {
    if (ls.length === 0) break;
    const i = d.at % ls.length;
    if (d.op === 'drop') ls.splice(i, 1);
    else if (d.op === 'dup') ls.splice(i, 0, ls[i]!);
    else if (d.op === 'garbage') ls.splice(i, 0, '{"not": a row');
    else if (d.op === 'blank') ls.splice(i, 0, '');
    else if (d.op === 'cr') ls[i] = `${ls[i]!}\r`;
    else if (d.op === 'space') ls[i] = ` ${ls[i]!}`;
    else if (i + 1 < ls.length) [ls[i], ls[i + 1]] = [ls[i + 1]!, ls[i]!];
  }
  return Buffer.from(ls.join('\n') + (lastNewline && ls.length > 0 ? '\n' : ''));
}

/** A published chain's lines: some rows hold the redaction mark as their prompt or tool_result. */
function published(n: number): string[] {
  const dir = journalDir(root, `pub${n}-${Math.random().toString(36).slice(2)}`);
  const j = Journal.open(dir, { durability: 'none' });
  for (let i = 0; i < n; i++)
    j.append({
      prompt: i % 5 === 2 ? '<<redacted>>' : `p${i}`,
      model: 'm',
      ts: 1_700_000_000 + i,
      tool_result: i === 7 ? '<<redacted>>' : { v: i },
    });
  return readFileSync(path.join(dir, '000000.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '');
}
const plainLines = journalOf(40);
const markedLines = published(30);

describe('the journal walked in slices reads as the whole-bytes strict walk', () => {
  const lines = plainLines;
  it('damaged journals, walked in slices of any size, pieces cut anywhere', () => {
    fc.assert(
      fc.property(
        fc.array(damage, { maxLength: 6 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 4096 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (ds, nl, slice, seeds) => {
          const buf = damaged(lines, ds, nl);
          const whole = walkReceiptJournal(buf);
          const { redacted, ...walked } = walkInPieces(new JournalWalker(slice), buf, seeds);
          expect(walked).toEqual(whole);
          expect(redacted).toEqual([]);
        },
      ),
      { numRuns: 300, seed: 1203 },
    );
  });

  // A plain receipt's big pieces: their whole lines walked where they are (no copy), the rest gathered.
  it('pieces walked where they are read as the whole-bytes walk', () => {
    fc.assert(
      fc.property(
        fc.array(damage, { maxLength: 6 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 4096 }),
        fc.integer({ min: 1, max: 2048 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (ds, nl, slice, direct, seeds) => {
          const buf = damaged(lines, ds, nl);
          const whole = walkReceiptJournal(buf);
          const { redacted, ...walked } = walkInPieces(new JournalWalker(slice, direct), buf, seeds);
          expect(walked).toEqual(whole);
          expect(redacted).toEqual([]);
        },
      ),
      { numRuns: 300, seed: 1204 },
    );
  });

  // A plain receipt's journal member walked where it lies in the file, in parallel slices (JournalWalker.walkFile).
  it('walked where it lies in a file, in any number of slices, at any offset: the whole-bytes walk', () => {
    const file = path.join(root, 'walk-file.bin');
    fc.assert(
      fc.property(
        fc.array(damage, { maxLength: 6 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 0, max: 700 }),
        fc.boolean(),
        (ds, nl, threads, before, marks) => {
          const lines = marks ? markedLines : plainLines;
          const buf = damaged(lines, ds, nl);
          const whole = walkReceiptJournal(buf);
          // The member among other bytes of the file, as in an archive.
          writeFileSync(file, Buffer.concat([Buffer.alloc(before, 0x2a), buf, Buffer.alloc(300, 0x2a)]));
          const fd = openSync(file, 'r');
          try {
            const w = new JournalWalker();
            w.walkFile({ kind: 'fd', fd, path: file }, before, before + buf.length, {
              STEPCHAIN_THREADS: String(threads),
              STEPCHAIN_PARALLEL_MIN_BYTES: '1',
            });
            const { redacted, ...walked } = w.finish();
            expect(walked).toEqual(whole);
            // The redacted fields: the rows' own (every row parsed, as the rule reads: test/../redaction.ts).
            expect(redacted).toEqual(redactedFields(readJournalBytes(buf).entries.map((e) => e.row)));
            if (marks && ds.length === 0) expect(redacted).toEqual(['prompt', 'tool_result']);
          } finally {
            closeSync(fd);
          }
        },
      ),
      { numRuns: 300, seed: 1206 },
    );
  });

  it('walked where it lies: lines with no row, a lone newline, one torn row', () => {
    const file = path.join(root, 'walk-file-small.bin');
    for (const text of ['{"not": a row\n', '\n', '\n\n\n', '[1]\n{}\n', `${plainLines[0]!.slice(0, 40)}`]) {
      const buf = Buffer.from(text);
      writeFileSync(file, Buffer.concat([Buffer.alloc(512), buf]));
      const fd = openSync(file, 'r');
      try {
        const w = new JournalWalker();
        w.walkFile({ kind: 'fd', fd, path: file }, 512, 512 + buf.length, { STEPCHAIN_PARALLEL_MIN_BYTES: '1' });
        expect(w.finish()).toEqual(walkInPieces(new JournalWalker(), buf, []));
      } finally {
        closeSync(fd);
      }
    }
  });

  it('the redaction marks of a published chain, whichever way the pieces are walked', () => {
    const published = journalOf(12).map((l, i) => {
      const row = JSON.parse(l) as Record<string, unknown>;
      if (i % 5 === 2) row.prompt = '<<redacted>>';
      if (i === 7) row.tool_result = '<<redacted>>';
      return JSON.stringify(row);
    });
    const buf = Buffer.from(published.join('\n') + '\n');
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1024 }), fc.array(fc.nat(), { maxLength: 8 }), (slice, seeds) => {
        for (const direct of [undefined, slice])
          expect(walkInPieces(new JournalWalker(slice, direct), buf, seeds).redacted).toEqual([
            'prompt',
            'tool_result',
          ]);
      }),
      { numRuns: 100, seed: 1205 },
    );
  });
});

describe("the walker's buffer, made small and grown to a slice as bytes come", () => {
  /** ~430 KB of rows up to ~100 KB each: past the buffer's first 64 KiB, and lines longer than it. */
  const lines = (() => {
    const dir = journalDir(root, 'grown');
    const j = Journal.open(dir, { durability: 'none' });
    for (let i = 0; i < 9; i++)
      j.append({ prompt: `p${i} ${'z'.repeat((i * 47_000) % 101_000)}`, model: 'm', ts: 1_700_000_000 + i });
    return readFileSync(path.join(dir, '000000.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l !== '');
  })();
  it('walks as the whole-bytes walk, at the default slice and at slices past its first size', () => {
    fc.assert(
      fc.property(
        fc.array(damage, { maxLength: 4 }),
        fc.boolean(),
        fc.option(fc.integer({ min: 64 * 1024, max: 300_000 }), { nil: undefined }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (ds, nl, slice, seeds) => {
          const buf = damaged(lines, ds, nl);
          const { redacted, ...walked } = walkInPieces(new JournalWalker(slice), buf, seeds);
          expect(walked).toEqual(walkReceiptJournal(buf));
          expect(redacted).toEqual([]);
        },
      ),
      { numRuns: 40, seed: 1208 },
    );
  });
});

/** Pushes `buf` into the walker in pieces ending at the cuts `seeds` make. */
function walkInPieces(w: JournalWalker, buf: Buffer, seeds: number[]): ReturnType<JournalWalker['finish']> {
  let at = 0;
  for (const c of [...cutsOf(buf.length, seeds), buf.length]) {
    if (c > at) w.push(buf.subarray(at, c));
    at = Math.max(at, c);
  }
  return w.finish();
}

describe('a receipt streamed from its file has the verdict of the receipt held whole', () => {
  const keys = generateKeyPair();
  const signKey = parsePrivateKey(Buffer.from(keys.privateKeyPem), 'k');
  const pub = parsePublicKey(Buffer.from(keys.publicKeyPem), 'k.pub');
  const dir = journalDir(root, 'agent');
  const j = Journal.open(dir, { durability: 'none' });
  for (let i = 0; i < 30; i++)
    j.append({
      prompt: `step ${i}`,
      model: 'm',
      ts: 1_700_000_000 + i,
      blobs: i % 10 === 0 ? [Buffer.from(`b${i}`)] : [],
    });
  const good = buildReceipt(journalFile(root, 'agent'), { signKey }).bytes;

  const KEYED = { publicKeys: [pub] };
  const OPTION_SETS = [{}, KEYED, { publicKeys: [pub], requireBlobs: true }];

  /**
   * The streamed verdicts equal the whole ones, under no key, the key, the key and blobs required (or only the
   * option sets given); returns the streamed verdict under the key (`verifyReceiptFile(file, { publicKeys: [pub] })`),
   * so a test that asks for it does not read the file a fourth time.
   */
  async function both(bytes: Buffer, name: string, optionSets = OPTION_SETS): Promise<Verdict> {
    const file = path.join(root, name);
    writeFileSync(file, bytes);
    let keyed: Verdict | undefined;
    for (const opts of optionSets) {
      const whole = inspectReceipt(bytes, opts);
      const streamed = await verifyReceiptFile(file, opts);
      expect(streamed.verdict).toEqual(whole.verdict);
      expect(streamed.manifestBytes).toEqual(whole.receipt?.manifestBytes);
      // The journal walked where it lies in the file (no digest asked for; any size shared, in three slices).
      const inPlace = await verifyReceiptFile(file, { ...opts, fileDigest: false, env: IN_PLACE });
      expect(inPlace.verdict).toEqual(whole.verdict);
      expect(inPlace.manifestBytes).toEqual(whole.receipt?.manifestBytes);
      if (opts === KEYED) keyed = streamed.verdict;
    }
    return keyed!;
  }

  it('the receipt as built, plain and gzipped', async () => {
    await both(good, 'good.tar');
    await both(gzipSync(good), 'good.tar.gz');
    expect((await verifyReceiptFile(path.join(root, 'good.tar'), { publicKeys: [pub] })).verdict.ok).toBe(true);
  });

  it('hostile receipts: mutated headers, padding, tails and cuts, plain and gzipped', async () => {
    const cases = fc.sample(fc.tuple(mutation, fc.boolean()), { numRuns: 150, seed: 31203 });
    let k = 0;
    for (const [m, gz] of cases) {
      const bytes = mutate(good, m);
      await both(gz ? gzipSync(bytes) : bytes, `m${k++}.tar${gz ? '.gz' : ''}`);
    }
  });

  it('a corrupt gzip stream after a bad archive is named as corrupt gzip, as reading it whole names it', async () => {
    const gz = gzipSync(Buffer.concat([good.subarray(0, 2048), Buffer.alloc(3000, 7)]));
    await both(gz.subarray(0, gz.length - 6), 'cut.tar.gz');
    await both(Buffer.concat([gzipSync(good), Buffer.from('junk')]), 'junk.tar.gz');
    await both(Buffer.concat([gzipSync(good), gzipSync(Buffer.alloc(1024))]), 'two-members.tar.gz');
  });

  /** `data` gzipped to exactly `length` bytes (a file name, FNAME, of the bytes needed). */
  function gzipOfLength(data: Buffer, length: number): Buffer {
    const g = gzipSync(data);
    const head = Buffer.from(g.subarray(0, 10));
    head[3]! |= 0x08;
    return Buffer.concat([head, Buffer.alloc(length - g.length - 1, 0x6e), Buffer.from([0]), g.subarray(10)]);
  }

  it('what follows the gzip stream, wherever the read pieces fall: zero padding holds, anything after it is corrupt', async () => {
    // The file is read as its first 512 bytes, then 1 MB pieces: the stream ends on, before and after a piece end,
    // and its padding runs into the next piece (node's inflater ends its output at a zero byte after a member).
    const pieceEnd = 512 + 1024 * 1024;
    // Under the key only: where the gzip stream ends is read the same whatever is judged of the receipt after (no key
    // and blobs required are judged by the other tests here), and each of these 75 files is read 3 times, not 9.
    const keyed = [KEYED];
    let k = 0;
    for (const d of [-2, -1, 0, 1, 2]) {
      const gz = gzipOfLength(good, pieceEnd + d);
      for (const zeros of [0, 1, 2, 600, 1024 * 1024 + 3]) {
        const bytes = Buffer.concat([gz, Buffer.alloc(zeros)]);
        expect((await both(bytes, `tail${k++}.tar.gz`, keyed)).ok).toBe(true);
        for (const after of ['x', '\x1f\x8b']) {
          const verdict = await both(Buffer.concat([bytes, Buffer.from(after, 'latin1')]), `tail${k++}.tar.gz`, keyed);
          expect(verdict.ok).toBe(false);
          expect(verdict.errors.map((e) => e.kind)).toContain('not_a_receipt');
        }
      }
    }
    // Zeros, then a whole second member: gzip(1) ignores it, Python's gzip reads it: no part of a receipt.
    await both(Buffer.concat([gzipSync(good), Buffer.alloc(10), gzipSync(Buffer.alloc(1024))]), 'zeros-member.tar.gz');
  });

  // 24 MB, not 96: 24 of the inflater's 1 MiB pieces, under a cap of 16 MiB (96 MB and 64 MiB cost ~0.6 s more CPU:
  // gzipped at level 9, inflated and hashed four times).
  it('an inflating archive: a 24 MB zero blob in a small gzip, read in one pass to the same verdict', async () => {
    const zeros = Buffer.alloc(24 * 1024 * 1024);
    const digest = createHash('sha256').update(zeros).digest('hex');
    const bomb = writeTar(
      [...readTar(good).map((e) => ({ name: e.name, data: e.data })), { name: `blobs/${digest}`, data: zeros }],
      1_700_000_000,
    );
    const gz = gzipSync(bomb, { level: 9 });
    expect(gz.length).toBeLessThan(zeros.length / 500);
    const file = path.join(root, 'bomb.tar.gz');
    writeFileSync(file, gz);
    const streamed = await verifyReceiptFile(file, { publicKeys: [pub] });
    expect(streamed.verdict).toEqual(inspectReceipt(gz, { publicKeys: [pub] }).verdict);
    expect(streamed.verdict.errors.map((e) => e.kind)).toEqual(['unexpected_blob']);
    // Under a cap below what it inflates to: refused as too large, as reading it whole refuses it.
    const capped = await verifyReceiptFile(file, { maxBytes: 16 * 1024 * 1024 });
    expect(capped.verdict).toEqual(inspectReceipt(gz, { maxBytes: 16 * 1024 * 1024 }).verdict);
    expect(capped.verdict.errors[0]!.kind).toBe('too_large');
  });

  it('errors stay ReceiptFormatError-shaped faults, never throws, for a file that is not a receipt', async () => {
    const file = path.join(root, 'text.tar');
    writeFileSync(file, 'hello\n');
    const r = await verifyReceiptFile(file);
    expect(r.verdict.errors[0]!.kind).toBe(new ReceiptFormatError('not_a_receipt', '').kind);
    expect(r.verdict).toEqual(inspectReceipt(Buffer.from('hello\n')).verdict);
  });
});

describe('the redaction mark is found where the plain search finds it', () => {
  it('bytes of quotes, marks, their pieces and filler: holdsRedactionMark agrees with includes', () => {
    const part = fc.constantFrom('"', '<', '<<', 'redacted', '>>', '>>"', '"<<redacted>>"', '<<redacted>>"', 'x', '\n');
    fc.assert(
      fc.property(fc.array(part, { maxLength: 24 }), (parts) => {
        const bytes = Buffer.from(parts.join(''));
        expect(holdsRedactionMark(bytes)).toBe(bytes.includes(Buffer.from('"<<redacted>>"')));
      }),
      { numRuns: 2000, seed: 1207 },
    );
  });
});

describe("a small receipt's verify allocates for its size", () => {
  /**
   * The bytes asked of Buffer.allocUnsafe (the reads, the walk's buffer, the inflater's output) while a 20 KB
   * receipt is verified from its file: a plain one's 4 MiB read buffer and the walk's 8 MiB were made for every
   * receipt, and a process verifying many small ones had V8 collect its heap every few (12.6 MB each; 130 KB now,
   * ~200 KB gzipped: the inflater's piece is sized by what the gzip's trailer says it inflates to, where it was
   * 1 MiB, and 4 MiB is what a large one is inflated in).
   */
  it('plain and gzipped: a read buffer and a walk buffer for its size, not their largest', async () => {
    const dir = journalDir(root, 'alloc');
    const j = Journal.open(dir, { durability: 'none' });
    for (let i = 0; i < 30; i++) j.append({ prompt: `step ${i}`, model: 'm', ts: 1_700_000_000 + i });
    const bytes = buildReceipt(journalFile(root, 'alloc')).bytes;
    for (const [name, data, most] of [
      ['alloc.tar', bytes, 512 * 1024],
      ['alloc.tar.gz', gzipSync(bytes), 512 * 1024],
    ] as const) {
      const file = path.join(root, name);
      writeFileSync(file, data);
      const allocUnsafe = Buffer.allocUnsafe.bind(Buffer);
      let asked = 0;
      const spy = jest.spyOn(Buffer, 'allocUnsafe').mockImplementation((n: number) => {
        asked += n;
        return allocUnsafe(n);
      });
      try {
        expect((await verifyReceiptFile(file, { fileDigest: false })).verdict.ok).toBe(true);
      } finally {
        spy.mockRestore();
      }
      expect([name, asked < most]).toEqual([name, true]);
    }
  });
});

describe("the file's digest, computed only when asked for", () => {
  it('a plain and a gzipped receipt: the same verdict, the digest of the bytes on disk or none', async () => {
    const dir = journalDir(root, 'digest');
    const j = Journal.open(dir, { durability: 'none' });
    for (let i = 0; i < 5; i++) j.append({ prompt: `step ${i}`, model: 'm', ts: 1_700_000_000 + i });
    const bytes = buildReceipt(journalFile(root, 'digest')).bytes;
    for (const [name, data] of [
      ['d.tar', bytes],
      ['d.tar.gz', gzipSync(bytes)],
    ] as const) {
      const file = path.join(root, name);
      writeFileSync(file, data);
      const hashed = await verifyReceiptFile(file);
      const unhashed = await verifyReceiptFile(file, { fileDigest: false });
      expect(hashed.sha256).toBe(createHash('sha256').update(data).digest('hex'));
      expect(unhashed.sha256).toBeUndefined();
      expect(unhashed.verdict).toEqual(hashed.verdict);
      expect(unhashed.manifestBytes).toEqual(hashed.manifestBytes);
    }
  });
});

describe("the bin walks a plain receipt's journal where it lies, in worker threads", () => {
  // Every journal shared among threads (any size), three of them: what `stepchain receipt verify` does with a large
  // plain receipt (the worker threads read the file through the descriptor the command opened).
  const env = { ...process.env, STEPCHAIN_AUDIT: 'off', STEPCHAIN_PARALLEL_MIN_BYTES: '1', STEPCHAIN_THREADS: '3' };
  const keys = generateKeyPair();
  const pubFile = path.join(root, 'bin-k.pub');
  writeFileSync(pubFile, keys.publicKeyPem);
  const signKey = parsePrivateKey(Buffer.from(keys.privateKeyPem), 'k');
  const pub = parsePublicKey(Buffer.from(keys.publicKeyPem), 'k.pub');
  const receiptOf = (id: string, step: (i: number) => Parameters<Journal['append']>[0]): Buffer => {
    const j = Journal.open(journalDir(root, id), { durability: 'none' });
    for (let i = 0; i < 400; i++) j.append(step(i));
    return buildReceipt(journalFile(root, id), { signKey }).bytes;
  };
  const good = receiptOf('bin-good', (i) => ({
    prompt: `step ${i} ${'y'.repeat(i % 300)}`,
    model: 'm',
    ts: 1_700_000_000 + i / 7,
    tool_result: { score: i / 3 },
    blobs: i % 50 === 0 ? [Buffer.from(`blob ${i}`)] : [],
  }));
  const publishedReceipt = receiptOf('bin-published', (i) => ({
    prompt: i % 3 === 0 ? '<<redacted>>' : `p${i}`,
    model: 'm',
    ts: 1_700_000_000 + i,
  }));
  const journalAt = good.indexOf('{"blob_refs"');
  const cases: [string, Buffer][] = [
    ['as built', good],
    ['published (rows redacted)', publishedReceipt],
    ['a row edited mid-journal', Buffer.from(good.toString('latin1').replace('"step 200 ', '"STEP 200 '), 'latin1')],
    ['a row moved', swapLines(good, journalAt, 150)],
    ['cut inside the journal', good.subarray(0, journalAt + 20_000)],
    ['cut just after the journal, before its padding', cutAfterJournal(good)],
  ];
  it.each(cases)('%s: the verdict of the receipt held whole', (name, bytes) => {
    const file = path.join(root, `bin-${name.replace(/\W+/g, '-')}.tar`);
    writeFileSync(file, bytes);
    const r = spawnSync(process.execPath, [cliPath, 'receipt', 'verify', file, '--public-key', pubFile, '--json'], {
      env,
      encoding: 'utf8',
    });
    const whole = inspectReceipt(bytes, { publicKeys: [pub] }).verdict;
    // A verdict that does not hold says its faults on stderr too, one line each.
    if (whole.ok) expect(r.stderr).toBe('');
    else expect(r.stderr.trim().split('\n')).toHaveLength(whole.errors.length);
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(JSON.stringify(whole)));
    expect(r.status).toBe(whole.ok ? 0 : 1);
    if (name.startsWith('published')) expect(whole.published).toBe(true);
  });
});

/** The receipt with its journal's line `k` moved after the next one (same bytes, same member size). */
function swapLines(receipt: Buffer, journalAt: number, k: number): Buffer {
  const end = receipt.indexOf('\n\0', journalAt) + 1;
  const lines = receipt.subarray(journalAt, end).toString('latin1').split('\n');
  [lines[k], lines[k + 1]] = [lines[k + 1]!, lines[k]!];
  return Buffer.concat([
    receipt.subarray(0, journalAt),
    Buffer.from(lines.join('\n'), 'latin1'),
    receipt.subarray(end),
  ]);
}

/** The receipt cut right after its journal's last byte (the member's padding and what follows are gone). */
function cutAfterJournal(receipt: Buffer): Buffer {
  const at = receipt.indexOf('{"blob_refs"');
  return receipt.subarray(0, receipt.indexOf('\n\0', at) + 1);
}
