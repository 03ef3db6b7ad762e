import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { DIFF_EXCLUDE, differingPathsSync, diffTreesSync } from '../src/git/diff';
import { diffLooseTrees } from '../src/git/tree-diff';
import { SNAPSHOT_PATHSPEC } from '../src/git/snapshot';
import { git, initRepo, writeFiles } from './helpers/git';
import { tempDir } from './helpers/tmp';

/**
 * src/git/tree-diff.ts compares two loose trees in-process, for what a step changed (src/provenance/record.ts).
 * It must give exactly what `git diff-tree -r --no-renames <a> <b> -- <DIFF_EXCLUDE>` gives, read by the same
 * parser (src/git/diff.ts): the same changes, in the same order. The differential: two states of a repository
 * reached by random edits (files, modes, links, a file turned into a directory and back, `.sdd` directories and
 * files, a name that is not UTF-8), each written as a tree the way the snapshot writes it; where a tree is packed
 * it must answer nothing (git decides).
 */
const tmp = tempDir('stepchain-tree-diff-');
let n = 0;

/** The work tree as a tree object, as the snapshot's add and write-tree make it (`.sdd` included: the diff's own exclusion is under test). */
function treeOf(root: string): string {
  const index = path.join(root, '.git', `stepchain-test-index-${n++}`);
  const env = { ...process.env, GIT_INDEX_FILE: index };
  execFileSync('git', ['add', '-A', '--', '.'], { cwd: root, env, stdio: 'ignore' });
  const tree = execFileSync('git', ['write-tree'], { cwd: root, env, encoding: 'utf8' }).trim();
  rmSync(index);
  return tree;
}

const NOT_UTF8 = Buffer.from([0x66, 0xe9, 0x2e, 0x74]); // "f\xe9.t"

type Edit =
  | { kind: 'write'; file: string; content: string }
  | { kind: 'exec'; file: string }
  | { kind: 'remove'; file: string }
  | { kind: 'link'; file: string }
  | { kind: 'odd' };

const component = fc.constantFrom('a', 'b', 'a-b', 'a.b', 'a0', '.sdd', 'sub', 'é');
const file = fc.array(component, { minLength: 1, maxLength: 3 }).map((p) => p.join('/'));
const edit: fc.Arbitrary<Edit> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('write' as const), file, content: fc.string() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('exec' as const), file }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('remove' as const), file }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('link' as const), file }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'odd' as const }) },
);

function apply(root: string, e: Edit): void {
  if (e.kind === 'odd') {
    writeFileSync(Buffer.concat([Buffer.from(`${root}/`), NOT_UTF8]), `${n++}`);
    return;
  }
  const p = path.join(root, e.file);
  const parts = e.file.split('/');
  for (let i = 1; i < parts.length; i++) {
    const st = lstatSync(path.join(root, ...parts.slice(0, i)), { throwIfNoEntry: false });
    if (st !== undefined && !st.isDirectory()) rmSync(path.join(root, ...parts.slice(0, i)));
  }
  rmSync(p, { recursive: true, force: true });
  if (e.kind === 'remove') return;
  mkdirSync(path.dirname(p), { recursive: true });
  if (e.kind === 'write') writeFileSync(p, e.content);
  else if (e.kind === 'exec') {
    writeFileSync(p, '#!/bin/sh\n');
    chmodSync(p, 0o755);
  } else symlinkSync('a', p);
}

/**
 * One repository for every run of the property, its work tree put back to the same two files before each: a run's
 * trees are written by a fresh index (treeOf) and compared by id, so the objects earlier runs left in the object
 * directory (all loose: nothing here packs) change no answer, and a new repository per run (init, add, commit) was
 * most of this file's git processes.
 */
let shared: string | undefined;
function startOver(): string {
  shared ??= initRepo(path.join(tmp, 'shared'), { 'a.txt': 'a\n', 'sub/b.txt': 'b\n' }, { ignoreSdd: false });
  for (const name of readdirSync(shared, { encoding: 'buffer' })) {
    if (name.toString('latin1') !== '.git')
      rmSync(Buffer.concat([Buffer.from(`${shared}/`), name]), { recursive: true, force: true });
  }
  writeFiles(shared, { 'a.txt': 'a\n', 'sub/b.txt': 'b\n' });
  return shared;
}

describe('diffLooseTrees gives what git diff-tree gives', () => {
  test('for two trees of random edits apart (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(edit, { maxLength: 8 }), fc.array(edit, { minLength: 1, maxLength: 8 }), (one, two) => {
        const root = startOver();
        for (const e of one) apply(root, e);
        const a = treeOf(root);
        for (const e of two) apply(root, e);
        const b = treeOf(root);
        const commonDir = path.join(root, '.git');
        const ours = diffLooseTrees(commonDir, a, b);
        expect(ours).toBeDefined();
        expect(ours).toEqual(diffTreesSync(root, a, b));
        // From the empty tree (a first step in a repository without commits) and back.
        expect(diffLooseTrees(commonDir, undefined, b)).toEqual(
          diffTreesSync(root, '4b825dc642cb6eb9a060e54bf8d69288fbee4904', b),
        );
        expect(diffLooseTrees(commonDir, b, a)).toEqual(diffTreesSync(root, b, a));
      }),
      { numRuns: 40 },
    );
  });

  test('the pathspec it stands for is the one git is given', () => {
    expect(DIFF_EXCLUDE).toBe(':(top,exclude,glob)**/.sdd/**');
    expect(SNAPSHOT_PATHSPEC).toContain(':(exclude,glob)**/.sdd/**');
  });
});

describe('diffLooseTrees answers nothing where git must', () => {
  test('a tree that is packed, or not a tree', () => {
    const root = initRepo(path.join(tmp, `r${n++}`), { 'a.txt': 'a\n', 'sub/b.txt': 'b\n' });
    const a = treeOf(root);
    writeFileSync(path.join(root, 'sub', 'b.txt'), 'b2\n');
    const b = treeOf(root);
    const commonDir = path.join(root, '.git');
    expect(diffLooseTrees(commonDir, a, b)).toEqual(diffTreesSync(root, a, b));
    const blob = git(root, ['rev-parse', `${b}:a.txt`]);
    expect(diffLooseTrees(commonDir, a, blob)).toBeUndefined();
    git(root, ['commit', '-q', '-am', 'b']);
    git(root, ['gc', '-q', '--prune=now']);
    expect(diffLooseTrees(commonDir, a, b)).toBeUndefined();
  });
});

test("differingPathsSync compares by the paths' bytes: a name that is not UTF-8 does not hide a change to one spelled the same", () => {
  // `x<U+FFFD>` (a real name) and `x<0xff>` (git's bytes; spelled `x<U+FFFD>` when read as UTF-8): the fork check
  // compared two listings keyed by that spelling, the later file standing for both, and a change to the other was
  // not seen (the fork replay's "the files differ from the recording's" warning stayed silent).
  const root = initRepo(path.join(tmp, 'spelled-alike'));
  const real = Buffer.from(path.join(root, 'x\uFFFD'));
  writeFileSync(real, 'one');
  writeFileSync(Buffer.concat([Buffer.from(path.join(root, 'x')), Buffer.from([0xff])]), 'same');
  const a = treeOf(root);
  writeFileSync(real, 'two');
  const b = treeOf(root);
  expect(differingPathsSync(root, a, b)).toEqual(['x\uFFFD']);
  expect(differingPathsSync(root, a, a)).toEqual([]);
});
