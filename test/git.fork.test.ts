import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from '../src/canonical';
import {
  createFork,
  flattenForks,
  forksMermaid,
  listForks,
  removeFork,
  sessionFile,
  type ForkResult,
} from '../src/forks';
import { snapshotRefFor } from '../src/git';
import { journalDir, journalFile, verifyJournalFile } from '../src/journal';
import { recordStep } from '../src/record';
import { cli, expectNoStack } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { git, initRepo, repoState, writeFiles } from './helpers/git';
import { cliPath } from './helpers/paths';
import { tempDir } from './helpers/tmp';

const tmp = tempDir('stepchain-fork-');
/** Audit logging is tested with its own key below; elsewhere it is off, so no key is made outside the temp dir. */
const ENV: NodeJS.ProcessEnv = { ...process.env, STEPCHAIN_AUDIT: 'off' };
let n = 0;

const CALC = [
  'def add(a, b):\n    return a - b\n',
  'def add(a, b):\n    return a - b  # looked at\n',
  'def add(a, b):\n    return a + b\n',
];

/** A repository with a three-step run of agent `ag`; step i leaves src/calc.py = CALC[i] (and notes-1.txt, untracked, from step 1). */
function recordedRepo(options: { snapshot?: boolean } = {}): string {
  const snapshot = options.snapshot ?? true;
  // Recording the run takes ~25 git processes: it is recorded once per kind and each test gets a copy (snapshot
  // refs are per journal, not per path, so a copy is the same project; its checkpoints vouch for other inodes, so
  // the next reader walks the journal in full).
  let template = templates.get(snapshot);
  if (template === undefined) {
    template = recordRepo(path.join(tmp, `template-${snapshot}`), snapshot);
    templates.set(snapshot, template);
  }
  const root = path.join(tmp, `repo${n++}`);
  cpSync(template, root, { recursive: true, verbatimSymlinks: true });
  return root;
}
const templates = new Map<boolean, string>();

function recordRepo(root: string, snapshot: boolean): string {
  initRepo(root, { 'src/calc.py': CALC[0]!, 'README.md': 'calc\n' });
  for (let i = 0; i < 3; i++) {
    writeFiles(root, { 'src/calc.py': CALC[i]! });
    if (i === 1) writeFiles(root, { 'notes-1.txt': 'written at step 1\n' });
    const r = recordStep(
      journalDir(root, 'ag'),
      { prompt: `step ${i}`, tool_result: { i } },
      { env: ENV, root, snapshot },
    );
    expect(r.warnings).toEqual([]);
  }
  return root;
}

function lines(file: string): Buffer[] {
  const b = readFileSync(file);
  const out: Buffer[] = [];
  let s = 0;
  for (let i = b.indexOf(10); i >= 0; i = b.indexOf(10, s)) {
    out.push(b.subarray(s, i + 1));
    s = i + 1;
  }
  return out;
}

function sessionOf(r: ForkResult): Record<string, unknown> {
  return JSON.parse(readFileSync(r.snapshot_path, 'utf8')) as Record<string, unknown>;
}

/** The snapshot ref of step `seq` of the journal of `agent` in the project at `root` (per journal, see docs/fork.md). */
function snap(root: string, agent: string, seq: number): string {
  const ref = snapshotRefFor(root, agent, seq);
  if (ref === undefined) throw new Error(`${root} is not in git`);
  return ref;
}

describe('fork from step', () => {
  test('the worktree has the files of step N, the journal the verified prefix [0..N], the session file its fork block', async () => {
    const root = recordedRepo();
    mkdirSync(path.join(root, '.sdd', 'runtime', 'sessions'), { recursive: true });
    writeFileSync(sessionFile(root, 'ag'), '{"session_id": "ag", "goal": "fix add", "budget": 12345678901234567890}\n');
    const parentRows = lines(journalFile(root, 'ag'));
    const headBefore = git(root, ['rev-parse', 'HEAD']);

    const r = await createFork({ env: ENV, root, sessionId: 'ag', fromStep: 1, label: 'Try again!' });
    expect(r.fork_session_id).toMatch(/^fork-try-again-\d{8}-\d{6}-[0-9a-f]{6}$/);
    expect(r.fork_branch).toBe(`fork/main/${r.fork_session_id}`);
    expect(r.fork_worktree).toBe(path.join(root, '.sdd', 'worktrees', r.fork_session_id));
    expect(r.warnings).toEqual([]);
    // Files of step 1 (the snapshot), not the parent's current files.
    expect(readFileSync(path.join(r.fork_worktree, 'src', 'calc.py'), 'utf8')).toBe(CALC[1]);
    expect(readFileSync(path.join(r.fork_worktree, 'notes-1.txt'), 'utf8')).toBe('written at step 1\n');
    expect(readFileSync(path.join(root, 'src', 'calc.py'), 'utf8')).toBe(CALC[2]);
    expect(r.restored_from_snapshot).toBe(git(root, ['rev-parse', snap(root, 'ag', 1)]));
    expect(r.fork_commit).toBe(r.restored_from_snapshot);
    expect(git(root, ['rev-parse', `refs/heads/${r.fork_branch}`])).toBe(r.fork_commit);
    expect(git(r.fork_worktree, ['rev-parse', '--abbrev-ref', 'HEAD'])).toBe(r.fork_branch);
    expect(git(r.fork_worktree, ['status', '--porcelain'])).toBe('');
    // The parent's checkout is untouched.
    expect(git(root, ['rev-parse', 'HEAD'])).toBe(headBefore);
    expect(git(root, ['rev-parse', '--abbrev-ref', 'HEAD'])).toBe('main');

    // Journal: the parent's first two lines, byte for byte; it verifies.
    const forkJournal = journalFile(r.fork_worktree, r.fork_session_id);
    expect(readFileSync(forkJournal)).toEqual(Buffer.concat(parentRows.slice(0, 2)));
    expect(verifyJournalFile(forkJournal).ok).toBe(true);
    expect(r.parent_step_hash).toBe(
      verifyJournalFile(journalFile(root, 'ag')).ok && JSON.parse(parentRows[1]!.toString()).step_hash,
    );

    // Session file: the parent's cloned (big integer kept exact) plus the fork block.
    expect(r.snapshot_path).toBe(sessionFile(r.fork_worktree, r.fork_session_id));
    const s = parse(readFileSync(r.snapshot_path, 'utf8')) as Record<string, unknown>;
    expect(s.goal).toBe('fix add');
    expect(s.budget).toBe(12345678901234567890n);
    expect(s.session_id).toBe(r.fork_session_id);
    expect(s.fork).toMatchObject({
      parent_session_id: 'ag',
      label: 'Try again!',
      branch: r.fork_branch,
      branched_from_commit: r.fork_commit,
      from_step: 1,
      parent_step_hash: r.parent_step_hash,
      restored_from_snapshot: r.restored_from_snapshot,
      parent_branch: 'main',
      parent_commit: headBefore,
    });
    // The fork inherits the snapshots of its prefix.
    expect(
      git(root, ['for-each-ref', '--format=%(refname)', `refs/stepchain/snapshots/${r.fork_session_id}/`]).split('\n'),
    ).toEqual([snap(r.fork_worktree, r.fork_session_id, 0), snap(r.fork_worktree, r.fork_session_id, 1)]);
  });

  test("a fork keeps recording on the prefix; forks of forks restore the fork's own steps and form a tree", async () => {
    const root = recordedRepo();
    const a = await createFork({ env: ENV, root, sessionId: 'ag', fromStep: 0 });
    expect(readFileSync(path.join(a.fork_worktree, 'src', 'calc.py'), 'utf8')).toBe(CALC[0]);
    expect(existsSync(path.join(a.fork_worktree, 'notes-1.txt'))).toBe(false);

    // Record in the fork: chains on the parent's step 0, snapshots the fork worktree under the fork id.
    writeFiles(a.fork_worktree, { 'src/calc.py': 'def add(a, b):\n    return sum((a, b))\n' });
    const step = recordStep(
      journalDir(a.fork_worktree, a.fork_session_id),
      { prompt: 'fork step' },
      { env: ENV, root: a.fork_worktree },
    );
    expect(step.warnings).toEqual([]);
    expect(step.row.seq).toBe(1);
    expect(step.row.prev_hash).toBe(a.parent_step_hash);
    expect(step.snapshot?.ref).toBe(snap(a.fork_worktree, a.fork_session_id, 1));
    expect(verifyJournalFile(journalFile(a.fork_worktree, a.fork_session_id))).toMatchObject({ ok: true, steps: 2 });
    expect(readFileSync(path.join(root, 'src', 'calc.py'), 'utf8')).toBe(CALC[2]);

    // Fork the fork at its own step 1: its files, its prefix.
    const b = await createFork({ env: ENV, root: a.fork_worktree, sessionId: a.fork_session_id, fromStep: 1 });
    expect(b.fork_branch).toBe(`fork/${a.fork_branch}/${b.fork_session_id}`);
    expect(b.fork_worktree).toBe(path.join(a.fork_worktree, '.sdd', 'worktrees', b.fork_session_id));
    expect(readFileSync(path.join(b.fork_worktree, 'src', 'calc.py'), 'utf8')).toContain('sum((a, b))');
    expect(b.restored_from_snapshot).toBe(step.snapshot!.commit);
    expect(readFileSync(journalFile(b.fork_worktree, b.fork_session_id))).toEqual(
      readFileSync(journalFile(a.fork_worktree, a.fork_session_id)),
    );
    // ...and at step 0, which the fork inherited from its parent: the inherited snapshot restores it.
    const c = await createFork({ env: ENV, root: a.fork_worktree, sessionId: a.fork_session_id, fromStep: 0 });
    expect(c.restored_from_snapshot).toBe(git(root, ['rev-parse', snap(root, 'ag', 0)]));
    const d = await createFork({ env: ENV, root, sessionId: 'ag', fromStep: 2, label: 'late' });

    const forest = await listForks(root);
    expect(forest.map((f) => f.fork_session_id).sort()).toEqual([a.fork_session_id, d.fork_session_id].sort());
    const na = forest.find((f) => f.fork_session_id === a.fork_session_id)!;
    expect(na).toMatchObject({
      parent_session_id: 'ag',
      from_step: 0,
      steps: 2,
      steps_since: 1,
      journal_ok: true,
      missing: false,
      branch: a.fork_branch,
    });
    expect(na.children.map((x) => x.fork_session_id).sort()).toEqual([b.fork_session_id, c.fork_session_id].sort());
    expect(na.children.find((x) => x.fork_session_id === b.fork_session_id)).toMatchObject({
      parent_session_id: a.fork_session_id,
      from_step: 1,
      steps_since: 0,
    });
    expect(forest.find((f) => f.fork_session_id === d.fork_session_id)).toMatchObject({
      label: 'late',
      from_step: 2,
      children: [],
    });
    expect(flattenForks(forest)).toHaveLength(4);
    // The same tree from inside a fork's worktree.
    expect(
      flattenForks(await listForks(b.fork_worktree))
        .map((f) => f.fork_session_id)
        .sort(),
    ).toEqual(
      flattenForks(forest)
        .map((f) => f.fork_session_id)
        .sort(),
    );
    const mermaid = forksMermaid(forest);
    expect(mermaid).toMatch(/^flowchart TD\n/);
    expect(mermaid).toContain('-->|"step 1"|'); // one renderer, labels quoted and escaped (issue 21)
  });

  test("without a snapshot of step N the fork starts at the parent's current commit, and says so", async () => {
    const root = recordedRepo({ snapshot: false });
    const r = await createFork({ env: ENV, root, sessionId: 'ag', fromStep: 1 });
    expect(r.restored_from_snapshot).toBeNull();
    expect(r.fork_commit).toBe(git(root, ['rev-parse', 'HEAD']));
    expect(r.warnings[0]).toMatch(/no worktree snapshot of step 1/);
    expect((sessionOf(r).fork as Record<string, unknown>).restored_from_snapshot).toBeNull();
    expect(readFileSync(path.join(r.fork_worktree, 'src', 'calc.py'), 'utf8')).toBe(CALC[0]); // HEAD's file
  });

  test("a snapshot whose step_hash is not the step's is not restored", async () => {
    const root = recordedRepo();
    // A step-1 snapshot that names another step_hash (e.g. left over from an earlier chain).
    const tree = git(root, ['rev-parse', `${snap(root, 'ag', 2)}^{tree}`]);
    const fake = execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit-tree', tree], {
      cwd: root,
      input: `stepchain snapshot: ag step 1\n\nagent: ag\nseq: 1\nstep_hash: ${'ab'.repeat(32)}\n`,
      encoding: 'utf8',
    }).trim();
    git(root, ['update-ref', snap(root, 'ag', 1), fake]);
    const r = await createFork({ env: ENV, root, sessionId: 'ag', fromStep: 1 });
    expect(r.restored_from_snapshot).toBeNull();
    expect(r.warnings.join()).toMatch(/does not match/);
  });

  test('session-level fork (no --from-step): worktree, branch, session file; no journal, no step fields', async () => {
    const root = recordedRepo();
    const r = await createFork({ env: ENV, root, sessionId: 'ag' });
    expect(r.from_step).toBeNull();
    expect(r.parent_step_hash).toBeNull();
    expect(r.journal_path).toBeNull();
    expect(existsSync(path.join(r.fork_worktree, '.sdd', 'runtime', 'journal'))).toBe(false);
    const fork = sessionOf(r).fork as Record<string, unknown>;
    expect(fork).toMatchObject({
      parent_session_id: 'ag',
      label: null,
      branch: r.fork_branch,
      branched_from_commit: git(root, ['rev-parse', 'HEAD']),
    });
    expect('from_step' in fork || 'parent_step_hash' in fork).toBe(false);
    expect(readFileSync(path.join(r.fork_worktree, 'src', 'calc.py'), 'utf8')).toBe(CALC[0]);
  });

  test('forking at the last step of a journal whose last newline is missing seeds newline-terminated rows', async () => {
    const root = recordedRepo();
    const f = journalFile(root, 'ag');
    const bytes = readFileSync(f);
    writeFileSync(f, bytes.subarray(0, bytes.length - 1));
    const r = await createFork({ env: ENV, root, sessionId: 'ag', fromStep: 2 });
    expect(readFileSync(journalFile(r.fork_worktree, r.fork_session_id))).toEqual(bytes);
  });

  test('a detached HEAD forks onto fork/session/<id>', async () => {
    const root = recordedRepo();
    git(root, ['checkout', '-q', '--detach']);
    const r = await createFork({ env: ENV, root, sessionId: 'ag', fromStep: 0 });
    expect(r.fork_branch).toBe(`fork/session/${r.fork_session_id}`);
  });
});

describe('fork failures leave nothing behind', () => {
  async function expectNothingCreated(
    root: string,
    run: () => Promise<unknown>,
    error: RegExp,
    exitCode: 1 | 2,
  ): Promise<void> {
    const before = repoState(root);
    const err = await run().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ exitCode });
    expect((err as Error).message).toMatch(error);
    expect(repoState(root)).toEqual(before);
  }

  test('out-of-range step, unsafe ids, unknown session', async () => {
    const root = recordedRepo();
    await expectNothingCreated(
      root,
      () => createFork({ env: ENV, root, sessionId: 'ag', fromStep: 3 }),
      /step 3 is out of range \(the journal has 3 steps, 0\.\.2\)/,
      2,
    );
    await expectNothingCreated(
      root,
      () => createFork({ env: ENV, root, sessionId: '../ag', fromStep: 0 }),
      /unsafe session id/,
      2,
    );
    await expectNothingCreated(
      root,
      () => createFork({ env: ENV, root, sessionId: 'ag', fromStep: 0, forkId: '..' }),
      /unsafe fork id/,
      2,
    );
    await expectNothingCreated(
      root,
      () => createFork({ env: ENV, root, sessionId: 'nobody', fromStep: 0 }),
      /no session "nobody"/,
      2,
    );
    await expectNothingCreated(
      root,
      () => createFork({ env: ENV, root, sessionId: 'ag', fromStep: -1 }),
      /non-negative integer/,
      2,
    );
  });

  test('a parent journal that does not verify: refused before anything is created', async () => {
    const root = recordedRepo();
    const f = journalFile(root, 'ag');
    writeFileSync(f, readFileSync(f, 'utf8').replace('"i":1', '"i":7'));
    await expectNothingCreated(
      root,
      () => createFork({ env: ENV, root, sessionId: 'ag', fromStep: 0 }),
      /000000\.jsonl:2: step_hash_mismatch/,
      1,
    );
    await expectNothingCreated(root, () => createFork({ env: ENV, root, sessionId: 'ag' }), /step_hash_mismatch/, 1);
  });

  test('not a git repository', async () => {
    const root = path.join(tmp, `plain${n++}`);
    recordStep(journalDir(root, 'ag'), { prompt: 'x' }, { env: ENV, root });
    await expectNothingCreatedPlain(root);
  });
  async function expectNothingCreatedPlain(root: string): Promise<void> {
    const before = readFileSync(journalFile(root, 'ag'));
    await expect(createFork({ env: ENV, root, sessionId: 'ag', fromStep: 0 })).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(/not inside a git work tree/),
    });
    expect(existsSync(path.join(root, '.sdd', 'worktrees'))).toBe(false);
    expect(readFileSync(journalFile(root, 'ag'))).toEqual(before);
  }

  test('an existing worktree path is refused and left as it was', async () => {
    const root = recordedRepo();
    const id = 'fork-20260101-000000-abcdef';
    mkdirSync(path.join(root, '.sdd', 'worktrees', id), { recursive: true });
    writeFileSync(path.join(root, '.sdd', 'worktrees', id, 'mine.txt'), 'keep');
    await expectNothingCreated(
      root,
      () => createFork({ env: ENV, root, sessionId: 'ag', fromStep: 0, forkId: id }),
      /already exists/,
      1,
    );
    expect(readFileSync(path.join(root, '.sdd', 'worktrees', id, 'mine.txt'), 'utf8')).toBe('keep');
  });

  test('git failure: the branch already exists (git worktree add fails); the existing branch is kept', async () => {
    const root = recordedRepo();
    const id = 'fork-20260101-000000-000001';
    git(root, ['branch', `fork/main/${id}`, 'HEAD']);
    const tip = git(root, ['rev-parse', `fork/main/${id}`]);
    await expectNothingCreated(
      root,
      () => createFork({ env: ENV, root, sessionId: 'ag', fromStep: 1, forkId: id }),
      /git worktree add.*already exists.*nothing was left behind/,
      1,
    );
    expect(git(root, ['rev-parse', `fork/main/${id}`])).toBe(tip);
  });

  test('git failure after the worktree exists (a locked snapshot ref): worktree, branch, files and .sdd/worktrees rolled back', async () => {
    const root = recordedRepo();
    const id = 'fork-20260101-000000-000002';
    // The fork's refs live under its own journal key: its worktree's name (the fork id) and an empty relative path.
    const key = `j${createHash('sha256').update(`${id}\0`).digest('hex').slice(0, 16)}`;
    const lockDir = path.join(root, '.git', 'refs', 'stepchain', 'snapshots', id, key);
    mkdirSync(lockDir, { recursive: true });
    writeFileSync(path.join(lockDir, '1.lock'), '');
    await expectNothingCreated(
      root,
      () => createFork({ env: ENV, root, sessionId: 'ag', fromStep: 1, forkId: id }),
      /update-ref.*nothing was left behind/,
      1,
    );
    expect(existsSync(path.join(root, '.sdd', 'worktrees'))).toBe(false);
    expect(git(root, ['branch', '--list', `fork/*`])).toBe('');
    expect(git(root, ['worktree', 'list', '--porcelain'])).not.toContain(id);
  });
  test('git failure: a commit git cannot check out (git leaves the branch behind; the fork undoes it)', async () => {
    // Until issue 20 this failure came from a post-checkout hook; stepchain now runs no hook (test/git.config.test.ts).
    const root = recordedRepo();
    const x = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: root, input: 'x\n' }).toString().trim();
    const sub = execFileSync('git', ['mktree'], { cwd: root, input: `100644 blob ${x}\tx\n` })
      .toString()
      .trim();
    const top = execFileSync('git', ['mktree'], {
      cwd: root,
      input: `040000 tree ${sub}\t.git\n100644 blob ${x}\tREADME.md\n`,
    })
      .toString()
      .trim();
    const bad = git(root, ['commit-tree', top, '-p', 'HEAD', '-m', 'a path git refuses to check out']);
    git(root, ['update-ref', 'refs/heads/main', bad]);
    await expectNothingCreated(
      root,
      () => createFork({ env: ENV, root, sessionId: 'ag' }),
      /invalid path.*nothing was left behind/,
      1,
    );
    expect(git(root, ['branch', '--list', 'fork/*'])).toBe('');
  });
});

describe('fork rm', () => {
  test('removes the worktree, the branch and the snapshot refs; refuses uncommitted changes unless forced', async () => {
    const root = recordedRepo();
    const keep = await createFork({ env: ENV, root, sessionId: 'ag', fromStep: 2 });
    const r = await createFork({ env: ENV, root, sessionId: 'ag', fromStep: 1 });
    writeFiles(r.fork_worktree, { 'src/calc.py': 'changed\n' });
    await expect(removeFork(root, r.fork_session_id)).rejects.toMatchObject({
      exitCode: 1,
      message: expect.stringMatching(/uncommitted changes.*src\/calc\.py.*--force/),
    });
    expect(existsSync(r.fork_worktree)).toBe(true);

    // Committed work is not "uncommitted"; but a step recorded since the fork point is work to keep.
    git(r.fork_worktree, ['commit', '-q', '-am', 'fork work']);
    recordStep(journalDir(r.fork_worktree, r.fork_session_id), { prompt: 'more' }, { env: ENV, root: r.fork_worktree });
    await expect(removeFork(root, r.fork_session_id)).rejects.toMatchObject({
      exitCode: 1,
      message: expect.stringMatching(/1 step was recorded since the fork point.*--force/),
    });
    expect(existsSync(r.fork_worktree)).toBe(true);
    const branchTip = git(root, ['rev-parse', `refs/heads/${r.fork_branch}`]);
    const out = await removeFork(root, r.fork_session_id, { force: true });
    expect(out).toEqual({
      fork_session_id: r.fork_session_id,
      worktree: r.fork_worktree,
      branch: r.fork_branch,
      branch_commit: branchTip,
      removed_snapshot_refs: 3,
      steps: 3,
      steps_since: 1,
      tombstone: path.join(root, '.sdd', 'runtime', 'tombstones', `${r.fork_session_id}.json`),
      incomplete: false,
    });
    expect(existsSync(r.fork_worktree)).toBe(false);
    expect(git(root, ['branch', '--list', r.fork_branch])).toBe('');
    expect(git(root, ['for-each-ref', `refs/stepchain/snapshots/${r.fork_session_id}/`])).toBe('');
    // The other fork and the parent's snapshots are untouched.
    expect(existsSync(keep.fork_worktree)).toBe(true);
    expect(git(root, ['for-each-ref', '--format=%(refname)', 'refs/stepchain/snapshots/ag/']).split('\n')).toHaveLength(
      3,
    );

    writeFiles(keep.fork_worktree, { 'untracked.txt': 'x' });
    await expect(removeFork(root, keep.fork_session_id)).rejects.toMatchObject({ exitCode: 1 });
    await removeFork(root, keep.fork_session_id, { force: true });
    expect(await listForks(root)).toEqual([]);
    await expect(removeFork(root, keep.fork_session_id)).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(/no fork/),
    });
  });

  test("deletes only the fork's own branch: never a user's branch its worktree checked out or its session file names", async () => {
    const root = recordedRepo();
    git(root, ['branch', 'feature', 'HEAD']);
    const tip = git(root, ['rev-parse', 'refs/heads/feature']);
    // The fork's agent switched its worktree to the user's branch (git allows it: no other worktree has it out).
    const a = await createFork({ env: ENV, root, sessionId: 'ag', fromStep: 1 });
    git(a.fork_worktree, ['checkout', '-q', 'feature']);
    const ra = await removeFork(root, a.fork_session_id);
    expect(ra.branch).toBe(a.fork_branch);
    expect(git(root, ['rev-parse', 'refs/heads/feature'])).toBe(tip);
    expect(git(root, ['branch', '--list', a.fork_branch])).toBe('');

    // Detached, with its session file naming the user's branch: no branch of that name is deleted.
    const b = await createFork({ env: ENV, root, sessionId: 'ag', fromStep: 1 });
    git(b.fork_worktree, ['checkout', '-q', '--detach']);
    const session = sessionOf(b);
    writeFileSync(
      b.snapshot_path,
      JSON.stringify({ ...session, fork: { ...(session.fork as object), branch: 'feature' } }),
    );
    const rb = await removeFork(root, b.fork_session_id);
    expect(rb.branch).toBeNull();
    expect(git(root, ['rev-parse', 'refs/heads/feature'])).toBe(tip);
    expect(existsSync(b.fork_worktree)).toBe(false);
  });

  test('a worktree git keeps locked is refused before anything is removed; forced, all of the fork goes', async () => {
    const root = recordedRepo();
    const tombstone = (id: string) => path.join(root, '.sdd', 'runtime', 'tombstones', `${id}.json`);
    const a = await createFork({ env: ENV, root, sessionId: 'ag', fromStep: 1 });
    git(root, ['worktree', 'lock', '--reason', 'on a USB disk', a.fork_worktree]);
    expect(flattenForks(await listForks(root))[0]!.locked).toBe('on a USB disk');
    await expect(removeFork(root, a.fork_session_id)).rejects.toMatchObject({
      exitCode: 1,
      message: expect.stringMatching(/locked \("on a USB disk"\).*nothing was removed/),
    });
    expect(existsSync(a.fork_worktree)).toBe(true);
    expect(existsSync(tombstone(a.fork_session_id))).toBe(false);
    expect(git(root, ['branch', '--list', a.fork_branch])).not.toBe('');
    await removeFork(root, a.fork_session_id, { force: true });
    expect(git(root, ['worktree', 'list', '--porcelain'])).not.toContain(a.fork_session_id);
    expect(git(root, ['branch', '--list', a.fork_branch])).toBe('');

    // Locked, its directory deleted by hand: git's entry (which prune keeps while locked) and the branch go too.
    const b = await createFork({ env: ENV, root, sessionId: 'ag', fromStep: 1 });
    git(root, ['worktree', 'lock', b.fork_worktree]);
    rmSync(b.fork_worktree, { recursive: true, force: true });
    await removeFork(root, b.fork_session_id, { force: true });
    expect(git(root, ['worktree', 'list', '--porcelain'])).not.toContain(b.fork_session_id);
    expect(git(root, ['branch', '--list', b.fork_branch])).toBe('');
    expect(await listForks(root)).toEqual([]);
  });

  test('a fork whose agent removed its .sdd/ (git clean -fdx) still keeps its uncommitted changes unless forced', async () => {
    const root = recordedRepo();
    const r = await createFork({ env: ENV, root, sessionId: 'ag', fromStep: 1 });
    writeFiles(r.fork_worktree, { 'src/calc.py': "the agent's work\n" });
    git(r.fork_worktree, ['clean', '-q', '-fdx']); // takes the untracked .sdd/ (session file, journal) with it
    expect(existsSync(r.snapshot_path)).toBe(false);
    // Listed as what it is, not as a half-made fork (its creation finished: no intent is left).
    const [node] = await listForks(root);
    expect(node).toMatchObject({ incomplete: false, session_file_missing: true });
    const drawn = await cliInProcess(['forks', '--root', root], { env: ENV });
    expect(drawn.stdout).toContain(`SESSION FILE MISSING (.sdd/runtime/sessions/${r.fork_session_id}.json is gone`);
    expect(drawn.stdout).not.toContain('INCOMPLETE');
    await expect(removeFork(root, r.fork_session_id)).rejects.toMatchObject({
      exitCode: 1,
      message: expect.stringMatching(/uncommitted changes.*src\/calc\.py.*--force/),
    });
    expect(readFileSync(path.join(r.fork_worktree, 'src', 'calc.py'), 'utf8')).toBe("the agent's work\n");
    await removeFork(root, r.fork_session_id, { force: true });
    expect(existsSync(r.fork_worktree)).toBe(false);
  });

  test('refuses a fork that has forks of its own; a missing worktree directory is still cleaned up', async () => {
    const root = recordedRepo();
    const a = await createFork({ env: ENV, root, sessionId: 'ag', fromStep: 1 });
    const b = await createFork({ env: ENV, root: a.fork_worktree, sessionId: a.fork_session_id, fromStep: 0 });
    await expect(removeFork(root, a.fork_session_id, { force: true })).rejects.toMatchObject({
      exitCode: 1,
      message: expect.stringMatching(/forks of its own/),
    });
    // Someone deleted b's directory by hand: rm prunes it and deletes branch and refs.
    rmSync(b.fork_worktree, { recursive: true, force: true });
    expect(flattenForks(await listForks(root)).find((x) => x.fork_session_id === b.fork_session_id)?.missing).toBe(
      true,
    );
    await removeFork(root, b.fork_session_id);
    expect(git(root, ['branch', '--list', b.fork_branch])).toBe('');
    await removeFork(root, a.fork_session_id);
    expect(
      git(root, ['worktree', 'list', '--porcelain'])
        .split('\n')
        .filter((l) => l.startsWith('worktree ')),
    ).toHaveLength(1);
  });
});

describe('CLI (dist/cli.js)', () => {
  /**
   * The commands' logic (documented keys, drawing, refusals) runs in this process (`cliInProcess`, the code dist/cli.js
   * bundles): a Node start per command was most of this test's CPU. One refusal stays a process of the bin (its exit
   * code, the `stepchain: ` line on stderr, no stack), as do the racing creators below.
   */
  test('fork --json prints exactly the documented keys; forks draws and --json gives the tree; fork rm', async () => {
    const root = recordedRepo();
    const r = await cliInProcess(['fork', 'ag', '--from-step', '1', '--label', 'cli', '--json'], { cwd: root });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as Record<string, unknown>;
    // `ok` first, as in every --json document (issue 20 added it).
    expect(Object.keys(doc)).toEqual([
      'ok',
      'fork_session_id',
      'fork_branch',
      'fork_worktree',
      'fork_commit',
      'from_step',
      'parent_step_hash',
      'snapshot_path',
      'parent_session_id',
    ]);
    expect(doc).toMatchObject({ from_step: 1, parent_session_id: 'ag' });
    const id = doc.fork_session_id as string;
    const wt = doc.fork_worktree as string;

    const a = await cliInProcess(['append', id, '--root', wt, '--prompt', 'in the fork'], { cwd: root });
    expect(a.code).toBe(0);
    expect(a.stdout).toContain(`snapshot   ${snap(wt, id, 2)}`);
    expect((await cliInProcess(['verify', id, '--root', wt])).code).toBe(0);
    const ns = await cliInProcess(['append', id, '--root', wt, '--prompt', 'no snap', '--no-snapshot']);
    expect(ns.code).toBe(0);
    expect(ns.stdout).not.toContain('snapshot');
    expect(git(root, ['for-each-ref', '--format=%(refname)', snap(wt, id, 3)])).toBe('');

    const t = await cliInProcess(['forks'], { cwd: root });
    expect(t.code).toBe(0);
    expect(t.stdout).toContain(`ag\n└── ${id}  "cli"  from step 1  +2 steps since  files of step 1\n`);
    expect(t.stdout).toContain(`branch   fork/main/${id}`);
    const tj = JSON.parse((await cliInProcess(['forks', '--json'], { cwd: root })).stdout) as {
      forks: { fork_session_id: string; steps_since: number; children: unknown[] }[];
    };
    expect(tj.forks).toHaveLength(1);
    expect(tj.forks[0]).toMatchObject({ fork_session_id: id, steps_since: 2, children: [] });

    const bad = cli(['fork', 'ag', '--from-step', '9'], { cwd: root });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^stepchain: .*step 9 is out of range/);
    expectNoStack(bad);
    expect((await cliInProcess(['fork', 'ag', '--from-step', 'x'], { cwd: root })).code).toBe(2);

    writeFiles(wt, { 'README.md': 'dirty\n' });
    const refused = await cliInProcess(['fork', 'rm', id], { cwd: root });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/uncommitted changes/);
    const rm = await cliInProcess(['fork', 'rm', id, '--force', '--json'], { cwd: root });
    expect(rm.code).toBe(0);
    expect(JSON.parse(rm.stdout)).toMatchObject({ fork_session_id: id, removed_snapshot_refs: 3 });
    expect((await cliInProcess(['forks'], { cwd: root })).stdout.trim()).toBe('no forks');
    const notRepo = await cliInProcess(['fork', 'ag', '--root', tmp]);
    expect(notRepo.code).toBe(2);
  });

  test('two forks created at the same time by two processes both succeed with distinct ids and branches', async () => {
    const root = recordedRepo();
    const run = (): Promise<{ code: number | null; stdout: string; stderr: string }> =>
      new Promise((resolve) => {
        const p = spawn(process.execPath, [cliPath, 'fork', 'ag', '--from-step', '1', '--json'], {
          cwd: root,
          env: ENV,
        });
        let stdout = '';
        let stderr = '';
        p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        p.on('close', (code) => resolve({ code, stdout, stderr }));
      });
    const results = await Promise.all([run(), run(), run()]);
    for (const r of results) expect(r).toMatchObject({ code: 0, stderr: '' });
    const docs = results.map(
      (r) => JSON.parse(r.stdout) as { fork_session_id: string; fork_branch: string; fork_worktree: string },
    );
    expect(new Set(docs.map((d) => d.fork_session_id)).size).toBe(3);
    expect(new Set(docs.map((d) => d.fork_branch)).size).toBe(3);
    for (const d of docs) {
      expect(readFileSync(path.join(d.fork_worktree, 'src', 'calc.py'), 'utf8')).toBe(CALC[1]);
      expect(git(d.fork_worktree, ['rev-parse', '--abbrev-ref', 'HEAD'])).toBe(d.fork_branch);
      expect(verifyJournalFile(journalFile(d.fork_worktree, d.fork_session_id))).toMatchObject({ ok: true, steps: 2 });
    }
    expect(flattenForks(await listForks(root))).toHaveLength(3);
  });
});

describe('audit', () => {
  test('a fork is mirrored into the audit chain as replay.fork', async () => {
    const root = recordedRepo();
    const env = { ...process.env, STEPCHAIN_AUDIT: 'on', STEPCHAIN_AUDIT_KEY_PATH: path.join(tmp, `audit-${n++}.key`) };
    const r = await createFork({ env, root, sessionId: 'ag', fromStep: 1 });
    expect(r.warnings).toEqual([]);
    const { readdirSync } = await import('node:fs');
    const dir = path.join(root, '.sdd', 'audit');
    const entries = readdirSync(dir)
      .filter((f) => f.endsWith('.jsonl'))
      .flatMap((f) =>
        readFileSync(path.join(dir, f), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>),
      );
    const fork = entries.filter((e) => e.event_type === 'replay.fork');
    expect(fork).toHaveLength(1);
    expect(fork[0]).toMatchObject({
      resource_type: 'session',
      resource_id: r.fork_session_id,
      details: {
        parent: 'ag',
        child: r.fork_session_id,
        from_step: 1,
        parent_step_hash: r.parent_step_hash,
        branch: r.fork_branch,
      },
    });
  });
});

describe('a repository whose path holds a newline', () => {
  test('fork and the fork tree read worktree paths whole (NUL-separated), and the terminal shows them on one line', async () => {
    const root = initRepo(path.join(tmp, 'with\nnewline'), { 'src/calc.py': CALC[0]!, 'README.md': 'calc\n' });
    for (let i = 0; i < 2; i++) {
      writeFiles(root, { 'src/calc.py': CALC[i]! });
      expect(recordStep(journalDir(root, 'ag'), { prompt: `step ${i}` }, { env: ENV, root }).warnings).toEqual([]);
    }
    const r = await createFork({ env: ENV, root, sessionId: 'ag', fromStep: 0 });
    expect(r.fork_worktree.startsWith(`${root}/`)).toBe(true);
    expect(readFileSync(path.join(r.fork_worktree, 'src', 'calc.py'), 'utf8')).toBe(CALC[0]);
    const [node] = flattenForks(await listForks(root));
    expect(node).toMatchObject({ fork_session_id: r.fork_session_id, worktree: r.fork_worktree, missing: false });
    const h = await cliInProcess(['forks', '--root', root], { env: ENV });
    expect(h.code).toBe(0);
    expect(h.stdout).toContain(`worktree ${r.fork_worktree.replace('\n', '\\n')}\n`);
  });
});
