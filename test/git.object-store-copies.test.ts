import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ObjectStore } from '../src/git/object-store';
import { repoInfo, repoInfoFromGit } from '../src/git/repo';
import { readRepoInfo } from '../src/git/repo-read';
import { git } from './helpers/git';
import { freshDir, tempDir } from './helpers/tmp';

/**
 * ObjectStore.packedCopies (src/git/object-store.ts) gives where a pack holds an object, reading of its index what
 * git's lookup reads (readRepoInfo looks for HEAD's commit there on every hook call; it read the whole index, 8.4 MB
 * for a 300,000-object clone). What it answers must be what git's index says, for every object of a pack whose
 * names fill every first byte, whichever way the store reads the index (whole, by fan-out bucket, a name at a
 * time), and nothing for what is not there or a pack git would not open.
 */
const base = realpathSync(tempDir('stepchain-pack-copies-'));

/** Where the store finds `oid` in the packs of `gitDir`: its offset in the one pack that lists it, or undefined. */
function packOffset(gitDir: string, oid: string, limits = {}): number | undefined {
  const store = new ObjectStore(gitDir, limits);
  try {
    const copies = store.packedCopies(oid);
    expect(copies.length).toBeLessThanOrEqual(1);
    return copies[0]?.offset;
  } finally {
    store.close();
  }
}

/** The store's three ways of reading an index: whole, a fan-out bucket at a time, a name at a time. */
const WAYS = [{}, { wholeBytes: 0 }, { wholeBytes: 0, bucketBytes: 0 }];

/** A repository of `commits` commits made by fast-import (a blob, a tree and a commit each), all in one pack. */
function packedRepo(commits: number): { dir: string; idx: string; commits: string[] } {
  const dir = freshDir(base);
  git(dir, ['init', '-q', '-b', 'main']);
  let stream = '';
  for (let i = 0; i < commits; i++) {
    const body = `file ${i}\n`;
    stream += `commit refs/heads/main\nmark :${i + 1}\ncommitter A <a@b.invalid> ${1700000000 + i} +0000\ndata 2\nc\n`;
    stream += `M 100644 inline f${i % 7}\ndata ${body.length}\n${body}\n`;
  }
  execFileSync('git', ['fast-import', '--quiet'], { cwd: dir, input: stream });
  git(dir, ['repack', '-a', '-d', '-q']);
  const packDir = path.join(dir, '.git', 'objects', 'pack');
  const idx = readdirSync(packDir).find((f) => f.endsWith('.idx'))!;
  const log = git(dir, ['rev-list', 'main']).trim().split('\n');
  return { dir, idx: `objects/pack/${idx}`, commits: log };
}

/** Every object of the index as git lists it (`git show-index`): its id and its offset in the pack. */
function gitIndex(dir: string, idx: string): Map<string, number> {
  const out = execFileSync('git', ['show-index'], { cwd: dir, input: readFileSync(path.join(dir, '.git', idx)) });
  const m = new Map<string, number>();
  for (const line of out.toString('latin1').trim().split('\n')) {
    const [off, oid] = line.split(' ');
    m.set(oid!, Number(off));
  }
  return m;
}

test("every object of a pack whose names fill every first byte is found at git's offset; others are not", () => {
  const { dir, idx } = packedRepo(700); // 2,100 objects: every first byte holds some
  const objects = gitIndex(dir, idx);
  expect(new Set([...objects.keys()].map((o) => o.slice(0, 2))).size).toBe(256);
  const gitDir = path.join(dir, '.git');
  // Ids not in the pack: each first byte, the smallest and largest names, one off by the last bit of a real one.
  const absent = ['00'.repeat(20), 'ff'.repeat(20), ...[...objects.keys()].slice(0, 50).map(flipLast)];
  for (let b = 0; b < 256; b++) absent.push(b.toString(16).padStart(2, '0') + '5a'.repeat(19));
  for (const way of WAYS) {
    for (const [oid, off] of objects) expect([way, oid, packOffset(gitDir, oid, way)]).toEqual([way, oid, off]);
    for (const oid of absent)
      if (!objects.has(oid)) expect([way, oid, packOffset(gitDir, oid, way)]).toEqual([way, oid, undefined]);
  }
});

test("readRepoInfo's HEAD through the pack is git's, for commits across the pack", () => {
  const { dir, commits } = packedRepo(300);
  for (const c of commits.filter((_, i) => i % 23 === 0)) {
    git(dir, ['update-ref', 'refs/heads/main', c]);
    expect(readRepoInfo(dir)?.head).toBe(c);
    expect(repoInfo(dir)).toEqual(repoInfoFromGit(dir));
  }
});

test('an index cut short, with a fan-out past its names, another version, or a link: no pack git would open, nothing found', () => {
  const { dir, idx } = packedRepo(120);
  const gitDir = path.join(dir, '.git');
  const file = path.join(gitDir, idx);
  const whole = readFileSync(file);
  const objects = [...gitIndex(dir, idx).keys()];
  const n = whole.readUInt32BE(8 + 255 * 4);
  const cut = (length: number) => {
    rmSync(file, { force: true });
    writeFileSync(file, whole.subarray(0, length));
  };
  // Cut in the header, in the names, in the CRCs, in the offsets: shorter than what the fan-out counts.
  for (const length of [0, 7, 8 + 1024 - 1, 8 + 1024 + 20 * (n >> 1), 8 + 1024 + 24 * n, 8 + 1024 + 28 * n - 1]) {
    cut(length);
    for (const oid of objects) expect([length, packOffset(gitDir, oid)]).toEqual([length, undefined]);
  }
  // A fan-out whose last count is past the names the file holds.
  const past = Buffer.from(whole);
  past.writeUInt32BE(n + 1000, 8 + 255 * 4);
  rmSync(file);
  writeFileSync(file, past);
  for (const oid of objects) expect(packOffset(gitDir, oid)).toBeUndefined();
  // Version 1 (or anything but 2).
  const v1 = Buffer.from(whole);
  v1.writeUInt32BE(1, 4);
  rmSync(file);
  writeFileSync(file, v1);
  expect(packOffset(gitDir, objects[0]!)).toBeUndefined();
  // A link where the index is: never followed.
  rmSync(file);
  writeFileSync(path.join(base, 'elsewhere.idx'), whole);
  symlinkSync(path.join(base, 'elsewhere.idx'), file);
  expect(packOffset(gitDir, objects[0]!)).toBeUndefined();
  // The whole index back: found again.
  rmSync(file);
  writeFileSync(file, whole);
  expect(packOffset(gitDir, objects[0]!)).not.toBeUndefined();
});

/** `oid` with its last bit flipped. */
function flipLast(oid: string): string {
  const last = parseInt(oid.slice(-1), 16) ^ 1;
  return oid.slice(0, -1) + last.toString(16);
}
