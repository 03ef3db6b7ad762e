import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './helpers/paths';
import { tempDir } from './helpers/tmp';

/**
 * The package as a user gets it: `npm pack` (dist/ is rebuilt first when stale, see
 * test/setup/sequencer.js), the tarball installed into a fresh TypeScript project,
 * which type-checks against the bundled declarations, runs against the library
 * (ESM import, and require() of the ESM build), and runs the `stepchain` bin.
 */
jest.setTimeout(240_000);

const dir = tempDir('stepchain-consumer-');
const project = path.join(dir, 'consumer');
const tsc = path.join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): SpawnSyncReturns<string> {
  // npm may need the machine's extra certificates to reach its registry (test/setup/state-dir.js keeps them aside).
  const ca = process.env.STEPCHAIN_TEST_EXTRA_CA_CERTS;
  const base = ca === undefined ? process.env : { ...process.env, NODE_EXTRA_CA_CERTS: ca };
  return spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...base, ...env }, maxBuffer: 1 << 26 });
}
function ok(r: SpawnSyncReturns<string>, what: string): string {
  if (r.status !== 0) throw new Error(`${what} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

let tarball: string;
let installLog: string;

beforeAll(() => {
  const packed = JSON.parse(
    ok(run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], repoRoot), 'npm pack'),
  ) as { filename: string; files: { path: string }[] }[];
  tarball = path.join(dir, packed[0]!.filename);
  writeFileSync(path.join(dir, 'files.json'), JSON.stringify(packed[0]!.files.map((f) => f.path)));
  mkdirSync(project);
  writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }),
  );
  const install = run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel', 'warn', tarball],
    project,
  );
  ok(install, 'npm install <tarball>');
  installLog = `${install.stdout}${install.stderr}`;
});

describe('the packed package', () => {
  it('holds the CLI, the library, its types, README and LICENSE: no tests, sources or Action bundle', () => {
    const files = JSON.parse(readFileSync(path.join(dir, 'files.json'), 'utf8')) as string[];
    expect(files.sort()).toEqual(
      [
        'LICENSE',
        'README.md',
        'dist/cli.js',
        'dist/lib/chunk-worker.mjs',
        'dist/lib/index.d.mts',
        'dist/lib/index.mjs',
        'package.json',
      ].sort(),
    );
  });

  it('installs with its few runtime dependencies and no engine warnings', () => {
    expect(installLog).not.toMatch(/EBADENGINE|deprecated/);
    const all = ok(run('npm', ['ls', '--all', '--parseable'], project), 'npm ls')
      .trim()
      .split('\n');
    // stepchain, tar, @noble/ed25519 and get-east-asian-width with their own small dependencies (git runs through its
    // own runner); minizlib (export's streamed gzip) is one of tar's own.
    expect(all.length).toBeLessThan(25);
    const pkg = JSON.parse(readFileSync(path.join(project, 'node_modules', 'stepchain', 'package.json'), 'utf8'));
    expect(Object.keys(pkg.dependencies).sort()).toEqual(['@noble/ed25519', 'get-east-asian-width', 'minizlib', 'tar']);
    expect(pkg.private).toBeUndefined();
  });

  it('type-checks a TypeScript consumer against the bundled declarations, and runs it', () => {
    writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          exactOptionalPropertyTypes: true,
          skipLibCheck: false,
          // TypeScript's own lib.*.d.ts are not ours to check (1.7 s of tsc's 5.5 s of CPU); the package's
          // declarations and @types/node still are (an error put in dist/lib/index.d.mts is reported).
          skipDefaultLibCheck: true,
          outDir: 'out',
          typeRoots: [path.join(repoRoot, 'node_modules', '@types')],
          types: ['node'],
        },
        include: ['src/*.ts'],
      }),
    );
    mkdirSync(path.join(project, 'src'));
    writeFileSync(path.join(project, 'src', 'main.ts'), CONSUMER);
    // A second file misuses the API: the check is real, and it is the only error (the declarations are clean).
    writeFileSync(
      path.join(project, 'src', 'bad.ts'),
      "import { verifyJournalFile } from 'stepchain';\nexport const r: number = verifyJournalFile(42).steps;\n",
    );
    // Every example of docs/api.md, one module each (the names an example uses from an earlier one declared).
    const examples = [...readFileSync(path.join(repoRoot, 'docs', 'api.md'), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)];
    expect(examples.length).toBeGreaterThan(6);
    examples.forEach(([, code], k) => {
      const prelude = [
        /\bconst root\b/.test(code!) ? '' : 'declare const root: string;',
        /\bconst j\b/.test(code!) ? '' : "declare const j: import('stepchain').Journal;",
        'export {};',
      ];
      writeFileSync(path.join(project, 'src', `api-example-${k}.ts`), `${code}\n${prelude.join('\n')}\n`);
    });
    const checked = run(process.execPath, [tsc, '-p', 'tsconfig.json'], project);
    expect(checked.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(/^src\/bad\.ts\(2,44\): error TS2345: Argument of type 'number' is not assignable/),
    ]);
    const out = ok(run(process.execPath, ['out/main.js', dir], project), 'the consumer');
    expect(JSON.parse(out)).toEqual({
      steps: 3,
      ok: true,
      receipt: { ok: true, signed: true, signature_ok: true },
      tampered: ['step_hash_mismatch'],
      canonical: '{"a":1.0,"b":[10000000000000000000000]}',
      inputError: true,
      report: true,
      threads: true,
      internals: false,
    });
  });

  it('is required from CommonJS too (require of the ESM build)', () => {
    const r = run(
      process.execPath,
      ['-e', "const s = require('stepchain'); console.log(typeof s.verifyJournalFile, s.canonical({ b: 1, a: [] }))"],
      project,
    );
    expect(r.stdout).toBe('function {"a":[],"b":1}\n');
  });

  it('runs the stepchain bin', () => {
    const bin = path.join(project, 'node_modules', '.bin', 'stepchain');
    expect(ok(run(bin, ['--version'], project), 'stepchain --version')).toMatch(/^\d+\.\d+\.\d+\n$/);
    const journal = path.join(dir, 'run', '.sdd', 'runtime', 'journal', 'agent-x', '000000.jsonl');
    const v = run(bin, ['verify', journal, '--json'], project);
    expect(v.status).toBe(0);
    expect(JSON.parse(v.stdout)).toMatchObject({ ok: true, steps: 3 });
  });
});

/** The consumer program: the library's main paths, printed as one JSON document. */
const CONSUMER = `
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  buildReceipt,
  canonical,
  float,
  generateKeyPair,
  InputError,
  parsePrivateKey,
  parsePublicKey,
  recordStep,
  verifyJournalBytes,
  verifyJournalFile,
  verifyReceipt,
  writeReport,
  type StepInput,
  type VerifyResult,
} from 'stepchain';
import * as api from 'stepchain';
// @ts-expect-error worker internals are not part of the API
const internal: unknown = api.setChunkWorkerEntry;

const base = process.argv[2]!;
const root = path.join(base, 'run');
mkdirSync(root, { recursive: true });
const journalDir = path.join(root, '.sdd', 'runtime', 'journal', 'agent-x');
const steps: StepInput[] = [
  { prompt: 'fix the tests', tool_call: { name: 'run', args: { cmd: 'pytest' } }, tool_result: { exit: 1 } },
  { prompt: 'read calc.py', tool_call: { name: 'read' }, tool_result: 'def add(a, b): return a - b' },
  { prompt: 'edit', tool_call: { name: 'edit' }, tool_result: { ok: true }, blobs: [Buffer.from('patch')] },
];
let file = '';
for (const s of steps) file = recordStep(journalDir, s, { root, durability: 'none', snapshot: false }).journal.file;
const result: VerifyResult = verifyJournalFile(file);

const keys = generateKeyPair();
const receipt = buildReceipt(file, { signKey: parsePrivateKey(Buffer.from(keys.privateKeyPem), 'k.pem') });
const checked = verifyReceipt(receipt.bytes, { publicKeys: [parsePublicKey(Buffer.from(keys.publicKeyPem), 'k.pub')] });

const lines = readFileSync(file, 'utf8').split('\\n');
lines[1] = lines[1]!.replace('calc.py', 'calc.pz');
const tampered = verifyJournalBytes(Buffer.from(lines.join('\\n')));

let inputError = false;
try {
  verifyJournalFile(path.join(base, 'no-such.jsonl'));
} catch (e) {
  inputError = e instanceof InputError;
}
const report = writeReport(file, path.join(base, 'report.html'), { root });

// A larger journal verified in worker threads (the library's own worker file) and on the calling thread.
const big = path.join(base, 'big.jsonl');
writeFileSync(big, readFileSync(file));
const threaded = verifyJournalFile(big, {}, { STEPCHAIN_THREADS: '2', STEPCHAIN_PARALLEL_MIN_BYTES: '0' });
const single = verifyJournalFile(big, {}, { STEPCHAIN_THREADS: '1' });

console.log(
  JSON.stringify({
    steps: result.steps,
    ok: result.ok,
    receipt: { ok: checked.ok, signed: checked.signed, signature_ok: checked.signature_ok },
    tampered: tampered.errors.map((e) => e.kind),
    canonical: canonical({ b: [10n ** 22n], a: float(1) }),
    inputError,
    report: report.ok && readFileSync(report.file, 'utf8').startsWith('<!DOCTYPE html>'),
    threads: JSON.stringify(threaded) === JSON.stringify(single) && threaded.ok,
    internals: internal !== undefined || 'scanSlices' in api || 'runChunkJob' in api,
  }),
);
`;
