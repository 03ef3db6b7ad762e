import path from 'node:path';
import { appendFileSync, copyFileSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { Journal } from '../src/journal';
import { scanFileChunk } from '../src/journal/file-chunk';
import { releasePrestarted, scanSlices, setChunkWorkerEntry } from '../src/journal/parallel';
import { CHUNK_WORKER_SOURCE } from '../src/journal/worker/source.generated';
import { InputError } from '../src/errors';
import { cliPaused } from './helpers/proc';
import { cli } from './helpers/cli';
import { tempDir } from './helpers/tmp';

/**
 * A journal cut or rewritten shorter while it is read: a walk is planned on the file's size when it begins (its
 * slices, its blocks), and an append only lengthens a journal, so a read that finds the file ending early must say
 * so, never walk what is left and answer for it. (A slice that found the file shorter used to stop there: `verify`
 * printed OK for the rows before the cut, exit 0, for a file that at no moment held only those.) Every read of the
 * walk is covered: the scanner's blocks, a line longer than a block, a line past the scanner's limit (read by the JS
 * path), the JS path alone, and slices walked on worker threads.
 */
const root = tempDir();
const dir = path.join(root, '.sdd', 'runtime', 'journal', 's');
const j = Journal.open(dir, { durability: 'none' });
j.appendMany([
  ...Array.from({ length: 300 }, (_, i) => ({ prompt: `step ${i} ${'w'.repeat(i % 40)}`, tool_result: { n: i } })),
  { prompt: 'x'.repeat(1_500_000) }, // longer than a scanner block (1 MB)
  ...Array.from({ length: 50 }, (_, i) => ({ prompt: `after ${i}` })),
  { prompt: 'y'.repeat(17 * 1024 * 1024) }, // past the scanner's limit (16 MB): the JS path reads it
  ...Array.from({ length: 50 }, (_, i) => ({ prompt: `last ${i}` })),
]);
const whole = readFileSync(j.file);
const size = whole.length;
/** Offsets where the file is cut: inside rows, at a row's end, inside each long line, one byte short of the end. */
const starts = [0];
for (let k = whole.indexOf(0x0a); k >= 0; k = whole.indexOf(0x0a, k + 1)) starts.push(k + 1);
const cuts: [string, number][] = [
  ['inside a row', starts[10]! + 7],
  ['at a row end', starts[150]!],
  ['inside a line longer than a block', starts[300]! + 1_200_000],
  ['at the row end after it', starts[330]!],
  ['inside a line past the scanner limit', starts[351]! + 9_000_000],
  ['just before that line ends', starts[351]! + 17 * 1024 * 1024 - 5],
  ['one byte short of the end', size - 1],
];

function cutCopy(at: number): string {
  const f = path.join(root, `cut-${at}.jsonl`);
  copyFileSync(j.file, f);
  truncateSync(f, at);
  return f;
}

afterEach(() => {
  releasePrestarted();
  setChunkWorkerEntry(undefined);
});

test('the whole file walks clean (the cases below fail for the cut alone)', () => {
  for (const wasm of [true, false]) {
    const s = scanFileChunk(j.file, 0, size, { strict: false, wasm });
    expect(s.faults.list).toEqual([]);
    expect(s.rows).toBe(starts.length - 1);
  }
});

test.each(cuts)('a file cut %s after the walk was planned: an input error naming it, on every path', (_where, at) => {
  const f = cutCopy(at);
  for (const wasm of [true, false]) {
    let thrown: unknown;
    try {
      scanFileChunk(f, 0, size, { strict: false, wasm });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(InputError);
    expect((thrown as Error).message).toContain(`${f}: it changed while it was read (it now ends at byte ${at}`);
  }
});

test('slices walked on worker threads: the cut is told, not walked around', () => {
  setChunkWorkerEntry({ source: CHUNK_WORKER_SOURCE });
  const env = { STEPCHAIN_THREADS: '3', STEPCHAIN_PARALLEL_MIN_BYTES: '0' };
  for (const [, at] of [cuts[1]!, cuts[3]!, cuts[6]!]) {
    const f = cutCopy(at);
    expect(() => scanSlices({ kind: 'file', path: f }, 0, size, { strict: false }, env)).toThrow(
      /it changed while it was read/,
    );
  }
});

test('verify, whole process: a journal cut between the plan and the walk is exit 2 and one line, never OK', async () => {
  const f = path.join(root, 'live.jsonl');
  copyFileSync(j.file, f);
  const resume = path.join(root, 'resume');
  const env = { STEPCHAIN_THREADS: '2', STEPCHAIN_PARALLEL_MIN_BYTES: '0', STEPCHAIN_TEST_RESUME: resume };
  const p = await cliPaused(['verify', f], 'walk:planned', { env });
  truncateSync(f, starts[200]!); // a row boundary: what is left would verify on its own
  writeFileSync(resume, '');
  const { code, stderr } = await p.exited();
  expect(code).toBe(2);
  const problems = stderr.split('\n').filter((l) => l !== '' && !l.includes('paused at'));
  expect(problems).toEqual([expect.stringContaining(`${f}: it changed while it was read`)]);
  expect(statSync(f).size).toBe(starts[200]);
});

/**
 * The other side: a journal an append is writing when the walk begins. A large row reaches the file in pieces, so a
 * walk planned on the size then can end inside it: read as a torn line, a false fault. The walk is made again on the
 * size the file has grown to (a torn line at rest is still reported).
 */
describe('a journal still being written when the walk begins', () => {
  const rows = starts.slice(0, 301); // the first 300 rows, then the 1.5 MB one being written
  const mid = rows[300]! + 700_000;

  test('verify: the row finished meanwhile is walked, OK (it was a malformed_json fault, exit 1)', async () => {
    const f = path.join(root, 'growing.jsonl');
    writeFileSync(f, whole.subarray(0, mid));
    const resume = path.join(root, 'resume-grow');
    const p = await cliPaused(['verify', f], 'walk:planned', { env: { STEPCHAIN_TEST_RESUME: resume } });
    appendFileSync(f, whole.subarray(mid, starts[301]!));
    writeFileSync(resume, '');
    const { code, stderr } = await p.exited();
    expect(stderr.split('\n').filter((l) => l !== '' && !l.includes('paused at'))).toEqual([]);
    expect(code).toBe(0);
  });

  test('a torn line at rest is reported as before', () => {
    const f = path.join(root, 'torn.jsonl');
    writeFileSync(f, whole.subarray(0, mid));
    const r = cli(['verify', f]);
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).toMatch(/malformed_json/);
  });
});
