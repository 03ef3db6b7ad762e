// Receipts benchmark: export and verify a 100,000-step receipt with the
// built CLI (node dist/cli.js, whole processes), side by side with the Python peer
// (test/python/receipt_peer.py: tarfile + the reference walk) verifying the same receipt.
//
//   node bench/bench-receipts.mjs [--steps N] [--runs R] [--json]
//   (env STEPCHAIN_BENCH_STEPS / STEPCHAIN_BENCH_RUNS work too)
//
// Also importable: `import { benchReceipts } from './bench-receipts.mjs'` returns the rows.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(repo, 'dist', 'cli.js');
const peer = path.join(repo, 'test', 'python', 'receipt_peer.py');
const ZERO = '0'.repeat(64);

const sha = (s) => createHash('sha256').update(s).digest('hex');

/** Deterministic ASCII filler (no characters that JSON or Python would escape differently). */
function filler(seed, len) {
  const words = [
    'alpha',
    'bravo',
    'charlie',
    'delta',
    'echo',
    'foxtrot',
    'golf',
    'hotel',
    'india',
    'juliet',
    'kilo',
    'lima',
  ];
  let out = '';
  let x = (seed * 2654435761) >>> 0;
  while (out.length < len) {
    x = (x * 1103515245 + 12345) >>> 0;
    out += `${words[x % words.length]} `;
  }
  return out.slice(0, len);
}

/**
 * Writes a journal of `steps` rows (~1.3 KB each) directly: JSON.stringify of
 * objects built with sorted keys equals canonical JSON for ASCII strings and small
 * ints; ts is a float with a fractional part (i/8 + 1/16 is never integral).
 */
export function writeBenchJournal(file, steps) {
  mkdirSync(path.dirname(file), { recursive: true });
  const fd = openSync(file, 'w');
  let prev = ZERO;
  let chunk = '';
  for (let i = 0; i < steps; i++) {
    const six = {
      input_hash: sha(`input ${i}`),
      model: 'claude-3-7-sonnet-20250219',
      prev_hash: prev,
      prompt: `Step ${i}: ${filler(i, 470)}`,
      tool_call: { args: { cmd: `pytest -q tests/test_${i % 97}.py`, path: `src/module_${i % 113}.py` }, name: 'run' },
      tool_result: { exit_code: i % 3 === 0 ? 1 : 0, stdout: filler(i + 7, 360) },
    };
    const stepHash = sha(JSON.stringify(six));
    const row = {
      blob_refs: [],
      input_hash: six.input_hash,
      model: six.model,
      prev_hash: prev,
      prompt: six.prompt,
      seq: i,
      step_hash: stepHash,
      tool_call: six.tool_call,
      tool_result: six.tool_result,
      ts: 1796199133 + i / 8 + 0.0625,
    };
    chunk += `${JSON.stringify(row)}\n`;
    prev = stepHash;
    if (chunk.length > 1 << 22) {
      writeSync(fd, chunk);
      chunk = '';
    }
  }
  if (chunk) writeSync(fd, chunk);
  closeSync(fd);
  return prev;
}

function timed(cmd, args, cwd) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 28 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${(r.stderr || r.stdout).slice(0, 500)}`);
  return { ms, stdout: r.stdout };
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export async function benchReceipts({ steps = 100_000, runs = 3, log = (s) => process.stdout.write(`${s}\n`) } = {}) {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run build\` first`);
  const dir = mkdtempSync(path.join(tmpdir(), 'stepchain-bench-receipts-'));
  try {
    const agent = 'bench-agent';
    const journal = path.join(dir, '.sdd', 'runtime', 'journal', agent, '000000.jsonl');
    const head = writeBenchJournal(journal, steps);
    const jsize = statSync(journal).size;
    log(
      `receipts bench: ${steps} steps, journal ${(jsize / 1e6).toFixed(1)} MB (${Math.round(jsize / steps)} B/row), ${runs} run(s) each, median`,
    );
    timed(process.execPath, [cli, 'keygen', '-o', 'k.pem', '--public', 'k.pub'], dir);
    const receipt = path.join(dir, 'r.tar');
    const exp = [];
    for (let i = 0; i < runs; i++)
      exp.push(
        timed(
          process.execPath,
          [cli, 'export', agent, '--root', dir, '-o', receipt, '--force', '--sign-key', 'k.pem'],
          dir,
        ).ms,
      );
    const ver = [];
    for (let i = 0; i < runs; i++) {
      const r = timed(
        process.execPath,
        [cli, 'receipt', 'verify', receipt, '--public-key', 'k.pub', '--expected-head', head, '--json'],
        dir,
      );
      const doc = JSON.parse(r.stdout);
      if (!doc.ok || doc.steps !== steps) throw new Error(`stepchain verify did not hold: ${r.stdout.slice(0, 300)}`);
      ver.push(r.ms);
    }
    const py = [];
    for (let i = 0; i < runs; i++) {
      const r = timed('python3', [peer, 'verify', receipt, '--public-key', 'k.pub', '--expected-head', head], dir);
      const doc = JSON.parse(r.stdout);
      if (!doc.ok || doc.steps !== steps) throw new Error(`python peer verify did not hold: ${r.stdout.slice(0, 300)}`);
      py.push(r.ms);
    }
    const rows = [
      { task: 'stepchain export (verify journal + sign + tar)', ms: median(exp) },
      { task: 'stepchain receipt verify', ms: median(ver) },
      { task: 'python peer verify (tarfile + reference walk)', ms: median(py) },
    ];
    const receiptMb = statSync(receipt).size / 1e6;
    log('');
    log(`| ${'task'.padEnd(48)} | ${'ms'.padStart(8)} | ${'steps/s'.padStart(9)} |`);
    log(`|${'-'.repeat(50)}|${'-'.repeat(10)}|${'-'.repeat(11)}|`);
    for (const r of rows)
      log(
        `| ${r.task.padEnd(48)} | ${r.ms.toFixed(0).padStart(8)} | ${Math.round(steps / (r.ms / 1000))
          .toString()
          .padStart(9)} |`,
      );
    const ratios = {
      verify_vs_python: rows[1].ms / rows[2].ms,
      export_vs_python_verify: rows[0].ms / rows[2].ms,
    };
    log('');
    log(
      `receipt ${receiptMb.toFixed(1)} MB; stepchain verify / python verify = ${ratios.verify_vs_python.toFixed(2)}x; ` +
        `stepchain export / python verify = ${ratios.export_vs_python_verify.toFixed(2)}x (below 1 = stepchain faster; whole processes incl. startup)`,
    );
    return { steps, runs, journal_bytes: jsize, receipt_bytes: Math.round(receiptMb * 1e6), rows, ratios };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  const opt = (name, env, dflt) => {
    const i = argv.indexOf(`--${name}`);
    const v = i >= 0 ? argv[i + 1] : process.env[env];
    return v === undefined ? dflt : Number(v);
  };
  const json = argv.includes('--json');
  benchReceipts({
    steps: opt('steps', 'STEPCHAIN_BENCH_STEPS', 100_000),
    runs: opt('runs', 'STEPCHAIN_BENCH_RUNS', 3),
    log: json ? () => {} : (s) => process.stdout.write(`${s}\n`),
  }).then(
    (r) => {
      if (json) process.stdout.write(`${JSON.stringify(r)}\n`);
    },
    (e) => {
      process.stderr.write(`bench-receipts: ${e.message}\n`);
      process.exitCode = 1;
    },
  );
}
