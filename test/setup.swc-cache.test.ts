import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './helpers/paths';
import { tempDir } from './helpers/tmp';

/**
 * test/helpers/swc-register.js keeps what it transpiled in a directory of this user's own, named by a hash of the
 * source: a child loads the same code it would have transpiled, a changed source is transpiled anew, and a directory
 * someone else could write into is never read code from.
 */
const register = path.join(repoRoot, 'test', 'helpers', 'swc-register.js');
const dir = tempDir('stepchain-swc-cache-');
const source = path.join(dir, 'answer.ts');
const cacheName = `stepchain-swc-cache-${process.getuid!()}`;

/** A child that loads `answer.ts` with its temporary directory `tmp`; what it printed. */
function load(tmp: string): string {
  const r = spawnSync(
    process.execPath,
    ['-r', register, '-e', `process.stdout.write(String(require(${JSON.stringify(source)}).answer))`],
    {
      env: { ...process.env, TMPDIR: tmp },
      encoding: 'utf8',
    },
  );
  if (r.status !== 0) throw new Error(`the child failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** Every kept file of the cache directory under `tmp` made to say `said` instead. */
function poison(tmp: string, said: string): void {
  const cache = path.join(tmp, cacheName);
  for (const f of readdirSync(cache)) writeFileSync(path.join(cache, f), `exports.answer = ${JSON.stringify(said)};\n`);
}

test('what is kept is used, and a changed source is transpiled anew', () => {
  const tmp = path.join(dir, 'own');
  mkdirSync(tmp);
  writeFileSync(source, 'export const answer: number = 41;\n');
  expect(load(tmp)).toBe('41');
  const cache = path.join(tmp, cacheName);
  expect(statSync(cache).mode & 0o777).toBe(0o700);
  expect(readdirSync(cache)).toHaveLength(1);
  // The kept file is what the next child runs (this user's own directory: shown by changing it).
  poison(tmp, 'kept');
  expect(load(tmp)).toBe('kept');
  writeFileSync(source, 'export const answer: number = 42;\n');
  expect(load(tmp)).toBe('42');
  expect(readdirSync(cache)).toHaveLength(2);
});

test('a cache directory others may write, or a link, is never read code from', () => {
  writeFileSync(source, 'export const answer: number = 7;\n');
  const open = path.join(dir, 'open');
  mkdirSync(open);
  expect(load(open)).toBe('7');
  poison(open, 'planted');
  chmodSync(path.join(open, cacheName), 0o777);
  expect(load(open)).toBe('7');

  const linked = path.join(dir, 'linked');
  mkdirSync(linked);
  const elsewhere = path.join(dir, 'elsewhere');
  mkdirSync(elsewhere, { mode: 0o700 });
  symlinkSync(elsewhere, path.join(linked, cacheName));
  expect(load(linked)).toBe('7');
  expect(readdirSync(elsewhere)).toEqual([]);
  rmSync(path.join(linked, cacheName));
});
