import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { parseIndex, writeTreeFromIndex } from '../src/git/index-tree';
import type { LooseRepo } from '../src/git/loose';
import type { ReadLimits } from '../src/git/object-store';
import { SNAPSHOT_PATHSPEC } from '../src/git/snapshot';
import { git, gitChain, initRepo, writeFiles } from './helpers/git';
import { tempDir } from './helpers/tmp';

/**
 * src/git/index-tree.ts is `git write-tree` for a snapshot's index, without a git process. On every index git
 * writes it must give git's tree id, with every object of that tree readable by git afterwards; on an index it
 * does not read plainly it must answer nothing and write nothing (the snapshot then runs `git write-tree`).
 * The differential: a repository is edited at random (files written, rewritten, made executable, removed, turned
 * into links, directories nested and emptied), then `git add -A` as the snapshot runs it into an index, and the
 * tree computed here is compared with `git write-tree` of a copy of the same index bytes.
 */
const tmp = tempDir('stepchain-index-tree-');
let n = 0;

const loose = (root: string): LooseRepo => ({ commonDir: path.join(root, '.git'), ident: 'unused <unused>' });

/** The tree of these index bytes as the snapshot builds it in-process (undefined: it leaves them to git). */
function writeTree(bytes: Buffer, root: string, limits: Partial<ReadLimits> = {}): string | undefined {
  const parsed = parseIndex(bytes);
  return parsed === undefined ? undefined : writeTreeFromIndex(parsed, loose(root), limits);
}

/** The object lookups' other paths, each forced: pack indexes read a bucket at a time or searched in place, loose
 * objects' directories always listed or never. */
const LOOKUPS: Partial<ReadLimits>[] = [
  { wholeBytes: 0, listFrom: 1, listDirsFrom: 1 },
  { wholeBytes: 0, bucketBytes: 0, listFrom: Infinity, listDirsFrom: Infinity },
];

/** A new repository at `dir` with `files` (and `.gitignore`) committed on `main`: `initRepo`, in one process. */
function newRepo(dir: string, files: Record<string, string>): string {
  mkdirSync(dir, { recursive: true });
  writeFiles(dir, { '.gitignore': '.sdd/\n', ...files });
  gitChain(dir, [
    ['init', '-q', '-b', 'main'],
    ['add', '-A'],
    ['commit', '-q', '--allow-empty', '-m', 'initial'],
  ]);
  return dir;
}

/** The snapshot's add into a fresh copy of the user's index; the index's bytes after it. */
function addedIndex(root: string, version?: number): Buffer {
  const index = path.join(root, '.git', `stepchain-test-index-${n++}`);
  copyFileSync(path.join(root, '.git', 'index'), index);
  const env = { ...process.env, GIT_INDEX_FILE: index };
  gitChain(
    root,
    [
      ['add', '-A', '--', ...SNAPSHOT_PATHSPEC],
      ...(version === undefined ? [] : [['update-index', '--index-version', String(version)]]),
    ],
    env,
  );
  const bytes = readFileSync(index);
  rmSync(index);
  return bytes;
}

/** `git write-tree` of exactly these index bytes. */
function gitWriteTree(root: string, bytes: Buffer): string {
  return readableThenGitWriteTree(root, bytes, undefined);
}

/**
 * `tree` (when given) read whole by git first (`ls-tree -r -t`: throws when one of its trees is missing or
 * corrupt; read before `git write-tree` runs, which would write any tree missing), then `git write-tree` of
 * exactly these index bytes: git's tree id.
 */
function readableThenGitWriteTree(root: string, bytes: Buffer, tree: string | undefined): string {
  const index = path.join(root, '.git', `stepchain-test-index-${n++}`);
  writeFileSync(index, bytes);
  try {
    const out = gitChain(
      root,
      [...(tree === undefined ? [] : [['ls-tree', '-r', '-t', '--full-tree', tree]]), ['write-tree']],
      { ...process.env, GIT_INDEX_FILE: index },
    );
    return out.trim().split('\n').pop()!;
  } finally {
    rmSync(index, { force: true });
  }
}

/**
 * The repository whole as git reads it: throws when an object reachable from a ref, a reflog or the index is
 * missing or corrupt. Run once at the end of a run of edits rather than after each round: refs only move forward
 * and the reflogs keep every HEAD a round saw (gc expires nothing this young), `.git/index` is only ever HEAD's
 * tree (a commit edit adds then commits), and a gc between rounds fails itself on a corrupt reachable object, so
 * every object an earlier fsck would have walked is walked here. Without the commit-graph and multi-pack-index
 * checks fsck starts as two more processes each time: those files are git's own (written by the gc edits), never
 * the code under test's.
 */
function fsck(root: string): void {
  git(root, [
    '-c',
    'core.commitGraph=false',
    '-c',
    'core.multiPackIndex=false',
    'fsck',
    '--no-dangling',
    '--connectivity-only',
  ]);
}

type Edit =
  | { kind: 'write'; file: string; content: string }
  | { kind: 'exec'; file: string }
  | { kind: 'chmod'; file: string }
  | { kind: 'remove'; file: string }
  | { kind: 'link'; file: string; target: string }
  | { kind: 'gitlink'; file: string }
  | { kind: 'mkdir'; file: string }
  | { kind: 'commit' }
  | { kind: 'gc' }
  | { kind: 'repack' };

const component = fc.constantFrom('a', 'b', 'a-b', 'a.b', 'a0', 'z', 'sub', 'x y', 'é');
const file = fc.array(component, { minLength: 1, maxLength: 3 }).map((p) => p.join('/'));
const edit: fc.Arbitrary<Edit> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('write' as const), file, content: fc.string() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('exec' as const), file }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('chmod' as const), file }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('gitlink' as const), file }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('mkdir' as const), file }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), file }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('link' as const),
      file,
      target: fc.constantFrom('a', '../x', 'sub/b.txt'),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'commit' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'gc' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'repack' as const }) },
);

/** Applies an edit; a path in the way (a file where a directory is wanted, or the reverse) is removed first. */
function apply(root: string, e: Edit): void {
  if (e.kind === 'commit') {
    gitChain(root, [
      ['add', '-A'],
      ['commit', '-q', '--allow-empty', '-m', 'c'],
    ]);
    return;
  }
  if (e.kind === 'gc') {
    // The objects packed and the unreachable pruned, as ever; the refs left loose and the reflogs not expired
    // (nothing in a repository this young is old enough): two of the seven processes gc starts, neither about objects.
    git(root, [
      '-c',
      'gc.packRefs=false',
      '-c',
      'gc.reflogExpire=never',
      '-c',
      'gc.reflogExpireUnreachable=never',
      'gc',
      '-q',
      '--prune=now',
    ]);
    return;
  }
  if (e.kind === 'repack') {
    git(root, ['repack', '-q', '-d']); // the loose objects into one more pack: objects in several packs and loose
    return;
  }
  const p = path.join(root, e.file);
  const parts = e.file.split('/');
  for (let i = 1; i < parts.length; i++) {
    const dir = path.join(root, ...parts.slice(0, i));
    const st = lstatSync(dir, { throwIfNoEntry: false });
    if (st !== undefined && !st.isDirectory()) rmSync(dir); // a file (or link) where a directory is wanted
  }
  if (e.kind === 'remove') {
    rmSync(p, { recursive: true, force: true });
    return;
  }
  if (e.kind === 'chmod') {
    // The mode alone changed (the same blob): a file made executable, or no longer.
    const st = lstatSync(p, { throwIfNoEntry: false });
    if (st?.isFile()) chmodSync(p, st.mode & 0o100 ? 0o644 : 0o755);
    return;
  }
  if (e.kind === 'mkdir') {
    rmSync(p, { recursive: true, force: true });
    mkdirSync(p, { recursive: true }); // an empty directory: git records nothing of it
    return;
  }
  mkdirSync(path.dirname(p), { recursive: true });
  rmSync(p, { recursive: true, force: true });
  if (e.kind === 'gitlink') {
    // A repository of its own with a commit (a submodule's checkout, or `cargo new`): git adds it as a gitlink.
    mkdirSync(p);
    writeFileSync(path.join(p, 'x.txt'), e.file);
    gitChain(p, [
      ['init', '-q', '-b', 'main'],
      ['add', 'x.txt'],
      ['commit', '-q', '-m', 'inner'],
    ]);
  } else if (e.kind === 'write') writeFileSync(p, e.content);
  else if (e.kind === 'exec') {
    writeFileSync(p, '#!/bin/sh\n');
    chmodSync(p, 0o755);
  } else symlinkSync(e.target, p);
}

/**
 * A repository with `files` committed, every file older than the index (as a checkout's are): no entry is racily
 * clean, so `git add` keeps the cache-tree of every directory it does not change.
 */
function oldRepo(files: Record<string, string>): string {
  const root = initRepo(path.join(tmp, `r${n++}`), files, { commit: false });
  const old = Date.now() / 1000 - 3600;
  for (const f of ['.gitignore', ...Object.keys(files)]) utimesSync(path.join(root, f), old, old);
  git(root, ['add', '-A']);
  git(root, ['commit', '-q', '-m', 'old']);
  return root;
}

describe('writeTreeFromIndex gives the tree git writes', () => {
  test('for every index a random run of edits leaves (fast-check: versions 2 to 4; files written, removed, made executable or not, links, gitlinks, empty directories; cache-trees partly invalidated; objects loose, in one pack or several; every way the objects are looked up)', () => {
    fc.assert(
      fc.property(fc.array(fc.array(edit, { maxLength: 6 }), { minLength: 1, maxLength: 5 }), (rounds) => {
        const root = newRepo(path.join(tmp, `r${n++}`), { 'a.txt': 'a\n', 'sub/b.txt': 'b\n' });
        for (const [i, round] of rounds.entries()) {
          for (const e of round) apply(root, e);
          const version = [undefined, 2, 3, 4][i % 4];
          const bytes = addedIndex(root, version);
          const ours = writeTree(bytes, root);
          if (version === 4) {
            expect(ours).toBeUndefined(); // names compressed against each other: git reads those
            continue;
          }
          expect(ours).toBeDefined();
          expect(ours).toBe(readableThenGitWriteTree(root, bytes, ours));
          // Every way of looking the objects up (./src/git/object-store.ts) gives that tree.
          for (const limits of LOOKUPS) expect(writeTree(bytes, root, limits)).toBe(ours);
        }
        fsck(root);
        rmSync(root, { recursive: true, force: true });
      }),
      { numRuns: 25 },
    );
  });

  test('a tree git wrote is reused from the cache-tree; an edit rebuilds only the trees on its path', () => {
    const root = oldRepo({ 'a/b/c.txt': 'c\n', 'a/d.txt': 'd\n', 'e/f.txt': 'f\n' });
    const before = addedIndex(root);
    expect(parseIndex(before)?.valid.get('e')).toBeDefined();
    writeFiles(root, { 'a/b/c.txt': 'c2\n' });
    const after = addedIndex(root);
    const valid = parseIndex(after)!.valid;
    expect([...valid.keys()]).toEqual(['e']); // the top, `a` and `a/b` invalidated
    expect(writeTree(after, root)).toBe(gitWriteTree(root, after));
  });

  test('a step that changed files in every directory: every tree rebuilt, hundreds of objects looked up at once', () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 600; i++) files[`src/pkg${i % 20}/mod${i}.py`] = `def f${i}(x):\n    return x\n`;
    const root = oldRepo(files);
    for (const packed of [false, true]) {
      if (packed) git(root, ['gc', '-q']);
      const changed: Record<string, string> = {};
      // Half the files of every directory (every other run of 20: each run covers all 20 directories).
      for (let i = 0; i < 600; i++)
        if (Math.floor(i / 20) % 2 === 0)
          changed[`src/pkg${i % 20}/mod${i}.py`] = `# ${packed ? 'after' : 'before'} gc\n`;
      writeFiles(root, changed);
      const bytes = addedIndex(root);
      expect(parseIndex(bytes)!.valid.size).toBe(0); // nothing left to take from the cache-tree
      const ours = writeTree(bytes, root);
      expect(ours).toBe(readableThenGitWriteTree(root, bytes, ours));
      for (const limits of LOOKUPS) expect(writeTree(bytes, root, limits)).toBe(ours);
    }
  });

  test('a gitlink (a repository of its own) is written as git writes it', () => {
    const root = initRepo(path.join(tmp, `r${n++}`), { 'a.txt': 'a\n' });
    initRepo(path.join(root, 'inner'), { 'x.txt': 'x\n' });
    const bytes = addedIndex(root);
    expect(writeTree(bytes, root)).toBe(gitWriteTree(root, bytes));
    // Its id made null (no object is looked up for a gitlink): git refuses the tree, so nothing is written here.
    const parsed = parseIndex(bytes)!;
    const k = [...Array(parsed.count).keys()].find((i) => bytes.readUInt32BE(parsed.at[i]! + 24) === 0o160000)!;
    const nulled = Buffer.from(bytes.subarray(0, bytes.length - 20));
    nulled.fill(0, parsed.at[k]! + 40, parsed.at[k]! + 60);
    const forged = Buffer.concat([nulled, createHash('sha1').update(nulled).digest()]);
    expect(writeTree(forged, root)).toBeUndefined();
    expect(() => gitWriteTree(root, forged)).toThrow();
  });
});

describe('writeTreeFromIndex answers nothing, having written nothing, where git decides', () => {
  const objects = (root: string): string => git(root, ['count-objects', '-v']);

  test('an unmerged entry, an intent-to-add entry, a torn or altered index', () => {
    const root = initRepo(path.join(tmp, `r${n++}`), { 'a.txt': 'a\n' });
    const blob = git(root, ['hash-object', '-w', '--stdin']);
    const index = path.join(root, '.git', 'index');
    const before = readFileSync(index);
    execFileSync('git', ['update-index', '--index-info'], {
      cwd: root,
      input: `100644 ${blob} 1\tm.txt\n100644 ${blob} 2\tm.txt\n`,
    });
    const count = objects(root);
    expect(writeTree(readFileSync(index), root)).toBeUndefined();
    writeFileSync(index, before);
    writeFiles(root, { 'n.txt': 'n\n' });
    git(root, ['add', '-N', 'n.txt']);
    expect(writeTree(readFileSync(index), root)).toBeUndefined();
    const torn = Buffer.from(before);
    torn[20] ^= 1;
    expect(writeTree(torn, root)).toBeUndefined();
    expect(writeTree(before.subarray(0, before.length - 3), root)).toBeUndefined();
    expect(objects(root)).toBe(count);
  });

  test('an entry whose object the repository does not hold (git refuses it)', () => {
    const root = initRepo(path.join(tmp, `r${n++}`), { 'a.txt': 'a\n' });
    execFileSync('git', ['update-index', '--add', '--cacheinfo', `100644,${'ab'.repeat(20)},ghost.txt`], {
      cwd: root,
    });
    const bytes = readFileSync(path.join(root, '.git', 'index'));
    const count = objects(root);
    expect(writeTree(bytes, root)).toBeUndefined();
    expect(() => gitWriteTree(root, bytes)).toThrow();
    expect(objects(root)).toBe(count);
  });

  test('entries out of order in a tree it must build (git checks the order only in fsck)', () => {
    const root = oldRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    writeFiles(root, { 'c.txt': 'c\n' });
    git(root, ['add', 'c.txt']); // the top's cache-tree is invalidated: its tree is built here
    const bytes = Buffer.from(readFileSync(path.join(root, '.git', 'index')));
    const a = bytes.indexOf('a.txt\0', 0, 'latin1');
    const b = bytes.indexOf('b.txt\0', 0, 'latin1');
    const size = b - a; // both entries are as long (a name of 5 bytes): swapping them keeps the layout
    const first = Buffer.from(bytes.subarray(a - 62, a - 62 + size));
    bytes.copy(bytes, a - 62, b - 62, b - 62 + size);
    first.copy(bytes, b - 62);
    const end = bytes.length - 20;
    createHash('sha1').update(bytes.subarray(0, end)).digest().copy(bytes, end);
    expect(parseIndex(bytes)).toBeDefined();
    expect(writeTree(bytes, root)).toBeUndefined();
  });

  test('names git`s add never writes, or in an order git never writes: a file and a directory of one name, `.git`', () => {
    const files = ['.abc/x.txt', '.a', 'a-b', 'a/x', 'd/0', 'd/1', 'e/00', 'e/1', 'm', 'm0/x', 'zz/y'];
    const root = oldRepo(Object.fromEntries(files.map((f) => [f, `${f}\n`])));
    const index = readFileSync(path.join(root, '.git', 'index'));
    expect(writeTree(index, root)).toBe(gitWriteTree(root, index));
    /** The index with names replaced (each by one as long), its cache-tree dropped: every tree built here. */
    const renamed = (pairs: [string, string][]): Buffer => {
      const parsed = parseIndex(index)!;
      const last = parsed.count - 1;
      const end = parsed.at[last]! + ((parsed.nameAt[last]! + parsed.nameLen[last]! - parsed.at[last]! + 8) & ~7);
      const body = Buffer.from(index.subarray(0, end));
      for (const [from, to] of pairs) {
        const at = body.indexOf(`${from}\0`, 0, 'latin1');
        expect(at).toBeGreaterThan(0);
        body.write(to, at, 'latin1');
      }
      return Buffer.concat([body, createHash('sha1').update(body).digest()]);
    };
    const count = git(root, ['count-objects', '-v']);
    // Each keeps the index's order (and the tree order of the other entries): only the name itself is wrong.
    for (const pairs of [
      [['.abc/x.txt', '.git/x.txt']],
      [['.abc/x.txt', '.gIT/x.txt']],
      [['.a', '..']],
      [['d/0', 'd/.']],
      [['e/00', 'e/..']],
      [['a-b', 'a\0b']],
      [['m0/x', 'm/xx']], // `m` a file and a directory
      [
        ['a-b', 'a/y'],
        ['a/x', 'a-b'],
      ], // the directory `a` before the file `a-b`: out of git's tree order (`a-b` < `a/`)
    ] as [string, string][][]) {
      const bytes = renamed(pairs);
      expect([pairs, parseIndex(bytes) === undefined]).toEqual([pairs, false]);
      expect([pairs, writeTree(bytes, root)]).toEqual([pairs, undefined]);
    }
    expect(renamed([]).equals(index)).toBe(false); // the cache-tree dropped: nothing taken from it above
    expect(writeTree(renamed([]), root)).toBe(gitWriteTree(root, index));
    expect(git(root, ['count-objects', '-v'])).toBe(count); // nothing written
  });

  test('a cache-tree whose count is not the entries under it', () => {
    const root = oldRepo({ 'a/b.txt': 'b\n', 'a/c.txt': 'c\n' });
    const bytes = Buffer.from(readFileSync(path.join(root, '.git', 'index')));
    // The top's record opens the extension: an empty path, then `3 1\n` (.gitignore, a/b.txt, a/c.txt; one subtree).
    const at = bytes.indexOf('TREE', 0, 'latin1');
    expect(bytes.toString('latin1', at + 8, at + 13)).toBe('\x003 1\n');
    bytes.write('2', at + 9, 'latin1');
    const end = bytes.length - 20;
    createHash('sha1').update(bytes.subarray(0, end)).digest().copy(bytes, end);
    expect(parseIndex(bytes)).toBeDefined();
    expect(writeTree(bytes, root)).toBeUndefined();
  });
});
