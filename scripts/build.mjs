// Bundles the CLI (dist/cli.js) and the Action (dist/index.js) into single files
// with @vercel/ncc. Both are committed; CI rebuilds and fails on any difference.
// Type checking is `npm run typecheck` (tsc); ncc only transpiles.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const ncc = path.join(root, 'node_modules', '@vercel', 'ncc', 'dist', 'ncc', 'cli.js');
const work = path.join(root, 'build', 'ncc');

const entries = [
  { src: 'src/cli/index.ts', out: 'dist/cli.js', shebang: true },
  { src: 'src/action/index.ts', out: 'dist/index.js', shebang: false },
];

// The WebAssembly journal scanner first: the bundles embed its generated module.
execFileSync(process.execPath, [path.join(root, 'scripts', 'build-wasm.mjs')], { cwd: root, stdio: 'inherit' });

mkdirSync(path.join(root, 'dist'), { recursive: true });
for (const e of entries) {
  if (!existsSync(path.join(root, e.src))) continue;
  const outDir = path.join(work, path.basename(e.out, '.js'));
  rmSync(outDir, { recursive: true, force: true });
  execFileSync(
    process.execPath,
    [
      ncc,
      'build',
      e.src,
      '-o',
      outDir,
      '--quiet',
      '--target',
      'es2022',
      '--no-source-map-register',
      '--transpile-only',
    ],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  const extra = readdirSync(outDir).filter((f) => f !== 'index.js' && f !== 'package.json');
  if (extra.length > 0)
    throw new Error(`${e.src}: ncc emitted extra files ${extra.join(', ')}; the bundle must be one file`);
  let code = readFileSync(path.join(outDir, 'index.js'), 'utf8');
  code = code.replace(/^#!.*\n/, '');
  if (e.shebang) code = `#!/usr/bin/env node\n${code}`;
  writeFileSync(path.join(root, e.out), code);
  if (e.shebang) chmodSync(path.join(root, e.out), 0o755);
}
rmSync(work, { recursive: true, force: true });
