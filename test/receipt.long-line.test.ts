import { createHash } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  createWriteStream,
  openSync,
  readFileSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { pipeline } from 'node:stream/promises';
import path from 'node:path';
import { createGzip, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { canonical, float, LONG_LINE_BYTES, type JsonValue } from '../src/canonical';
import { computeStepHash } from '../src/journal/step-hash';
import { JournalWalker, type JournalWalk } from '../src/receipt/journal-walk';
import { REDACTED } from '../src/receipt/redaction';
import { verifyReceiptFile } from '../src/receipt/stream-verify';
import { TarWriter, writeTar } from '../src/receipt/tar-write';
import { verifyReceipt, type ReceiptVerifyResult } from '../src/receipt/verify';
import { cliPath } from './helpers/paths';
import { peakRss } from './helpers/peak-rss';
import { tempDir } from './helpers/tmp';

/**
 * A receipt's journal line longer than LONG_LINE_BYTES is never held: it is checked as its bytes come
 * (src/journal/long-row.ts) and taken when it is a canonical row, as the fast path takes one; any other long line is
 * one non_canonical fault. Every reader of a receipt applies the rule (held whole, streamed plain, among threads,
 * gzipped, pushed in any pieces), so they agree, and a receipt's memory does not grow with its longest line.
 */
const root = tempDir();
const sha = (s: string | Buffer): string => createHash('sha256').update(s).digest('hex');
const ZERO = '0'.repeat(64);
const INPUT = sha('input');

interface Step {
  prompt: JsonValue;
  toolResult?: JsonValue;
  refs?: string[];
  /** Spell the row's ts `…0.50` (valid JSON, not Python's repr): a row that is not canonical. */
  nonCanonical?: boolean;
}

/** The journal's lines (canonical rows, chained) and its head. */
function journalOf(steps: readonly Step[]): { journal: Buffer; head: string; refs: string[] } {
  let prev = ZERO;
  const lines: string[] = [];
  const refs: string[] = [];
  steps.forEach((s, seq) => {
    const fields = {
      prev_hash: prev,
      input_hash: INPUT,
      model: 'm',
      prompt: s.prompt,
      tool_call: { name: 'Edit', n: float(1) },
      tool_result: s.toolResult ?? null,
    };
    const step = computeStepHash(fields);
    const row = { ...fields, blob_refs: s.refs ?? [], seq, step_hash: step, ts: 1796000000.25 };
    const line = canonical(row);
    lines.push(`${s.nonCanonical ? line.replace(/"ts":1796000000\.25}$/, '"ts":1796000000.250}') : line}\n`);
    for (const r of s.refs ?? []) if (!refs.includes(r)) refs.push(r);
    prev = step;
  });
  return { journal: Buffer.from(lines.join('')), head: prev, refs };
}

function manifestOf(head: string, steps: number, refs: readonly string[]): Buffer {
  return Buffer.from(
    canonical({
      agent_id: 'a',
      bernstein_version: 'stepchain/0.1.0',
      blob_digests: [...refs],
      created_at: '2026-12-07T00:00:00Z',
      format_version: 1,
      head_hash: head,
      steps,
    }),
  );
}

/** A receipt (and its gzip) of `steps`. */
function writeReceipt(name: string, steps: readonly Step[]): string {
  const { journal, head, refs } = journalOf(steps);
  const file = path.join(root, name);
  const bytes = writeTar(
    [
      { name: 'manifest.json', data: manifestOf(head, steps.length, refs) },
      { name: 'journal/000000.jsonl', data: journal },
    ],
    1_700_000_000,
  );
  writeFileSync(file, bytes);
  writeFileSync(`${file}.gz`, gzipSync(bytes, { level: 1 }));
  return file;
}

const PUSHED = { ...process.env, STEPCHAIN_AUDIT: 'off' };
const THREADS = { ...PUSHED, STEPCHAIN_PARALLEL_MIN_BYTES: '1', STEPCHAIN_THREADS: '4' };

/** Every reader's verdict; they must all be the one held whole. */
async function verdicts(file: string): Promise<ReceiptVerifyResult> {
  const whole = verifyReceipt(readFileSync(file));
  for (const [f, env] of [
    [file, PUSHED],
    [file, THREADS],
    [`${file}.gz`, PUSHED],
  ] as const) {
    const { verdict } = await verifyReceiptFile(f, { env, fileDigest: false });
    expect(verdict).toEqual(whole);
  }
  return whole;
}

/** The walk of `journal` pushed in pieces of the given sizes (cycled), by a walker holding lines up to `held`. */
function pushed(journal: Buffer, sizes: readonly number[], held?: number): JournalWalk {
  const w = new JournalWalker(1024, 256, undefined, undefined, held);
  for (let at = 0, k = 0; at < journal.length; k++) {
    const n = Math.max(1, sizes[k % sizes.length]!);
    w.push(journal.subarray(at, at + n));
    at += n;
  }
  return w.finish();
}

/** The same walk, where the bytes lie in a file (the in-place reading of a plain receipt). */
function inPlace(journal: Buffer, held?: number): JournalWalk {
  const file = path.join(root, 'journal.jsonl');
  writeFileSync(file, journal);
  const fd = openSync(file, 'r');
  try {
    const w = new JournalWalker(undefined, undefined, undefined, undefined, held);
    w.walkFile({ kind: 'fd', fd, path: file }, 0, journal.length, PUSHED);
    return w.finish();
  } finally {
    closeSync(fd);
  }
}

const plain = (walk: JournalWalk): object => ({ ...walk, refs: walk.refs });

const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constant(REDACTED),
  fc.constantFrom('"quoted"', 'back\\slash', 'tab\there', '\u007f\u0000\u001f', 'é😀\ud800'),
);
const value: fc.Arbitrary<JsonValue> = fc.letrec<{ v: JsonValue }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Number.isInteger(d)),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 6 }), tie('v'), { maxKeys: 4 }),
  ),
})).v;
const digestArb = fc.nat({ max: 5 }).map((i) => sha(`blob ${i}`));
const stepArb: fc.Arbitrary<Step> = fc.record({
  prompt: value,
  toolResult: value,
  refs: fc.array(digestArb, { maxLength: 3 }),
});

describe('a receipt line longer than the longest held is checked as it comes', () => {
  it('canonical rows: the same walk whether their lines are held or checked as they come, in any pieces', () => {
    fc.assert(
      fc.property(
        fc.array(stepArb, { minLength: 1, maxLength: 6 }),
        fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 200 }),
        (steps, sizes, held) => {
          const { journal } = journalOf(steps);
          const whole = plain(pushed(journal, [journal.length]));
          expect(whole).toMatchObject({ faults: [], steps: steps.length });
          expect(plain(pushed(journal, sizes, held))).toEqual(whole);
          expect(plain(inPlace(journal, held))).toEqual(whole);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a long line that is not a canonical row is one non_canonical fault, never read (any pieces, in place)', () => {
    const steps: Step[] = [{ prompt: 'a' }, { prompt: 'b'.repeat(300), nonCanonical: true }, { prompt: 'c' }];
    const { journal } = journalOf(steps);
    // Held, the row is read: not canonical, and its hash links on.
    const held = pushed(journal, [journal.length]);
    expect(held.faults.map((f) => [f.line, f.kind])).toEqual([[2, 'non_canonical']]);
    for (const walk of [pushed(journal, [7, 50], 200), pushed(journal, [journal.length], 200), inPlace(journal, 200)]) {
      expect(walk.faults.map((f) => [f.line, f.kind])).toEqual([
        [2, 'non_canonical'],
        [3, 'seq_mismatch'],
        [3, 'prev_hash_mismatch'],
      ]);
      expect(walk.faults[0]!.message).toMatch(
        /^line of 661 bytes that is not a canonical row: a line longer than 200 bytes is taken only as one/,
      );
      expect(walk.steps).toBe(2);
    }
  });

  it('every reader of a receipt says the same of lines longer than LONG_LINE_BYTES', async () => {
    const big = 'p'.repeat(LONG_LINE_BYTES + 1000);
    const ok = writeReceipt('long-ok.tar', [
      { prompt: 'first', refs: [sha('blob 1')] },
      { prompt: big, toolResult: { out: 'é\n"x"' }, refs: [sha('blob 2'), sha('blob 1')] },
      { prompt: 'last' },
    ]);
    const good = await verdicts(ok);
    expect(good.errors).toEqual([]);
    expect(good.steps).toBe(3);
    const bad = writeReceipt('long-bad.tar', [
      { prompt: 'first' },
      { prompt: big, nonCanonical: true },
      { prompt: 'last' },
    ]);
    const v = await verdicts(bad);
    expect(v.ok).toBe(false);
    expect(v.errors.map((e) => e.kind)).toEqual(expect.arrayContaining(['non_canonical']));
    expect(v.errors.find((e) => e.kind === 'non_canonical')!.message).toMatch(/that is not a canonical row/);
  });

  // 128 MiB, not 200: each verify peaks at ~72 MB (either size), and a line held whole would be 128 MiB over the
  // ~60 MB a verify starts at, past the bound; the smaller line saves ~0.8 s of the test's ~2.2 s of CPU.
  it('a 128 MiB line verifies in memory that does not grow with it (plain and gzipped)', async () => {
    const file = path.join(root, 'huge.tar');
    await writeHugeReceipt(file, 128 * 1024 * 1024);
    for (const f of [file, `${file}.gz`]) {
      const r = peakRss([process.execPath, cliPath, 'receipt', 'verify', f, '--json'], { env: PUSHED });
      expect(JSON.parse(r.out)).toMatchObject({ ok: true, steps: 1 });
      expect(r.mb).toBeLessThan(160);
    }
  }, 120_000);
});

/**
 * A receipt of one row whose prompt is `n` bytes of `a`, written in pieces (never whole), and its gzip: its step
 * hash is computed over the same pieces.
 */
async function writeHugeReceipt(file: string, n: number): Promise<void> {
  const piece = Buffer.alloc(1024 * 1024, 'a');
  const prompt = (put: (b: Uint8Array) => void): void => {
    for (let left = n; left > 0; left -= piece.length) put(piece.subarray(0, Math.min(left, piece.length)));
  };
  const h = createHash('sha256').update(`{"input_hash":"${INPUT}","model":"m","prev_hash":"${ZERO}","prompt":"`);
  prompt((b) => h.update(b));
  const step = h.update(`","tool_call":null,"tool_result":null}`).digest('hex');
  const head = `{"blob_refs":[],"input_hash":"${INPUT}","model":"m","prev_hash":"${ZERO}","prompt":"`;
  const tail = `","seq":0,"step_hash":"${step}","tool_call":null,"tool_result":null,"ts":1796000000.25}\n`;
  const fd = openSync(file, 'w');
  try {
    const tar = new TarWriter((b) => writeSync(fd, b), 1_700_000_000);
    const manifest = manifestOf(step, 1, []);
    tar.member('manifest.json', manifest.length, (put) => put(manifest));
    tar.member('journal/000000.jsonl', head.length + n + tail.length, (put) => {
      put(Buffer.from(head));
      prompt(put);
      put(Buffer.from(tail));
    });
    tar.end();
  } finally {
    closeSync(fd);
  }
  await pipeline(createReadStream(file), createGzip({ level: 1 }), createWriteStream(`${file}.gz`));
}
