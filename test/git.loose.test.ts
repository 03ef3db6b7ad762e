import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { journalDir } from '../src/journal';
import {
  commitBody,
  configValues,
  looseCommitTree,
  looseRepo,
  readRef,
  refAbsent,
  tzOffset,
  plainIdentValue,
  writeLooseObject,
  writeLooseRef,
  type LooseRepo,
} from '../src/git/loose';
import { LOOSE_CONFIG_PATTERN } from '../src/git/loose';
import { recordStep } from '../src/record';
import { git, initRepo, writeFiles } from './helpers/git';
import { tempDir } from './helpers/tmp';

/**
 * src/git/loose.ts writes a snapshot's commit and ref without starting git, and reads the tree a loose commit
 * names. What it writes must be byte for byte what `git commit-tree` and `git update-ref` write (checked against
 * git), and wherever the repository is not one it writes the same way, it must write nothing (git is asked).
 */
const tmp = tempDir('stepchain-loose-');
let n = 0;
const ENV = { ...process.env, STEPCHAIN_AUDIT: 'off' };

function repo(files: Record<string, string> = { 'a.txt': 'a\n' }): string {
  return initRepo(path.join(tmp, `r${n++}`), files);
}

function config(root: string, env: NodeJS.ProcessEnv = process.env): string {
  try {
    return execFileSync('git', ['config', '--null', '--get-regexp', LOOSE_CONFIG_PATTERN], {
      cwd: root,
      env,
      encoding: 'utf8',
    });
  } catch {
    return '';
  }
}

const commonDir = (root: string): string => path.join(root, '.git');

/** What `git commit-tree` writes for the same tree, parent, identity, time and message. */
function gitCommitTree(root: string, tree: string, parent: string, who: string, seconds: number, msg: string) {
  const date = `@${seconds} ${tzOffset(seconds)}`;
  return execFileSync('git', ['commit-tree', '--no-gpg-sign', tree, '-p', parent], {
    cwd: root,
    input: msg,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: who.slice(0, who.indexOf(' <')),
      GIT_COMMITTER_NAME: who.slice(0, who.indexOf(' <')),
      GIT_AUTHOR_EMAIL: who.slice(who.indexOf(' <') + 2, -1),
      GIT_COMMITTER_EMAIL: who.slice(who.indexOf(' <') + 2, -1),
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_DATE: date,
    },
  }).trim();
}

describe('the commit written in-process', () => {
  test('is the commit `git commit-tree` writes (any message, time and identity)', () => {
    const root = repo();
    const tree = git(root, ['rev-parse', 'HEAD^{tree}']);
    const head = git(root, ['rev-parse', 'HEAD']);
    const loose: LooseRepo = { commonDir: commonDir(root), ident: '' };
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 12 }).filter((s) => plainIdentValue(s) && !s.includes('\0')),
        fc.emailAddress().filter(plainIdentValue),
        fc.integer({ min: 0, max: 4_000_000_000 }),
        fc.string({ maxLength: 40 }).filter((s) => !s.includes('\0')),
        (name, email, seconds, msg) => {
          const ident = `${name} <${email}>`;
          const ours = writeLooseObject({ ...loose, ident }, 'commit', commitBody(tree, head, ident, seconds, msg));
          expect(ours).toBe(gitCommitTree(root, tree, head, ident, seconds, msg));
        },
      ),
      { numRuns: 25 },
    );
  });

  test('the identity is the configured one where git writes it as it is; any other is left to git', () => {
    const root = repo();
    const env = { ...process.env };
    for (const k of ['GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL']) delete env[k];
    const crudChars = [
      ' ',
      '.',
      ',',
      ':',
      ';',
      '<',
      '>',
      '"',
      '\\',
      "'",
      '\t',
      '\n',
      '!',
      '-',
      '_',
      '(',
      ')',
      '@',
      'é',
      'a',
      'Z',
    ];
    const text = fc.array(fc.constantFrom(...crudChars), { minLength: 1, maxLength: 10 }).map((a) => a.join(''));
    fc.assert(
      fc.property(text, text, (name, email) => {
        git(root, ['config', 'user.name', name]);
        git(root, ['config', 'user.email', email]);
        const loose = looseRepo(commonDir(root), config(root, env), env);
        expect(loose !== undefined).toBe(plainIdentValue(name) && plainIdentValue(email));
        if (loose === undefined) return;
        const viaGit = execFileSync('git', ['commit-tree', 'HEAD^{tree}'], {
          cwd: root,
          env,
          input: 'm',
          encoding: 'utf8',
        });
        const author = /^author (.*) \d+ [+-]\d{4}$/m.exec(git(root, ['cat-file', 'commit', viaGit.trim()]))![1];
        expect(loose!.ident).toBe(author);
      }),
      { numRuns: 40 },
    );
  });
});

describe('where git writes otherwise, nothing is written in-process', () => {
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'a',
    GIT_AUTHOR_EMAIL: 'a@b',
    GIT_COMMITTER_NAME: 'a',
    GIT_COMMITTER_EMAIL: 'a@b',
  };
  test.each([
    ['SHA-256 objects', ['init', '-q', '--object-format=sha256']],
    ['shared permissions', ['config', 'core.sharedRepository', 'group']],
    ['a reflog for every ref', ['config', 'core.logAllRefUpdates', 'always']],
    ['a commit encoding', ['config', 'i18n.commitEncoding', 'ISO-8859-1']],
    ['a worktree configuration extension', ['config', 'extensions.worktreeConfig', 'true']],
  ])('%s', (_what, args) => {
    const root = path.join(tmp, `r${n++}`);
    mkdirSync(root);
    if (args[0] === 'init') git(root, args);
    else {
      git(root, ['init', '-q']);
      git(root, args);
    }
    expect(looseRepo(commonDir(root), config(root, env), env)).toBeUndefined();
  });

  test('dates or a time zone of the environment, or no identity of its own: git decides', () => {
    const root = repo();
    expect(looseRepo(commonDir(root), config(root, env), env)).toBeDefined();
    expect(looseRepo(commonDir(root), config(root, env), { ...env, GIT_AUTHOR_DATE: '@1 +0000' })).toBeUndefined();
    expect(looseRepo(commonDir(root), config(root, env), { ...env, TZ: 'Asia/Tokyo' })).toBeUndefined();
    const bare = { PATH: process.env.PATH, HOME: path.join(tmp, 'nohome') };
    expect(looseRepo(commonDir(root), config(root, bare), bare)).toBeUndefined();
    expect(looseRepo(commonDir(root), config(root, env), { ...env, GIT_AUTHOR_NAME: ' ' })).toBeUndefined();
  });

  test('a ref git would refuse or log is left to git', () => {
    const root = repo();
    const head = git(root, ['rev-parse', 'HEAD']);
    const loose: LooseRepo = { commonDir: commonDir(root), ident: 'a <b>' };
    git(root, ['update-ref', 'refs/stepchain/x', head]);
    git(root, ['pack-refs', '--all']);
    expect(writeLooseRef(loose, 'refs/stepchain/x/1', head)).toBe(false); // a packed ref named like its directory
    mkdirSync(path.join(root, '.git', 'logs', 'refs', 'stepchain', 'y'), { recursive: true });
    writeFileSync(path.join(root, '.git', 'logs', 'refs', 'stepchain', 'y', '1'), '');
    expect(writeLooseRef(loose, 'refs/stepchain/y/1', head)).toBe(false); // a reflog git would append to
    mkdirSync(path.join(root, '.git', 'refs', 'stepchain'), { recursive: true });
    writeFileSync(path.join(root, '.git', 'refs', 'stepchain', 'z.lock'), '');
    expect(writeLooseRef(loose, 'refs/stepchain/z', head)).toBe(false); // a lock held
    expect(git(root, ['for-each-ref', '--format=%(refname)', 'refs/stepchain'])).toBe('refs/stepchain/x');
    expect(writeLooseRef(loose, 'refs/stepchain/w/1', head)).toBe(true);
    expect(git(root, ['rev-parse', 'refs/stepchain/w/1'])).toBe(head);
    expect(readRef(loose.commonDir, 'refs/stepchain/w/1')).toBe(head);
    expect(readRef(loose.commonDir, 'refs/stepchain/x')).toBe(head); // from packed-refs
    expect(readRef(loose.commonDir, 'refs/stepchain/none')).toBeUndefined();
  });

  test('never through a link: a linked objects/<xx> or refs/ directory is left to git, nothing written where it points', () => {
    const root = repo();
    const head = git(root, ['rev-parse', 'HEAD']);
    const tree = git(root, ['rev-parse', 'HEAD^{tree}']);
    const loose: LooseRepo = { commonDir: commonDir(root), ident: 'a <b@c>' };
    // A message whose commit falls in a fan-out directory git has not made yet (the repository's own objects
    // fill 3 of the 256, and a link cannot replace one).
    let body: Buffer = Buffer.alloc(0);
    let oid = '';
    for (let i = 0; oid === '' || existsSync(path.join(root, '.git', 'objects', oid.slice(0, 2))); i++) {
      body = commitBody(tree, head, loose.ident, 1_700_000_000, `m${i}\n`);
      oid = execFileSync('git', ['hash-object', '-t', 'commit', '--stdin'], { cwd: root, input: body })
        .toString()
        .trim();
    }
    const elsewhere = path.join(tmp, `elsewhere${n++}`);
    mkdirSync(path.join(elsewhere, 'objects'), { recursive: true });
    mkdirSync(path.join(elsewhere, 'refs'));
    symlinkSync(path.join(elsewhere, 'objects'), path.join(root, '.git', 'objects', oid.slice(0, 2)));
    expect(writeLooseObject(loose, 'commit', body)).toBeUndefined();
    symlinkSync(path.join(elsewhere, 'refs'), path.join(root, '.git', 'refs', 'stepchain'));
    expect(writeLooseRef(loose, 'refs/stepchain/s/1', head)).toBe(false);
    expect(readdirSync(path.join(elsewhere, 'objects'))).toEqual([]);
    expect(readdirSync(path.join(elsewhere, 'refs'))).toEqual([]);
  });
});

describe('a step recorded in a plain repository', () => {
  /** The git commands one recorded step ran (GIT_TRACE2_EVENT, which git's environment policy keeps). */
  function commandsOf(root: string, agent: string): { commands: string[]; r: ReturnType<typeof recordStep> } {
    const trace = path.join(tmp, `trace${n++}.json`);
    writeFileSync(trace, '');
    const r = recordStep(journalDir(root, agent), { prompt: 'p' }, { root, env: { ...ENV, GIT_TRACE2_EVENT: trace } });
    expect(r.warnings).toEqual([]);
    const commands = readFileSync(trace, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { event: string; argv?: string[] })
      .filter((e) => e.event === 'start')
      .map((e) => e.argv!.filter((a, i, all) => a !== '-c' && all[i - 1] !== '-c')[1]!);
    return { commands, r };
  }

  test('after a step recorded without a snapshot: no git to learn its ref is missing (refAbsent), changes since the start', () => {
    const root = repo({ 'a.txt': 'a\n' });
    commandsOf(root, 'ag');
    recordStep(journalDir(root, 'ag'), { prompt: 'p' }, { root, env: ENV, snapshot: false });
    writeFiles(root, { 'a.txt': 'edited\n' });
    const { commands, r } = commandsOf(root, 'ag');
    expect(commands).not.toContain('diff-tree');
    expect(r.changes?.changes.since).toEqual({ seq: null, commit: git(root, ['rev-parse', 'HEAD']) });
    expect(r.changes?.changes.changes.map((c) => c.path)).toEqual(['a.txt']);
    const own = r.snapshot!.ref;
    const gone = `${own.slice(0, own.lastIndexOf('/'))}/1`;
    expect(refAbsent(commonDir(root), gone, own)).toBe(true);
    expect(refAbsent(commonDir(root), own, own)).toBe(false);
    expect(refAbsent(commonDir(root), gone, 'refs/heads/none')).toBe(false); // refs not shown to be files: git says
    git(root, ['pack-refs', '--all']);
    expect(refAbsent(commonDir(root), own, 'HEAD')).toBe(false); // packed
  });

  test('starts no git for its commit, its ref, or the changes of a step that changed nothing', () => {
    const root = repo({ 'a.txt': 'a\n', 'src/b.py': 'b\n' });
    commandsOf(root, 'ag');
    const { commands, r } = commandsOf(root, 'ag');
    expect(commands).not.toContain('commit-tree');
    expect(commands).not.toContain('update-ref');
    expect(commands).not.toContain('diff-tree');
    expect(r.changes).toBeUndefined();
    expect(git(root, ['rev-parse', r.snapshot!.ref])).toBe(r.snapshot!.commit);
    expect(looseCommitTree(commonDir(root), r.snapshot!.commit)).toBe(git(root, ['rev-parse', 'HEAD^{tree}']));
    expect(git(root, ['fsck', '--no-dangling', '--strict'])).toBe('');
    // A step that changed a file: the two loose trees are compared in-process (test/git.tree-diff.test.ts), and the
    // change is recorded.
    writeFiles(root, { 'src/b.py': 'edited\n' });
    const edit = commandsOf(root, 'ag');
    expect(edit.commands).not.toContain('diff-tree');
    expect(edit.commands).not.toContain('write-tree');
    expect(edit.r.changes?.changes.changes.map((c) => c.path)).toEqual(['src/b.py']);
  });

  test('a repository git writes otherwise (SHA-256) still gets its snapshot, from git', () => {
    const root = path.join(tmp, `r${n++}`);
    mkdirSync(root);
    git(root, ['init', '-q', '--object-format=sha256', '-b', 'main']);
    writeFiles(root, { '.gitignore': '.sdd/\n', 'a.txt': 'a\n' });
    git(root, ['add', '-A']);
    git(root, ['commit', '-q', '-m', 'i']);
    const { commands, r } = commandsOf(root, 'ag');
    expect(commands).toEqual(expect.arrayContaining(['commit-tree', 'update-ref']));
    expect(git(root, ['rev-parse', r.snapshot!.ref])).toMatch(/^[0-9a-f]{64}$/);
  });

  test('config values: the last of a key wins, keys are compared in lower case', () => {
    const v = configValues('user.name\na\0User.Name\nb\0core.bare\0');
    expect(v.get('user.name')).toBe('b');
    expect(v.get('core.bare')).toBe('');
  });
});
