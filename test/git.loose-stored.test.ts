import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, readFileSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { commitBody, readLooseObject, writeLooseObject } from '../src/git/loose';
import { readRepoInfo } from '../src/git/repo-read';
import { git, initRepo } from './helpers/git';
import { tempDir } from './helpers/tmp';

/**
 * The loose objects stepchain writes are zlib streams of stored blocks (src/git/zlib-small.ts, as git writes them
 * with core.looseCompression=0) and it reads git's objects with its own inflate: git must read what it writes as
 * any object (`git cat-file`, `git fsck --strict`), and where git refuses an object stepchain must not take it.
 */
const tmp = tempDir('stepchain-loose-stored-');
let n = 0;
const IDENT = 'test <test@stepchain.invalid>';
const repo = (): string => initRepo(path.join(tmp, `r${n++}`), { 'a.txt': 'a\n' });
const objectFile = (root: string, oid: string): string =>
  path.join(root, '.git', 'objects', oid.slice(0, 2), oid.slice(2));

test('git reads the trees and commit written stored, small and past one 65,535-byte block, and fsck is clean', () => {
  const root = repo();
  const loose = { commonDir: path.join(root, '.git'), ident: IDENT };
  const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], {
    cwd: root,
    input: 'x\n',
    encoding: 'utf8',
  }).trim();
  const entry = (name: string): Buffer => Buffer.concat([Buffer.from(`100644 ${name}\0`), Buffer.from(blob, 'hex')]);
  // 3,000 entries of 33 bytes: a tree of two stored blocks; then one of a single entry.
  const names = Array.from({ length: 3000 }, (_, i) => `f${String(i).padStart(4, '0')}`);
  const big = writeLooseObject(loose, 'tree', Buffer.concat(names.map(entry)))!;
  const small = writeLooseObject(loose, 'tree', entry('one.txt'))!;
  const head = git(root, ['rev-parse', 'HEAD']);
  const commit = writeLooseObject(loose, 'commit', commitBody(small, head, IDENT, 1765000000, 'step\n'))!;
  for (const oid of [big, small, commit]) {
    const bytes = readFileSync(objectFile(root, oid));
    expect([bytes[0], bytes[1], bytes[2]! & 6]).toEqual([0x78, 0x01, 0]); // zlib header, a stored block
  }
  expect(git(root, ['cat-file', '-p', big]).split('\n')).toHaveLength(3000);
  expect(git(root, ['cat-file', '-p', small])).toBe(`100644 blob ${blob}\tone.txt`);
  expect(git(root, ['cat-file', 'commit', commit])).toContain(`tree ${small}\nparent ${head}\n`);
  git(root, ['update-ref', 'refs/heads/side', commit]);
  git(root, ['fsck', '--strict', '--no-dangling']);
  expect(readLooseObject(loose.commonDir, big)!.body.length).toBe(3000 * 33);
});

test('an object under 64 KiB is byte for byte what git writes with core.looseCompression=0', () => {
  const root = repo();
  const loose = { commonDir: path.join(root, '.git'), ident: IDENT };
  const head = git(root, ['rev-parse', 'HEAD']);
  const tree = git(root, ['rev-parse', 'HEAD^{tree}']);
  const bodies = {
    tree: Buffer.concat([Buffer.from('40000 dir\0'), Buffer.from(tree, 'hex')]),
    commit: commitBody(tree, head, IDENT, 1765000000, 'step\n'),
  };
  for (const type of ['tree', 'commit'] as const) {
    const oid = writeLooseObject(loose, type, bodies[type])!;
    const ours = readFileSync(objectFile(root, oid));
    unlinkSync(objectFile(root, oid));
    const args = ['-c', 'core.looseCompression=0', 'hash-object', '-w', '-t', type, '--stdin'];
    expect(execFileSync('git', args, { cwd: root, input: bodies[type], encoding: 'utf8' }).trim()).toBe(oid);
    expect(readFileSync(objectFile(root, oid)).equals(ours)).toBe(true);
  }
});

test('a loose object with a byte after its stream: git refuses it, and so does stepchain', () => {
  const root = repo();
  const head = git(root, ['rev-parse', 'HEAD']);
  expect(readRepoInfo(root)!.head).toBe(head);
  const file = objectFile(root, head);
  chmodSync(file, 0o644);
  appendFileSync(file, Buffer.from([0]));
  expect(() => git(root, ['rev-parse', 'HEAD^{commit}'])).toThrow(/garbage at end of loose object/);
  expect(() => git(root, ['cat-file', '-p', head])).toThrow();
  expect(() => readLooseObject(path.join(root, '.git'), head)).toThrow(/garbage/);
  expect(readRepoInfo(root)).toBeUndefined();
});

test('HEAD read from a pack after `git gc` (a commit followed by the pack`s next object)', () => {
  const root = repo();
  git(root, ['commit', '-q', '--allow-empty', '-m', 'second']);
  git(root, ['gc', '-q']);
  const head = git(root, ['rev-parse', 'HEAD']);
  expect(readRepoInfo(root)?.head).toBe(head);
});
