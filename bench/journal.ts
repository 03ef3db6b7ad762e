/**
 * Journal benchmarks (npm run bench): whole processes, side by side, in one run,
 * interleaved (one run of each per round, medians of BENCH_RUNS rounds).
 * - verify a 100,000-step journal (~130 MB) of each row shape bench/make-journal.ts writes
 *   (BENCH_SHAPES=plain,floats,... to choose), against the Python peer and the floor, and
 *   the worst shape's ratios;
 * - verify the plain shape: stepchain (threads, one thread, the
 *   WebAssembly scanner off) vs the Python peer (test/python/stepchain_ref.py
 *   verify-reference: the reference's own verify loop, text-mode lines, str.strip,
 *   json.loads, json.dumps, sha256), and the floor (`openssl dgst -sha256`);
 * - recovery on open of the same journal (an append to it), against verify;
 * - replay --limit 1, show and report of an 800,000-step journal (~1 GB)
 *   against verify of it, with peak memory (BENCH_WINDOW_STEPS to change, 0 to skip);
 * - append throughput, durable (fsync per append) and batched.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { Journal } from '../src/journal';
import { makeJournal, SHAPES, type Shape } from './make-journal';
import { fmt, mb, PYTHON, timeInterleaved, type Contender } from './util';
import { recordFigure } from './targets.cjs';

const repo = path.resolve(__dirname, '..');
const work = path.join(repo, '.bench');
const cli = path.join(repo, 'dist', 'cli.js');
const peer = path.join(repo, 'test', 'python', 'stepchain_ref.py');
const steps = Number(process.env.BENCH_STEPS ?? 100000);
const windowSteps = Number(process.env.BENCH_WINDOW_STEPS ?? 800000);
const runs = Number(process.env.BENCH_RUNS ?? 7);

mkdirSync(work, { recursive: true });
const shapes = (process.env.BENCH_SHAPES?.split(',') ?? [...SHAPES]) as Shape[];
/** A journal of n rows of a shape (bench/make-journal.ts), written once and kept under .bench/. */
const journalOf = (n: number, shape: Shape = 'plain'): string => {
  const f = path.join(work, `journal-${shape}-${n}.jsonl`);
  if (!existsSync(f)) {
    makeJournal(`${f}.tmp`, n, shape);
    renameSync(`${f}.tmp`, f);
  }
  return f;
};

// Verify on every row shape: each shape's journal against the Python peer and the floor, interleaved.
{
  const files = new Map(shapes.map((sh) => [sh, journalOf(steps, sh)]));
  const contenders: Contender[] = [];
  for (const [sh, f] of files) {
    contenders.push(
      { label: `py:${sh}`, cmd: PYTHON, args: [peer, 'verify-reference', f] },
      { label: `ours:${sh}`, cmd: process.execPath, args: [cli, 'verify', f] },
      { label: `floor:${sh}`, cmd: 'openssl', args: ['dgst', '-sha256', f] },
    );
  }
  const r = timeInterleaved(contenders, runs);
  console.log(`\n# Verify by row shape: ${steps} steps each; medians of ${runs} interleaved runs`);
  console.log('| shape | size | stepchain verify | Python peer | floor (openssl) | vs Python | vs floor |');
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  // The worst shape for each target on its own: the fewest times faster than the peer, the most times the floor.
  let worstPy: { sh: Shape; py: number } | undefined;
  let worstFloor: { sh: Shape; floor: number } | undefined;
  for (const [sh, f] of files) {
    const [py, ours, floor] = ['py', 'ours', 'floor'].map((k) => r.get(`${k}:${sh}`)!.ms) as [number, number, number];
    if (!r.get(`ours:${sh}`)!.stdout.startsWith('OK')) throw new Error(`verify did not pass on ${sh}`);
    if (!r.get(`py:${sh}`)!.stdout.includes('"ok": true')) throw new Error(`the Python peer did not pass on ${sh}`);
    const row = { sh, py: py / ours, floor: ours / floor };
    const subject = steps === 100000 ? sh : `${sh} at ${steps} steps`;
    recordFigure('verify-vs-python', subject, row.py);
    recordFigure('verify-vs-floor', subject, row.floor);
    if (worstPy === undefined || row.py < worstPy.py) worstPy = row;
    if (worstFloor === undefined || row.floor > worstFloor.floor) worstFloor = row;
    console.log(
      `| ${sh} | ${(statSync(f).size / 1e6).toFixed(0)} MB | ${fmt(ours)} | ${fmt(py)} | ${fmt(floor)} | ` +
        `${row.py.toFixed(2)}x faster | ${row.floor.toFixed(2)}x |`,
    );
  }
  if (worstPy !== undefined && worstFloor !== undefined)
    console.log(
      `\nWorst shapes: against the peer ${worstPy.sh}, ${worstPy.py.toFixed(2)}x faster than Python (target: at ` +
        `least 8x); against the floor ${worstFloor.sh}, ${worstFloor.floor.toFixed(2)}x (target: at most 2.5x).`,
    );
}

const file = journalOf(steps);
const size = statSync(file).size / 1e6;
console.log(`\n# Journal: ${steps} steps, ${size.toFixed(1)} MB (${file}); medians of ${runs} interleaved runs`);

const dir = path.join(work, 'recover', 'agent');
mkdirSync(dir, { recursive: true });
const reset = (): void => copyFileSync(file, path.join(dir, '000000.jsonl'));
const t = timeInterleaved(
  [
    { label: 'py', cmd: PYTHON, args: [peer, 'verify-reference', file] },
    { label: 'ours', cmd: process.execPath, args: [cli, 'verify', file] },
    { label: 'one', cmd: process.execPath, args: [cli, 'verify', file], env: { STEPCHAIN_THREADS: '1' } },
    { label: 'nowasm', cmd: process.execPath, args: [cli, 'verify', file], env: { STEPCHAIN_WASM: '0' } },
    {
      label: 'nowasm1',
      cmd: process.execPath,
      args: [cli, 'verify', file],
      env: { STEPCHAIN_WASM: '0', STEPCHAIN_THREADS: '1' },
    },
    { label: 'floor', cmd: 'openssl', args: ['dgst', '-sha256', file] },
    {
      label: 'recover',
      cmd: process.execPath,
      args: [cli, 'append', dir, '--prompt', 'x', '--no-snapshot'],
      env: { STEPCHAIN_AUDIT: 'off' },
      before: reset,
    },
  ],
  runs,
);
const ms = (k: string): number => t.get(k)!.ms;
if (!t.get('ours')!.stdout.startsWith('OK')) throw new Error(`verify did not pass: ${t.get('ours')!.stdout}`);
if (!t.get('py')!.stdout.includes('"ok": true'))
  throw new Error(`the Python peer did not pass: ${t.get('py')!.stdout}`);

const vsPy = (k: string): string =>
  `${(ms('py') / ms(k)).toFixed(2)}x faster than Python, ${(ms(k) / ms('floor')).toFixed(2)}x the floor`;
console.log('| what | median wall time | ratio |');
console.log('| --- | --- | --- |');
console.log(
  `| Python peer: the reference's verify loop (text-mode lines, json.loads, json.dumps, sha256) | ${fmt(ms('py'))} | 1.00 |`,
);
console.log(`| stepchain verify | ${fmt(ms('ours'))} | ${vsPy('ours')} |`);
console.log(`| stepchain verify, one thread | ${fmt(ms('one'))} | ${vsPy('one')} |`);
console.log(`| stepchain verify, WebAssembly scanner off | ${fmt(ms('nowasm'))} | ${vsPy('nowasm')} |`);
console.log(`| stepchain verify, WebAssembly scanner off, one thread | ${fmt(ms('nowasm1'))} | ${vsPy('nowasm1')} |`);
console.log(`| floor: openssl dgst -sha256 over the file | ${fmt(ms('floor'))} | - |`);
console.log(
  `| recovery on open + 1 append | ${fmt(ms('recover'))} | ${(ms('recover') / ms('ours')).toFixed(2)}x verify |`,
);
console.log(
  `\nWebAssembly scanner: verify ${(ms('nowasm') / ms('ours')).toFixed(2)}x faster with it (threads), ${(ms('nowasm1') / ms('one')).toFixed(2)}x on one thread.`,
);

// Two runs that verify, compared: the journal against itself cut by its last step (every row compared, a
// length_mismatch at the end). Read a block at a time by their marks, never parsed whole.
{
  const cut = path.join(work, `journal-plain-${steps}-cut.jsonl`);
  if (!existsSync(cut)) {
    const bytes = readFileSync(file);
    writeFileSync(cut, bytes.subarray(0, bytes.lastIndexOf(0x0a, bytes.length - 2) + 1));
  }
  const d = timeInterleaved(
    [
      { label: 'verify', cmd: process.execPath, args: [cli, 'verify', file], rss: true },
      { label: 'diff', cmd: process.execPath, args: [cli, 'diff', file, cut, '--json'], rss: true },
    ],
    Math.min(runs, 3),
  );
  const verdict = JSON.parse(d.get('diff')!.stdout) as { reason: string; seq: number };
  if (verdict.reason !== 'length_mismatch' || verdict.seq !== steps - 1)
    throw new Error(`diff did not find the cut step: ${d.get('diff')!.stdout.slice(0, 200)}`);
  const v = d.get('verify')!;
  const df = d.get('diff')!;
  console.log(`\n# diff of two ${steps}-step journals that verify (the second cut by its last step)`);
  console.log('| what | median wall time | vs verify (one journal) | peak RSS |');
  console.log('| --- | --- | --- | --- |');
  console.log(`| stepchain verify | ${fmt(v.ms)} | 1.00x | ${mb(v.rssKb)} |`);
  console.log(`| stepchain diff --json | ${fmt(df.ms)} | ${(df.ms / v.ms).toFixed(2)}x | ${mb(df.rssKb)} |`);
}

if (windowSteps > 0) {
  // Windows of a large journal: verified once streaming, then only the steps shown are read.
  const project = path.join(work, `window-${windowSteps}`);
  const agent = path.join(project, '.sdd', 'runtime', 'journal', 'big');
  mkdirSync(agent, { recursive: true });
  const big = path.join(agent, '000000.jsonl');
  if (!existsSync(big)) copyFileSync(journalOf(windowSteps), big);
  const bigMb = statSync(big).size / 1e6;
  const html = path.join(work, 'window.html');
  const w = timeInterleaved(
    [
      { label: 'verify', cmd: process.execPath, args: [cli, 'verify', big], rss: true },
      { label: 'replay', cmd: process.execPath, args: [cli, 'replay', big, '--limit', '1'], rss: true },
      { label: 'show', cmd: process.execPath, args: [cli, 'show', big, String(windowSteps - 1)], rss: true },
      { label: 'report', cmd: process.execPath, args: [cli, 'report', big, '-o', html, '--force'], rss: true },
    ],
    Math.min(runs, 3),
  );
  const v = w.get('verify')!;
  console.log(`\n# Windows of a ${windowSteps}-step journal (${bigMb.toFixed(0)} MB)`);
  console.log('| what | median wall time | vs verify | peak RSS |');
  console.log('| --- | --- | --- | --- |');
  for (const [label, what] of [
    ['verify', 'stepchain verify'],
    ['replay', 'stepchain replay --limit 1'],
    ['show', 'stepchain show (last step)'],
    ['report', 'stepchain report (its last 10,000 steps embedded)'],
  ] as const) {
    const r = w.get(label)!;
    console.log(`| ${what} | ${fmt(r.ms)} | ${(r.ms / v.ms).toFixed(2)}x | ${mb(r.rssKb)} |`);
  }
}

// Append throughput, in-process through the library.
const appendDir = path.join(work, 'append');
const measure = (label: string, n: number, fn: (j: Journal) => void, durability: 'durable' | 'none'): void => {
  rmSync(appendDir, { recursive: true, force: true });
  const j = Journal.open(path.join(appendDir, '.sdd', 'runtime', 'journal', 'a'), { durability });
  const t0 = process.hrtime.bigint();
  fn(j);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  console.log(`| ${label} | ${n} steps in ${fmt(ms)} | ${((n / ms) * 1000).toFixed(0)} steps/s |`);
};
const step = (i: number) => ({
  prompt: `step ${i} ${'x'.repeat(400)}`,
  tool_call: { name: 'edit', args: { i } },
  tool_result: { ok: true },
});
console.log('\n| append | time | throughput |');
console.log('| --- | --- | --- |');
measure(
  'durable, one fsync per append',
  1000,
  (j) => {
    for (let i = 0; i < 1000; i++) j.append(step(i));
  },
  'durable',
);
measure(
  'durable, batches of 100 (appendMany)',
  10000,
  (j) => {
    for (let b = 0; b < 100; b++) j.appendMany(Array.from({ length: 100 }, (_, i) => step(b * 100 + i)));
  },
  'durable',
);
measure(
  'no fsync, one write per append',
  10000,
  (j) => {
    for (let i = 0; i < 10000; i++) j.append(step(i));
  },
  'none',
);
rmSync(appendDir, { recursive: true, force: true });
