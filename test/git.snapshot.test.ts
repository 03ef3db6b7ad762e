import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { listSnapshots, parseSnapshotMessage, snapshotRefFor } from '../src/git';
import { createFork } from '../src/forks';
import { repoInfo } from '../src/git/repo';
import { journalDir } from '../src/journal';
import { recordStep } from '../src/record';
import { git, initRepo, writeFiles } from './helpers/git';
import { tempDir } from './helpers/tmp';
import { freshRepo } from './helpers/project';

const tmp = tempDir('stepchain-snap-');
let n = 0;
function newRepo(files: Record<string, string> = { 'src/calc.py': 'v0\n', 'README.md': 'r\n' }, options = {}): string {
  return freshRepo(tmp, files, options);
}

/** The user-visible git state a snapshot must never change. */
function userState(root: string): Record<string, string> {
  return {
    status: git(root, ['status', '--porcelain', '--untracked-files=all']),
    index: readFileSync(path.join(root, '.git', 'index')).toString('base64'),
    head: git(root, ['rev-parse', 'HEAD']),
    symbolic: git(root, ['symbolic-ref', 'HEAD']),
    branches: git(root, ['for-each-ref', '--format=%(refname) %(objectname)', 'refs/heads']),
  };
}

function files(root: string, commit: string): string[] {
  return git(root, ['ls-tree', '-r', '--name-only', commit]).split('\n').filter(Boolean).sort();
}

function record(root: string, agent: string, options: { snapshot?: boolean; env?: NodeJS.ProcessEnv } = {}) {
  return recordStep(
    journalDir(root, agent),
    { prompt: `step by ${agent}` },
    { root, env: { ...process.env, STEPCHAIN_AUDIT: 'off' }, ...options },
  );
}

describe('per-step worktree snapshots', () => {
  test('each append stores the work tree (tracked, untracked, not ignored, never .sdd) under refs/stepchain/snapshots/<agent>/<key>/<seq>', () => {
    const root = newRepo();
    const head = git(root, ['rev-parse', 'HEAD']);
    // A modified tracked file, a staged change, an untracked file, an ignored file.
    writeFiles(root, {
      'src/calc.py': 'v1\n',
      'new.txt': 'untracked\n',
      'build.log': 'ignored\n',
      '.gitignore': '.sdd/\n*.log\n',
    });
    writeFiles(root, { 'staged.txt': 'staged\n' });
    git(root, ['add', 'staged.txt']);
    const before = userState(root);

    const r0 = record(root, 'ag');
    expect(r0.warnings).toEqual([]);
    expect(r0.snapshot?.ref).toBe(snapshotRefFor(root, 'ag', 0));
    expect(r0.snapshot?.ref).toMatch(/^refs\/stepchain\/snapshots\/ag\/j[0-9a-f]{16}\/0$/);
    expect(git(root, ['rev-parse', r0.snapshot!.ref])).toBe(r0.snapshot!.commit);
    expect(files(root, r0.snapshot!.commit)).toEqual([
      '.gitignore',
      'README.md',
      'new.txt',
      'src/calc.py',
      'staged.txt',
    ]);
    expect(git(root, ['show', `${r0.snapshot!.commit}:src/calc.py`])).toBe('v1');
    expect(git(root, ['rev-parse', `${r0.snapshot!.commit}^`])).toBe(head);
    const msg = git(root, ['log', '-1', '--format=%B', r0.snapshot!.commit]);
    expect(parseSnapshotMessage(msg)).toEqual({ agent_id: 'ag', seq: 0, step_hash: r0.row.step_hash });

    // Nothing the user sees changed: index bytes, HEAD, branches, status.
    expect(userState(root)).toEqual(before);

    writeFiles(root, { 'src/calc.py': 'v2\n' });
    const r1 = record(root, 'ag');
    expect(git(root, ['show', `${r1.snapshot!.commit}:src/calc.py`])).toBe('v2');
    const snaps = listSnapshots(root, 'ag');
    expect([...snaps.keys()].sort()).toEqual([0, 1]);
    expect(snaps.get(1)!.step_hash).toBe(r1.row.step_hash);
  });

  test('.sdd/ is never part of a snapshot, even when it is not ignored', () => {
    const root = newRepo({ 'a.txt': 'a\n' }, { ignoreSdd: false });
    mkdirSync(path.join(root, 'sub', '.sdd'), { recursive: true });
    writeFileSync(path.join(root, 'sub', '.sdd', 'x'), 'x');
    const r = record(root, 'ag');
    expect(r.warnings).toEqual([]);
    expect(files(root, r.snapshot!.commit)).toEqual(['a.txt']);
  });

  test('a repository without commits: a parentless snapshot; HEAD stays unborn', () => {
    const root = newRepo({ 'a.txt': 'a\n' }, { commit: false });
    const r = record(root, 'ag');
    expect(r.warnings).toEqual([]);
    expect(files(root, r.snapshot!.commit)).toEqual(['.gitignore', 'a.txt']);
    expect(git(root, ['rev-list', '--count', r.snapshot!.commit])).toBe('1');
    expect(() => git(root, ['rev-parse', '--verify', '-q', 'HEAD'])).toThrow();
    expect(git(root, ['status', '--porcelain'])).toBe('?? .gitignore\n?? a.txt'.trim());
  });

  test('outside a git work tree: no snapshot and no warning', () => {
    const root = path.join(tmp, 'plain');
    mkdirSync(root);
    const r = record(root, 'ag');
    expect(r.row.seq).toBe(0);
    expect(r.snapshot).toBeUndefined();
    expect(r.warnings).toEqual([]);
  });

  test('snapshot: false records none', () => {
    const root = newRepo();
    const r = record(root, 'ag', { snapshot: false });
    expect(r.snapshot).toBeUndefined();
    expect(git(root, ['for-each-ref', 'refs/stepchain'])).toBe('');
  });

  test('a failing snapshot is a warning and never loses the journal entry (blocked ref, unusable agent id)', () => {
    const root = newRepo();
    // A directory where the ref would go: git cannot create it. (A stale `0.lock` would be cleared: test/leftovers.test.ts.)
    const blocking = path.join(root, '.git', snapshotRefFor(root, 'ag', 0)!);
    mkdirSync(blocking, { recursive: true });
    writeFileSync(path.join(blocking, 'blocker'), '');
    const r = record(root, 'ag');
    expect(r.row.seq).toBe(0);
    expect(r.snapshot).toBeUndefined();
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toMatch(/step 0 recorded, but its worktree snapshot failed: git update-ref/);
    expect(readFileSync(path.join(journalDir(root, 'ag'), '000000.jsonl'), 'utf8').split('\n')).toHaveLength(2);

    const bad = record(root, 'x.lock');
    expect(bad.row.seq).toBe(0);
    expect(bad.warnings[0]).toMatch(/cannot be a git ref name component/);
  });

  test('an index that is a link or a FIFO is never read (no endless read of /dev/zero, no wait for a writer): a warning, the step kept', () => {
    for (const kind of ['link', 'fifo'] as const) {
      const root = newRepo();
      const index = path.join(root, '.git', 'index');
      unlinkSync(index);
      if (kind === 'link') symlinkSync('/dev/zero', index);
      else execFileSync('mkfifo', [index]);
      const r = record(root, 'ag');
      expect(r.row.seq).toBe(0);
      expect(r.snapshot).toBeUndefined();
      expect(r.warnings).toEqual([
        `step 0 recorded, but its worktree snapshot failed: ${index}: cannot read: ${kind === 'link' ? 'it is a symbolic link; refusing to follow it' : 'it is a FIFO, not a regular file'}`,
      ]);
      expect(readFileSync(path.join(journalDir(root, 'ag'), '000000.jsonl'), 'utf8').split('\n')).toHaveLength(2);
    }
  });

  test('a FIFO where git reads a file (.gitignore, .gitattributes, info/exclude): the snapshot stops in its time, the step kept', () => {
    for (const at of ['.gitignore', 'src/.gitattributes', '.git/info/exclude']) {
      const root = newRepo();
      mkdirSync(path.dirname(path.join(root, at)), { recursive: true });
      rmSync(path.join(root, at), { force: true });
      execFileSync('mkfifo', [path.join(root, at)]);
      // git reads src/.gitattributes only for a file it hashes: a new one here. An entry the index holds stat-clean is
      // hashed only while racy (written in the index's second): the add then never opened the FIFO, and the test
      // passed or failed on whether the repository's files and its index straddled a second. Not racy, always:
      const later = Math.floor(Date.now() / 1000) + 3;
      utimesSync(path.join(root, '.git', 'index'), later, later);
      writeFileSync(path.join(root, 'src', 'new.py'), 'n\n');
      const r = record(root, 'ag', {
        env: { ...process.env, STEPCHAIN_AUDIT: 'off', STEPCHAIN_SNAPSHOT_TIMEOUT_MS: '1500' },
      });
      expect(r.row.seq).toBe(0);
      expect(r.snapshot).toBeUndefined();
      expect(r.warnings).toEqual([
        expect.stringMatching(
          /^step 0 recorded, but its worktree snapshot failed: git .*add .*: no answer in 1\.5 s: stopped \(a FIFO or a hung file system/,
        ),
      ]);
      expect(readFileSync(path.join(journalDir(root, 'ag'), '000000.jsonl'), 'utf8').split('\n')).toHaveLength(2);
    }
  });

  test('works with no git identity configured, and ignores a GIT_INDEX_FILE inherited from a hook', () => {
    const root = newRepo();
    const home = path.join(tmp, 'empty-home');
    mkdirSync(home, { recursive: true });
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: home,
      XDG_CONFIG_HOME: home,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_INDEX_FILE: path.join(root, '.git', 'index'),
      STEPCHAIN_AUDIT: 'off',
    };
    git(root, ['config', 'user.useConfigOnly', 'true']); // no auto-detected identity either
    const before = userState(root);
    writeFiles(root, { 'z.txt': 'z\n' });
    const r = record(root, 'ag', { env });
    expect(r.warnings).toEqual([]);
    expect(git(root, ['log', '-1', '--format=%an <%ae>', r.snapshot!.commit])).toBe('stepchain <stepchain@localhost>');
    expect(files(root, r.snapshot!.commit)).toContain('z.txt');
    expect(userState(root).index).toBe(before.index);
  });

  test('in a linked worktree the snapshot is of that worktree, stored in the shared ref store', () => {
    const root = newRepo();
    const wt = path.join(tmp, `linked${n++}`);
    git(root, ['worktree', 'add', '-q', '-b', 'other', wt]);
    writeFiles(wt, { 'src/calc.py': 'linked\n' });
    const r = record(wt, 'wt-agent');
    expect(r.snapshot?.ref).toBe(snapshotRefFor(wt, 'wt-agent', 0));
    expect(git(root, ['show', `${r.snapshot!.ref}:src/calc.py`])).toBe('linked');
    expect(readFileSync(path.join(root, 'src', 'calc.py'), 'utf8')).toBe('v0\n');
    expect(r.warnings).toEqual([]);
  });
});

describe('snapshots against an add of git\u2019s own', () => {
  const snapDirs = (root: string): string[] =>
    readdirSync(path.join(root, '.git')).filter((name) => name.startsWith('stepchain-snap-'));

  /** The tree an independent `git add -A` makes of the work tree now (an index of its own, .sdd/ left out). */
  function addedTree(root: string): string {
    const index = path.join(tmp, `independent-index-${n++}`);
    copyFileSync(path.join(root, '.git', 'index'), index);
    const env = { ...process.env, GIT_INDEX_FILE: index };
    execFileSync('git', ['add', '-A', '--', '.', ':(exclude,glob)**/.sdd/**'], { cwd: root, env });
    return execFileSync('git', ['write-tree'], { cwd: root, env, encoding: 'utf8' }).trim();
  }

  test('every step\u2019s snapshot is the tree git adds of the work tree after it, whatever changed; nothing left in .git', () => {
    const root = newRepo({ 'src/a.py': 'a\n', 'src/b.py': 'b\n', '.gitignore': 'ignored/\n*.log\n' });
    const edits: Array<() => void> = [
      () => writeFiles(root, { 'src/a.py': 'a2\n' }),
      () => writeFiles(root, { 'new/c.py': 'c\n', 'x.log': 'ignored\n', 'ignored/d': 'd\n' }),
      () => unlinkSync(path.join(root, 'src/b.py')),
      () => writeFiles(root, { '.gitignore': 'ignored/\n' }),
      () => undefined,
    ];
    let last = '';
    for (const [i, edit] of edits.entries()) {
      edit();
      const r = record(root, 'ag');
      expect(r.warnings).toEqual([]);
      expect(r.snapshot?.seq).toBe(i);
      expect(r.snapshot?.tree).toBe(addedTree(root));
      expect(snapDirs(root)).toEqual([]);
      last = r.snapshot!.commit;
    }
    expect(files(root, last)).toEqual(['.gitignore', 'new/c.py', 'src/a.py', 'x.log']);
  });

  test('a journal in the work tree but outside .sdd/: the snapshot holds it as the append left it', () => {
    const root = newRepo();
    const dir = path.join(root, 'journals', 'ag');
    const r = recordStep(dir, { prompt: 'p' }, { root, env: { ...process.env, STEPCHAIN_AUDIT: 'off' } });
    expect(r.warnings).toEqual([]);
    expect(git(root, ['show', `${r.snapshot!.commit}:journals/ag/000000.jsonl`]) + '\n').toBe(
      readFileSync(path.join(dir, '000000.jsonl'), 'utf8'),
    );
  });
});

describe('snapshot refs are per journal', () => {
  test('two journals of one agent id under different project roots never overwrite each other (subdirectory, linked worktree)', async () => {
    const root = newRepo();
    const sub = path.join(root, 'packages', 'app');
    mkdirSync(sub, { recursive: true });
    const a = record(root, 'coder');
    writeFiles(root, { 'src/calc.py': 'changed after the root step\n' });
    const b = record(sub, 'coder');
    const wt = path.join(tmp, `linked${n++}`);
    git(root, ['worktree', 'add', '-q', '-b', 'side', wt]);
    const c = record(wt, 'coder');
    const refs = [a, b, c].map((r) => r.snapshot!.ref);
    expect(new Set(refs).size).toBe(3);
    for (const r of [a, b, c]) expect(git(root, ['rev-parse', r.snapshot!.ref])).toBe(r.snapshot!.commit);
    // Each journal reads back its own step 0, with its own step_hash.
    expect(listSnapshots(root, 'coder').get(0)?.commit).toBe(a.snapshot!.commit);
    expect(listSnapshots(sub, 'coder').get(0)?.commit).toBe(b.snapshot!.commit);
    expect(listSnapshots(wt, 'coder').get(0)?.commit).toBe(c.snapshot!.commit);
    expect(git(root, ['show', `${a.snapshot!.ref}:src/calc.py`])).toBe('v0');
    // A fork of the root's journal gets the root's files of step 0, not the subdirectory journal's.
    const f = await createFork({
      root,
      sessionId: 'coder',
      fromStep: 0,
      env: { ...process.env, STEPCHAIN_AUDIT: 'off' },
    });
    expect(f.restored_from_snapshot).toBe(a.snapshot!.commit);
    expect(readFileSync(path.join(f.fork_worktree, 'src', 'calc.py'), 'utf8')).toBe('v0\n');
  });

  test('refs of the earlier layout (refs/stepchain/snapshots/<agent>/<seq>) are still read', async () => {
    const root = newRepo();
    const r = record(root, 'old');
    // Move the ref to where an earlier version wrote it.
    git(root, ['update-ref', 'refs/stepchain/snapshots/old/0', r.snapshot!.commit]);
    git(root, ['update-ref', '-d', r.snapshot!.ref]);
    expect(listSnapshots(root, 'old').get(0)).toMatchObject({
      ref: 'refs/stepchain/snapshots/old/0',
      commit: r.snapshot!.commit,
    });
    const f = await createFork({
      root,
      sessionId: 'old',
      fromStep: 0,
      env: { ...process.env, STEPCHAIN_AUDIT: 'off' },
    });
    expect(f.restored_from_snapshot).toBe(r.snapshot!.commit);
  });
});

describe('a repository whose path holds a newline', () => {
  test('repoInfo reads its own paths, and snapshots land in it, not in the repository named by the first line', () => {
    // Two real repositories: `<tmp>/nl/a` and `<tmp>/nl/a\nb` (a directory named "a", newline, "b").
    const base = path.join(tmp, 'nl');
    const decoy = newRepoAt(path.join(base, 'a'));
    const root = newRepoAt(path.join(base, 'a\nb'));
    const info = repoInfo(root)!;
    expect(info.top).toBe(root);
    expect(info.gitDir).toBe(path.join(root, '.git'));
    expect(info.commonDir).toBe(path.join(root, '.git'));
    expect(info.indexFile).toBe(path.join(root, '.git', 'index'));
    expect(info.branch).toBe('main');
    expect(info.head).toBe(git(root, ['rev-parse', 'HEAD']));
    // Also from a subdirectory, and on an unborn branch (the second query shape).
    mkdirSync(path.join(root, 'sub\ndir'), { recursive: true });
    expect(repoInfo(path.join(root, 'sub\ndir'))!.top).toBe(root);
    const unborn = path.join(base, 'u\nnborn');
    mkdirSync(unborn, { recursive: true });
    git(unborn, ['init', '-q', '-b', 'trunk']);
    expect(repoInfo(unborn)).toMatchObject({ top: unborn, head: undefined, branch: 'trunk' });

    const r = record(root, 'ag');
    expect(r.warnings).toEqual([]);
    expect(r.snapshot!.ref).toBe(snapshotRefFor(root, 'ag', 0));
    expect(git(root, ['rev-parse', r.snapshot!.ref])).toBe(r.snapshot!.commit);
    expect(git(decoy, ['for-each-ref', 'refs/stepchain'])).toBe('');
  });
});

function newRepoAt(dir: string): string {
  return initRepo(dir, { 'README.md': 'r\n' });
}
