// npm run bench: every benchmark, side by side with its peer, in one run.
// Figures are printed, never asserted. Needs a fresh `npm run build`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import targets from './targets.cjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const register = path.join(root, 'test', 'helpers', 'swc-register.js');
const run = (file) => {
  const ts = file.endsWith('.ts');
  execFileSync(process.execPath, ts ? ['-r', register, file] : [file], { cwd: root, stdio: 'inherit' });
};
console.log(`stepchain benchmarks (node ${process.version}, ${new Date().toISOString()})`);
// NODE_EXTRA_CA_CERTS makes every Node process parse the whole certificate bundle as it starts (~45 ms on a
// 2-core machine), before any of our code runs; a stock Node does not pay it and no benchmark here speaks TLS.
// Removed for the processes measured, and said; STEPCHAIN_BENCH_KEEP_ENV=1 keeps it.
if (process.env.NODE_EXTRA_CA_CERTS !== undefined && process.env.STEPCHAIN_BENCH_KEEP_ENV !== '1') {
  const t = (env) => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < 5; i++) execFileSync(process.execPath, ['-e', '0'], { env });
    return Number(process.hrtime.bigint() - t0) / 5e6;
  };
  const withCa = t(process.env);
  delete process.env.NODE_EXTRA_CA_CERTS;
  const without = t(process.env);
  console.log(
    `NODE_EXTRA_CA_CERTS was set: a bare Node start takes ${withCa.toFixed(0)} ms with it, ${without.toFixed(0)} ms without; ` +
      'measured without it (STEPCHAIN_BENCH_KEEP_ENV=1 keeps it)',
  );
}
// The Python peer runs on the interpreter itself, not through a version manager's shim: pyenv's `python3` is a shell
// script that starts pyenv before Python (~0.25 s here), which is no part of the peer's cost and was counted in it.
if (process.env.STEPCHAIN_BENCH_PYTHON === undefined) {
  const exe = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
  process.env.STEPCHAIN_BENCH_PYTHON = exe;
}
console.log(`Python peer: ${process.env.STEPCHAIN_BENCH_PYTHON} (STEPCHAIN_BENCH_PYTHON to choose)`);
// What a fresh page of memory costs this machine, the context every whole-process figure below needs: a Node start
// touches ~1,900 pages, a verify of 130 MB ~6,000 and its second thread ~3,600 more (perf stat, Dec 4). On a quiet
// machine a page costs well under a microsecond; on a busy VM's slow spell ten times that and more.
{
  const pages = 16384;
  const t0 = process.hrtime.bigint();
  const mem = new Uint8Array(new WebAssembly.Memory({ initial: (pages * 4096) / 65536 }).buffer);
  for (let i = 0; i < mem.length; i += 4096) mem[i] = 1;
  const us = Number(process.hrtime.bigint() - t0) / 1e3 / pages;
  console.log(`A fresh page of memory (first touch, ${pages} pages): ${us.toFixed(2)} us`);
}
// Every benchmark records its figures against the targets here (bench/targets.cjs); the summary ends the run.
mkdirSync(path.join(root, '.bench'), { recursive: true });
const results = mkdtempSync(path.join(root, '.bench', 'results-'));
process.env.STEPCHAIN_BENCH_RESULTS = path.join(results, 'figures.jsonl');
run(path.join(root, 'bench', 'journal.ts'));
// Benchmarks of the other capabilities (receipts, snapshots, the Action, the hook, append), in name order.
for (const f of readdirSync(path.join(root, 'bench'))
  .filter((f) => /^bench-.*\.(mjs|ts)$/.test(f))
  .sort()) {
  run(path.join(root, 'bench', f));
}
console.log(`\n# The targets, from this run's figures (${new Date().toISOString()})`);
for (const line of targets.summary(process.env.STEPCHAIN_BENCH_RESULTS)) console.log(line);
rmSync(results, { recursive: true, force: true });
