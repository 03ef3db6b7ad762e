import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import fc from 'fast-check';
import { repoInfo, repoInfoFromGit } from '../src/git/repo';
import { readRepoInfo } from '../src/git/repo-read';
import { commitAll, git, initRepo } from './helpers/git';
import { freshDir, tempDir } from './helpers/tmp';

/**
 * repoInfo reads a plain repository's files instead of starting `git rev-parse` (src/git/repo-read.ts): on every
 * shape, what it answers is what git answers, and the shapes it does not read plainly are git's.
 */
const base = realpathSync(tempDir('stepchain-repo-read-'));

/** The answer for `dir`: equal to git's, and read without git exactly when `plain`. */
function expectSame(dir: string, plain: boolean): void {
  expect(repoInfo(dir)).toEqual(repoInfoFromGit(dir));
  expect(readRepoInfo(dir) !== undefined).toBe(plain);
}

test('a plain repository: at its top, in a subdirectory, with loose and packed refs and objects', () => {
  const r = initRepo(freshDir(base), { 'a.txt': 'a\n', 'src/b.txt': 'b\n' });
  expectSame(r, true);
  expectSame(path.join(r, 'src'), true);
  git(r, ['gc', '-q']); // packed objects, packed refs
  expectSame(r, true);
  expectSame(path.join(r, 'src'), true);
  writeFileSync(path.join(r, 'c.txt'), 'c\n');
  commitAll(r, 'loose again over packed');
  expectSame(r, true);
  git(r, ['checkout', '-q', '--detach']);
  expectSame(r, true);
  git(r, ['checkout', '-q', '-b', 'feature/x']);
  expectSame(r, true);
});

test('an unborn branch, and HEAD naming something else than a branch', () => {
  const r = initRepo(freshDir(base), {}, { commit: false });
  expectSame(r, true);
  writeFileSync(path.join(r, '.git', 'HEAD'), 'ref: refs/tags/v1\n');
  expectSame(r, false);
  writeFileSync(path.join(r, '.git', 'HEAD'), 'ref:  refs/heads/main\n');
  expect(repoInfo(r)).toEqual(repoInfoFromGit(r));
});

test('a branch naming an annotated tag, a tree, or a missing object: git answers', () => {
  const r = initRepo(freshDir(base), { 'a.txt': 'a\n' });
  git(r, ['tag', '-a', '-m', 'tag', 'v1']);
  const tag = git(r, ['rev-parse', 'v1']);
  const tree = git(r, ['rev-parse', 'HEAD^{tree}']);
  const branch = path.join(r, '.git', 'refs', 'heads', 'main');
  // git refuses to write these (update-ref): a hostile repository has them all the same.
  writeFileSync(branch, `${tag}\n`);
  expectSame(r, false);
  writeFileSync(branch, `${tree}\n`);
  expectSame(r, false);
  git(r, ['gc', '-q']);
  expectSame(r, false); // the tree, packed
  writeFileSync(path.join(r, '.git', 'refs', 'heads', 'main'), `${'1'.repeat(40)}\n`);
  expectSame(r, false);
});

test('layouts git decides: a linked worktree, core.worktree, includes, extensions, bare, inside .git, a link', () => {
  const r = initRepo(freshDir(base), { 'a.txt': 'a\n', 'src/b.txt': 'b\n' });
  const wt = path.join(freshDir(base), 'wt');
  git(r, ['worktree', 'add', '-q', wt]);
  expectSame(wt, false);
  const inner = path.join(r, 'inner-wt'); // a `.git` file inside another repository's work tree
  git(r, ['worktree', 'add', '-q', inner]);
  expectSame(inner, false);
  expect(repoInfo(inner)!.top).toBe(inner);
  expectSame(r, true); // the main work tree of a repository with a linked one
  expectSame(path.join(r, '.git'), false);
  const moved = initRepo(freshDir(base), { 'x.txt': 'x\n' });
  git(moved, ['config', 'core.worktree', path.join(moved, 'src')]);
  mkdirSync(path.join(moved, 'src'), { recursive: true });
  expectSame(moved, false);
  const inc = initRepo(freshDir(base), { 'x.txt': 'x\n' });
  git(inc, ['config', 'include.path', 'extra']);
  expectSame(inc, false);
  const ext = initRepo(freshDir(base), { 'x.txt': 'x\n' });
  git(ext, ['config', 'core.repositoryformatversion', '1']);
  git(ext, ['config', 'extensions.worktreeConfig', 'true']);
  expectSame(ext, false);
  const bare = path.join(freshDir(base), 'bare.git');
  git(base, ['init', '-q', '--bare', bare]);
  expectSame(bare, false);
  const link = path.join(freshDir(base), 'link');
  symlinkSync(r, link);
  expectSame(link, false);
  // A repository of its own inside another's work tree: its own.
  const nested = initRepo(path.join(r, 'nested'), { 'n.txt': 'n\n' });
  expectSame(nested, true);
  expect(repoInfo(nested)!.top).toBe(nested);
  // Not in any repository (a file system's root is beyond the walk): undefined either way.
  expect(repoInfo(freshDir(base))).toEqual(repoInfoFromGit(freshDir(base)));
});

/** A loose object of `type` with `body` written into the repository at `r`, under `oid` (its own hash unless told). */
function looseObject(r: string, type: string, body: string, oid?: string): string {
  const raw = Buffer.from(`${type} ${Buffer.byteLength(body)}\0${body}`);
  const id = oid ?? createHash('sha1').update(raw).digest('hex');
  mkdirSync(path.join(r, '.git', 'objects', id.slice(0, 2)), { recursive: true });
  writeFileSync(path.join(r, '.git', 'objects', id.slice(0, 2), id.slice(2)), deflateSync(raw));
  return id;
}

test('a key on the line of its section header is read as git reads it', () => {
  for (const line of ['[core] worktree = ../elsewhere', '[core]bare', '[core] bare = true', '[include] path = x']) {
    const r = initRepo(freshDir(base), { 'a.txt': 'a\n' });
    mkdirSync(path.join(r, 'sub'));
    appendFileSync(path.join(r, '.git', 'config'), `${line.replace('../elsewhere', path.join(r, 'sub'))}\n`);
    expectSame(r, false);
  }
  const plain = initRepo(freshDir(base), { 'a.txt': 'a\n' });
  appendFileSync(path.join(plain, '.git', 'config'), '[user "x y"] ; a comment\n\tname = n\n');
  expectSame(plain, true);
});

test("a value's escapes as git takes them: \\n \\t \\b read plainly in a key of any case; \\N is git's to refuse", () => {
  const plain = initRepo(freshDir(base), { 'a.txt': 'a\n' });
  appendFileSync(path.join(plain, '.git', 'config'), '[user]\n\tName = "a\\tb\\n" c\\b\n');
  expectSame(plain, true);
  const bad = initRepo(freshDir(base), { 'a.txt': 'a\n' });
  appendFileSync(path.join(bad, '.git', 'config'), '[user]\n\tname = a\\Nb\n');
  expect(() => git(bad, ['config', 'user.name'])).toThrow(/bad config line/);
  expect(readRepoInfo(bad)).toBeUndefined();
});

test('a branch named in UTF-8, loose and packed: the same name and commit as git', () => {
  const r = initRepo(freshDir(base), { 'a.txt': 'a\n' });
  git(r, ['checkout', '-q', '-b', 'fé/ü']);
  expectSame(r, true);
  git(r, ['pack-refs', '--all']);
  expectSame(r, true);
  expect(readRepoInfo(r)!.branch).toBe('fé/ü');
});

test('a commit git would not read: a hash that does not match, a malformed body, a replacement', () => {
  const r = initRepo(freshDir(base), { 'a.txt': 'a\n' });
  const main = path.join(r, '.git', 'refs', 'heads', 'main');
  const good = readFileSync(main, 'utf8');
  const tree = git(r, ['rev-parse', 'HEAD^{tree}']);
  writeFileSync(main, `${looseObject(r, 'commit', 'hello', `ab${'1'.repeat(38)}`)}\n`);
  expectSame(r, false);
  writeFileSync(main, `${looseObject(r, 'commit', 'hello')}\n`);
  expectSame(r, false);
  writeFileSync(main, `${looseObject(r, 'commit', `tree ${tree}\nparent nope\n\nx\n`)}\n`);
  expectSame(r, false);
  writeFileSync(main, good);
  expectSame(r, true);
  git(r, ['update-ref', `refs/replace/${good.trim()}`, tree]);
  expectSame(r, false);
});

test("packed-refs: what git refuses or must sort first is git's; what it binary-searches is read as git reads it", () => {
  const r = initRepo(freshDir(base), { 'a.txt': 'a\n' });
  git(r, ['commit', '-q', '--allow-empty', '-m', 'two']);
  git(r, ['gc', '-q']);
  expectSame(r, true);
  const packed = path.join(r, '.git', 'packed-refs');
  const orig = readFileSync(packed, 'utf8');
  const head = git(r, ['rev-parse', 'HEAD']);
  const first = git(r, ['rev-parse', 'HEAD~1']);
  const sorted = '# pack-refs with: peeled fully-peeled sorted \n';
  const shapes: [string, boolean][] = [
    // git dies: the last line is no record; the file ends without a newline; a `#` line that is no header.
    [`${orig}# a comment\n`, false],
    [`${head} refs/heads/main`, false],
    [`# a comment\n${head} refs/heads/main\n`, false],
    // No `sorted` trait: git sorts first (unsorted, a duplicate): git's.
    [`${first} refs/heads/zzz\n${head} refs/heads/main\n`, false],
    [`${first} refs/heads/main\n${head} refs/heads/main\n`, false],
    // The trait: git trusts it and binary-searches, and so does this, landing where git lands (main names HEAD,
    // whose commit is stored whole: HEAD~1 is a delta after gc, which git reads).
    [`${orig}^${first}\n^${first}\n`, true],
    [`${sorted}${first} refs/heads/zzz\n${head} refs/heads/main\n`, true],
    [`${sorted}${first} refs/heads/a\n${head} refs/heads/main\n`, true],
    [`${sorted}${head} refs/heads/main\n`, true],
    [`# pack-refs with:sorted\n${head} refs/heads/main\n`, true],
    // No trait, in order: read whole, then searched.
    [`${first} refs/heads/a\n^${first}\n${head} refs/heads/main\n`, true],
  ];
  for (const [text, plain] of shapes) {
    writeFileSync(packed, text);
    expectSame(r, plain);
  }
  writeFileSync(packed, orig);
  expectSame(r, true);
});

test('packed-refs is read for any HEAD (rev-parse looks up refs/heads/HEAD and the like): a loose or detached HEAD too', () => {
  const r = initRepo(freshDir(base), { 'a.txt': 'a\n' });
  const head = git(r, ['rev-parse', 'HEAD']);
  const packed = path.join(r, '.git', 'packed-refs');
  const sorted = '# pack-refs with: peeled fully-peeled sorted \n';
  const shapes: [string, boolean][] = [
    // git dies reading the file, or finding one of the names it tries for HEAD in a malformed record.
    ['garbage\n', false],
    [`${sorted}${head} refs/heads/a\n${head}`, false],
    [`${head} \n${head} refs/tags/t\n`, false],
    [`${sorted}${'z'.repeat(40)} refs/heads/HEAD\n`, false],
    [`${sorted}${'z'.repeat(40)} refs/tags/HEAD\n`, false],
    // A ref named refs/heads/HEAD (or the like): HEAD is ambiguous, `--symbolic-full-name HEAD` prints nothing.
    [`${sorted}${head} refs/heads/a\n${head} refs/heads/HEAD\n`, false],
    [`${sorted}${head} refs/remotes/HEAD/HEAD\n`, false],
    // git reads it: a record it never finds is not looked at.
    [`${sorted}${head} refs/heads/a\n`, true],
    [
      `${sorted}${[...'abcdefghi'].map((b) => `${head} refs/heads/${b}\n`).join('')}` +
        `not a record, but long enough to pass for one here\n` +
        `${[...'jklmnopqrst'].map((b) => `${head} refs/heads/${b}\n`).join('')}`,
      true,
    ],
  ];
  for (const detach of [false, true]) {
    if (detach) git(r, ['checkout', '-q', '--detach']);
    for (const [text, plain] of shapes) {
      writeFileSync(packed, text);
      expectSame(r, plain);
    }
    rmSync(packed);
    expectSame(r, true);
  }
  // A loose ref of one of those names: git follows it (a symbolic ref), git decides.
  mkdirSync(path.join(r, '.git', 'refs', 'remotes'));
  writeFileSync(path.join(r, '.git', 'refs', 'remotes', 'HEAD'), 'ref: refs/heads/main\n');
  expectSame(r, false);
});

test('a loose file where a directory of the branch should be: git reads no packed-refs for it (ENOTDIR)', () => {
  const r = initRepo(freshDir(base), { 'a.txt': 'a\n' });
  const head = git(r, ['rev-parse', 'HEAD']);
  writeFileSync(
    path.join(r, '.git', 'packed-refs'),
    `# pack-refs with: peeled fully-peeled sorted \n${head} refs/heads/a/b\n${head} refs/heads/main\n`,
  );
  writeFileSync(path.join(r, '.git', 'refs', 'heads', 'a'), `${head}\n`);
  writeFileSync(path.join(r, '.git', 'HEAD'), 'ref: refs/heads/a/b\n');
  expect(repoInfoFromGit(r)?.head).toBeUndefined(); // git: the branch is not there
  expectSame(r, false);
  rmSync(path.join(r, '.git', 'refs', 'heads', 'a'));
  expectSame(r, true); // packed, and read so
});

test('property: packed-refs files of any shape of lines answer as git does', () => {
  const r = initRepo(freshDir(base), { 'a.txt': 'a\n' });
  git(r, ['commit', '-q', '--allow-empty', '-m', 'two']);
  git(r, ['gc', '-q']);
  const packed = path.join(r, '.git', 'packed-refs');
  const a = git(r, ['rev-parse', 'HEAD']);
  const b = git(r, ['rev-parse', 'HEAD~1']);
  const line = fc.oneof(
    fc.constantFrom('# pack-refs with: peeled fully-peeled sorted ', '# x', '', `^${a}`, `^${b}`),
    fc
      .tuple(fc.constantFrom(a, b, 'z'.repeat(40)), fc.constantFrom('refs/heads/main', 'refs/heads/a', 'refs/heads/zz'))
      .map(([o, n]) => `${o} ${n}`),
  );
  fc.assert(
    fc.property(fc.array(line, { maxLength: 6 }), fc.boolean(), (lines, newline) => {
      writeFileSync(packed, lines.join('\n') + (newline ? '\n' : ''));
      const fast = readRepoInfo(r);
      if (fast !== undefined) expect(fast).toEqual(repoInfoFromGit(r));
    }),
    { numRuns: 60 },
  );
});

test('a commit in a pack and loose: git reads the packed copy (here one whose bytes are another commit)', () => {
  const r = initRepo(freshDir(base), { 'a.txt': 'a\n' });
  git(r, ['commit', '-q', '--allow-empty', '-m', 'two']);
  const x = git(r, ['rev-parse', 'HEAD']);
  const y = git(r, ['rev-parse', 'HEAD~1']);
  const body = execFileSync('git', ['cat-file', 'commit', x], { cwd: r });
  git(r, ['gc', '-q']);
  const packDir = path.join(r, '.git', 'objects', 'pack');
  const idx = path.join(
    packDir,
    readdirSync(packDir).find((n) => n.endsWith('.idx'))!,
  );
  const b = readFileSync(idx);
  const n = b.readUInt32BE(8 + 4 * 255);
  const at = (oid: string): number => {
    for (let i = 0; i < n; i++) if (b.toString('hex', 1032 + 20 * i, 1032 + 20 * i + 20) === oid) return i;
    throw new Error(`${oid} not in the index`);
  };
  const offsets = 1032 + n * 24;
  b.writeUInt32BE(b.readUInt32BE(offsets + 4 * at(y)), offsets + 4 * at(x)); // x's entry now points at y's bytes
  chmodSync(idx, 0o644);
  writeFileSync(idx, b);
  expectSame(r, false);
  looseObject(r, 'commit', body.toString('latin1'), x); // a good loose copy: git still reads the packed one
  expect(
    createHash('sha1')
      .update(Buffer.concat([Buffer.from(`commit ${body.length}\0`), body]))
      .digest('hex'),
  ).toBe(x);
  expectSame(r, false);
});

test('property: a repository configuration of any shape of lines answers as git does', () => {
  const r = initRepo(freshDir(base), { 'a.txt': 'a\n' });
  mkdirSync(path.join(r, 'sub'));
  const config = path.join(r, '.git', 'config');
  const plain = readFileSync(config, 'utf8');
  const line = fc.constantFrom(
    '[core]',
    '[Core]',
    '[ core ]',
    '[core] bare = true',
    '[core]bare',
    `[core] worktree = ${path.join(r, 'sub')}`,
    '[include]',
    '[includeIf "gitdir:/"]',
    '[extensions]',
    '[extensions] objectformat = sha256',
    '[user "a]b"]',
    '[user "a\\"b"] # c',
    '[core "x"]',
    '\tbare = true',
    '\tbare = false',
    '\tBare = TRUE',
    '\tbare = false ; c',
    '\tbare',
    `\tworktree = ${path.join(r, 'sub')}`,
    `\tworktree = "${path.join(r, 'sub')}"`,
    '\trepositoryformatversion = 1',
    '\trepositoryformatversion = 0',
    '\tobjectformat = sha256',
    '\tpath = sub/none',
    '\tx = a \\',
    '\t= x',
    '\tfoo bar = 1',
    '\t1x = y',
    '\tx = "unterminated',
    '\tx = a\\q',
    '\tx = a\\N',
    '\tX = "a\\T" \\b',
    'key-before-any-section = 1',
    '# c',
    '; c',
    '',
  );
  fc.assert(
    fc.property(fc.array(line, { maxLength: 5 }), (lines) => {
      writeFileSync(config, `${plain}${lines.join('\n')}\n`);
      const fast = readRepoInfo(r);
      if (fast !== undefined) expect(fast).toEqual(repoInfoFromGit(r));
    }),
    { numRuns: 150 },
  );
  writeFileSync(config, plain);
  expectSame(r, true);
});

test('property: HEAD and a branch file of any shape answer as git does', () => {
  const r = initRepo(freshDir(base), { 'a.txt': 'a\n' });
  const head = git(r, ['rev-parse', 'HEAD']);
  const tree = git(r, ['rev-parse', 'HEAD^{tree}']);
  const headFile = path.join(r, '.git', 'HEAD');
  const oid = fc.constantFrom(head, head.toUpperCase(), tree, head.slice(0, 39), '0'.repeat(40));
  const name = fc.constantFrom('main', 'fé', 'a/b', 'a..b', '.x', 'x.lock', '@', 'HEAD', 'main ', 'ma\tin', 'a//b');
  const end = fc.constantFrom('\n', '', '\r\n', '\n\n', ' \n', '\nx');
  const headText = fc.oneof(
    fc.tuple(fc.constantFrom('ref: refs/heads/', 'ref:refs/heads/', 'ref: refs/tags/', 'ref: '), name, end),
    fc.tuple(fc.constant(''), oid, end),
  );
  fc.assert(
    fc.property(headText, fc.option(fc.tuple(oid, end)), ([pre, text, eol], branch) => {
      writeFileSync(headFile, `${pre}${text}${eol}`);
      rmSync(path.join(r, '.git', 'refs', 'heads'), { recursive: true, force: true });
      mkdirSync(path.join(r, '.git', 'refs', 'heads'));
      const target = path.join(r, '.git', 'refs', 'heads', 'main');
      if (branch !== null) writeFileSync(target, `${branch[0]}${branch[1]}`);
      const fast = readRepoInfo(r);
      if (fast !== undefined) expect(fast).toEqual(repoInfoFromGit(r));
    }),
    { numRuns: 150 },
  );
});
