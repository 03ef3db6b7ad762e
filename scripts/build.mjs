// Builds everything that ships, from src/:
// - dist/cli.js     the CLI, one self-contained file (the `stepchain` bin): the whole CLI (@vercel/ncc) and the hook
//                   entry (esbuild), each carried as text and compiled only when it runs (build-launcher.mjs);
// - dist/index.js   the GitHub Action, one self-contained file (@vercel/ncc; committed, the Action runs it);
// - dist/lib/       the library: index.mjs (ESM, esbuild; runtime dependencies left to npm),
//                   chunk-worker.mjs (its verification worker) and index.d.mts (one bundled
//                   declaration file, dts-bundle-generator).
// First the generated modules the bundles embed: the WebAssembly scanner, the report page script and
// the verification worker's script.
// Type checking is `npm run typecheck` (tsc); the bundlers only transpile.
//
// `node scripts/build.mjs --if-stale` builds only when an input (src/, the build scripts,
// package.json, the lock file, tsconfig) or an output changed since the last build: the tests
// call it first, so a stale dist/ is never what they run. The stamp lives in node_modules/.cache.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, transform } from 'esbuild';
import { generate } from './generate.mjs';
import { actionSource } from './build-action.mjs';
import { bundleEntry, launcherSource } from './build-launcher.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ncc = path.join(root, 'node_modules', '@vercel', 'ncc', 'dist', 'ncc', 'cli.js');
const work = path.join(root, 'build', 'ncc');
const stampFile = path.join(root, 'node_modules', '.cache', 'stepchain', 'build-stamp.json');

const bundles = [
  { src: 'src/cli/index.ts', out: 'dist/cli.js', shebang: true, launcher: true },
  // The artifact client is carried in dist/index.js as a program of its own, compiled only when a run uploads
  // (build-action.mjs); the main bundle leaves its package out.
  {
    src: 'src/action/index.ts',
    out: 'dist/index.js',
    shebang: false,
    carried: { artifact: 'src/action/artifact-chunk.ts' },
  },
];
/** What a bundle's `carried` programs stand for: the package the main bundle leaves out for each. */
const CARRIED_PACKAGE = { artifact: '@actions/artifact' };
const OUTPUTS = [
  'dist/cli.js',
  'dist/index.js',
  'dist/lib/index.mjs',
  'dist/lib/chunk-worker.mjs',
  'dist/lib/index.d.mts',
];

const sha = (data) => createHash('sha256').update(data).digest('hex');

function walk(dir, out) {
  for (const name of readdirSync(dir).sort()) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

/** One hash over every build input (generated modules excluded: they follow from the rest). */
function inputsHash() {
  const files = walk(path.join(root, 'src'), []).filter((f) => !f.endsWith('.generated.ts'));
  for (const f of readdirSync(path.join(root, 'scripts')).sort())
    if (/^(build|generate).*\.mjs$/.test(f)) files.push(path.join(root, 'scripts', f));
  for (const f of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.lib.json'])
    files.push(path.join(root, f));
  const h = createHash('sha256');
  for (const f of files) h.update(`${path.relative(root, f)}\0${sha(readFileSync(f))}\n`);
  return h.digest('hex');
}

function outputsHash() {
  const out = {};
  for (const f of OUTPUTS) {
    const p = path.join(root, f);
    out[f] = existsSync(p) ? sha(readFileSync(p)) : null;
  }
  return out;
}

/** Why dist/ needs a build, or null when it is fresh. */
export function staleReason() {
  if (!existsSync(stampFile)) return 'no build stamp';
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(stampFile, 'utf8'));
  } catch {
    return 'unreadable build stamp';
  }
  if (stamp.inputs !== inputsHash()) return 'sources changed';
  const now = outputsHash();
  for (const f of OUTPUTS) if (now[f] === null || now[f] !== stamp.outputs?.[f]) return `${f} changed or missing`;
  return null;
}

const run = promisify(execFile);

/** Runs node with `args` in the repository; its output is passed on (a failure's too) and a failure throws. */
async function node(args) {
  try {
    const { stdout, stderr } = await run(process.execPath, args, { cwd: root, maxBuffer: 1 << 26 });
    process.stdout.write(stdout);
    process.stderr.write(stderr);
  } catch (e) {
    process.stdout.write(e.stdout ?? '');
    process.stderr.write(e.stderr ?? '');
    throw e;
  }
}

/** Entry `src` bundled by ncc into one minified, pure-ASCII CommonJS script (`name`: its work directory). */
async function nccCode(src, name, externals = []) {
  const outDir = path.join(work, name);
  rmSync(outDir, { recursive: true, force: true });
  await node([
    ncc,
    'build',
    src,
    '-o',
    outDir,
    '--quiet',
    '--target',
    'es2022',
    '--no-source-map-register',
    '--transpile-only',
    // Sigstore's HTTP stack (make-fetch-happen): `encoding` and `iconv-lite` are optional charset converters
    // minipass-fetch requires in a try (iconv-lite alone is ~480 KB minified, for a function we never call), and
    // cacache's dynamic import of p-map would be a second file; none of them runs on the paths we use.
    '-e',
    'encoding',
    '-e',
    'iconv-lite',
    '-e',
    'p-map',
    ...externals.flatMap((x) => ['-e', x]),
  ]);
  const extra = readdirSync(outDir).filter((f) => f !== 'index.js' && f !== 'package.json');
  if (extra.length > 0)
    throw new Error(`${src}: ncc emitted extra files ${extra.join(', ')}; the bundle must be one file`);
  let code = readFileSync(path.join(outDir, 'index.js'), 'utf8');
  code = code.replace(/^#!.*\n/, '');
  // Minified and pure ASCII: V8 compiles the smaller one-byte source faster, which is most of a CLI start
  // (every hook call of a recording agent is one); names kept for `.name`, licences kept at the end.
  code = (
    await transform(code, {
      loader: 'js',
      format: 'cjs',
      target: 'node20',
      minify: true,
      keepNames: true,
      charset: 'ascii',
      legalComments: 'eof',
    })
  ).code;
  // `charset: 'ascii'` escapes code, not comments: one licence comment's letter (formdata-polyfill's author) made
  // the whole Action a UTF-8 file, which Node decodes and V8 holds and scans as a two-byte string. In a comment an
  // escape is only text.
  code = code.replace(/[^\x00-\x7f]/gu, (c) => `\\u{${c.codePointAt(0).toString(16)}}`);
  return code;
}

async function nccBundle(e) {
  const carried = Object.entries(e.carried ?? {});
  const [main, ...programs] = await Promise.all([
    nccCode(
      e.src,
      path.basename(e.out, '.js'),
      carried.map(([name]) => CARRIED_PACKAGE[name]),
    ),
    ...carried.map(([name, src]) => nccCode(src, `${path.basename(e.out, '.js')}-${name}`)),
  ]);
  let code = main;
  if (carried.length > 0)
    code = actionSource(main, Object.fromEntries(carried.map(([name], i) => [name, programs[i]])));
  if (e.launcher)
    code = launcherSource(
      {
        main: code,
        hook: await bundleEntry(root, 'hook'),
        verify: await bundleEntry(root, 'verify'),
      },
      { packed: ['main', 'verify', 'hook'] },
    );
  else if (e.shebang) code = `#!/usr/bin/env node\n${code}`;
  writeFileSync(path.join(root, e.out), code);
  if (e.shebang) chmodSync(path.join(root, e.out), 0o755);
}

async function libraryBundle() {
  const outdir = path.join(root, 'dist', 'lib');
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  // Runtime dependencies stay imports (npm installs them); everything of ours is in the bundle.
  await build({
    entryPoints: {
      index: path.join(root, 'src', 'library', 'entry.ts'),
      'chunk-worker': path.join(root, 'src', 'library', 'chunk-worker.ts'),
    },
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    legalComments: 'none',
    logLevel: 'warning',
  });
  // One declaration file for the public API (src/index.ts); internal types referenced by it are
  // declared but not exported.
  await node([
    path.join(root, 'node_modules', 'dts-bundle-generator', 'dist', 'bin', 'dts-bundle-generator.js'),
    '--project',
    'tsconfig.lib.json',
    '--out-file',
    'dist/lib/index.d.mts',
    '--no-banner',
    '--no-check',
    '--export-referenced-types',
    'false',
    '--silent',
    'src/index.ts',
  ]);
}

export async function buildAll() {
  // The generated modules first: the bundles embed them.
  execFileSync(process.execPath, [path.join(root, 'scripts', 'build-wasm.mjs')], { cwd: root, stdio: 'inherit' });
  await generate();
  mkdirSync(path.join(root, 'dist'), { recursive: true });
  // The two bundles and the library are independent: built side by side, the build takes about half the
  // time on two cores (a fresh clone's first `npm test` waits for it).
  await Promise.all([...bundles.map((e) => nccBundle(e)), libraryBundle()]);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(path.dirname(stampFile), { recursive: true });
  writeFileSync(stampFile, `${JSON.stringify({ inputs: inputsHash(), outputs: outputsHash() }, null, 2)}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--if-stale')) {
    const why = staleReason();
    if (why === null) process.exit(0);
    process.stderr.write(`build: dist/ is stale (${why}): rebuilding\n`);
  }
  await buildAll();
}
