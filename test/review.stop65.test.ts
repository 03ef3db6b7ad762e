import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { launcherSource } from '../scripts/build-launcher.mjs';
import { Journal } from '../src/journal';
import { cliPath } from './helpers/paths';
import { tempDir } from './helpers/tmp';

/**
 * Faults found reviewing the code cache that grows with the paths its runs take (scripts/build-launcher.mjs,
 * src/cli/code-path.ts).
 */
const root = tempDir('stepchain-review-stop65-');
const env: NodeJS.ProcessEnv = { ...process.env, STEPCHAIN_AUDIT: 'off' };
const journal = Journal.open(path.join(root, '.sdd', 'runtime', 'journal', 'agent'), { durability: 'none' });
for (let i = 0; i < 3; i++) journal.append({ model: 'm', prompt: `p${i}`, tool_call: { name: 't', args: { i } } });

/** A state directory of its own; the paths listed in the verify entry's cache (undefined: no cache) and its bytes. */
function state() {
  const dir = mkdtempSync(path.join(root, 'state-'));
  const cacheDir = path.join(dir, 'stepchain', 'code-cache');
  const verifyCache = () => {
    const name = existsSync(cacheDir) ? readdirSync(cacheDir).find((f) => f.startsWith('verify+text-')) : undefined;
    if (name === undefined) return undefined;
    const bytes = readFileSync(path.join(cacheDir, name));
    const at = bytes.indexOf(0);
    const listed = bytes.toString('latin1', at + 1, bytes.indexOf(0, at + 1));
    // Empty lines after the paths are the pad that aligns the code (scripts/build-launcher.mjs), no path.
    return { paths: listed.split('\n').filter((p) => p !== ''), bytes };
  };
  const run = (argv: string[]) => {
    const r = spawnSync(process.execPath, [cliPath, ...argv], {
      env: { ...env, XDG_STATE_HOME: dir },
      cwd: root,
      encoding: 'utf8',
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  return { run, verifyCache };
}

describe('the verify entry names its path for the code cache only when it runs the command line', () => {
  // `verify --help` (or `receipt verify` with a signer to expect) starts the verify entry, which hands the command
  // line to the whole CLI: the entry compiled its argument check, not the verify. Listed as `verify`, every real
  // verify after it found its path listed and never wrote the cache again: each compiled the walk anew.
  test.each([
    ['verify --help', ['verify', '--help'], ['verify', journal.file], 'verify'],
    [
      'receipt verify with a signer to expect',
      ['receipt', 'verify', 'none.tar', '--certificate-identity', 'me'],
      ['receipt', 'verify', 'none.tar'],
      // It fails (no such receipt): a path of its own, beside the one a verify that runs writes (../src/cli/code-path.ts).
      'receipt verify (exit 2)',
    ],
  ])('%s, then the command itself: the cache holds its path', (_what, handedOver, real, name) => {
    const s = state();
    const first = s.run(handedOver);
    expect(first.stderr).not.toContain('at '); // no stack
    const after = s.verifyCache();
    expect(after?.paths ?? []).not.toContain(name);
    const r = s.run(real);
    expect(r.code).toBe(name === 'verify' ? 0 : 2);
    expect(after?.paths ?? []).not.toContain(name.replace(' (exit 2)', ''));
    const grown = s.verifyCache();
    expect(grown?.paths).toContain(name);
    // Written again with the code of the command's own run.
    expect(grown!.bytes.length).toBeGreaterThan((after?.bytes.length ?? 0) + 1000);
  });
});

test('a new path whose run made V8 flush the code it read: the cache it would write (without that code) is not written', () => {
  // V8 flushes the bytecode of functions not run for a few full GCs, those it read from the cache included: a run of
  // a new path that made them wrote a cache without the code of every path listed before it (and of its own start),
  // and each of those paths, listed, never wrote it again. Path a's function is read from the cache, not run, while
  // path b's run makes full GCs (a small heap: a few MB churned).
  const body = (tag: string) =>
    Array.from({ length: 300 }, (_, i) => `o.${tag}${i} = [${i}, '${tag}', o.${tag}${i > 0 ? i - 1 : 0}];`).join('');
  const churn =
    'let keep = []; for (let i = 0; i < 60; i++) { keep = []; for (let j = 0; j < 20; j++) keep.push(new Array(2e4).fill(j)); }';
  const hook =
    `let taken;\nfunction fa() { const o = {}; ${body('a')} return o; }\nfunction fb() { const o = {}; ${body('b')} return o; }\n` +
    `exports.codeCachePath = () => taken;\n` +
    `exports.runHook = (argv) => { if (argv[1] !== 'take') return false; taken = argv[2]; ` +
    `if (taken === 'a') fa(); else { fb(); ${churn} } process.stdout.write(taken); return true; };`;
  const dir = mkdtempSync(path.join(root, 'flush-'));
  const bin = path.join(dir, 'bin.js');
  const programs = { main: 'process.stdout.write("main");', verify: 'exports.runVerify = () => false;', hook };
  writeFileSync(bin, launcherSource(programs, { packed: ['hook'] }), 'latin1');
  const xdg = path.join(dir, 'state');
  mkdirSync(xdg, { mode: 0o700 });
  const cacheDir = path.join(xdg, 'stepchain', 'code-cache');
  const take = (p: string) => {
    const r = spawnSync(
      process.execPath,
      ['--max-semi-space-size=1', '--max-old-space-size=24', bin, 'hook', 'take', p],
      {
        env: { ...env, XDG_STATE_HOME: xdg },
        encoding: 'utf8',
      },
    );
    expect({ code: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 0, stdout: p, stderr: '' });
    return readFileSync(path.join(cacheDir, readdirSync(cacheDir)[0]!));
  };
  const a = take('a');
  const after = take('b');
  // Never a cache with less code than the one read: a's code stays (b's path is left for a later run to add).
  expect(after.length).toBeGreaterThanOrEqual(a.length);
});
