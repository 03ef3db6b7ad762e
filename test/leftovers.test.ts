/**
 * What killed processes leave is cleaned by the next writer (docs/journal.md,
 * "Leftovers"): the temporary index directory of a snapshot, a ref lock of a
 * killed `git update-ref`, a receipt's temporary file. (Lock staging files:
 * test/lock.test.ts.)
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { journalDir } from '../src/journal';
import { recordStep } from '../src/record';
import { selfToken } from '../src/util/proc';
import { cli } from './helpers/cli';
import { git, initRepo } from './helpers/git';
import { cliPaused, deadPid } from './helpers/proc';
import { tempDir } from './helpers/tmp';

const tmp = tempDir('stepchain-leftovers-');
const ENV = { STEPCHAIN_AUDIT: 'off', STEPCHAIN_CHECKPOINT_KEY_PATH: path.join(tmp, 'checkpoint.key') };
let n = 0;
const repo = (): string => initRepo(path.join(tmp, `repo${n++}`), { 'a.txt': 'a\n' });
const snapDirs = (root: string): string[] =>
  readdirSync(path.join(root, '.git')).filter((f) => f.startsWith('stepchain-snap-'));

test('a snapshot writer killed mid-snapshot leaves its temporary index, which the next snapshot removes', async () => {
  const root = repo();
  expect(cli(['append', 'ag', '--root', root, '--prompt', 'p0'], { env: ENV }).code).toBe(0);
  const killed = await cliPaused(['append', 'ag', '--root', root, '--prompt', 'p1'], 'snapshot:after-index', {
    env: ENV,
  });
  await killed.kill();
  const left = snapDirs(root);
  expect(left).toHaveLength(1);
  expect(left[0]).toMatch(new RegExp(`^stepchain-snap-${killed.pid}-`));
  // A live writer's directory is never taken.
  const live = path.join(root, '.git', `stepchain-snap-${selfToken()}-live`);
  mkdirSync(live);
  const r = cli(['append', 'ag', '--root', root, '--prompt', 'p2', '--json'], { env: ENV });
  expect(r.code).toBe(0);
  expect(r.stderr).toBe('');
  expect(JSON.parse(r.stdout).seq).toBe(2);
  expect(snapDirs(root)).toEqual([path.basename(live)]);
});

test("an earlier release's temporary index in the system temp dir is removed once it is an hour old", () => {
  const root = repo();
  const old = mkdtempSync(path.join(tmpdir(), 'stepchain-snap-'));
  const fresh = mkdtempSync(path.join(tmpdir(), 'stepchain-snap-'));
  writeFileSync(path.join(old, 'index'), 'x');
  const past = new Date(Date.now() - 2 * 3600_000);
  utimesSync(old, past, past);
  try {
    expect(cli(['append', 'ag', '--root', root, '--prompt', 'p0'], { env: ENV }).code).toBe(0);
    expect(existsSync(old)).toBe(false);
    expect(existsSync(fresh)).toBe(true);
  } finally {
    rmSync(old, { recursive: true, force: true });
    rmSync(fresh, { recursive: true, force: true });
  }
});

test('a ref lock left by a killed git update-ref does not fail the next snapshot of that ref', () => {
  const root = repo();
  const first = recordStep(journalDir(root, 'ag'), { prompt: 'p0' }, { env: ENV, root });
  // What `git update-ref` leaves when it is killed holding the lock of the ref the next step will use.
  const next = first.snapshot!.ref.replace(/\/0$/, '/1');
  const lock = path.join(root, '.git', `${next}.lock`);
  writeFileSync(lock, '');
  const past = new Date(Date.now() - 10_000);
  utimesSync(lock, past, past);
  const r = recordStep(journalDir(root, 'ag'), { prompt: 'p1' }, { env: ENV, root });
  expect(r.warnings).toEqual([]);
  expect(r.snapshot?.ref).toBe(next);
  expect(git(root, ['rev-parse', next])).toBe(r.snapshot!.commit);
  expect(existsSync(lock)).toBe(false);
});

test("a receipt writer's temporary file is removed by the next write of that receipt once its writer is gone", () => {
  const root = repo();
  expect(cli(['append', 'ag', '--root', root, '--no-snapshot'], { env: ENV }).code).toBe(0);
  const out = path.join(tmp, `out${n++}`);
  mkdirSync(out);
  const dead = `.receipt.tar.tmp-${deadPid()}-k3j4h5`;
  const live = `.receipt.tar.tmp-${process.pid}-a1b2c3`;
  const other = `.other.tar.tmp-${deadPid()}-k3j4h5`;
  for (const f of [dead, live, other]) writeFileSync(path.join(out, f), Buffer.alloc(1024));
  const r = cli(['export', 'ag', '--root', root, '-o', path.join(out, 'receipt.tar')], { env: ENV });
  expect(r.code).toBe(0);
  expect(readdirSync(out).sort()).toEqual([live, other, 'receipt.tar'].sort());
});
