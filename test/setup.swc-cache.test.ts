import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './helpers/paths';
import { tempDir } from './helpers/tmp';

/**
 * test/helpers/swc-register.js keeps what it transpiled in the run's directory of this user's own
 * ($STEPCHAIN_TEST_SWC_CACHE), named by a hash of the source: a child loads the same code it would have transpiled,
 * a changed source is transpiled anew, and a directory someone else could write into is never read code from.
 */
const register = path.join(repoRoot, 'test', 'helpers', 'swc-register.js');
const dir = tempDir('stepchain-swc-cache-');
const source = path.join(dir, 'answer.ts');

/** A child that loads `answer.ts` with the cache directory `cache` (undefined: none); what it printed. */
function load(cache: string | undefined): string {
  const env: NodeJS.ProcessEnv = { ...process.env, STEPCHAIN_TEST_SWC_CACHE: cache };
  if (cache === undefined) delete env.STEPCHAIN_TEST_SWC_CACHE;
  const r = spawnSync(
    process.execPath,
    ['-r', register, '-e', `process.stdout.write(String(require(${JSON.stringify(source)}).answer))`],
    {
      env,
      encoding: 'utf8',
    },
  );
  if (r.status !== 0) throw new Error(`the child failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** Every kept file of the cache directory `cache` made to say `said` instead. */
function poison(cache: string, said: string): void {
  for (const f of readdirSync(cache)) writeFileSync(path.join(cache, f), `exports.answer = ${JSON.stringify(said)};\n`);
}

test('what is kept is used, and a changed source is transpiled anew', () => {
  const cache = path.join(dir, 'own');
  writeFileSync(source, 'export const answer: number = 41;\n');
  expect(load(cache)).toBe('41');
  expect(statSync(cache).mode & 0o777).toBe(0o700);
  expect(readdirSync(cache)).toHaveLength(1);
  // The kept file is what the next child runs (this user's own directory: shown by changing it).
  poison(cache, 'kept');
  expect(load(cache)).toBe('kept');
  writeFileSync(source, 'export const answer: number = 42;\n');
  expect(load(cache)).toBe('42');
  expect(readdirSync(cache)).toHaveLength(2);
  // Outside the suite (no directory named), or named relatively: nothing kept is read.
  expect(load(undefined)).toBe('42');
  poison(cache, 'kept');
  expect(load(undefined)).toBe('42');
  expect(load(path.relative(process.cwd(), cache))).toBe('42');
});

test('a cache directory others may write, or a link, is never read code from', () => {
  writeFileSync(source, 'export const answer: number = 7;\n');
  const open = path.join(dir, 'open');
  expect(load(open)).toBe('7');
  poison(open, 'planted');
  chmodSync(open, 0o777);
  expect(load(open)).toBe('7');

  const elsewhere = path.join(dir, 'elsewhere');
  mkdirSync(elsewhere, { mode: 0o700 });
  const linked = path.join(dir, 'linked');
  symlinkSync(elsewhere, linked);
  expect(load(linked)).toBe('7');
  expect(readdirSync(elsewhere)).toEqual([]);
  rmSync(linked);
});
