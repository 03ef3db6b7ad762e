import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { takeSnapshot } from '../src/git/snapshot';
import { git, writeFiles } from './helpers/git';
import { freshRepo } from './helpers/project';
import { tempDir } from './helpers/tmp';

// Review of the snapshot's seed index (the user's index linked, or copied): what a snapshot may never do to the
// user's index, whatever the repository's configuration says.
const tmp = tempDir('stepchain-review70-');
const env = { ...process.env, STEPCHAIN_AUDIT: 'off' };

/** What must not change of the user's index file. */
function fileState(file: string): { ino: number; nlink: number; mtimeMs: number; bytes: string } {
  const st = statSync(file);
  return { ino: st.ino, nlink: st.nlink, mtimeMs: st.mtimeMs, bytes: readFileSync(file).toString('base64') };
}

let seq = 0;
function snapshot(root: string) {
  const s = takeSnapshot({ root, agentId: 'rev70', seq: seq++, stepHash: 'e'.repeat(64), env });
  expect(s).toBeDefined();
  return s!;
}

const shared = (root: string): string[] =>
  readdirSync(path.join(root, '.git')).filter((n) => n.startsWith('sharedindex.'));

test("a split index: the snapshot neither writes a shared index nor deletes the one the user's index names", () => {
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
    const s = snapshot(root);
    expect(git(root, ['show', `${s.commit}:a.txt`])).toBe('a1');
    expect(git(root, ['show', `${s.commit}:new.txt`])).toBe('n');
  }
  expect(shared(root)).toEqual(names);
  expect(fileState(user)).toEqual(before);
  expect(git(root, ['status', '--porcelain'])).toBe('M a.txt\n?? new.txt');
});
