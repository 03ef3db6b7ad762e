import { readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createFork } from '../src/forks';
import { journalDir } from '../src/journal';
import { recordStep } from '../src/record';
import { cli } from './helpers/cli';
import { git } from './helpers/git';
import { tempDir } from './helpers/tmp';
import { freshRepo } from './helpers/project';

/**
 * A snapshot holds exactly the work tree's content at its step, whatever the
 * timing (issue 20 §2). The case git's stat cache gets wrong: an edit that keeps
 * the file's size and its mtime second, made in the second the index was written
 * ("racily clean": git must compare the content). A copy of the index with a new
 * mtime hid that from git, so the snapshot kept the old content. Timestamps are
 * set explicitly (utimes) so the race is reproduced every time, not by luck.
 */
const tmp = tempDir('stepchain-racy-');
const env = { ...process.env, STEPCHAIN_AUDIT: 'off' };

/** A whole second well in the past: every stamp below is set to it. */
const T = Math.floor(Date.now() / 1000) - 3600;

/** `git ls-files --debug` for one path: its cached ctime and mtime seconds and size. */
function cached(root: string, file: string): { ctime: number; mtime: number; size: number } {
  const out = git(root, ['ls-files', '--debug', '--', file]);
  const sec = (k: string): number => Number(new RegExp(`${k}: ([0-9]+):`).exec(out)![1]);
  return { ctime: sec('ctime'), mtime: sec('mtime'), size: Number(/size: ([0-9]+)/.exec(out)![1]) };
}

/**
 * Writes `content` into `file` so that git's cached stat data still matches it:
 * same size, mtime `T` (as cached), ctime in the cached second (retried in the
 * rare case the write crossed a second boundary since `git add`). The index's
 * own mtime is `T` too, as when it was written in the second of the edit.
 */
function racyEdit(root: string, file: string, content: string, before: string): void {
  const abs = path.join(root, file);
  for (let attempt = 0; attempt < 20; attempt++) {
    writeFileSync(abs, before);
    utimesSync(abs, T, T);
    git(root, ['add', '--', file]);
    utimesSync(path.join(root, '.git', 'index'), T, T);
    writeFileSync(abs, content);
    utimesSync(abs, T, T);
    const st = statSync(abs);
    const c = cached(root, file);
    if (Math.floor(st.ctimeMs / 1000) === c.ctime && c.mtime === T && c.size === st.size) return;
  }
  throw new Error('could not make a racily clean edit in 20 attempts');
}

function newRepo(): string {
  return freshRepo(tmp, { 'app.txt': 'v0\n' });
}

function step(root: string, agent: string): { commit: string; hash: string } {
  const r = recordStep(journalDir(root, agent), { prompt: 'edit' }, { root, env });
  expect(r.warnings).toEqual([]);
  return { commit: r.snapshot!.commit, hash: r.row.step_hash };
}

describe('a snapshot holds the work tree as it is, whatever git stat cache says', () => {
  test('an edit keeping size and mtime second, in the second of the index: the snapshot has the new content', () => {
    const root = newRepo();
    racyEdit(root, 'app.txt', 'v1\n', 'v0\n');
    // git itself sees the edit (the index is racy for the entry) ...
    expect(git(root, ['status', '--porcelain'])).toContain('app.txt');
    const index = path.join(root, '.git', 'index');
    const before = { bytes: readFileSync(index), mtime: statSync(index).mtimeMs };
    const s = step(root, 'ag');
    // ... and so does the snapshot.
    expect(git(root, ['show', `${s.commit}:app.txt`])).toBe('v1');
    // The user's index was only read.
    expect({ bytes: readFileSync(index), mtime: statSync(index).mtimeMs }).toEqual(before);
  });

  test('many edits a step apart, each keeping size and second: a fork at every step has exactly that step', async () => {
    const root = newRepo();
    const steps = 8;
    const contents = Array.from({ length: steps }, (_, i) => `v${i}\n`);
    racyEdit(root, 'app.txt', contents[0]!, 'x0\n');
    for (let i = 0; i < steps; i++) {
      if (i > 0) {
        writeFileSync(path.join(root, 'app.txt'), contents[i]!);
        utimesSync(path.join(root, 'app.txt'), T, T);
      }
      step(root, 'ag');
    }
    for (let i = 0; i < steps; i++) {
      const f = await createFork({ root, sessionId: 'ag', fromStep: i, env });
      expect(f.warnings).toEqual([]);
      expect(readFileSync(path.join(f.fork_worktree, 'app.txt'), 'utf8')).toBe(contents[i]);
    }
  });

  test('the CLI as the issue ran it: append, then fork --from-step 0 hands out the edited file', () => {
    const root = newRepo();
    racyEdit(root, 'app.txt', 'v1\n', 'v0\n');
    const a = cli(['append', 'ag', '--prompt', 'edit app.txt'], { cwd: root });
    expect(a.stderr).toBe('');
    expect(a.code).toBe(0);
    const f = cli(['fork', 'ag', '--from-step', '0', '--json'], { cwd: root });
    expect(f.code).toBe(0);
    const worktree = (JSON.parse(f.stdout) as { fork_worktree: string }).fork_worktree;
    expect(readFileSync(path.join(worktree, 'app.txt'), 'utf8')).toBe('v1\n');
  });
});
