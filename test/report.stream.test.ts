import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { canonical, pythonFloatRepr } from '../src/canonical';
import { ZERO_HASH } from '../src/util/hash';
import { renderReport, writeReport } from '../src/report/report';
import fc from 'fast-check';
import { blobDigestsOf } from '../src/receipt';
import { Journal, readJournalBytes } from '../src/journal';
import { blobRefsOf, loadReportSource } from '../src/report/source';
import { applyEdits, LINE_MUTATIONS, lineEdit, testSeed } from './helpers/journal-edits';
import { writeSyntheticJournal } from './helpers/journal-rows';
import { peakRss } from './helpers/peak-rss';
import { cliPath } from './helpers/paths';
import { tempDir } from './helpers/tmp';

/**
 * `report` writes its page in pieces: the page around the journal, and the journal's base64 a few megabytes at a
 * time, never the page as one string. The file is the page renderReport makes (byte for byte), whatever the
 * journal's length (base64's pieces join only at multiples of 3 bytes), and memory no longer follows the page.
 */
const root = tempDir('stepchain-report-stream-');
const NOW = new Date('2026-12-05T10:00:00Z');
let made = 0;

const TOOL_CALL = { name: 'edit', title: 'stepchain-journal-b64-00' };
const prompt = (seq: number, pad: number): string => `step ${seq} ${'p'.repeat(pad + (seq % 3))}`;

/**
 * A journal of `n` steps whose prompts are `pad` long: lengths on every side of 3 and of a base64 piece. Its rows are
 * writeSyntheticJournal's (the first test compares them), spelled here: each row's values are plain ASCII, so its
 * canonical JSON is a template, and the 60 MB journal is written in 0.5 s of CPU, not 1.9 (the encoder's walk); its
 * rows are written as bytes into one buffer, the prompt's run of `p` copied, not made a string a row: 0.25 s.
 */
function journal(n: number, pad: number): string {
  const file = path.join(root, `j${made++}`, '000000.jsonl');
  const call = canonical(TOOL_CALL);
  const run = Buffer.alloc(pad + 2, 'p');
  const out = Buffer.allocUnsafe(n * (pad + 600));
  let at = 0;
  const put = (s: string): void => void (at += out.write(s, at, 'latin1'));
  let prev = ZERO_HASH;
  for (let seq = 0; seq < n; seq++) {
    const said = run.subarray(0, pad + (seq % 3));
    const hash = createHash('sha256')
      .update(`{"input_hash":"${ZERO_HASH}","model":"m","prev_hash":"${prev}","prompt":"step ${seq} `)
      .update(said)
      .update(`","tool_call":${call},"tool_result":null}`)
      .digest('hex');
    put(`{"blob_refs":[],"input_hash":"${ZERO_HASH}","model":"m","prev_hash":"${prev}","prompt":"step ${seq} `);
    at += said.copy(out, at);
    const ts = pythonFloatRepr(1.8e9 + seq + 0.5);
    put(`","seq":${seq},"step_hash":"${hash}","tool_call":${call},"tool_result":null,"ts":${ts}}\n`);
    prev = hash;
  }
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, out.subarray(0, at));
  return file;
}

test('the journals written here are the rows writeSyntheticJournal writes', () => {
  const synthetic = path.join(root, 'synthetic', '000000.jsonl');
  writeSyntheticJournal(synthetic, 400, (seq) => ({
    model: 'm',
    prompt: prompt(seq, 7),
    tool_call: TOOL_CALL,
    tool_result: null,
    ts: 1.8e9 + seq + 0.5,
  }));
  expect(readFileSync(journal(400, 7)).equals(readFileSync(synthetic))).toBe(true);
});

test.each([
  [1, 0],
  [2, 1],
  [3, 7],
  [400, 120],
  // ~3.4 MB and ~6.9 MB: the journal's base64 crosses one and two pieces of 3 MiB.
  [12_000, 150],
  [24_001, 153],
])('the page written of %i steps is renderReport\u2019s, byte for byte', (n, pad) => {
  const file = journal(n, pad);
  const out = path.join(root, `page${made++}.html`);
  // A title that holds the start of the mark the page's pieces are cut at.
  const options = { now: NOW, title: 'stepchain-journal-b64- <script>' };
  const result = writeReport(file, out, options);
  expect(result.ok).toBe(true);
  const written = readFileSync(out, 'utf8');
  expect(written).toBe(renderReport(loadReportSource(file, root), options).html);
  const data = JSON.parse(
    /<script type="application\/json" id="stepchain-data">(.*?)<\/script>/s.exec(written)![1]!,
  ) as {
    journal_b64: string;
    title: string;
  };
  expect(Buffer.from(data.journal_b64, 'base64').equals(readFileSync(file))).toBe(true);
  expect(data.title).toBe(options.title);
});

test('a report of a ~60 MB journal, embedded whole, in memory that is not ten times the page', () => {
  const file = journal(48_000, 1150);
  const out = path.join(root, 'big.html');
  const r = peakRss([process.execPath, cliPath, 'report', file, '-o', out], {
    env: { ...process.env, STEPCHAIN_AUDIT: 'off' },
  });
  expect(r.code).toBe(0);
  expect(r.err).toMatch(/the page embeds 48000 steps \(\d+ MB\)/);
  // It held the page as strings (the journal's base64, the data's JSON, the page, its bytes): ~10 times the journal.
  expect(r.mb).toBeLessThan(300);
});

test("a report's blob order is the rows' blob refs, first occurrence, whatever the bytes (read by the walk, unparsed)", () => {
  // blobRefsOf parsed every row for them (a 100,000-step receipt's report); the walk's list must be the same.
  const j = Journal.open(path.join(root, 'p', '.sdd', 'runtime', 'journal', 'refs'), { durability: 'none' });
  j.appendMany(
    Array.from({ length: 40 }, (_, i) => ({
      prompt: `p${i} r\u00e9sum\u00e9 a/b \t`,
      tool_call: { name: 'edit', args: { ratio: i % 2 ? 0.25 : 1.0 } },
      tool_result: { ok: true },
      blobs: i % 4 === 0 ? [] : [Buffer.from(`blob ${i % 5}`), Buffer.from(`blob ${i % 3}`)],
      ts: 1796199133 + i,
    })),
  );
  const lines = readFileSync(j.file, 'utf8').split('\n').slice(0, -1);
  const seed = testSeed();
  fc.assert(
    fc.property(
      fc.array(lineEdit(LINE_MUTATIONS.length, lines.length), { maxLength: 4 }),
      fc.boolean(),
      (edits, noNl) => {
        const buf = applyEdits(lines, LINE_MUTATIONS, edits, noNl);
        expect(blobRefsOf(buf)).toEqual(blobDigestsOf(readJournalBytes(buf).entries.map((e) => e.row.blob_refs)));
      },
    ),
    { seed, numRuns: 200 },
  );
  expect(blobRefsOf(readFileSync(j.file)).length).toBe(5);
});
