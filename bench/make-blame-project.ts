/**
 * A project for measuring `stepchain blame` from outside: one agent's journal of `--steps` steps, each with its
 * snapshot (recordStep in-process, provenance off). Each step edits one of ten small files `src/f<k>.py` in turn
 * (so a file changes every tenth step); with `--big N`, `big.txt` (N lines) is committed too and every step also
 * edits one of its lines, and every `--revert`th step puts back an earlier version (contents recur).
 *
 *   node -r ./test/helpers/swc-register.js bench/make-blame-project.ts DIR [--steps 10000] [--big 0] [--revert 0]
 *   /usr/bin/time -f "%e s %M KB" node dist/cli.js blame src/f5.py --root DIR   (from DIR)
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { journalDir } from '../src/journal';
import { recordStep } from '../src/record';

const argv = process.argv.slice(2);
const opt = (name: string, dflt: number): number => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : dflt;
};
const repo = path.resolve(argv[0] ?? 'blame-project');
const STEPS = opt('steps', 10_000);
const BIG = opt('big', 0);
const REVERT = opt('revert', 0);

const git = (args: string[]): void => {
  execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@stepchain.invalid', ...args], {
    cwd: repo,
    stdio: 'ignore',
  });
};
mkdirSync(path.join(repo, 'src'), { recursive: true });
for (let k = 0; k < 10; k++) writeFileSync(path.join(repo, 'src', `f${k}.py`), `# f${k}\ndef f(x):\n    return x\n`);
const big = Array.from({ length: BIG }, (_, i) => `l${i}`);
if (BIG > 0) writeFileSync(path.join(repo, 'big.txt'), `${big.join('\n')}\n`);
writeFileSync(path.join(repo, '.gitignore'), '.sdd/\n');
git(['init', '-q', '-b', 'main']);
git(['add', '-A']);
git(['commit', '-q', '-m', 'base']);
const env = {
  ...process.env,
  STEPCHAIN_AUDIT_KEY_PATH: path.join(repo, '..', 'audit.key'),
  STEPCHAIN_CHECKPOINT_KEY_PATH: path.join(repo, '..', 'checkpoint.key'),
};
const saved: string[] = [];
const t0 = Date.now();
for (let i = 0; i < STEPS; i++) {
  const k = i % 10;
  writeFileSync(path.join(repo, 'src', `f${k}.py`), `# f${k}\ndef f(x):\n    return x + ${i}\n# step ${i}\n`);
  if (BIG > 0) {
    if (REVERT > 0 && i % REVERT === REVERT - 1 && saved.length > 0) {
      writeFileSync(path.join(repo, 'big.txt'), saved[(i * 7) % saved.length]!);
    } else {
      big[(i * 7919) % BIG] = `s${i}`;
      const text = `${big.join('\n')}\n`;
      if (REVERT > 0 && i % 50 === 0) saved.push(text);
      writeFileSync(path.join(repo, 'big.txt'), text);
    }
  }
  const r = recordStep(journalDir(repo, 'alpha'), { prompt: `step ${i}` }, { root: repo, env, provenance: false });
  if (r.warnings.length > 0) throw new Error(r.warnings.join('; '));
  if (i % 1000 === 999) process.stderr.write(`${i + 1} steps, ${((Date.now() - t0) / 1000).toFixed(0)} s\n`);
}
