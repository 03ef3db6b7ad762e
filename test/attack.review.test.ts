import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cliInProcess } from './helpers/cli-in-process';
import { cliAsOtherUser, OTHER_UID, runningAsRoot } from './helpers/unprivileged';
import { addWorkTree } from '../src/git/snapshot-nested';
import { git, initRepo } from './helpers/git';
import { tempDir } from './helpers/tmp';

/**
 * An adversarial review of issue 20's fixes: variants of its classes that the
 * first fixes missed, each attacked from outside (the built CLI, real git
 * repositories, real files).
 */
const tmp = tempDir('stepchain-attack-');
let n = 0;

function repo(): string {
  return initRepo(path.join(tmp, `repo${n++}`), { 'app.txt': 'v0\n', 'other.txt': 'keep\n' });
}

/** The file `file` as the snapshot of the journal's only step holds it (undefined when it is absent). */
function snapshotHolds(root: string, file: string): { mode: string; content: string } | undefined {
  const refs = git(root, ['for-each-ref', '--format=%(refname)', 'refs/stepchain/snapshots']).split('\n');
  expect(refs).toHaveLength(1);
  const entry = git(root, ['ls-tree', refs[0]!, '--', file]);
  if (entry === '') return undefined;
  return { mode: entry.split(' ')[0]!, content: git(root, ['show', `${refs[0]}:${file}`]) };
}

/** `append` in this process (the code the built CLI bundles): the snapshot is the point, not the process. */
async function append(root: string): Promise<void> {
  const r = await cliInProcess(['append', 'a1', '--prompt', 'edit'], { cwd: root });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
}

describe('§2 a snapshot holds the work tree whatever the index or the configuration says', () => {
  test('an entry marked assume-unchanged: the edit is in the snapshot', async () => {
    const root = repo();
    git(root, ['update-index', '--assume-unchanged', 'app.txt']);
    writeFileSync(path.join(root, 'app.txt'), 'v1 edited\n');
    await append(root);
    expect(snapshotHolds(root, 'app.txt')?.content).toBe('v1 edited');
  });

  test('an entry marked assume-unchanged whose name is not UTF-8: the edit is in the snapshot', async () => {
    // Its path was read back as text (U+FFFD) and given to update-index, which refused it: no snapshot at all.
    const root = repo();
    const name = Buffer.concat([Buffer.from(path.join(root, 'x')), Buffer.from([0xff])]);
    writeFileSync(name, 'v0\n');
    const sh = (script: string): string =>
      execFileSync('sh', ['-c', script], { cwd: root, encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } });
    sh(
      `git add -A && git -c user.name=t -c user.email=t@t commit -qm odd && git update-index --assume-unchanged "$(printf 'x\\377')"`,
    );
    writeFileSync(name, 'v1 edited\n');
    await append(root);
    const ref = git(root, ['for-each-ref', '--format=%(refname)', 'refs/stepchain/snapshots']);
    expect(sh(`git show "${ref}:$(printf 'x\\377')"`)).toBe('v1 edited\n');
  });

  test('an entry marked skip-worktree whose file is present: the edit is in the snapshot', async () => {
    const root = repo();
    git(root, ['update-index', '--skip-worktree', 'app.txt']);
    writeFileSync(path.join(root, 'app.txt'), 'v1 edited\n');
    await append(root);
    expect(snapshotHolds(root, 'app.txt')?.content).toBe('v1 edited');
  });

  test('skip-worktree and assume-unchanged on a file that is gone: a sparse entry keeps its content', async () => {
    const root = repo();
    git(root, ['update-index', '--skip-worktree', 'other.txt']);
    renameSync(path.join(root, 'other.txt'), path.join(tmp, `gone${n}`));
    await append(root);
    expect(snapshotHolds(root, 'other.txt')?.content).toBe('keep');
  });

  // A sparse checkout's `git add -A` refused (exit 1) when the work tree held a file outside its patterns, so the
  // step had no snapshot at all (a warning, and nothing to fork from).
  test.each([
    ['a sparse checkout', []],
    ['a sparse checkout with a sparse index', ['--sparse-index']],
  ])(
    '%s: files outside its patterns are in the snapshot, the entries it left out keep their content',
    async (_name, flags) => {
      const root = initRepo(path.join(tmp, `repo${n++}`), {
        'app.txt': 'v0\n',
        'lib/kept.txt': 'lib v0\n',
        'docs/out.txt': 'docs v0\n',
        'docs/deep/far.txt': 'far v0\n',
      });
      git(root, ['sparse-checkout', 'set', '--cone', ...flags, 'lib']);
      expect(existsSync(path.join(root, 'docs'))).toBe(false);
      writeFileSync(path.join(root, 'lib', 'kept.txt'), 'lib v1\n');
      mkdirSync(path.join(root, 'docs'));
      writeFileSync(path.join(root, 'docs', 'new.txt'), 'written outside the cone\n');
      await append(root);
      expect(snapshotHolds(root, 'lib/kept.txt')?.content).toBe('lib v1');
      expect(snapshotHolds(root, 'docs/new.txt')?.content).toBe('written outside the cone');
      expect(snapshotHolds(root, 'docs/out.txt')?.content).toBe('docs v0');
      expect(snapshotHolds(root, 'docs/deep/far.txt')?.content).toBe('far v0');
      expect(snapshotHolds(root, 'app.txt')?.content).toBe('v0');
    },
  );

  // A tracked file outside the patterns that is written back (an agent's edit) still has skip-worktree in the index
  // on disk until some git command rewrites the index; git clears the flag only in memory when a file is present,
  // so `ls-files -v` run with the sparse checkout on did not list it as skip-worktree, the copy kept the flag, and
  // the add (sparse checkout off, no in-memory clearing) took the entry as unchanged: the snapshot held the old file.
  test.each([
    ['a cone sparse checkout', ['--cone']],
    ['a cone sparse checkout with a sparse index', ['--cone', '--sparse-index']],
    ['a non-cone sparse checkout', ['--no-cone', '/*', '!/docs/']],
  ])(
    '%s: a tracked file outside its patterns written back and edited is in the snapshot as edited',
    async (_n, args) => {
      const root = initRepo(path.join(tmp, `repo${n++}`), {
        'app.txt': 'v0\n',
        'lib/kept.txt': 'lib v0\n',
        'docs/out.txt': 'docs v0\n',
        'docs/deep/far.txt': 'far v0\n',
      });
      git(root, ['sparse-checkout', 'set', ...args, ...(args[0] === '--cone' ? ['lib'] : [])]);
      expect(existsSync(path.join(root, 'docs'))).toBe(false);
      mkdirSync(path.join(root, 'docs'));
      writeFileSync(path.join(root, 'docs', 'out.txt'), 'docs v1 edited\n'); // no git command since
      await append(root);
      expect(snapshotHolds(root, 'docs/out.txt')?.content).toBe('docs v1 edited');
      expect(snapshotHolds(root, 'docs/deep/far.txt')?.content).toBe('far v0');
      // The repository's own index still has the flag: only the snapshot's copy was changed.
      expect(git(root, ['-c', 'core.sparseCheckout=false', 'ls-files', '-v', 'docs/out.txt'])).toBe('S docs/out.txt');
    },
  );

  test('core.ignoreCase=true in the repository: a file renamed to another case is not lost', async () => {
    const root = repo();
    git(root, ['config', 'core.ignoreCase', 'true']);
    renameSync(path.join(root, 'app.txt'), path.join(root, 'App.txt'));
    writeFileSync(path.join(root, 'App.txt'), 'v1 edited\n');
    await append(root);
    expect(snapshotHolds(root, 'App.txt')?.content).toBe('v1 edited');
  });

  test('core.fileMode=false in the repository: a mode change is in the snapshot', async () => {
    const root = repo();
    git(root, ['config', 'core.fileMode', 'false']);
    chmodSync(path.join(root, 'app.txt'), 0o755);
    await append(root);
    expect(snapshotHolds(root, 'app.txt')?.mode).toBe('100755');
  });

  test('a file replaced by a link: the link is in the snapshot', async () => {
    const root = repo();
    git(root, ['update-index', '--assume-unchanged', 'app.txt']);
    renameSync(path.join(root, 'app.txt'), path.join(tmp, `moved${n}`));
    symlinkSync('other.txt', path.join(root, 'app.txt'));
    await append(root);
    expect(snapshotHolds(root, 'app.txt')).toEqual({ mode: '120000', content: 'other.txt' });
  });
});

describe('§3 git runs no program the configuration names, wherever the configuration is read', () => {
  test('a filter named only by an include the fork branch matches (includeIf onbranch) does not run in fork', async () => {
    const root = repo();
    const marker = path.join(tmp, `smudged${n}`);
    const script = path.join(tmp, `smudge${n}.sh`);
    writeFileSync(script, `#!/bin/sh\ntouch '${marker}'\ncat\n`, { mode: 0o755 });
    writeFileSync(path.join(root, '.git', 'evil.inc'), `[filter "evil"]\n\tsmudge = ${script}\n\tclean = cat\n`);
    git(root, ['config', 'includeIf.onbranch:fork/**.path', 'evil.inc']);
    writeFileSync(path.join(root, '.gitattributes'), 'app.txt filter=evil\n');
    await append(root);
    const r = await cliInProcess(['fork', 'a1', '--from-step', '0', '--json'], { cwd: root });
    expect(r.code).toBe(0);
    expect(existsSync(marker)).toBe(false);
    const worktree = (JSON.parse(r.stdout) as { fork_worktree: string }).fork_worktree;
    expect(readFileSync(path.join(worktree, 'app.txt'), 'utf8')).toBe('v0\n');
    expect(git(worktree, ['status', '--porcelain'])).toBe('');
  });
});

describe('§2/§7 a snapshot that cannot hold a directory says so', () => {
  test('a nested git repository (as `cargo new` makes one): append warns that its files are not in the snapshot', async () => {
    const root = repo();
    writeFileSync(path.join(root, 'app.txt'), 'v1\n');
    const nested = path.join(root, 'crate');
    mkdirSync(nested);
    writeFileSync(path.join(nested, 'main.rs'), 'fn main() {}\n');
    git(nested, ['init', '-q']);
    git(nested, ['add', '.']);
    git(nested, ['commit', '-q', '-m', 'new crate']);
    writeFileSync(path.join(nested, 'main.rs'), 'fn main() { edited() }\n');
    const r = await cliInProcess(['append', 'a1', '--prompt', 'edit'], { cwd: root });
    expect(r.code).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/snapshot holds none of the files of crate: a git repository of its own/);
    expect(snapshotHolds(root, 'app.txt')?.content).toBe('v1');
  });

  test('a nested repository with no commit yet (`git init` or `cargo new` in a subdirectory): the rest is snapshotted and it is named (git refused the whole add for it, and every step had no snapshot)', async () => {
    const root = repo();
    writeFileSync(path.join(root, 'app.txt'), 'v1\n');
    for (const name of ['crate', 'other dir']) {
      mkdirSync(path.join(root, name));
      writeFileSync(path.join(root, name, 'main.rs'), 'fn main() {}\n');
      git(path.join(root, name), ['init', '-q']);
    }
    const r = await cliInProcess(['append', 'a1', '--prompt', 'edit'], { cwd: root });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/snapshot failed/);
    expect(r.stdout + r.stderr).toMatch(
      /snapshot holds none of the files of crate, other dir: a git repository of its own .*\(one with no commit yet, not at all\)/,
    );
    expect(snapshotHolds(root, 'app.txt')?.content).toBe('v1');
    // Only that refusal is let through: beside it, any other error of the add still fails (as git's own words).
    expect(() => addWorkTree(root, [], ['.', '../outside'], {})).toThrow(/outside repository/);
  });

  test('a directory git cannot open (no permission) is named in the step warning (git only warns, exit 0: the snapshot held none of its files, silently)', () => {
    const root = repo();
    chmodSync(tmp, 0o755); // the other user enters it
    writeFileSync(path.join(root, 'app.txt'), 'v1\n');
    mkdirSync(path.join(root, 'udir'));
    writeFileSync(path.join(root, 'udir', 'f'), 'x\n');
    const state = path.join(root, '.state');
    mkdirSync(state);
    // As root, the other user (nobody) runs it: the repository must be theirs (git refuses one owned by another).
    const owner = (uid: number): void => void execFileSync('chown', ['-R', `${uid}:${uid}`, root]);
    if (runningAsRoot) owner(OTHER_UID);
    chmodSync(path.join(root, 'udir'), 0);
    try {
      const r = cliAsOtherUser(['append', 'a1', '--prompt', 'edit'], { cwd: root, env: { XDG_STATE_HOME: state } });
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(
        /step 0: its worktree snapshot holds none of the files of udir: git could not open that directory/,
      );
    } finally {
      chmodSync(path.join(root, 'udir'), 0o755);
      if (runningAsRoot) owner(0);
    }
    expect(snapshotHolds(root, 'app.txt')?.content).toBe('v1');
    expect(snapshotHolds(root, 'udir/f')).toBeUndefined();
  });
});
