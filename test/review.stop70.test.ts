import { copyFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { repoInfo } from '../src/git/repo';
import type { RepoInfo } from '../src/git/repo-read';
import { takeSnapshot } from '../src/git/snapshot';
import { cleanDeadSnapshotDirs } from '../src/git/snapshot-begin';
import { git, writeFiles } from './helpers/git';
import { freshRepo } from './helpers/project';
import { tempDir } from './helpers/tmp';
import { dirOnAnotherFileSystem, fileState } from './helpers/file-state';

// Review of the snapshot's seed index (the user's index linked, or copied): what a snapshot may never do to the
// user's index, whatever the repository's configuration says.
const tmp = tempDir('stepchain-review70-');
const env = { ...process.env, STEPCHAIN_AUDIT: 'off' };

let seq = 0;
function snapshot(root: string, known?: RepoInfo, extra: NodeJS.ProcessEnv = {}) {
  const s = takeSnapshot(
    { root, agentId: 'rev70', seq: seq++, stepHash: 'e'.repeat(64), env: { ...env, ...extra } },
    known,
  );
  expect(s).toBeDefined();
  return s!;
}

const shared = (root: string): string[] =>
  readdirSync(path.join(root, '.git')).filter((n) => n.startsWith('sharedindex.'));

test.each([
  ['its trees written in-process', {}],
  // A date from the environment: the trees and the commit are git's (`git write-tree` on the snapshot's index).
  ['its trees written by git', { GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z' }],
])("a split index (%s): the snapshot neither writes a shared index nor deletes the user's", (_, extra) => {
  // core.splitIndex on, every write a new shared index (maxPercentChange 0), every other shared index expired at
  // once (sharedIndexExpire now): the snapshot's add wrote sharedindex.<new> and deleted the user's, and every git
  // command of the user's failed after ("index file open failed").
  const root = freshRepo(tmp, { 'a.txt': 'a0\n', 'b.txt': 'b0\n' });
  git(root, ['config', 'core.splitIndex', 'true']);
  git(root, ['config', 'splitIndex.maxPercentChange', '0']);
  git(root, ['config', 'splitIndex.sharedIndexExpire', 'now']);
  git(root, ['update-index', '--split-index']);
  const names = shared(root);
  expect(names).toHaveLength(1);
  writeFiles(root, { 'a.txt': 'a1\n', 'new.txt': 'n\n' });
  const user = path.join(root, '.git', 'index');
  const before = fileState(user);

  for (let i = 0; i < 2; i++) {
    const s = snapshot(root, undefined, extra);
    expect(git(root, ['show', `${s.commit}:a.txt`])).toBe('a1');
    expect(git(root, ['show', `${s.commit}:new.txt`])).toBe('n');
  }
  expect(shared(root)).toEqual(names);
  expect(fileState(user)).toEqual(before);
  expect(git(root, ['status', '--porcelain'])).toBe('M a.txt\n?? new.txt');
});

test('the copied seed (no link possible) keeps the racy-clean rule: an edit keeping size and second is in it', () => {
  // test/git.snapshot.racy.test.ts now goes through the link (the user's own mtime): this is the copy's case. The
  // user's index (here on another file system, so it is copied) was written in the second of an edit that kept the
  // file's size and mtime: git must compare the content. A copy with a new mtime made the entry look older than its
  // index, and the snapshot held the old content.
  const root = freshRepo(tmp, { 'app.txt': 'v0\n' });
  const T = Math.floor(Date.now() / 1000) - 3600;
  const app = path.join(root, 'app.txt');
  utimesSync(app, T, T);
  git(root, ['add', '--', 'app.txt']);
  writeFileSync(app, 'v1\n');
  utimesSync(app, T, T);
  const cached = git(root, ['ls-files', '--debug', '--', 'app.txt']);
  expect(cached).toContain(`mtime: ${T}:`);
  const elsewhere = dirOnAnotherFileSystem(path.join(root, '.git'));
  try {
    const index = path.join(elsewhere, 'index');
    copyFileSync(path.join(root, '.git', 'index'), index);
    utimesSync(index, T + 0.5, T + 0.5); // written in the second of the edit
    const info = { ...repoInfo(root, env)!, indexFile: index };
    const before = fileState(index);
    const s = snapshot(root, info);
    expect(git(root, ['show', `${s.commit}:app.txt`])).toBe('v1');
    expect(fileState(index)).toEqual(before);
  } finally {
    rmSync(elsewhere, { recursive: true, force: true });
  }
});

/** Whether `root`'s git dir holds a snapshot's temporary directory (the seed is being read or linked). */
const seeding = (root: string): boolean =>
  readdirSync(path.join(root, '.git')).some((n) => n.startsWith('stepchain-snap-'));

test("the user's git replacing its index between the seed's read and its link: the index read is the seed", async () => {
  // The link names what `.git/index` is when it is made: a new index the user's git renamed over it since it was read
  // (here one marking a.txt assume-unchanged) was the seed while the bytes read (no flag: none cleared) decided what
  // to clear, and the snapshot kept a.txt's old content. strace holds the link 3 s (delay_enter) while the user's git
  // writes its index: only the file read may be linked, else its bytes are copied.
  const root = freshRepo(tmp, { 'a.txt': 'a0\n' });
  writeFiles(root, { 'a.txt': 'a1\n' });
  const script = `
    const { takeSnapshot } = require('./src/git/snapshot');
    const s = takeSnapshot({ root: ${JSON.stringify(root)}, agentId: 'rev70', seq: 0, stepHash: 'e'.repeat(64),
      env: { ...process.env, STEPCHAIN_AUDIT: 'off' } });
    console.log(JSON.stringify(s));
  `;
  const strace = ['-f', '-qq', '-o', '/dev/null', '-e', 'trace=link', '-e', 'inject=link:delay_enter=3000000:when=1'];
  const node = [process.execPath, '-r', './test/helpers/swc-register.js', '-e', script];
  const child = spawn('strace', [...strace, ...node], { cwd: path.resolve(__dirname, '..'), env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  // Once the snapshot's directory is there, its index is read within a millisecond; the link waits 3 s.
  while (!seeding(root)) await new Promise((r) => setTimeout(r, 5));
  await new Promise((r) => setTimeout(r, 300));
  git(root, ['update-index', '--assume-unchanged', 'a.txt']);
  expect(await exited).toBe(0);
  expect(stderr).toBe('');
  const s = JSON.parse(stdout) as { commit: string };
  expect(git(root, ['show', `${s.commit}:a.txt`])).toBe('a1');
  expect(git(root, ['ls-files', '-v'])).toBe('H .gitignore\nh a.txt');
  expect(statSync(path.join(root, '.git', 'index')).nlink).toBe(1);
});

test("a hook killed with its seed linked: the next step removes its directory, the user's index as it was", () => {
  // The killed hook's directory holds a second name of the user's index (and here the lock a killed git left):
  // removing it must only take that name away.
  const root = freshRepo(tmp, { 'a.txt': 'a0\n' });
  const user = path.join(root, '.git', 'index');
  const before = fileState(user);
  const script =
    `const { seedSnapshotIndex } = require('./src/git/snapshot-begin');` +
    `const { repoInfo } = require('./src/git/repo');` +
    `const { writeFileSync } = require('node:fs');` +
    `const s = seedSnapshotIndex({ root: ${JSON.stringify(root)} }, repoInfo(${JSON.stringify(root)}));` +
    `writeFileSync(s.index + '.lock', 'half an index');` +
    `process.kill(process.pid, 'SIGKILL');`;
  const r = spawnSync(process.execPath, ['-r', './test/helpers/swc-register.js', '-e', script], {
    cwd: path.resolve(__dirname, '..'),
    env,
  });
  expect(r.signal).toBe('SIGKILL');
  const left = readdirSync(path.join(root, '.git')).filter((n) => n.startsWith('stepchain-snap-'));
  expect(left).toHaveLength(1);
  expect(statSync(user).nlink).toBe(2); // the seed was the user's file, linked

  expect(cleanDeadSnapshotDirs(path.join(root, '.git'))).toEqual(left);
  expect(fileState(user)).toEqual(before);
  expect(git(root, ['status', '--porcelain'])).toBe('');
});
