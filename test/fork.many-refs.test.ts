/**
 * A fork of a long session copies one snapshot ref per inherited step, and `fork rm` removes them: from 256 refs on,
 * in one rewrite of `packed-refs` (src/git/ref-batch.ts) instead of a loose file each (a fork at step 99,990 took
 * 13.7 s for its refs alone). A fork of that fork finds them there, and removing both leaves the parent's refs as
 * they were. With git's lock on `packed-refs` held, the refs are git's, loose, and the same.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { journalDir } from '../src/journal';
import { journalKey } from '../src/git/snapshot';
import { requireRepo } from '../src/git/repo';
import { recordStep } from '../src/record';
import { cliInProcess } from './helpers/cli-in-process';
import { git, initRepo } from './helpers/git';
import { freshDir, tempDir } from './helpers/tmp';

const base = realpathSync(tempDir('stepchain-fork-many-'));
const ENV = { STEPCHAIN_AUDIT: 'off', STEPCHAIN_CHECKPOINT_KEY_PATH: path.join(base, 'checkpoint.key') };
const STEPS = 300;

/** A session of STEPS steps, each with a snapshot commit and ref as a hook writes them (made by git fast-import). */
function longSession(): string {
  const root = initRepo(freshDir(base), { 'a.txt': 'a\n' });
  const head = git(root, ['rev-parse', 'HEAD']);
  const key = journalKey(root, requireRepo(root));
  let stream = '';
  for (let i = 0; i < STEPS; i++) {
    const { row } = recordStep(journalDir(root, 'ag'), { prompt: `step ${i}` }, { env: ENV, root, snapshot: false });
    const msg = `stepchain snapshot: ag step ${i}\n\nagent: ag\nseq: ${i}\nstep_hash: ${row.step_hash}\n`;
    stream += `commit refs/stepchain/snapshots/ag/${key}/${i}\ncommitter s <s@l> 1700000000 +0000\n`;
    stream += `data ${Buffer.byteLength(msg)}\n${msg}from ${head}\n`;
  }
  execFileSync('git', ['fast-import', '--quiet'], { cwd: root, input: stream });
  return root;
}

const refsUnder = (root: string, prefix: string): string[] =>
  git(root, ['for-each-ref', '--format=%(objectname) %(refname)', prefix])
    .split('\n')
    .filter((l) => l !== '');

async function fork(root: string, session: string, from: number): Promise<{ id: string; worktree: string }> {
  const r = await cliInProcess(['fork', session, '--from-step', String(from), '--root', root, '--json'], { env: ENV });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const doc = JSON.parse(r.stdout) as { fork_session_id: string; fork_worktree: string };
  return { id: doc.fork_session_id, worktree: doc.fork_worktree };
}

test('a fork at step 299 packs its 300 refs; a fork of it finds them; fork rm removes them and only them', async () => {
  const root = longSession();
  const parentRefs = refsUnder(root, 'refs/stepchain/snapshots/ag/');
  expect(parentRefs).toHaveLength(STEPS);
  const a = await fork(root, 'ag', STEPS - 1);
  const aRefs = refsUnder(root, `refs/stepchain/snapshots/${a.id}/`);
  expect(aRefs).toHaveLength(STEPS);
  // The same commits, by seq; packed, none loose.
  const commitOf = (lines: string[]): Map<string, string> =>
    new Map(lines.map((l) => [l.slice(l.lastIndexOf('/') + 1), l.slice(0, 40)]));
  expect(commitOf(aRefs)).toEqual(commitOf(parentRefs));
  expect(existsSync(path.join(root, '.git', 'refs', 'stepchain', 'snapshots', a.id))).toBe(false);
  const packed = readFileSync(path.join(root, '.git', 'packed-refs'), 'utf8');
  expect(packed.split('\n').filter((l) => l.includes(` refs/stepchain/snapshots/${a.id}/`))).toHaveLength(STEPS);
  // A fork of the fork restores step 299's files from the refs it inherited (no warning: stderr is empty).
  const b = await fork(a.worktree, a.id, STEPS - 1); // a fork's session lives in its worktree
  expect(refsUnder(root, `refs/stepchain/snapshots/${b.id}/`)).toHaveLength(STEPS);
  for (const [f, at] of [
    [b, a.worktree],
    [a, root],
  ] as const) {
    const r = await cliInProcess(['fork', 'rm', f.id, '--root', at, '--json'], { env: ENV });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ removed_snapshot_refs: STEPS });
  }
  expect(refsUnder(root, 'refs/stepchain/snapshots/')).toEqual(parentRefs);
  expect(git(root, ['fsck', '--no-dangling', '--connectivity-only'])).toBe('');
});

test("with git holding the lock on packed-refs, the refs are git's (loose) and the fork the same", async () => {
  const root = longSession();
  writeFileSync(path.join(root, '.git', 'packed-refs.lock'), '');
  const a = await fork(root, 'ag', STEPS - 1);
  expect(refsUnder(root, `refs/stepchain/snapshots/${a.id}/`)).toHaveLength(STEPS);
  expect(
    readdirSync(path.join(root, '.git', 'refs', 'stepchain', 'snapshots', a.id), { recursive: true }),
  ).toHaveLength(
    STEPS + 1, // the key's directory and a file per ref
  );
  rmSync(path.join(root, '.git', 'packed-refs.lock'));
  const r = await cliInProcess(['fork', 'rm', a.id, '--root', root], { env: ENV });
  expect(r.code).toBe(0);
  expect(refsUnder(root, `refs/stepchain/snapshots/${a.id}/`)).toEqual([]);
});
