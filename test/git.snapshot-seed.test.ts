import { copyFileSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { repoInfo } from '../src/git/repo';
import type { RepoInfo } from '../src/git/repo-read';
import { takeSnapshot } from '../src/git/snapshot';
import { dropSnapshotIndex, seedSnapshotIndex } from '../src/git/snapshot-begin';
import { git, writeFiles } from './helpers/git';
import { freshRepo } from './helpers/project';
import { tempDir } from './helpers/tmp';
import { dirOnAnotherFileSystem, fileState } from './helpers/file-state';

// The snapshot's index starts as the user's index: the user's file itself under a second name in the snapshot's
// private directory (git replaces an index, never writes into one), or a copy where the file cannot be linked. Either
// way the user's index is never changed, and the snapshot holds the work tree.
const tmp = tempDir('stepchain-seed-');
const env = { ...process.env, STEPCHAIN_AUDIT: 'off' };

function newRepo(): string {
  return freshRepo(tmp, { 'src/a.py': 'a0\n', 'b.txt': 'b0\n' });
}

function files(root: string, commit: string): string[] {
  return git(root, ['ls-tree', '-r', '--name-only', commit]).split('\n').filter(Boolean).sort();
}

let seq = 0;
function snapshot(root: string, known?: RepoInfo) {
  const s = takeSnapshot({ root, agentId: 'seed', seq: seq++, stepHash: 'f'.repeat(64), env }, known);
  expect(s).toBeDefined();
  return s!;
}

test("the seed is the user's index itself, linked; after the snapshot the user's file is as it was", () => {
  const root = newRepo();
  const user = path.join(root, '.git', 'index');
  writeFiles(root, { 'src/a.py': 'a1\n', 'new.txt': 'untracked\n' });
  const before = fileState(user);
  expect(before.nlink).toBe(1);

  const seeded = seedSnapshotIndex({ root, env }, repoInfo(root, env)!);
  try {
    const seed = statSync(seeded.index);
    expect([seed.ino, seed.nlink]).toEqual([before.ino, 2]);
    expect(statSync(user).mtimeMs).toBe(before.mtimeMs);
  } finally {
    dropSnapshotIndex(seeded);
  }
  expect(fileState(user)).toEqual(before);

  // The whole snapshot: git's add replaced the snapshot's name with the index it wrote.
  const s = snapshot(root);
  expect(files(root, s.commit)).toEqual(['.gitignore', 'b.txt', 'new.txt', 'src/a.py']);
  expect(git(root, ['show', `${s.commit}:src/a.py`])).toBe('a1');
  expect(fileState(user)).toEqual(before);
  expect(git(root, ['status', '--porcelain'])).toBe('M src/a.py\n?? new.txt');
});

test("the commands that clear the user's skip flags in the seed change the snapshot's index only", () => {
  // An entry marked assume-unchanged and one skip-worktree in the user's index: the seed is cleared of both (two
  // `git update-index` runs on the snapshot's name), so the snapshot holds both edits; the user's index keeps them.
  const root = newRepo();
  git(root, ['update-index', '--assume-unchanged', 'src/a.py']);
  git(root, ['update-index', '--skip-worktree', 'b.txt']);
  writeFiles(root, { 'src/a.py': 'a2\n', 'b.txt': 'b2\n' });
  const user = path.join(root, '.git', 'index');
  const before = fileState(user);

  const s = snapshot(root);
  expect(git(root, ['show', `${s.commit}:src/a.py`])).toBe('a2');
  expect(git(root, ['show', `${s.commit}:b.txt`])).toBe('b2');
  expect(fileState(user)).toEqual(before);
  expect(git(root, ['ls-files', '-v'])).toBe('H .gitignore\nS b.txt\nh src/a.py');
});

test('an index that cannot be linked (another file system) is copied, with its mtime rounded down to the second', () => {
  const root = newRepo();
  writeFiles(root, { 'src/a.py': 'a3\n', 'c.txt': 'c\n' });
  const elsewhere = dirOnAnotherFileSystem(path.join(root, '.git'));
  try {
    const index = path.join(elsewhere, 'index');
    copyFileSync(path.join(root, '.git', 'index'), index);
    utimesSync(index, 1_700_000_000.75, 1_700_000_000.75);
    const info = { ...repoInfo(root, env)!, indexFile: index };
    const before = fileState(index);

    const seeded = seedSnapshotIndex({ root, env }, info);
    try {
      const seed = statSync(seeded.index);
      expect(seed.ino).not.toBe(before.ino);
      expect(seed.nlink).toBe(1);
      expect(seed.mtimeMs).toBe(1_700_000_000_000);
      expect(readFileSync(seeded.index).toString('base64')).toBe(before.bytes);
    } finally {
      dropSnapshotIndex(seeded);
    }

    const s = snapshot(root, info);
    expect(files(root, s.commit)).toEqual(['.gitignore', 'b.txt', 'c.txt', 'src/a.py']);
    expect(git(root, ['show', `${s.commit}:src/a.py`])).toBe('a3');
    expect(fileState(index)).toEqual(before);
  } finally {
    rmSync(elsewhere, { recursive: true, force: true });
  }
});
