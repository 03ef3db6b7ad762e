/**
 * Journal benchmarks (npm run bench): whole processes, side by side, in one run.
 * - verify a 100,000-step journal (~130 MB): stepchain vs the Python peer's
 *   reference verify loop, and the floor (`openssl dgst -sha256` over the file);
 * - recovery on open of the same journal (an append to it), against verify;
 * - append throughput, durable (fsync per append) and batched.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { Journal } from '../src/journal';
import { fmt, timeProcess } from './util';

const repo = path.resolve(__dirname, '..');
const work = path.join(repo, '.bench');
const cli = path.join(repo, 'dist', 'cli.js');
const peer = path.join(repo, 'tools', 'python', 'stepchain_ref.py');
const steps = Number(process.env.BENCH_STEPS ?? 100000);

mkdirSync(work, { recursive: true });
const file = path.join(work, `journal-${steps}.jsonl`);
if (!existsSync(file))
  execFileSync(process.execPath, [path.join(repo, 'scripts', 'make-journal.mjs'), file, String(steps)]);
const mb = statSync(file).size / 1e6;
console.log(`\n# Journal: ${steps} steps, ${mb.toFixed(1)} MB (${file})`);

const py = timeProcess('python3', [peer, 'verify', file]);
const ours = timeProcess(process.execPath, [cli, 'verify', file]);
const ours1 = timeProcess(process.execPath, [cli, 'verify', file], { env: { STEPCHAIN_THREADS: '1' } });
const floor = timeProcess('openssl', ['dgst', '-sha256', file]);
if (!ours.stdout.startsWith('OK')) throw new Error(`verify did not pass: ${ours.stdout}`);

const dir = path.join(work, 'recover', 'agent');
mkdirSync(dir, { recursive: true });
const reset = (): void => copyFileSync(file, path.join(dir, '000000.jsonl'));
const recover = timeProcess(process.execPath, [cli, 'append', dir, '--prompt', 'x', '--no-snapshot'], {
  before: reset,
  env: { STEPCHAIN_AUDIT: 'off' },
});

console.log('| what | median wall time | ratio |');
console.log('| --- | --- | --- |');
console.log(`| Python peer verify (json.loads + json.dumps + sha256) | ${fmt(py.ms)} | 1.00 |`);
console.log(`| stepchain verify | ${fmt(ours.ms)} | ${(py.ms / ours.ms).toFixed(2)}x faster than Python |`);
console.log(
  `| stepchain verify, one thread | ${fmt(ours1.ms)} | ${(py.ms / ours1.ms).toFixed(2)}x faster than Python |`,
);
console.log(
  `| floor: openssl dgst -sha256 over the file | ${fmt(floor.ms)} | stepchain is ${(ours.ms / floor.ms).toFixed(2)}x the floor |`,
);
console.log(`| recovery on open + 1 append | ${fmt(recover.ms)} | ${(recover.ms / ours.ms).toFixed(2)}x verify |`);

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
