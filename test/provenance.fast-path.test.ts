import { rmSync } from 'node:fs';
import path from 'node:path';
import { diffTreesSync } from '../src/git/diff';
import { journalDir } from '../src/journal';
import { changesOf, readStepChanges, STEP_CHANGES_EVENT } from '../src/provenance/changes';
import { recordStep } from '../src/record';
import { readRunJournalFile, runJournalFile } from '../src/runs';
import { git, initRepo, writeFiles } from './helpers/git';
import { tempDir } from './helpers/tmp';

/**
 * What each step changed is read in-process where the repository allows (src/git/index-tree.ts, tree-diff.ts,
 * loose.ts): in repositories where it may not or must not (SHA-256 objects, packed refs and objects, a linked
 * worktree, an alternate object store), every recorded change must still be `git diff-tree`'s between the two
 * snapshots, end to end.
 */
const tmp = tempDir('stepchain-prov-fast-');
let n = 0;
const env = { ...process.env, STEPCHAIN_AUDIT: 'off' };

function steps(root: string, between: (i: number) => void): void {
  for (let i = 0; i < 4; i++) {
    writeFiles(root, { [`f${i}.txt`]: `${i}\n`, 'a.txt': `a${i}\n`, [`d/e${i % 2}/g.txt`]: `${i}\n` });
    if (i === 2) rmSync(path.join(root, 'f0.txt'));
    const r = recordStep(journalDir(root, 'agent'), { prompt: `step ${i}` }, { root, env });
    expect(r.warnings).toEqual([]);
    between(i);
  }
  const rows = readRunJournalFile(runJournalFile(root, 'agent'));
  expect(rows.ok).toBe(true);
  const recs = rows.entries
    .filter((e) => e.row.event === STEP_CHANGES_EVENT)
    .map((e) => {
      const c = readStepChanges(e.row);
      if (!c.ok) throw new Error(c.reason);
      return c.value;
    });
  expect(recs.length).toBe(4);
  for (const [i, rec] of recs.entries()) {
    const from = rec.since.seq === null ? (rec.since.commit ?? undefined) : recs[i - 1]!.snapshot;
    expect(rec.since.seq).toBe(i === 0 ? null : i - 1);
    expect(rec.changes).toEqual(changesOf(diffTreesSync(root, from, rec.snapshot)));
  }
}

describe('recorded changes are git`s, whichever way they were read', () => {
  test('a plain repository', () => {
    steps(initRepo(path.join(tmp, `r${n++}`), { 'a.txt': 'a\n' }), () => undefined);
  });

  test('a SHA-256 repository', () => {
    const root = path.join(tmp, `r${n++}`);
    git(tmp, ['init', '-q', '--object-format=sha256', '-b', 'main', root]);
    writeFiles(root, { '.gitignore': '.sdd/\n', 'a.txt': 'a\n' });
    git(root, ['add', '-A']);
    git(root, ['commit', '-q', '-m', 'initial']);
    steps(root, () => undefined);
  });

  test('refs and objects packed between steps (`git gc`)', () => {
    const root = initRepo(path.join(tmp, `r${n++}`), { 'a.txt': 'a\n' });
    steps(root, () => git(root, ['gc', '-q', '--prune=now']));
  });

  test('a linked worktree (its `.git` a file)', () => {
    const main = initRepo(path.join(tmp, `r${n++}`), { 'a.txt': 'a\n' });
    const wt = path.join(tmp, `w${n++}`);
    git(main, ['worktree', 'add', '-q', wt]);
    steps(wt, () => undefined);
  });

  test('an alternate object store (`clone --shared`)', () => {
    const origin = initRepo(path.join(tmp, `r${n++}`), { 'a.txt': 'a\n', 'd/e0/g.txt': 'x\n' });
    const root = path.join(tmp, `r${n++}`);
    git(tmp, ['clone', '-q', '--shared', origin, root]);
    steps(root, () => undefined);
  });
});
