import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { journalFile } from '../src/journal';
import { pullRequestEvent, runAction } from './helpers/action';
import { expectNoStack } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { git, initRepo, writeFiles } from './helpers/git';
import { tempDir } from './helpers/tmp';

/**
 * git never runs a program that a repository, a worktree or an inherited
 * variable configures (issue 20 §3). Real repositories whose configuration
 * names a program for everything that can run one (fsmonitor, every hook, a
 * clean/smudge filter named by .gitattributes, diff and merge drivers,
 * credential helpers, ssh, pager, editor, askpass, upload-pack, alternate refs,
 * gpg); each program writes a marker when run. Every stepchain command that
 * starts git (append, hook claude, fork, fork rm, check --base, the Action) runs
 * in them and no marker appears. A fork worktree whose `.git` was swapped for
 * the agent's own repository is refused, naming the file. The commands run in
 * this process (`cliInProcess`, the code the built CLI bundles): what is
 * watched is the git they start, a real process either way (the Action runs
 * its bundle).
 */
jest.setTimeout(180_000);

const tmp = tempDir('stepchain-gitconfig-');
const marker = path.join(tmp, 'MARKER');
const SID = '11111111-2222-4333-8444-555555555555';
let n = 0;

/** Every hook name git knows (githooks(5)), each a script that writes the marker. */
const HOOKS = [
  'applypatch-msg',
  'pre-applypatch',
  'post-applypatch',
  'pre-commit',
  'pre-merge-commit',
  'prepare-commit-msg',
  'commit-msg',
  'post-commit',
  'pre-rebase',
  'post-checkout',
  'post-merge',
  'pre-push',
  'pre-receive',
  'update',
  'proc-receive',
  'post-receive',
  'post-update',
  'reference-transaction',
  'push-to-checkout',
  'pre-auto-gc',
  'post-rewrite',
  'sendemail-validate',
  'fsmonitor-watchman',
  'p4-changelist',
  'p4-prepare-changelist',
  'p4-post-changelist',
  'p4-pre-submit',
  'post-index-change',
];

/** A program that records that it ran (name and arguments), then passes stdin through (a filter's contract). */
function program(name: string, passThrough = true): string {
  const file = path.join(tmp, 'bin', name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `#!/bin/sh\necho "${name} $*" >> '${marker}'\n${passThrough ? 'cat\n' : 'exit 1\n'}`);
  chmodSync(file, 0o755);
  return file;
}

function hooksDir(): string {
  const dir = path.join(tmp, 'hooks');
  mkdirSync(dir, { recursive: true });
  for (const h of HOOKS) {
    writeFileSync(path.join(dir, h), `#!/bin/sh\necho "hook ${h}" >> '${marker}'\n`);
    chmodSync(path.join(dir, h), 0o755);
  }
  return dir;
}

/** Configures `repo` (its own config file, as an agent could) to run a marker program wherever git can run one. */
function poison(repo: string): void {
  const p = program('evil');
  // Written into .git/config at the end, as git config would write them (a git process per key was 54 of this
  // file's git processes); the test below that runs git plainly shows git reads them.
  const entries: string[] = [];
  const set = (k: string, v: string): void => {
    const dot = k.lastIndexOf('.');
    const [section, ...sub] = k.slice(0, dot).split('.');
    const head = sub.length === 0 ? `[${section}]` : `[${section} "${sub.join('.')}"]`;
    entries.push(`${head}\n\t${k.slice(dot + 1)} = "${v.replace(/[\\"]/g, (c) => `\\${c}`)}"\n`);
  };
  set('core.fsmonitor', p);
  set('core.hooksPath', hooksDir());
  set('filter.ev.clean', `${p} clean %f`);
  set('filter.ev.smudge', `${p} smudge %f`);
  set('filter.ev.required', 'true');
  set('filter.lfs.process', `${p} process`);
  set('diff.ev.textconv', `${p} textconv`);
  set('diff.ev.command', `${p} diff-command`);
  set('diff.external', `${p} external-diff`);
  set('merge.ev.driver', `${p} merge %O %A %B`);
  set('credential.helper', `!${p} credential`);
  set('core.sshCommand', `${p} ssh`);
  set('core.pager', `${p} pager`);
  set('core.editor', `${p} editor`);
  set('core.askPass', `${p} askpass`);
  set('core.alternateRefsCommand', `${p} alternate-refs`);
  set('gpg.program', `${p} gpg`);
  set('commit.gpgSign', 'true');
  appendFileSync(path.join(repo, '.git', 'config'), entries.join(''));
  // The default hooks directory too, for a git that would ignore hooksPath.
  for (const h of HOOKS) {
    writeFileSync(path.join(repo, '.git', 'hooks', h), `#!/bin/sh\necho "default-hook ${h}" >> '${marker}'\n`);
    chmodSync(path.join(repo, '.git', 'hooks', h), 0o755);
  }
}

function ran(): string {
  return existsSync(marker) ? readFileSync(marker, 'utf8') : '';
}

/** A committed project with a journal, whose config runs a marker program everywhere. */
function poisonedProject(): { root: string; base: string } {
  const root = initRepo(path.join(tmp, `p${n++}`), {
    'app.txt': 'v0\n',
    '.gitattributes': '* filter=ev diff=ev merge=ev\n*.bin filter=lfs\n',
    'data.bin': 'bytes\n',
  });
  const base = git(root, ['rev-parse', 'HEAD']);
  poison(root);
  return { root, base };
}

afterEach(() => rmSync(marker, { force: true }));

test('the poisoned configuration does run its programs when git is run plainly (the test has teeth)', () => {
  const { root } = poisonedProject();
  writeFiles(root, { 'app.txt': 'v1\n' });
  git(root, ['status', '--porcelain']);
  git(root, ['update-ref', 'refs/x', 'HEAD']);
  expect(ran()).toMatch(/evil .*clean/);
  expect(ran()).toMatch(/hook reference-transaction/);
});

test('append, hook claude, fork, append in the fork, fork rm, check --base: no program runs', async () => {
  const { root, base } = poisonedProject();
  writeFiles(root, { 'app.txt': 'v1\n', 'new.txt': 'n\n', 'more.bin': 'b\n' });
  const a = await cliInProcess(['append', 'ag', '--prompt', 'edit'], { cwd: root });
  expect(a.stderr).toBe('');
  expect(a.code).toBe(0);
  writeFiles(root, { 'app.txt': 'v2\n' });
  const a2 = await cliInProcess(['append', 'ag', '--prompt', 'edit again'], { cwd: root });
  expect(a2.stderr).toBe('');
  // The snapshot holds the work tree's bytes (no clean filter ran on them).
  const snap = git(root, ['for-each-ref', '--format=%(refname)', 'refs/stepchain/snapshots/ag']).split('\n');
  expect(snap).toHaveLength(2);
  expect(git(root, ['cat-file', 'blob', `${snap.find((r) => r.endsWith('/1'))}:app.txt`])).toBe('v2');

  // hook claude: a prompt and a tool call, each recording a step with its snapshot.
  const payload = (event: string, extra: Record<string, unknown> = {}): string =>
    JSON.stringify({
      session_id: SID,
      transcript_path: path.join(tmp, 'no-transcript', `${SID}.jsonl`),
      cwd: root,
      hook_event_name: event,
      ...extra,
    });
  const h1 = await cliInProcess(['hook', 'claude'], {
    cwd: root,
    input: payload('UserPromptSubmit', { prompt: 'go' }),
  });
  expect(h1.code).toBe(0);
  const h2 = await cliInProcess(['hook', 'claude'], {
    cwd: root,
    input: payload('PostToolUse', {
      tool_name: 'Bash',
      tool_input: { command: 'echo hi' },
      tool_response: { stdout: 'hi', stderr: '' },
      tool_use_id: 't1',
    }),
  });
  expect(h2.code).toBe(0);
  expect(h2.stderr).toBe('');
  expect(existsSync(journalFile(root, `claude-${SID}`))).toBe(true);
  expect(git(root, ['for-each-ref', `refs/stepchain/snapshots/claude-${SID}`])).not.toBe('');

  // fork: a worktree checked out (smudge filters, post-checkout) from step 1's snapshot.
  const f = await cliInProcess(['fork', 'ag', '--from-step', '1', '--json'], { cwd: root });
  expectNoStack(f);
  expect(f.code).toBe(0);
  const fork = JSON.parse(f.stdout) as { fork_worktree: string; fork_session_id: string };
  expect(readFileSync(path.join(fork.fork_worktree, 'app.txt'), 'utf8')).toBe('v2\n');
  // An append inside the fork (its snapshot runs git in the fork worktree).
  writeFiles(fork.fork_worktree, { 'app.txt': 'v3\n' });
  const fa = await cliInProcess(['append', fork.fork_session_id, '--prompt', 'in the fork'], {
    cwd: fork.fork_worktree,
  });
  expect(fa.stderr).toBe('');
  expect(fa.code).toBe(0);
  // fork rm refuses the uncommitted change (git status ran), then removes it forced.
  const rm = await cliInProcess(['fork', 'rm', fork.fork_session_id], { cwd: root });
  expect(rm.code).toBe(1);
  expect(rm.stderr).toMatch(/uncommitted changes/);
  const rmf = await cliInProcess(['fork', 'rm', fork.fork_session_id, '--force'], { cwd: root });
  expect(rmf.stderr).toBe('');
  expect(rmf.code).toBe(0);

  expect(ran()).toBe('');

  // check --base reads the base commit's journals.
  git(root, ['add', '-A']);
  git(root, ['-c', 'core.hooksPath=/dev/null', 'commit', '-q', '--no-verify', '--no-gpg-sign', '-m', 'journals']);
  rmSync(marker, { force: true }); // the test's own commit above is not stepchain's
  const c = await cliInProcess(['check', '--base', base], { cwd: root });
  expectNoStack(c);
  expect(c.code).toBe(0);

  expect(ran()).toBe('');
});

test('the Action on a shallow checkout (fetching the base through the poisoned remote config): no program runs', async () => {
  const { root, base } = poisonedProject();
  const a = await cliInProcess(['append', 'ag', '--prompt', 'one'], { cwd: root });
  expect(a.code).toBe(0);
  git(root, ['add', '-A', '-f', '.sdd/runtime/journal']);
  git(root, ['-c', 'core.hooksPath=/dev/null', 'commit', '-q', '--no-verify', '--no-gpg-sign', '-m', 'journal']);
  const clone = path.join(tmp, `clone${n++}`);
  execFileSync('git', ['clone', '-q', '--depth=1', `file://${root}`, clone]);
  poison(clone);
  git(clone, ['config', 'remote.origin.uploadpack', `${program('evil-upload-pack', false)}`]);
  rmSync(marker, { force: true });
  const r = await runAction({
    workspace: clone,
    scratch: path.join(tmp, `scratch${n++}`),
    event: pullRequestEvent(base, git(clone, ['rev-parse', 'HEAD'])),
  });
  expect(r.stdout).toContain(`Fetched the base commit ${base}`);
  expect(r.code).toBe(0);
  expect(ran()).toBe('');
});

test("a partial clone's lazy fetch through an ext:: remote the repository allows (protocol.ext.allow): append and fork run nothing", async () => {
  const root = initRepo(path.join(tmp, `p${n++}`), { 'app.txt': 'v0\n' });
  writeFiles(root, { 'agent.txt': 'written by the agent\n' });
  expect((await cliInProcess(['append', 'ag', '--prompt', 'one'], { cwd: root })).code).toBe(0);
  // The agent makes the repository a partial clone of a remote whose transport is a command, allows that
  // transport in its own config (more specific than the pinned protocol.allow), and deletes objects git will need:
  // the blob of its file (fork checks it out) and HEAD's tree with the index (the next snapshot reads it).
  const evil = program('evil', false).replace(/ /g, '% ');
  git(root, ['config', 'core.repositoryformatversion', '1']);
  git(root, ['config', 'extensions.partialclone', 'origin']);
  git(root, ['config', 'remote.origin.url', `ext::${evil} ext`]);
  git(root, ['config', 'remote.origin.promisor', 'true']);
  git(root, ['config', 'protocol.ext.allow', 'always']);
  const loose = (oid: string): string => path.join(root, '.git', 'objects', oid.slice(0, 2), oid.slice(2));
  rmSync(loose(git(root, ['hash-object', 'agent.txt'])));
  rmSync(loose(git(root, ['rev-parse', 'HEAD^{tree}'])));
  rmSync(path.join(root, '.git', 'index'));
  // The test has teeth: git run plainly (with stepchain's pins but not its environment) runs the command.
  spawnSync('git', ['-c', 'protocol.allow=never', 'fetch', '-q', 'origin'], {
    cwd: root,
    stdio: 'ignore',
    timeout: 60_000,
  });
  expect(ran()).toMatch(/evil ext/);
  rmSync(marker, { force: true });

  const a = await cliInProcess(['append', 'ag', '--prompt', 'two'], { cwd: root });
  expect(a.code).toBe(0); // the step stands; its snapshot cannot be taken without the tree
  expect(a.stderr).toMatch(/snapshot failed/);
  const f = await cliInProcess(['fork', 'ag', '--from-step', '0'], { cwd: root });
  expectNoStack(f);
  expect(f.code).toBe(1); // the blob is missing and is not fetched
  expect(ran()).toBe('');
});

test.each([
  [
    'an include.path naming a FIFO (git waits on it)',
    (root: string) => {
      const fifo = path.join(tmp, `config-fifo${n++}`);
      execFileSync('mkfifo', [fifo]);
      git(root, ['config', 'include.path', fifo]);
    },
    /snapshot failed: git rev-parse .*no answer in 2 s/,
  ],
  [
    'a configuration git cannot read',
    (root: string) => {
      appendFileSync(path.join(root, '.git', 'config'), '[[[\n');
    },
    /snapshot failed: git rev-parse .*bad config line/,
  ],
])(
  '%s: hook claude records the step and says its snapshot failed (never taken for "no repository")',
  async (_, spoil, said) => {
    const root = initRepo(path.join(tmp, `p${n++}`), { 'app.txt': 'v0\n' });
    spoil(root);
    const h = await cliInProcess(['hook', 'claude'], {
      cwd: root,
      // Discovery gets the snapshot's time; the general timeout is short too, so a discovery that ignored it fails fast.
      env: { STEPCHAIN_SNAPSHOT_TIMEOUT_MS: '2000', STEPCHAIN_GIT_TIMEOUT_MS: '2000', CLAUDE_PROJECT_DIR: root },
      input: JSON.stringify({
        session_id: SID,
        transcript_path: path.join(tmp, 'no-transcript', `${SID}.jsonl`),
        cwd: root,
        hook_event_name: 'PostToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'true' },
        tool_response: { stdout: '' },
        tool_use_id: 't1',
      }),
    });
    expectNoStack(h);
    expect(h.code).toBe(0); // the step stands
    expect(h.stderr).toMatch(said);
    expect(readFileSync(journalFile(root, `claude-${SID}`), 'utf8').split('\n')).toHaveLength(2);
  },
);

describe('a fork worktree whose .git no longer points at the repository that created it', () => {
  async function forked(): Promise<{ root: string; worktree: string; id: string }> {
    const root = initRepo(path.join(tmp, `p${n++}`), { 'app.txt': 'v0\n' });
    expect((await cliInProcess(['append', 'ag', '--prompt', 'one'], { cwd: root })).code).toBe(0);
    const f = await cliInProcess(['fork', 'ag', '--from-step', '0', '--json'], { cwd: root });
    expect(f.code).toBe(0);
    const doc = JSON.parse(f.stdout) as { fork_worktree: string; fork_session_id: string };
    return { root, worktree: doc.fork_worktree, id: doc.fork_session_id };
  }

  /** The agent's own repository, configured to run the marker program, and the fork's .git swapped for it. */
  function swap(worktree: string, how: 'file' | 'directory' | 'admin'): void {
    const own = path.join(tmp, `agent-repo${n++}`);
    execFileSync('git', ['init', '-q', own]);
    poison(own);
    const dotGit = path.join(worktree, '.git');
    if (how === 'directory') {
      rmSync(dotGit);
      execFileSync('cp', ['-r', path.join(own, '.git'), dotGit]);
    } else if (how === 'file') {
      writeFileSync(dotGit, `gitdir: ${path.join(own, '.git')}\n`);
    } else {
      // A forged worktree administrative directory outside the repository, pointing back at this worktree.
      const admin = path.join(own, '.git', 'worktrees', 'x');
      mkdirSync(admin, { recursive: true });
      const real = readFileSync(dotGit, 'utf8').slice('gitdir: '.length).trim();
      for (const f of ['HEAD', 'commondir']) writeFileSync(path.join(admin, f), readFileSync(path.join(real, f)));
      writeFileSync(path.join(admin, 'commondir'), path.resolve(real, '..', '..') + '\n');
      writeFileSync(path.join(admin, 'gitdir'), `${dotGit}\n`);
      writeFileSync(path.join(admin, 'config.worktree'), `[core]\n\tfsmonitor = ${program('evil')}\n`);
      writeFileSync(dotGit, `gitdir: ${admin}\n`);
    }
  }

  test.each(['file', 'directory', 'admin'] as const)(
    '.git swapped (%s): append records the step but takes no snapshot, naming the file; hook claude, fork and fork rm refuse; nothing runs',
    async (how) => {
      const { root, worktree, id } = await forked();
      swap(worktree, how);
      const dotGit = path.join(worktree, '.git');
      writeFiles(worktree, { 'app.txt': 'agent\n' });

      const a = await cliInProcess(['append', id, '--prompt', 'after the swap'], { cwd: worktree });
      expect(a.code).toBe(0); // the step is never lost
      expect(a.stderr).toContain(`${dotGit}: `);
      expect(a.stderr).toMatch(/snapshot failed: .*points at the repository that created it/);

      const h = await cliInProcess(['hook', 'claude'], {
        cwd: worktree,
        input: JSON.stringify({
          session_id: SID,
          transcript_path: path.join(tmp, 'no-transcript', `${SID}.jsonl`),
          cwd: worktree,
          hook_event_name: 'UserPromptSubmit',
          prompt: 'go',
        }),
      });
      expect(h.stderr).not.toMatch(/\n\s+at /);

      const ff = await cliInProcess(['fork', id, '--from-step', '0'], { cwd: worktree });
      expect(ff.code).toBe(1);
      expect(ff.stderr).toContain(dotGit);
      expectNoStack(ff);

      const rm = await cliInProcess(['fork', 'rm', id], { cwd: root });
      expect(rm.code).toBe(1);
      expect(rm.stderr).toContain(dotGit);
      expect(existsSync(worktree)).toBe(true);
      // Forced, nothing runs in the worktree: it is removed from the parent's repository.
      const rmf = await cliInProcess(['fork', 'rm', id, '--force'], { cwd: root });
      expect(rmf.stderr).toBe('');
      expect(rmf.code).toBe(0);
      expect(existsSync(worktree)).toBe(false);

      expect(ran()).toBe('');
    },
  );
});
