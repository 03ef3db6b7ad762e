// Cost of the per-step worktree snapshot: `stepchain append` (the built CLI,
// whole processes) on a repository of 5,000 files, with the snapshot (default)
// and with --no-snapshot. Prints ms/append for both and the difference.
//
//   node bench/bench-snapshot.mjs [--files 5000] [--appends 20] [--json]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const cli = path.join(root, 'dist', 'cli.js');
const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : dflt;
};
const FILES = opt('files', 5000);
const APPENDS = opt('appends', 20);
const asJson = argv.includes('--json');

const git = (cwd, args) =>
  execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@stepchain.invalid', ...args], {
    cwd,
    stdio: 'ignore',
  });

const dir = mkdtempSync(path.join(tmpdir(), 'stepchain-bench-snap-'));
try {
  const repo = path.join(dir, 'repo');
  // 5,000 small source files in 50 directories, committed; .sdd/ ignored.
  for (let i = 0; i < FILES; i++) {
    const d = path.join(repo, 'src', `pkg${i % 50}`);
    if (i < 50) mkdirSync(d, { recursive: true });
    writeFileSync(path.join(d, `mod${i}.py`), `# module ${i}\ndef f${i}(x):\n    return x + ${i}\n`);
  }
  writeFileSync(path.join(repo, '.gitignore'), '.sdd/\n');
  git(repo, ['init', '-q', '-b', 'main']);
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '-m', 'bench']);

  const env = { ...process.env, STEPCHAIN_AUDIT: 'off' };
  const run = (agent, extra, i) => {
    // Each step edits one file, as an agent would.
    writeFileSync(path.join(repo, 'src', 'pkg0', 'mod0.py'), `# edited at ${agent} step ${i}\n`);
    const t = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [cli, 'append', agent, '--prompt', `step ${i}`, ...extra], {
      cwd: repo,
      env,
      encoding: 'utf8',
    });
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    if (r.status !== 0 || r.stderr) throw new Error(`append failed (${r.status}): ${r.stderr}`);
    return ms;
  };
  const measure = (agent, extra) => {
    run(`${agent}-warm`, extra, 0); // warm the page cache and git's stat cache
    const times = [];
    for (let i = 0; i < APPENDS; i++) times.push(run(agent, extra, i));
    times.sort((a, b) => a - b);
    return { mean: times.reduce((a, b) => a + b, 0) / times.length, median: times[Math.floor(times.length / 2)] };
  };
  // Interleave the two series in halves so machine noise hits both alike.
  const a1 = measure('snap-a', []);
  const b1 = measure('nosnap-a', ['--no-snapshot']);
  const a2 = measure('snap-b', []);
  const b2 = measure('nosnap-b', ['--no-snapshot']);
  const withSnap = { mean: (a1.mean + a2.mean) / 2, median: (a1.median + a2.median) / 2 };
  const without = { mean: (b1.mean + b2.mean) / 2, median: (b1.median + b2.median) / 2 };
  const refs = execFileSync('git', ['for-each-ref', '--count=1000', 'refs/stepchain/snapshots/'], {
    cwd: repo,
    encoding: 'utf8',
  })
    .split('\n')
    .filter(Boolean).length;
  const doc = {
    files: FILES,
    appends_per_series: APPENDS * 2,
    ms_per_append_snapshot: Number(withSnap.median.toFixed(1)),
    ms_per_append_no_snapshot: Number(without.median.toFixed(1)),
    snapshot_cost_ms: Number((withSnap.median - without.median).toFixed(1)),
    mean_ms_snapshot: Number(withSnap.mean.toFixed(1)),
    mean_ms_no_snapshot: Number(without.mean.toFixed(1)),
    snapshot_refs_written: refs,
  };
  if (asJson) {
    process.stdout.write(`${JSON.stringify(doc)}\n`);
  } else {
    console.log(
      `snapshot bench: ${FILES} files, ${APPENDS * 2} appends each, node dist/cli.js append (whole processes), median`,
    );
    console.log(`  append with snapshot      ${doc.ms_per_append_snapshot} ms/append (mean ${doc.mean_ms_snapshot})`);
    console.log(
      `  append --no-snapshot      ${doc.ms_per_append_no_snapshot} ms/append (mean ${doc.mean_ms_no_snapshot})`,
    );
    console.log(`  snapshot cost             ${doc.snapshot_cost_ms} ms/append (${refs} snapshot refs written)`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
