// A step's snapshot when the step changed files in every directory (every tree rebuilt, every entry's object looked
// up): whole `stepchain append` processes of this build's bin and a baseline bin, interleaved, medians, in a
// 2,000-file tree of 20 directories (as bench-agent-hooks.ts builds it). Not part of `npm run bench` (it needs a
// baseline bin): the A/B for a change to the snapshot's tree write (src/git/index-tree.ts, object-store.ts).
//
//   node bench/snapshot-spread.mjs <baseline cli.js> [changed files: 500] [loose|gc] [rounds: 11]
//
// Each call edits `changed` files spread over all 20 directories (new content each time: git's add writes them, the
// trees are new); with `gc` the repository is gc'd before every call (objects packed, as after git's automatic gc).
// CPU is the process's and its children's (git) user + system time, from /usr/bin/time.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const [baseline, changedArg, kind = 'loose', roundsArg] = process.argv.slice(2);
if (baseline === undefined)
  throw new Error('usage: node bench/snapshot-spread.mjs <baseline cli.js> [n] [loose|gc] [rounds]');
const changed = Number(changedArg ?? 500);
const rounds = Number(roundsArg ?? 11);
const bins = { this: path.join(repo, 'dist', 'cli.js'), baseline: path.resolve(baseline) };
const dir = mkdtempSync(path.join(tmpdir(), 'stepchain-bench-spread-'));
const root = path.join(dir, 'repo');
const env = { ...process.env, STEPCHAIN_AUDIT: 'off' };
delete env.NODE_EXTRA_CA_CERTS; // a bare Node start parses no CA bundle (see bench/run.mjs)
const git = (args) => execFileSync('git', args, { cwd: root, stdio: 'ignore' });
try {
  const old = Date.now() / 1000 - 3600;
  for (let i = 0; i < 2000; i++) {
    const d = path.join(root, 'src', `pkg${Math.floor(i / 100)}`);
    if (i % 100 === 0) mkdirSync(d, { recursive: true });
    writeFileSync(path.join(d, `mod${i}.py`), `def f${i}(x):\n    return x\n`);
    utimesSync(path.join(d, `mod${i}.py`), old, old); // not racily clean: git's add hashes only what changed
  }
  writeFileSync(path.join(root, '.gitignore'), '.sdd/\n');
  git(['init', '-q', '-b', 'main']);
  git(['config', 'user.name', 'Bench']);
  git(['config', 'user.email', 'bench@stepchain.invalid']);
  git(['add', '-A']);
  git(['commit', '-q', '-m', 'bench']);
  let tag = 0;
  const edit = () => {
    const per = Math.max(1, Math.floor(changed / 20));
    for (let d = 0, done = 0; d < 20 && done < changed; d++)
      for (let k = 0; k < per && done < changed; k++, done++) {
        const i = d * 100 + k * 4;
        writeFileSync(path.join(root, 'src', `pkg${d}`, `mod${i}.py`), `def f${i}(x):\n    return x + 1  # ${tag}\n`);
      }
    tag++;
  };
  const out = { node: { wall: [], cpu: [] }, this: { wall: [], cpu: [] }, baseline: { wall: [], cpu: [] } };
  const timed = (args, rec) => {
    const t0 = process.hrtime.bigint();
    const r = spawnSync('/usr/bin/time', ['-f', '%U %S', ...args], { cwd: root, env, encoding: 'utf8' });
    rec.wall.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`);
    const [u, s] = r.stderr.trim().split('\n').pop().split(' ').map(Number);
    rec.cpu.push((u + s) * 1000);
  };
  const call = (which, record) => {
    edit();
    if (kind === 'gc') git(['gc', '-q']);
    timed(
      [process.execPath, bins[which], 'append', `agent-${which}`, '--prompt', `p${tag}`],
      record ? out[which] : { wall: [], cpu: [] },
    );
  };
  call('this', false); // warm the page cache and git's stat cache
  call('baseline', false);
  for (let r = 0; r < rounds; r++) {
    timed([process.execPath, '-e', '0'], out.node);
    for (const w of r % 2 ? ['this', 'baseline'] : ['baseline', 'this']) call(w, true);
  }
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const f = (k) => `wall ${med(out[k].wall).toFixed(0)} ms, cpu ${med(out[k].cpu).toFixed(0)} ms`;
  console.log(`${changed} files changed over 20 directories, objects ${kind}, median of ${rounds} interleaved rounds:`);
  console.log(`  node -e 0: ${f('node')}\n  this bin:  ${f('this')}\n  baseline:  ${f('baseline')}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
