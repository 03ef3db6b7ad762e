// npm run bench: every benchmark, side by side with its peer, in one run.
// Figures are printed, never asserted. Needs a fresh `npm run build`.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const register = path.join(root, 'test', 'helpers', 'swc-register.js');
const run = (file) => {
  const ts = file.endsWith('.ts');
  execFileSync(process.execPath, ts ? ['-r', register, file] : [file], { cwd: root, stdio: 'inherit' });
};
console.log(`stepchain benchmarks (node ${process.version}, ${new Date().toISOString()})`);
run(path.join(root, 'bench', 'journal.ts'));
// Benchmarks of the other capabilities (receipts, snapshots, the Action), when present.
for (const f of readdirSync(path.join(root, 'scripts'))
  .filter((f) => /^bench-.*\.(mjs|ts)$/.test(f))
  .sort()) {
  run(path.join(root, 'scripts', f));
}
for (const f of existsSync(path.join(root, 'bench'))
  ? readdirSync(path.join(root, 'bench'))
      .filter((f) => /^bench-.*\.ts$/.test(f))
      .sort()
  : []) {
  run(path.join(root, 'bench', f));
}
