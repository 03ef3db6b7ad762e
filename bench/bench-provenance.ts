/**
 * Cost of recording what each step changed (docs/provenance.md): `recordStep` in one process on a repository of
 * 5,000 committed files, each step editing one file, with provenance on (the default: the snapshot, then one
 * `git diff-tree` of two trees and a run-journal append) and off (the snapshot alone); the two series interleaved
 * so machine noise hits both alike. Audit events on in both (as a user has them). Figures are printed, never
 * asserted.
 *
 *   node -r ./test/helpers/swc-register.js bench/bench-provenance.ts [--files 5000] [--steps 20]
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { journalDir } from '../src/journal';
import { stepChanges } from '../src/provenance/record';
import { recordStep } from '../src/record';

const argv = process.argv.slice(2);
const opt = (name: string, dflt: number): number => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : dflt;
};
const FILES = opt('files', 5000);
const STEPS = opt('steps', 20);

const git = (cwd: string, args: string[]): void => {
  execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@stepchain.invalid', ...args], {
    cwd,
    stdio: 'ignore',
  });
};
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const dir = mkdtempSync(path.join(tmpdir(), 'stepchain-bench-prov-'));
try {
  const repo = path.join(dir, 'repo');
  for (let i = 0; i < FILES; i++) {
    const d = path.join(repo, 'src', `pkg${i % 50}`);
    if (i < 50) mkdirSync(d, { recursive: true });
    writeFileSync(path.join(d, `mod${i}.py`), `# module ${i}\ndef f${i}(x):\n    return x + ${i}\n`);
  }
  writeFileSync(path.join(repo, '.gitignore'), '.sdd/\n');
  git(repo, ['init', '-q', '-b', 'main']);
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '-m', 'bench']);
  const env = {
    ...process.env,
    STEPCHAIN_AUDIT_KEY_PATH: path.join(dir, 'audit.key'),
    STEPCHAIN_CHECKPOINT_KEY_PATH: path.join(dir, 'checkpoint.key'),
  };
  const times: Record<'on' | 'off' | 'diff', number[]> = { on: [], off: [], diff: [] };
  let changed = 0;
  const one = (agent: string, provenance: boolean, i: number): void => {
    writeFileSync(path.join(repo, 'src', `pkg${i % 50}`, `mod${i % 50}.py`), `# ${agent} step ${i}\n`);
    const t0 = process.hrtime.bigint();
    const r = recordStep(journalDir(repo, agent), { prompt: `step ${i}` }, { root: repo, env, provenance });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.warnings.length > 0) throw new Error(r.warnings.join('; '));
    if (provenance) changed += r.changes?.changes.changes.length ?? 0;
    if (provenance && i > 0 && r.snapshot !== undefined) {
      // The diff alone, again (the same two trees): what the step's record costs before it is written.
      const snap = r.snapshot;
      const d0 = process.hrtime.bigint();
      stepChanges(snap, repo, env);
      times.diff.push(Number(process.hrtime.bigint() - d0) / 1e6);
    }
    if (i > 0) times[provenance ? 'on' : 'off'].push(ms); // the first step of each journal warms caches
  };
  for (let i = 0; i <= STEPS; i++) {
    one('with-provenance', true, i);
    one('without-provenance', false, i);
  }
  const on = median(times.on);
  const off = median(times.off);
  console.log(
    `provenance bench: ${FILES} files, ${STEPS} steps each, recordStep in-process (snapshot + audit event), median`,
  );
  console.log(`  step with provenance      ${on.toFixed(1)} ms (${changed} changed paths recorded)`);
  console.log(`  step without provenance   ${off.toFixed(1)} ms`);
  console.log(`  recording cost per step   ${(on - off).toFixed(1)} ms (one git diff-tree + one run-journal append)`);
  console.log(`  of which the diff alone   ${median(times.diff).toFixed(1)} ms (git config + git diff-tree)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
