import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import fc from 'fast-check';
import { DIFF_EXCLUDE, diffTreesSync, parseRawDiff, type TreeChange } from '../src/git/diff';
import { GitCommandError, gitSync } from '../src/git/exec';
import { parseIndex, writeTreeFromIndex } from '../src/git/index-tree';
import type { LooseRepo } from '../src/git/loose';
import { diffLooseTrees } from '../src/git/tree-diff';
import { git, gitChain, initRepo, writeFiles } from './helpers/git';
import { tempDir } from './helpers/tmp';

/**
 * Hostile repositories and indexes against the snapshot's in-process trees (src/git/index-tree.ts,
 * src/git/object-store.ts) and changes (src/git/tree-diff.ts). The rule: the same answer as git, or none (git
 * decides); never another tree, never an object git would call missing, never a throw where git answers.
 */
const tmp = tempDir('stepchain-fast-path-hostile-');
let n = 0;

const loose = (root: string): LooseRepo => ({ commonDir: path.join(root, '.git'), ident: 'unused <unused>' });

function writeTree(bytes: Buffer, root: string): string | undefined {
  const parsed = parseIndex(bytes);
  return parsed === undefined ? undefined : writeTreeFromIndex(parsed, loose(root));
}

/** `git write-tree` of exactly these index bytes; undefined when git refuses. */
function gitWriteTree(root: string, bytes: Buffer): string | undefined {
  const index = path.join(root, '.git', `stepchain-test-index-${n++}`);
  writeFileSync(index, bytes);
  try {
    return execFileSync('git', ['write-tree'], {
      cwd: root,
      env: { ...process.env, GIT_INDEX_FILE: index },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
  } catch {
    return undefined;
  } finally {
    rmSync(index, { force: true });
  }
}

/** The in-process answer is git's, or none. */
function agrees(root: string, bytes: Buffer): void {
  const ours = writeTree(bytes, root);
  if (ours !== undefined) expect(ours).toBe(gitWriteTree(root, bytes));
}

/** One record of a cache-tree: its name, entry count (negative: invalid), its tree id when valid, its subtrees. */
interface CacheTree {
  name: string;
  count: number;
  oid?: string;
  subs: CacheTree[];
}

function cacheTreeBytes(t: CacheTree): Buffer {
  return Buffer.concat([
    Buffer.from(`${t.name}\0${t.count} ${t.subs.length}\n`, 'latin1'),
    t.count >= 0 ? Buffer.from(t.oid!, 'hex') : Buffer.alloc(0),
    ...t.subs.map(cacheTreeBytes),
  ]);
}

/** The index's bytes with its extensions replaced by this cache-tree (checksum recomputed). */
function withCacheTree(index: Buffer, tree: Buffer): Buffer {
  const parsed = parseIndex(index)!;
  const last = parsed.count - 1;
  const entriesEnd = parsed.at[last]! + ((parsed.nameAt[last]! + parsed.nameLen[last]! - parsed.at[last]! + 8) & ~7);
  const head = Buffer.alloc(8);
  head.write('TREE', 0, 'latin1');
  head.writeUInt32BE(tree.length, 4);
  const body = Buffer.concat([index.subarray(0, entriesEnd), head, tree]);
  return Buffer.concat([body, createHash('sha1').update(body).digest()]);
}

describe('a forged cache-tree is read as git reads it', () => {
  /** `b/c/f.txt` committed as "old" (its trees exist), then "new" added: every cache-tree record invalidated. */
  function staged(): { root: string; index: Buffer; oldC: string } {
    const root = initRepo(path.join(tmp, `r${n++}`), { 'b/c/f.txt': 'old\n' });
    writeFiles(root, { 'b/c/f.txt': 'new\n' });
    const oldC = gitChain(root, [
      ['add', '-A'],
      ['rev-parse', 'HEAD:b/c'],
    ]).trim();
    return { root, index: readFileSync(path.join(root, '.git', 'index')), oldC };
  }

  test('the top record has a name (git skips it): its subtrees are the top directory`s, not under that name', () => {
    const { root, index, oldC } = staged();
    const forged = withCacheTree(
      index,
      cacheTreeBytes({ name: 'b', count: -1, subs: [{ name: 'c', count: 1, oid: oldC, subs: [] }] }),
    );
    expect(gitWriteTree(root, forged)).toBe(gitWriteTree(root, index));
    agrees(root, forged);
  });

  test('two records of one name: the later one is git`s, with none of the earlier one`s subtrees', () => {
    const { root, index, oldC } = staged();
    const forged = withCacheTree(
      index,
      cacheTreeBytes({
        name: '',
        count: -1,
        subs: [
          { name: 'b', count: -1, subs: [{ name: 'c', count: 1, oid: oldC, subs: [] }] },
          { name: 'b', count: -1, subs: [] },
        ],
      }),
    );
    agrees(root, forged);
  });

  test('a record whose name holds a slash is never a directory git looks up', () => {
    const { root, index, oldC } = staged();
    const forged = withCacheTree(
      index,
      cacheTreeBytes({
        name: '',
        count: -1,
        subs: [
          { name: 'b', count: -1, subs: [] },
          { name: 'b/c', count: 1, oid: oldC, subs: [] },
        ],
      }),
    );
    expect(gitWriteTree(root, forged)).toBe(gitWriteTree(root, index));
    agrees(root, forged);
  });

  test('two cache-tree extensions: git takes the later one whole, nothing of the earlier', () => {
    const { root, index, oldC } = staged();
    const first = cacheTreeBytes({
      name: '',
      count: -1,
      subs: [{ name: 'b', count: -1, subs: [{ name: 'c', count: 1, oid: oldC, subs: [] }] }],
    });
    const second = cacheTreeBytes({ name: '', count: -1, subs: [] });
    const once = withCacheTree(index, first);
    const head = Buffer.alloc(8);
    head.write('TREE', 0, 'latin1');
    head.writeUInt32BE(second.length, 4);
    const body = Buffer.concat([once.subarray(0, once.length - 20), head, second]);
    const forged = Buffer.concat([body, createHash('sha1').update(body).digest()]);
    expect(gitWriteTree(root, forged)).toBe(gitWriteTree(root, index));
    agrees(root, forged);
  });

  test('a valid record naming a tree only an alternate object store holds: git takes it, so git decides', () => {
    const origin = initRepo(path.join(tmp, `r${n++}`), { 'b/c/f.txt': 'old\n' });
    const oldC = git(origin, ['rev-parse', 'HEAD:b/c']);
    const root = path.join(tmp, `r${n++}`);
    git(tmp, ['clone', '-q', '--shared', origin, root]);
    writeFiles(root, { '.gitignore': 'other\n', 'b/c/f.txt': 'new\n' }); // every blob now in the clone's own store
    git(root, ['add', '-A']);
    const index = readFileSync(path.join(root, '.git', 'index'));
    expect(writeTree(index, root)).toBe(gitWriteTree(root, index));
    const forged = withCacheTree(
      index,
      cacheTreeBytes({
        name: '',
        count: -1,
        subs: [{ name: 'b', count: -1, subs: [{ name: 'c', count: 1, oid: oldC, subs: [] }] }],
      }),
    );
    agrees(root, forged);
  });

  test('records nested thousands deep: an answer or none, never a throw', () => {
    const { root, index } = staged();
    const depth = 50_000;
    const forged = withCacheTree(
      index,
      Buffer.concat([
        Buffer.from('\0-1 1\n', 'latin1'),
        Buffer.from('z\0-1 1\n'.repeat(depth), 'latin1'),
        Buffer.from('z\0-1 0\n', 'latin1'),
      ]),
    );
    expect(() => parseIndex(forged)).not.toThrow();
    agrees(root, forged);
  });
});

describe('a deep path', () => {
  test('an entry thousands of directories deep (kept by skip-worktree): git`s tree or none, never a throw', () => {
    const root = initRepo(path.join(tmp, `r${n++}`), { 'a.txt': 'a\n' });
    const blob = git(root, ['rev-parse', 'HEAD:a.txt']);
    const deep = `${'d/'.repeat(20_000)}f.txt`;
    execFileSync('git', ['update-index', '--add', '--cacheinfo', `100644,${blob},${deep}`], { cwd: root });
    const bytes = readFileSync(path.join(root, '.git', 'index'));
    expect(() => writeTree(bytes, root)).not.toThrow();
    agrees(root, bytes);
  });
});

describe('a link in the object store', () => {
  test('`.git/objects` a link elsewhere: nothing is looked up through it (git decides)', () => {
    const root = initRepo(path.join(tmp, `r${n++}`), { 'a.txt': 'a\n', 'sub/b.txt': 'b\n' });
    const index = readFileSync(path.join(root, '.git', 'index'));
    expect(writeTree(index, root)).toBe(gitWriteTree(root, index));
    const elsewhere = path.join(tmp, `objects-${n++}`);
    renameSync(path.join(root, '.git', 'objects'), elsewhere);
    symlinkSync(elsewhere, path.join(root, '.git', 'objects'));
    expect(writeTree(index, root)).toBeUndefined();
  });

  test('a fan-out directory (`objects/ab`) a link elsewhere', () => {
    const root = initRepo(path.join(tmp, `r${n++}`), { 'a.txt': 'a\n' });
    const index = readFileSync(path.join(root, '.git', 'index'));
    const top = git(root, ['rev-parse', 'HEAD^{tree}']);
    const dir = path.join(root, '.git', 'objects', top.slice(0, 2));
    const elsewhere = path.join(tmp, `fan-${n++}`);
    renameSync(dir, elsewhere);
    symlinkSync(elsewhere, dir);
    expect(writeTree(index, root)).toBeUndefined();
  });
});

describe('objects git would not find', () => {
  /** A repository whose objects are all in one pack (no loose object left), and its index. */
  function packed(): { root: string; pack: string; index: Buffer } {
    const root = path.join(tmp, `r${n++}`);
    writeFiles(root, { '.gitignore': '.sdd/\n', 'a.txt': 'a\n', 'sub/b.txt': 'b\n', 'c.txt': 'c\n' });
    // `initRepo` of all but `c.txt`, packed, then `c.txt` added (the top invalidated: `sub`'s tree and the blobs are
    // looked up in the pack), from one process started here rather than five.
    gitChain(root, [
      ['init', '-q', '-b', 'main'],
      ['add', '--', '.gitignore', 'a.txt', 'sub'],
      ['commit', '-q', '-m', 'initial'],
      ['gc', '-q', '--prune=now'],
      ['add', '-A'],
    ]);
    const dir = path.join(root, '.git', 'objects', 'pack');
    const name = readdirSync(dir).find((f) => f.endsWith('.pack'))!;
    return { root, pack: path.join(dir, name), index: readFileSync(path.join(root, '.git', 'index')) };
  }

  test('a pack that is not the one its index describes (git: "packfile does not match index")', () => {
    const { root, pack, index } = packed();
    expect(writeTree(index, root)).toBe(gitWriteTree(root, index));
    writeFileSync(pack, Buffer.alloc(4096));
    expect(gitWriteTree(root, index)).toBeUndefined();
    agrees(root, index);
  });

  test('a pack cut short (its trailer gone)', () => {
    const { root, pack, index } = packed();
    const bytes = readFileSync(pack);
    writeFileSync(pack, bytes.subarray(0, bytes.length - 20));
    expect(gitWriteTree(root, index)).toBeUndefined();
    agrees(root, index);
  });

  test('a pack index whose fan-out is not monotonic (git: "non-monotonic index") or whose size is wrong', () => {
    const { root, pack, index } = packed();
    const idx = `${pack.slice(0, -5)}.idx`;
    const good = readFileSync(idx);
    const bad = Buffer.from(good);
    bad.writeUInt32BE(0xffff, 8); // fan-out[0]
    writeFileSync(idx, bad, { mode: 0o644 });
    expect(gitWriteTree(root, index)).toBeUndefined();
    agrees(root, index);
    writeFileSync(idx, Buffer.concat([good, Buffer.alloc(8)]));
    expect(gitWriteTree(root, index)).toBeUndefined();
    agrees(root, index);
  });
});

/**
 * git's answers (`diffTreesSync`, ./src/git/diff.ts) for many pairs of trees, from one `git diff-tree --stdin` run
 * as `diffTreesSync` runs git (same options, pathspec, pins and environment) instead of two processes per pair.
 * For each pair of trees read on stdin git prints `<a> <b>\n`, then that pair's raw `-z` output; a pair it cannot
 * compare it names on stderr and skips (no header). A pair with no answer here (no header, git failing midway, or
 * one this was not given) is asked of `diffTreesSync` alone: git refusing it is `undefined`, as before.
 */
function gitDiffs(root: string, pairs: [string, string][]): (a: string, b: string) => TreeChange[] | undefined {
  const keys = [...new Set(pairs.map(([a, b]) => `${a} ${b}`))];
  const answers = new Map<string, TreeChange[]>();
  let out = '';
  try {
    out = gitSync(root, ['diff-tree', '-r', '-z', '--no-renames', '--stdin', '--', DIFF_EXCLUDE], {
      input: keys.map((k) => `${k}\n`).join(''),
    });
  } catch (e) {
    if (!(e instanceof GitCommandError)) throw e; // git failed midway: every pair asked alone
  }
  for (let at = 0; at < out.length;) {
    const eol = out.indexOf('\n', at);
    const key = eol < 0 ? '' : out.slice(at, eol);
    if (!keys.includes(key))
      throw new Error(`diff-tree --stdin: no pair's header at ${at}: ${out.slice(at, at + 100)}`);
    let end = eol + 1;
    while (out[end] === ':') {
      // `:<modes> <ids> <status>\0<path>\0` (one path: no renames)
      const name = out.indexOf('\0', end) + 1;
      const next = name === 0 ? -1 : out.indexOf('\0', name);
      if (next < 0) throw new Error('diff-tree --stdin: output cut short');
      end = next + 1;
    }
    answers.set(key, parseRawDiff(out.slice(eol + 1, end)));
    at = end;
  }
  return (a, b) => {
    const known = answers.get(`${a} ${b}`);
    if (known !== undefined) return known;
    try {
      return diffTreesSync(root, a, b);
    } catch {
      return undefined; // git refuses the tree
    }
  };
}

describe('tree-diff on hostile trees', () => {
  test('a tree thousands of directories deep (as git writes it): git`s changes or none, never a throw', () => {
    const root = initRepo(path.join(tmp, `r${n++}`), { 'a.txt': 'a\n' });
    const blob = git(root, ['rev-parse', 'HEAD:a.txt']);
    const top = git(root, ['rev-parse', 'HEAD^{tree}']);
    // The trees `git update-index --add` of `d/d/…/f.txt` then `git write-tree` write, written here as loose objects
    // bottom up: git's own write-tree spends over a second on this depth (quadratic in it), this half as much. A tree
    // of one entry has one form; git reading the chain whole (`diff-tree` naming the file at its bottom) checks it.
    const dirs = new Set<string>();
    const loose = (body: Buffer): string => {
      const object = Buffer.concat([Buffer.from(`tree ${body.length}\0`, 'latin1'), body]);
      const oid = createHash('sha1').update(object).digest('hex');
      if (!dirs.has(oid.slice(0, 2)))
        mkdirSync(path.join(root, '.git', 'objects', oid.slice(0, 2)), { recursive: true });
      dirs.add(oid.slice(0, 2));
      writeFileSync(path.join(root, '.git', 'objects', oid.slice(0, 2), oid.slice(2)), deflateSync(object));
      return oid;
    };
    const entry = (mode: string, name: string, oid: string): Buffer =>
      Buffer.concat([Buffer.from(`${mode} ${name}\0`, 'latin1'), Buffer.from(oid, 'hex')]);
    let sub = loose(entry('100644', 'f.txt', blob));
    for (let k = 1; k < 5_000; k++) sub = loose(entry('40000', 'd', sub));
    const topBody = execFileSync('git', ['cat-file', 'tree', top], { cwd: root }); // `.gitignore`, `a.txt`: before `d`
    const deep = loose(Buffer.concat([topBody, entry('40000', 'd', sub)]));
    const theirs = diffTreesSync(root, top, deep);
    expect(theirs).toEqual([{ path: `${'d/'.repeat(5_000)}f.txt`, status: 'A', blob, mode: '100644' }]);
    expect(() => diffLooseTrees(path.join(root, '.git'), top, deep)).not.toThrow();
    expect(() => diffLooseTrees(path.join(root, '.git'), deep, top)).not.toThrow();
    const ours = diffLooseTrees(path.join(root, '.git'), top, deep);
    if (ours !== undefined) expect(ours).toEqual(theirs);
  });

  /** A tree object written as given (`hash-object --literally`): entries in this order, names as they are. */
  function rawTree(root: string, entries: [string, string, string][]): string {
    const body = Buffer.concat(
      entries.flatMap(([mode, name, oid]) => [Buffer.from(`${mode} ${name}\0`, 'latin1'), Buffer.from(oid, 'hex')]),
    );
    const file = path.join(tmp, `tree-${n++}`);
    writeFileSync(file, body);
    return execFileSync('git', ['hash-object', '-w', '-t', 'tree', '--literally', file], {
      cwd: root,
      encoding: 'utf8',
    }).trim();
  }

  test('entries out of order, twice of one name, or named with a slash: git`s changes or none', () => {
    const root = initRepo(path.join(tmp, `r${n++}`), { 'a.txt': 'a\n' });
    const x = git(root, ['hash-object', '-w', '--stdin']); // the empty blob
    const y = git(root, ['rev-parse', 'HEAD:a.txt']);
    const shapes: [string, string, string][][] = [
      [
        ['100644', 'b', x],
        ['100644', 'a', x],
      ],
      [
        ['100644', 'a', x],
        ['100644', 'a', y],
      ],
      [
        ['100644', 'a', y],
        ['100644', 'a', x],
        ['100644', 'c', x],
      ],
      [['100644', 'a/b', x]],
      [
        ['100644', 'c', y],
        ['100644', 'b', y],
        ['100644', 'a', y],
      ],
      [
        ['100644', 'a', x],
        ['100644', 'b', y],
        ['100644', 'c', x],
      ],
      [['100644', '', x]],
    ];
    const trees = shapes.map((s) => rawTree(root, s));
    const theirs = gitDiffs(
      root,
      trees.flatMap((a) => trees.map((b): [string, string] => [a, b])),
    );
    for (const a of trees)
      for (const b of trees) {
        const ours = diffLooseTrees(path.join(root, '.git'), a, b);
        if (ours !== undefined) expect(ours).toEqual(theirs(a, b));
      }
  });
});

describe('tree-diff against git on random hostile trees (fast-check)', () => {
  /**
   * A tree object written as given, in the order given: a loose object as `git hash-object -w -t tree --literally`
   * writes it (zlib of `tree <size>\0<body>`, named by its SHA-1), written here rather than by one git process per
   * tree (two per run, most of this property's processes). `literalsAreGits` then has git hash every body written,
   * in one process, and read every object back: each one is the object git would have written.
   */
  const written = new Map<string, string>();
  function literal(root: string, entries: { mode: string; name: Buffer; oid: string }[]): string {
    const body = Buffer.concat(
      entries.flatMap((e) => [
        Buffer.from(`${e.mode} `, 'latin1'),
        e.name,
        Buffer.from([0]),
        Buffer.from(e.oid, 'hex'),
      ]),
    );
    const object = Buffer.concat([Buffer.from(`tree ${body.length}\0`, 'latin1'), body]);
    const oid = createHash('sha1').update(object).digest('hex');
    if (!written.has(oid)) {
      const file = path.join(tmp, `tree-${n++}`);
      writeFileSync(file, body);
      written.set(oid, file);
      const dir = path.join(root, '.git', 'objects', oid.slice(0, 2));
      mkdirSync(dir, { recursive: true });
      // One git wrote already (the empty tree, say) holds the same bytes.
      if (!existsSync(path.join(dir, oid.slice(2))))
        writeFileSync(path.join(dir, oid.slice(2)), deflateSync(object), { mode: 0o444 });
    }
    return oid;
  }

  /** git's ids for every body written (`hash-object --literally`) and its reading of every object written. */
  function literalsAreGits(root: string): void {
    const oids = [...written.keys()];
    const files = oids.map((oid) => written.get(oid)!);
    const hashed = execFileSync('git', ['hash-object', '-t', 'tree', '--literally', '--stdin-paths'], {
      cwd: root,
      input: files.map((f) => `${f}\n`).join(''),
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    });
    expect(hashed.split('\n').slice(0, -1)).toEqual(oids);
    const sizes = files.map((f) => statSync(f).size);
    const checked = execFileSync('git', ['cat-file', '--batch-check'], {
      cwd: root,
      input: oids.map((o) => `${o}\n`).join(''),
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    });
    expect(checked.split('\n').slice(0, -1)).toEqual(oids.map((o, i) => `${o} tree ${sizes[i]}`));
  }

  const name = fc.constantFrom(
    ...['a', 'b', 'a.b', 'a-b', 'a0', '.sdd', '.git', '.', '..', 'é', 'x y'].map((s) => Buffer.from(s, 'utf8')),
    Buffer.from([0x66, 0xe9]),
  );
  const leafMode = fc.constantFrom('100644', '100755', '120000', '160000', '100664', '644');
  const entry = fc.record({ tree: fc.boolean(), mode: leafMode, name, blob: fc.nat(2), sub: fc.nat(2) });
  const shape = fc.record({ entries: fc.array(entry, { maxLength: 5 }), sorted: fc.boolean() });

  test('the same changes as `git diff-tree -r`, or none', () => {
    const root = initRepo(path.join(tmp, `r${n++}`), { 'a.txt': 'a\n' });
    const blobs = ['x', 'y', 'z'].map((c) =>
      execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: root, input: c, encoding: 'utf8' }).trim(),
    );
    const leafTrees = [
      literal(root, []),
      literal(root, [{ mode: '100644', name: Buffer.from('f'), oid: blobs[0]! }]),
      literal(root, [
        { mode: '100644', name: Buffer.from('f'), oid: blobs[1]! },
        { mode: '100755', name: Buffer.from('g'), oid: blobs[2]! },
      ]),
    ];
    const build = (s: { entries: unknown[]; sorted: boolean }): string => {
      const es = (s.entries as { tree: boolean; mode: string; name: Buffer; blob: number; sub: number }[]).map((e) =>
        e.tree
          ? { mode: '40000', name: e.name, oid: leafTrees[e.sub]! }
          : { mode: e.mode, name: e.name, oid: blobs[e.blob]! },
      );
      if (s.sorted) {
        const key = (e: { mode: string; name: Buffer }): Buffer =>
          e.mode === '40000' ? Buffer.concat([e.name, Buffer.from('/')]) : e.name;
        es.sort((x, y) => Buffer.compare(key(x), key(y)));
      }
      return literal(root, es);
    };
    // The runs fc.assert makes below (same arbitraries, seed and count: fc.sample draws what fc.assert draws), their
    // trees written and git's answers read in one process; a pair fc.assert asks beyond them (shrinking) asks git alone.
    const seed = fc.readConfigureGlobal().seed ?? Date.now() ^ (Math.random() * 0x100000000); // fast-check's default
    const runs = { numRuns: 300, seed };
    const theirs = gitDiffs(
      root,
      fc.sample(fc.tuple(shape, shape), runs).map(([sa, sb]): [string, string] => [build(sa), build(sb)]),
    );
    let answered = 0;
    fc.assert(
      fc.property(shape, shape, (sa, sb) => {
        const a = build(sa);
        const b = build(sb);
        const ours = diffLooseTrees(path.join(root, '.git'), a, b);
        if (ours !== undefined) {
          answered++;
          expect(ours).toEqual(theirs(a, b));
        }
      }),
      runs,
    );
    expect(answered).toBeGreaterThan(20);
    literalsAreGits(root);
  });
});

describe('indexes git writes under hostile configurations: git`s tree, or none', () => {
  /** `git add -A` run with `config` into a copy of the index (after `prepare`); the copy's bytes. */
  function added(root: string, config: string[], prepare: string[][] = []): Buffer {
    for (const args of prepare) git(root, args);
    const index = path.join(root, '.git', 'index');
    git(root, [...config.flatMap((c) => ['-c', c]), 'add', '-A']);
    return readFileSync(index);
  }

  const cases: [string, string[], string[][], boolean][] = [
    ['index version 4', ['index.version=4'], [['update-index', '--index-version', '4']], false],
    ['a split index', ['core.splitIndex=true'], [['update-index', '--split-index']], false],
    ['an untracked cache', ['core.untrackedCache=true'], [['update-index', '--untracked-cache']], true],
    ['skip-worktree entries', [], [['update-index', '--skip-worktree', 'sub/b.txt']], true],
    [
      'a sparse index',
      [],
      [
        ['sparse-checkout', 'init', '--cone', '--sparse-index'],
        ['sparse-checkout', 'set', 'keep'],
      ],
      false,
    ],
    ['index version 3 (extended flags)', [], [['update-index', '--index-version', '3']], true],
  ];
  test.each(cases)('%s', (_what, config, prepare, answers) => {
    const root = initRepo(path.join(tmp, `r${n++}`), {
      'a.txt': 'a\n',
      'sub/b.txt': 'b\n',
      'keep/c.txt': 'c\n',
      [`long/${'n'.repeat(200)}/${'m'.repeat(200)}/${'o'.repeat(200)}.txt`]: 'l\n',
    });
    writeFiles(root, { 'a.txt': 'a2\n', 'keep/d.txt': 'd\n', 'keep/u/u.txt': 'u\n' });
    const bytes = added(root, config, prepare);
    const ours = writeTree(bytes, root);
    if (answers) expect(ours).toBeDefined();
    agrees(root, bytes);
  });

  test('a long name (0xFFF bytes or more: its length not in the flags)', () => {
    const root = initRepo(path.join(tmp, `r${n++}`), { 'a.txt': 'a\n' });
    const blob = git(root, ['rev-parse', 'HEAD:a.txt']);
    const long = `${Array.from({ length: 30 }, (_, i) => `${i}`.padStart(3, '0') + 'x'.repeat(150)).join('/')}.txt`;
    expect(long.length).toBeGreaterThan(0xfff);
    execFileSync('git', ['update-index', '--add', '--cacheinfo', `100644,${blob},${long}`], { cwd: root });
    const bytes = readFileSync(path.join(root, '.git', 'index'));
    expect(writeTree(bytes, root)).toBeDefined();
    agrees(root, bytes);
  });
});
