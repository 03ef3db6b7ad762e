// Receipts benchmark: export and verify a 100,000-step receipt with the
// built CLI (node dist/cli.js, whole processes), side by side with the Python peer
// (test/python/receipt_peer.py: tarfile + the reference walk) verifying the same receipt.
//
//   node bench/bench-receipts.mjs [--steps N] [--runs R] [--only inflating] [--json]
//   (env STEPCHAIN_BENCH_STEPS / STEPCHAIN_BENCH_RUNS work too; --only inflating runs the inflating archive's case
//   alone, its key made as the whole bench makes it: seconds, not minutes, to compare two builds)
//
// Also importable: `import { benchReceipts } from './bench-receipts.mjs'` returns the rows.
import { spawnSync } from 'node:child_process';
import { createHash, createPrivateKey, sign } from 'node:crypto';
import {
  closeSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip, gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import targets from './targets.cjs';

const { recordFigure } = targets;

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
export function writeBenchJournal(file, steps, refOf = undefined) {
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
      blob_refs: refOf === undefined ? [] : [refOf(i)].flat(),
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

/** The Python peer's interpreter (bench/run.mjs resolves it past a version manager's shim). */
const PYTHON = process.env.STEPCHAIN_BENCH_PYTHON ?? 'python3';

/**
 * Runs a whole process under Python's getrusage(RUSAGE_CHILDREN): its wall time, taken in the wrapper around the
 * child alone (the wrapper's own start is no part of either contender's), and the child's peak RSS (`ok` lists the
 * exit codes that are a verdict, not a failure of the run).
 */
const RUSAGE =
  'import resource,subprocess,sys,time\n' +
  't=time.perf_counter()\n' +
  'r=subprocess.run(sys.argv[1:])\n' +
  't=time.perf_counter()-t\n' +
  'sys.stderr.write("\\nwall_ms=%.3f maxrss_kb=%d\\n" % (t*1000, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n' +
  'sys.exit(r.returncode)';

function timed(cmd, args, cwd, ok = [0]) {
  const r = spawnSync(PYTHON, ['-c', RUSAGE, cmd, ...args], { cwd, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (!ok.includes(r.status))
    throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${(r.stderr || r.stdout).slice(0, 500)}`);
  const m = /wall_ms=([\d.]+) maxrss_kb=(\d+)\s*$/.exec(r.stderr);
  if (m === null) throw new Error(`${cmd} ${args.join(' ')}: the wrapper printed no timing: ${r.stderr.slice(-300)}`);
  return { ms: Number(m[1]), stdout: r.stdout, rssMb: Number(m[2]) / 1024 };
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export async function benchReceipts({
  steps = 100_000,
  runs = 5,
  only = undefined,
  log = (s) => process.stdout.write(`${s}\n`),
} = {}) {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run build\` first`);
  if (only !== undefined && only !== 'inflating')
    throw new Error(`--only ${only}: the one case run alone is inflating`);
  const dir = mkdtempSync(path.join(tmpdir(), 'stepchain-bench-receipts-'));
  try {
    if (only === 'inflating') {
      timed(process.execPath, [cli, 'keygen', '-o', 'k.pem', '--public', 'k.pub'], dir);
      return { runs, inflating: await benchInflating(dir, runs, log) };
    }
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
    const expRss = [];
    for (let i = 0; i < runs; i++) {
      const e = timed(
        process.execPath,
        [cli, 'export', agent, '--root', dir, '-o', receipt, '--force', '--sign-key', 'k.pem'],
        dir,
      );
      exp.push(e.ms);
      expRss.push(e.rssMb);
    }
    // Publish (redacted, re-anchored): streamed as export is; three runs (each parses every row).
    const pub = [];
    const pubRss = [];
    for (let i = 0; i < Math.min(runs, 3); i++) {
      const p = timed(
        process.execPath,
        [cli, 'publish', agent, '--root', dir, '-o', path.join(dir, 'public.tar'), '--force', '--opt-in'],
        dir,
      );
      pub.push(p.ms);
      pubRss.push(p.rssMb);
    }
    const ver = [];
    const verRss = [];
    const pyRss = [];
    const py = [];
    // Interleaved, one of each per round (as the other benches): a ratio of two medians taken minutes apart on a
    // shared VM carried its drift (7.7x in one run, 12.2x in another, of the same bin).
    for (let i = 0; i < runs; i++) {
      const r = timed(
        process.execPath,
        [cli, 'receipt', 'verify', receipt, '--public-key', 'k.pub', '--expected-head', head, '--json'],
        dir,
      );
      const doc = JSON.parse(r.stdout);
      if (!doc.ok || doc.steps !== steps) throw new Error(`stepchain verify did not hold: ${r.stdout.slice(0, 300)}`);
      ver.push(r.ms);
      verRss.push(r.rssMb);
      const p = timed(PYTHON, [peer, 'verify', receipt, '--public-key', 'k.pub', '--expected-head', head], dir);
      const pdoc = JSON.parse(p.stdout);
      if (!pdoc.ok || pdoc.steps !== steps)
        throw new Error(`python peer verify did not hold: ${p.stdout.slice(0, 300)}`);
      py.push(p.ms);
      pyRss.push(p.rssMb);
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
    const peak = { verify_mb: Math.max(...verRss), python_mb: Math.max(...pyRss), export_mb: Math.max(...expRss) };
    // Export and publish stream the journal into the receipt (docs/receipts.md): their memory is not the journal's size.
    log(
      `export at ${steps} steps: ${median(exp).toFixed(0)} ms, peak RSS ${peak.export_mb.toFixed(0)} MB (journal ${(jsize / 1e6).toFixed(0)} MB); ` +
        `publish: ${median(pub).toFixed(0)} ms, peak RSS ${Math.max(...pubRss).toFixed(0)} MB`,
    );
    log(
      `receipt verify at ${steps} steps: ${median(ver).toFixed(0)} ms, peak RSS ${peak.verify_mb.toFixed(0)} MB; ` +
        `python way ${median(py).toFixed(0)} ms, peak RSS ${peak.python_mb.toFixed(0)} MB; ` +
        `python / stepchain = ${(median(py) / median(ver)).toFixed(2)}x (target: 8x, peak under 160 MB)`,
    );
    recordFigure('receipt-vs-python', `${steps.toLocaleString('en')} steps`, median(py) / median(ver));
    recordFigure('receipt-peak-rss', `${steps.toLocaleString('en')} steps`, peak.verify_mb);
    const inflating = await benchInflating(dir, runs, log);
    const withBlobs = benchBlobReceipts(dir, steps, runs, log);
    const mostDigests = benchMostDigests(dir, log);
    const longLine = benchLongLine(dir, runs, log);
    return {
      steps,
      runs,
      journal_bytes: jsize,
      receipt_bytes: Math.round(receiptMb * 1e6),
      rows,
      ratios,
      peak_rss: peak,
      inflating,
      with_blobs: withBlobs,
      most_digests: mostDigests,
      long_line: longLine,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A receipt whose journal holds the longest row `stepchain append` writes: a 64 MiB prompt of text with quotes and
 * newlines (~72 MB once escaped), between two short rows, signed. Verify time and peak RSS beside the Python way: a
 * line longer than 8 MiB is checked as it comes, never held (docs/receipts.md); before, this receipt peaked at
 * ~340 MB.
 */
export function benchLongLine(dir, runs, log) {
  const agent = 'long-agent';
  const prompt = path.join(dir, 'long-prompt.txt');
  const sentence = Buffer.from('Fix the "parser" bug in src/app.py, keep the tests green.\n');
  const text = Buffer.alloc(64 * 1024 * 1024);
  for (let at = 0; at < text.length; at += sentence.length) sentence.copy(text, at);
  writeFileSync(prompt, text);
  for (const p of [
    ['--prompt', 'first'],
    ['--prompt-file', prompt],
    ['--prompt', 'last'],
  ])
    timed(process.execPath, [cli, 'append', agent, '--root', dir, '--no-snapshot', ...p], dir);
  const receipt = path.join(dir, 'long.tar');
  timed(process.execPath, [cli, 'export', agent, '--root', dir, '-o', receipt, '--force', '--sign-key', 'k.pem'], dir);
  rmSync(prompt);
  const ours = [];
  const theirs = [];
  for (let i = 0; i < runs; i++) {
    const r = timed(process.execPath, [cli, 'receipt', 'verify', receipt, '--public-key', 'k.pub', '--json'], dir);
    if (!JSON.parse(r.stdout).ok) throw new Error(`stepchain verify of the long line: ${r.stdout.slice(0, 300)}`);
    ours.push(r);
    const p = timed(PYTHON, [peer, 'verify', receipt, '--public-key', 'k.pub'], dir);
    if (!JSON.parse(p.stdout).ok) throw new Error(`python peer verify of the long line: ${p.stdout.slice(0, 300)}`);
    theirs.push(p);
  }
  const out = {
    receipt_bytes: statSync(receipt).size,
    verify_ms: median(ours.map((r) => r.ms)),
    verify_peak_mb: Math.max(...ours.map((r) => r.rssMb)),
    python_ms: median(theirs.map((r) => r.ms)),
    python_peak_mb: Math.max(...theirs.map((r) => r.rssMb)),
  };
  recordFigure('receipt-peak-rss', 'a 64 MiB prompt in one row', out.verify_peak_mb);
  log(
    `a 64 MiB prompt in one row (${(out.receipt_bytes / 1e6).toFixed(0)} MB receipt): stepchain verify ${out.verify_ms.toFixed(0)} ms, ` +
      `peak RSS ${out.verify_peak_mb.toFixed(0)} MB; python way ${out.python_ms.toFixed(0)} ms, peak RSS ` +
      `${out.python_peak_mb.toFixed(0)} MB; python / stepchain = ${(out.python_ms / out.verify_ms).toFixed(2)}x`,
  );
  return out;
}

/** A ustar header for a regular file (Python's numeric style). */
function ustarHeader(name, size) {
  const h = Buffer.alloc(512);
  const put = (off, text) => h.write(text, off, 'latin1');
  const oct = (n, len) => `${n.toString(8).padStart(len - 1, '0')}\0`;
  put(0, name);
  put(100, oct(0o644, 8));
  put(108, oct(0, 8));
  put(116, oct(0, 8));
  put(124, oct(size, 12));
  put(136, oct(1_700_000_000, 12));
  h.fill(0x20, 148, 156);
  put(156, '0');
  put(257, 'ustar\x0000');
  let sum = 0;
  for (const b of h) sum += b;
  put(148, `${sum.toString(8).padStart(6, '0')}\0 `);
  return h;
}

/** Where a tar's end-of-archive marker starts (its members walked by their headers). */
function endOfMembers(tar) {
  let off = 0;
  while (off + 512 <= tar.length && tar.subarray(off, off + 512).some((b) => b !== 0)) {
    const size = parseInt(
      tar
        .toString('latin1', off + 124, off + 136)
        .replace(/\0.*$/, '')
        .trim(),
      8,
    );
    off += 512 + Math.ceil(size / 512) * 512;
  }
  return off;
}

/**
 * An inflating archive: a small signed receipt with a ~200 MB zero-filled blob added (no step names it, so
 * both readers give a failing verdict: unexpected_blob), gzipped to a few hundred KB. Verify time and peak
 * RSS, stepchain beside the Python way.
 */
async function benchInflating(dir, runs, log) {
  const agent = 'small-agent';
  writeBenchJournal(path.join(dir, '.sdd', 'runtime', 'journal', agent, '000000.jsonl'), 10);
  const small = path.join(dir, 'small.tar');
  timed(process.execPath, [cli, 'export', agent, '--root', dir, '-o', small, '--force', '--sign-key', 'k.pem'], dir);
  const base = readFileSync(small);
  const blobBytes = 200 * 1024 * 1024;
  const zeroChunk = Buffer.alloc(1024 * 1024);
  const digest = createHash('sha256');
  for (let i = 0; i < blobBytes / zeroChunk.length; i++) digest.update(zeroChunk);
  const name = `blobs/${digest.digest('hex')}`;
  function* parts() {
    yield base.subarray(0, endOfMembers(base));
    yield ustarHeader(name, blobBytes);
    for (let i = 0; i < blobBytes / zeroChunk.length; i++) yield zeroChunk;
    yield Buffer.alloc(1024);
  }
  const bomb = path.join(dir, 'inflating.tar.gz');
  await pipeline(Readable.from(parts()), createGzip({ level: 9 }), createWriteStream(bomb));
  const ours = [];
  const theirs = [];
  for (let i = 0; i < runs; i++) {
    const r = timed(process.execPath, [cli, 'receipt', 'verify', bomb, '--public-key', 'k.pub', '--json'], dir, [1]);
    const doc = JSON.parse(r.stdout);
    if (doc.ok || !doc.errors.some((e) => e.kind === 'unexpected_blob'))
      throw new Error(`stepchain verify of the inflating archive: ${r.stdout.slice(0, 300)}`);
    ours.push(r);
    const p = timed(PYTHON, [peer, 'verify', bomb, '--public-key', 'k.pub'], dir, [0, 1]);
    const pdoc = JSON.parse(p.stdout);
    if (pdoc.ok) throw new Error(`python peer accepted the inflating archive: ${p.stdout.slice(0, 300)}`);
    theirs.push(p);
  }
  const out = {
    gzip_bytes: statSync(bomb).size,
    inflated_bytes: blobBytes + base.length,
    verify_ms: median(ours.map((r) => r.ms)),
    verify_peak_mb: Math.max(...ours.map((r) => r.rssMb)),
    python_ms: median(theirs.map((r) => r.ms)),
    python_peak_mb: Math.max(...theirs.map((r) => r.rssMb)),
  };
  recordFigure('receipt-vs-python', 'inflating archive', out.python_ms / out.verify_ms);
  recordFigure('receipt-peak-rss', 'inflating archive', out.verify_peak_mb);
  log(
    `inflating archive (${(out.gzip_bytes / 1e6).toFixed(2)} MB gzip, ${(out.inflated_bytes / 1e6).toFixed(0)} MB of members): ` +
      `stepchain verify ${out.verify_ms.toFixed(0)} ms, peak RSS ${out.verify_peak_mb.toFixed(0)} MB; ` +
      `python way ${out.python_ms.toFixed(0)} ms, peak RSS ${out.python_peak_mb.toFixed(0)} MB; ` +
      `python / stepchain = ${(out.python_ms / out.verify_ms).toFixed(2)}x`,
  );
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const argv = process.argv.slice(2);
  const opt = (name, env, dflt) => {
    const i = argv.indexOf(`--${name}`);
    const v = i >= 0 ? argv[i + 1] : process.env[env];
    return v === undefined ? dflt : Number(v);
  };
  const json = argv.includes('--json');
  const onlyAt = argv.indexOf('--only');
  benchReceipts({
    steps: opt('steps', 'STEPCHAIN_BENCH_STEPS', 100_000),
    runs: opt('runs', 'STEPCHAIN_BENCH_RUNS', 5),
    only: onlyAt >= 0 ? argv[onlyAt + 1] : undefined,
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

/** A tar member's header, its bytes and their padding, written to `fd`. */
function writeMember(fd, name, data) {
  writeSync(fd, ustarHeader(name, data.length));
  writeSync(fd, data);
  if (data.length % 512 !== 0) writeSync(fd, Buffer.alloc(512 - (data.length % 512)));
}

/**
 * A signed receipt shaped as an agent's session leaves it: every step names the blob its tool call's payload was
 * stored as (`blob_refs`, as the hooks write them), bundled (~1 KB each) or only listed. Written directly, members in
 * the order an export writes them. Returns the chain's head.
 */
export function writeBlobReceipt(file, dir, steps, bundled) {
  const payload = (i) => Buffer.from(`payload of step ${i}: ${filler(i + 11, 1000)}`, 'latin1');
  const digests = Array.from({ length: steps }, (_, i) => sha(payload(i)));
  return writeSignedReceipt(file, dir, steps, digests, {
    refsOf: (i) => digests[i],
    blobs: bundled ? steps : 0,
    blobOf: payload,
  });
}

/**
 * A signed receipt of `steps` bench rows, row i naming `refsOf(i)`, its manifest listing `digests`, written directly:
 * manifest, signature, journal, then `blobs` blobs (`blobOf(i)`, named by `digests[i]`), as an export writes them,
 * or with `sigLast` the signature after the journal (a verify then checks it after the manifest's bytes were let
 * go). Returns the chain's head.
 */
function writeSignedReceipt(file, dir, steps, digests, { refsOf, blobs = 0, blobOf = undefined, sigLast = false }) {
  const journal = path.join(dir, 'receipt-journal.jsonl');
  const head = writeBenchJournal(journal, steps, refsOf);
  const manifest = Buffer.from(
    JSON.stringify({
      agent_id: 'bench-agent',
      bernstein_version: 'stepchain/bench',
      blob_digests: digests,
      created_at: '2026-12-07T00:00:00Z',
      format_version: 1,
      head_hash: head,
      steps,
    }),
  );
  const signature = sign(null, manifest, createPrivateKey(readFileSync(path.join(dir, 'k.pem'))));
  const sig = () => writeMember(fd, 'manifest.sig', Buffer.from(signature.toString('base64'), 'latin1'));
  const fd = openSync(file, 'w');
  try {
    writeMember(fd, 'manifest.json', manifest);
    if (!sigLast) sig();
    writeMember(fd, 'journal/000000.jsonl', readFileSync(journal));
    if (sigLast) sig();
    rmSync(journal);
    for (let i = 0; i < blobs; i++) writeMember(fd, `blobs/${digests[i]}`, blobOf(i));
    writeSync(fd, Buffer.alloc(1024));
  } finally {
    closeSync(fd);
  }
  return head;
}

/**
 * The most blob digests a verify holds (its default `--max-digests`, 1,000,000), as one receipt: 10,000 steps that
 * each list 100 distinct blobs (none bundled), signed, its signature after the journal (checked as the manifest's
 * bytes are made again: a manifest of 67 MB is never whole in memory), plain and gzipped. Peak memory only (one run
 * each): what bounds a verify's memory whatever a receipt lists is this budget (docs/receipts.md).
 */
export function benchMostDigests(dir, log) {
  const most = 1_000_000;
  const per = 100;
  const steps = most / per;
  const digests = Array.from({ length: most }, (_, k) => sha(`listed blob ${k}`));
  const file = path.join(dir, 'most.tar');
  const head = writeSignedReceipt(file, dir, steps, digests, {
    refsOf: (i) => digests.slice(i * per, (i + 1) * per),
    sigLast: true,
  });
  const gz = `${file}.gz`;
  writeFileSync(gz, gzipSync(readFileSync(file), { level: 6 }));
  const out = {};
  for (const [label, f] of [
    ['plain', file],
    ['gzipped', gz],
  ]) {
    const r = timed(
      process.execPath,
      [cli, 'receipt', 'verify', f, '--public-key', 'k.pub', '--expected-head', head],
      dir,
    );
    if (!r.stdout.startsWith(`OK ${f}: ${steps} steps`)) throw new Error(`stepchain verify: ${r.stdout.slice(0, 300)}`);
    out[label] = { receipt_bytes: statSync(f).size, verify_ms: r.ms, verify_peak_mb: r.rssMb };
    recordFigure(
      'receipt-peak-rss',
      `${most.toLocaleString('en')} digests listed (the default --max-digests), ${label}`,
      r.rssMb,
    );
    log(
      `receipt listing ${most.toLocaleString('en')} digests, the most a verify holds by default (${steps} steps of ${per}, ` +
        `signed after the journal, ${label}, ${(statSync(f).size / 1e6).toFixed(0)} MB): stepchain verify ` +
        `${r.ms.toFixed(0)} ms, peak RSS ${r.rssMb.toFixed(0)} MB (one run)`,
    );
  }
  rmSync(file);
  rmSync(gz);
  return out;
}

/**
 * Receipt verify on receipts with blobs, which the bench's own rows lack: the receipt of `steps` steps with a blob
 * bundled per step, beside the Python way (interleaved, `runs` rounds); and, memory only (one run; the Python way
 * takes minutes there), the most steps of these rows a receipt under the 1 GiB cap holds with a blob listed per
 * step (what receipt verify holds grows with the digests a receipt lists: docs/receipts.md).
 */
function benchBlobReceipts(dir, steps, runs, log) {
  const file = path.join(dir, 'blobs.tar');
  const head = writeBlobReceipt(file, dir, steps, true);
  const ours = [];
  const theirs = [];
  for (let i = 0; i < runs; i++) {
    const args = [cli, 'receipt', 'verify', file, '--public-key', 'k.pub', '--expected-head', head, '--require-blobs'];
    // The text verdict (exit 0, its counts): --json lists every bundled digest as a string, a cost of the listing.
    const r = timed(process.execPath, args, dir);
    if (!r.stdout.includes(`blobs ${steps} bundled, 0 missing`))
      throw new Error(`stepchain verify: ${r.stdout.slice(0, 300)}`);
    ours.push(r);
    const p = timed(PYTHON, [peer, 'verify', file, '--public-key', 'k.pub', '--expected-head', head], dir);
    if (!JSON.parse(p.stdout).ok) throw new Error(`python peer verify did not hold: ${p.stdout.slice(0, 300)}`);
    theirs.push(p);
  }
  const bundled = {
    receipt_bytes: statSync(file).size,
    verify_ms: median(ours.map((r) => r.ms)),
    verify_peak_mb: Math.max(...ours.map((r) => r.rssMb)),
    python_ms: median(theirs.map((r) => r.ms)),
    python_peak_mb: Math.max(...theirs.map((r) => r.rssMb)),
  };
  rmSync(file);
  const label = `${steps.toLocaleString('en')} steps, a blob bundled per step`;
  recordFigure('receipt-vs-python', label, bundled.python_ms / bundled.verify_ms);
  recordFigure('receipt-peak-rss', label, bundled.verify_peak_mb);
  log(
    `receipt with a blob bundled per step (${steps} steps, ${(bundled.receipt_bytes / 1e6).toFixed(0)} MB): ` +
      `stepchain verify ${bundled.verify_ms.toFixed(0)} ms, peak RSS ${bundled.verify_peak_mb.toFixed(0)} MB; ` +
      `python way ${bundled.python_ms.toFixed(0)} ms, peak RSS ${bundled.python_peak_mb.toFixed(0)} MB; ` +
      `python / stepchain = ${(bundled.python_ms / bundled.verify_ms).toFixed(2)}x`,
  );
  // ~1,430 bytes a step (the row with its ref, the digest in the manifest): 720,000 steps is ~1.03 GB, under the 1 GiB cap.
  const most = Number(process.env.STEPCHAIN_BENCH_LISTED_STEPS ?? 720_000);
  const big = path.join(dir, 'listed.tar');
  const bigHead = writeBlobReceipt(big, dir, most, false);
  const r = timed(
    process.execPath,
    [cli, 'receipt', 'verify', big, '--public-key', 'k.pub', '--expected-head', bigHead],
    dir,
  );
  if (!r.stdout.startsWith(`OK ${big}: ${most} steps`)) throw new Error(`stepchain verify: ${r.stdout.slice(0, 300)}`);
  const listed = { steps: most, receipt_bytes: statSync(big).size, verify_ms: r.ms, verify_peak_mb: r.rssMb };
  rmSync(big);
  recordFigure('receipt-peak-rss', `${most.toLocaleString('en')} steps, a blob listed per step`, listed.verify_peak_mb);
  log(
    `receipt listing a blob per step, the most such steps under the 1 GiB cap (${most} steps, ` +
      `${(listed.receipt_bytes / 1e6).toFixed(0)} MB): stepchain verify ${listed.verify_ms.toFixed(0)} ms, ` +
      `peak RSS ${listed.verify_peak_mb.toFixed(0)} MB (one run)`,
  );
  return { bundled, listed };
}
