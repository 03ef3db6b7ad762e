/**
 * Forks never lose recorded work and never leave what the tool cannot see
 * (docs/fork.md, "Removing a fork" and "Interrupted creation"): `fork rm`
 * refuses steps recorded since the fork point and a live writer, appends to a
 * removed fork are refused (a tombstone), and a `fork` killed at any stage is
 * listed and removed. Real repositories, the built CLI, real SIGKILLs at
 * deterministic points (STEPCHAIN_TEST_PAUSE, src/util/pause.ts). The commands
 * whose logic is the point run in this process (`cliInProcess`, the code the
 * built CLI bundles); real processes stay where the process is the point: the
 * writers and the fork creations that are killed, the appends racing a removal,
 * a removal run from inside the fork, a shell left in the removed directory, and
 * the first refusal (exit code and stderr of the real CLI).
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { journalDir, journalFile, verifyJournalFile } from '../src/journal';
import { recordStep } from '../src/record';
import { cli, expectNoStack } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { initRepo, repoState, writeFiles } from './helpers/git';
import { cliPath } from './helpers/paths';
import { cliPaused } from './helpers/proc';
import { tempDir } from './helpers/tmp';

const tmp = tempDir('stepchain-forksafe-');
const ENV = { STEPCHAIN_AUDIT: 'off', STEPCHAIN_CHECKPOINT_KEY_PATH: path.join(tmp, 'checkpoint.key') };
let n = 0;

/** A repository with a three-step run of agent `ag` (with per-step snapshots). */
function recordedRepo(): string {
  // Recorded once (~25 git processes) and copied into each test: snapshot refs are per journal, not per path, so a
  // copy is the same project; its checkpoint vouches for another inode, so the next reader walks the journal in full.
  template ??= recordRepo(path.join(tmp, 'template'));
  const root = path.join(tmp, `repo${n++}`);
  cpSync(template, root, { recursive: true, verbatimSymlinks: true });
  return root;
}
let template: string | undefined;

function recordRepo(root: string): string {
  initRepo(root, { 'src/calc.py': 'v0\n' });
  for (let i = 0; i < 3; i++) {
    writeFiles(root, { 'src/calc.py': `v${i}\n` });
    expect(recordStep(journalDir(root, 'ag'), { prompt: `step ${i}` }, { env: ENV, root }).warnings).toEqual([]);
  }
  return root;
}

async function fork(root: string): Promise<{ id: string; worktree: string }> {
  const r = await sc(['fork', 'ag', '--from-step', '1', '--root', root, '--json']);
  expect(r.code).toBe(0);
  const doc = JSON.parse(r.stdout) as { fork_session_id: string; fork_worktree: string };
  return { id: doc.fork_session_id, worktree: doc.fork_worktree };
}

/** `stepchain <args>` in this process, with the file's environment. */
const sc = (args: string[], o: { cwd?: string } = {}) => cliInProcess(args, { ...o, env: ENV });
const appendTo = (id: string, root: string, extra: string[] = []) =>
  sc(['append', id, '--root', root, '--no-snapshot', ...extra]);
const forksJson = async (root: string) =>
  JSON.parse((await sc(['forks', '--root', root, '--json'])).stdout) as {
    forks: { fork_session_id: string; incomplete: boolean; creator_pid: number | null; children: unknown[] }[];
  };

describe('fork rm keeps recorded work', () => {
  test('refuses a fork with steps recorded since the fork point; --force removes it and leaves a tombstone that refuses later appends', async () => {
    const root = recordedRepo();
    const { id, worktree } = await fork(root);
    for (let i = 0; i < 2; i++) expect((await appendTo(id, worktree)).code).toBe(0);
    const refused = cli(['fork', 'rm', id, '--root', root], { env: ENV });
    expect(refused.code).toBe(1);
    expectNoStack(refused);
    expect(refused.stderr).toMatch(/2 steps were recorded since the fork point .*use --force/);
    expect(verifyJournalFile(journalFile(worktree, id))).toMatchObject({ ok: true, steps: 4 });

    const forced = await sc(['fork', 'rm', id, '--force', '--root', root, '--json']);
    expect(forced.code).toBe(0);
    const doc = JSON.parse(forced.stdout) as Record<string, unknown>;
    const tombstone = path.join(root, '.sdd', 'runtime', 'tombstones', `${id}.json`);
    expect(doc).toMatchObject({ fork_session_id: id, steps: 4, steps_since: 2, tombstone, incomplete: false });
    expect(JSON.parse(readFileSync(tombstone, 'utf8'))).toMatchObject({ fork_session_id: id, steps: 4, forced: true });
    expect(existsSync(worktree)).toBe(false);

    // Appending to the removed fork, into its old worktree or by its id in the parent: refused, nothing created.
    for (const at of [worktree, root]) {
      const r = await appendTo(id, at);
      expect(r.code).toBe(1);
      expectNoStack(r);
      expect(r.stderr).toContain(`fork ${id} was removed`);
      expect(r.stderr).toContain(tombstone);
    }
    expect(existsSync(worktree)).toBe(false);
    expect(existsSync(journalDir(root, id))).toBe(false);
  });

  test('an append by a live fork id in the parent (from a subdirectory too) is refused, naming the fork journal: no second chain of that name', async () => {
    const root = recordedRepo();
    const { id, worktree } = await fork(root);
    const forkJournal = journalFile(worktree, id);
    for (const cwd of [root, path.join(root, 'src')]) {
      const r = await sc(['append', id, '--no-snapshot', '--prompt', 'x'], { cwd });
      expect(r.code).toBe(2); // a usage error: the right place to record is named
      expectNoStack(r);
      expect(r.stderr).toContain(`${id} is a fork of this project, whose journal is ${forkJournal}`);
    }
    expect(existsSync(journalDir(root, id))).toBe(false);
    // From inside the fork's worktree (a subdirectory too), the id is its own journal.
    expect((await sc(['append', id, '--no-snapshot'], { cwd: path.join(worktree, 'src') })).code).toBe(0);
    expect(verifyJournalFile(forkJournal)).toMatchObject({ ok: true, steps: 3 });
  });

  test('fork rm run from inside the fork itself removes it; a command then run in the vanished directory names the tombstone', async () => {
    const root = recordedRepo();
    const { id, worktree } = await fork(root);
    const inside = path.join(worktree, 'src');
    const r = cli(['fork', 'rm', id], { env: ENV, cwd: inside });
    expectNoStack(r);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(existsSync(worktree)).toBe(false);
    expect(spawnSync('git', ['-C', root, 'worktree', 'list'], { encoding: 'utf8' }).stdout).not.toContain(id);
    // A shell left in the removed directory: node's cwd() fails there, so the process starts elsewhere with PWD set.
    const tombstone = path.join(root, '.sdd', 'runtime', 'tombstones', `${id}.json`);
    for (const [args, code] of [
      [['append', id, '--no-snapshot'], 2],
      [['verify', id, '--json'], 2],
      [['hook', 'claude'], 1], // never 2 from a hook: Claude Code would read it as "block"
    ] as [string[], number][]) {
      const s = spawnSync(
        'sh',
        ['-c', `mkdir -p "$D" && cd "$D" && rm -r "$W" && exec "$0" "$@"`, process.execPath, cliPath, ...args],
        { env: { ...process.env, ...ENV, D: inside, W: worktree }, encoding: 'utf8', input: '{}' },
      );
      expect(s.status).toBe(code);
      expect(s.stderr).toBe(
        `stepchain: the current directory ${inside} no longer exists (fork ${id} was removed: tombstone ${tombstone}); cd to one that does\n`,
      );
      if (args.includes('--json')) expect(JSON.parse(s.stdout)).toMatchObject({ ok: false, error: { exit_code: 2 } });
    }
    expect(existsSync(worktree)).toBe(false);
  });

  test('a fork with nothing recorded since the fork point is removed without --force', async () => {
    const root = recordedRepo();
    const { id, worktree } = await fork(root);
    const r = await sc(['fork', 'rm', id, '--root', root, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ steps: 2, steps_since: 0 });
    expect(existsSync(worktree)).toBe(false);
  });

  /**
   * The fork's session file lies in the worktree its agent writes: raising its `from_step` (or pointing it at another
   * parent) once hid the agent's steps from the refusal above. What is the fork's own is what its journal does not
   * share with the parent's journal (under the parent's .sdd); the session file's claim is only compared, and a
   * disagreement is refused.
   */
  test.each([
    // The parent's journal says steps 0..1 are inherited: its 2 own steps.
    ['from_step raised past its steps', { from_step: 3 }, 2],
    // No parent journal to compare with: every step counts as its own (fail closed).
    ['parent_session_id pointed away', { parent_session_id: 'nobody', from_step: 3 }, 4],
  ])('a session file rewritten by the fork (%s) does not hide its steps', async (_what, edit, own) => {
    const root = recordedRepo();
    const { id, worktree } = await fork(root);
    for (let i = 0; i < 2; i++) expect((await appendTo(id, worktree)).code).toBe(0);
    const file = path.join(worktree, '.sdd', 'runtime', 'sessions', `${id}.json`);
    const session = JSON.parse(readFileSync(file, 'utf8')) as { fork: Record<string, unknown> };
    Object.assign(session.fork, edit);
    writeFileSync(file, JSON.stringify(session));

    const listed = JSON.parse((await sc(['forks', '--root', root, '--json'])).stdout) as {
      forks: { steps_since: number; fork_point_disputed: string | null }[];
    };
    expect(listed.forks[0]).toMatchObject({ steps_since: own, fork_point_disputed: expect.stringContaining('step 3') });
    const r = await sc(['fork', 'rm', id, '--root', root]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/step 3.*nothing was removed \(use --force/);
    expect(existsSync(worktree)).toBe(true);
    expect(verifyJournalFile(journalFile(worktree, id))).toMatchObject({ ok: true, steps: 4 });
  });

  test('refuses while a writer holds the fork journal lock, naming it', async () => {
    const root = recordedRepo();
    const { id, worktree } = await fork(root);
    const writer = await cliPaused(['append', id, '--root', worktree, '--no-snapshot'], 'journal:after-write', {
      env: ENV,
    });
    try {
      const r = await sc(['fork', 'rm', id, '--root', root]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        new RegExp(`a writer is recording into it \\(its journal lock is held by pid ${writer.pid} `),
      );
      expect(existsSync(worktree)).toBe(true);
    } finally {
      await writer.kill();
    }
    // The killed writer's row is a step since the fork point: still refused, for that reason.
    expect((await sc(['fork', 'rm', id, '--root', root])).stderr).toMatch(/1 step was recorded since the fork point/);
    expect((await sc(['fork', 'rm', id, '--force', '--root', root])).code).toBe(0);
  });

  test('with appends running: without --force nothing is lost; with --force later appends are refused and start no new chain', async () => {
    const root = recordedRepo();
    const { id, worktree } = await fork(root);
    /**
     * A recorder appending to the fork in a loop, one CLI process per step, until `stop` exists, then `after` more
     * (appends that start only once the removal is over); resolves with each exit code. Stopped by the test rather
     * than after a fixed count: the removal still runs among appends, and the appends after it are certain to
     * follow it (a fixed count of 12 spent most of this test's CLI processes on appends nobody waited for).
     */
    const recorder = (stop: string, after: number): { codes: number[]; done: Promise<void> } => {
      const codes: number[] = [];
      const child = spawn(
        'sh',
        [
          '-c',
          `while [ ! -e "$S" ]; do "$0" "$@"; echo "rc=$?"; done; i=0; while [ $i -lt ${after} ]; do "$0" "$@"; echo "rc=$?"; i=$((i+1)); done`,
          process.execPath,
          cliPath,
          'append',
          id,
          '--root',
          worktree,
          '--no-snapshot',
        ],
        { env: { ...process.env, ...ENV, S: stop }, stdio: ['ignore', 'pipe', 'ignore'] },
      );
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        codes.length = 0;
        for (const m of out.matchAll(/rc=([0-9]+)/g)) codes.push(Number(m[1]));
      });
      return { codes, done: new Promise((resolve) => child.on('exit', () => resolve())) };
    };
    const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

    const stop1 = path.join(tmp, `stop${n++}`);
    let rec = recorder(stop1, 2);
    while (rec.codes.length < 3) await sleep(20);
    const refused = cli(['fork', 'rm', id, '--root', root], { env: ENV });
    expect(refused.code).toBe(1);
    writeFileSync(stop1, '');
    await rec.done;
    expect(rec.codes.length).toBeGreaterThanOrEqual(5);
    expect(rec.codes).toEqual(Array(rec.codes.length).fill(0));
    expect(verifyJournalFile(journalFile(worktree, id))).toMatchObject({ ok: true, steps: 2 + rec.codes.length });

    const stop2 = path.join(tmp, `stop${n++}`);
    rec = recorder(stop2, 2);
    while (rec.codes.length < 3) await sleep(20);
    expect(cli(['fork', 'rm', id, '--force', '--root', root], { env: ENV }).code).toBe(0);
    writeFileSync(stop2, '');
    await rec.done;
    // Some appends landed before the removal; none succeeded after the first refusal (the last two came after it).
    const firstRefused = rec.codes.findIndex((c) => c !== 0);
    expect(firstRefused).toBeGreaterThanOrEqual(3);
    expect(firstRefused).toBeLessThanOrEqual(rec.codes.length - 2);
    expect(rec.codes.slice(firstRefused).every((c) => c !== 0)).toBe(true);
    expect(existsSync(worktree)).toBe(false);
  });
});

describe('a fork killed at any stage of its creation is listed and removable', () => {
  test.each([
    'fork:after-intent',
    'fork:after-worktree',
    'fork:after-journal',
    'fork:after-session',
    'fork:after-refs',
  ])('killed at %s', async (stage) => {
    const root = recordedRepo();
    const before = repoState(root);
    const creator = await cliPaused(['fork', 'ag', '--from-step', '1', '--root', root], stage, { env: ENV });
    // A paused creator outlives the test if an assertion fails before it is killed: killed then, in finally.
    let killed = false;
    try {
      await whileCreating();
    } finally {
      if (!killed) await creator.kill();
    }
    async function whileCreating(): Promise<void> {
      let listed = (await forksJson(root)).forks;
      expect(listed).toHaveLength(1);
      const id = listed[0]!.fork_session_id;
      expect(listed[0]).toMatchObject({ incomplete: true, creator_pid: creator.pid });
      // Still being created: not removed without --force.
      const busy = await sc(['fork', 'rm', id, '--root', root]);
      expect(busy.code).toBe(1);
      expect(busy.stderr).toMatch(new RegExp(`being created right now \\(pid ${creator.pid}\\)`));

      await creator.kill();
      killed = true;
      listed = (await forksJson(root)).forks;
      expect(listed).toEqual([
        expect.objectContaining({
          fork_session_id: id,
          incomplete: true,
          creator_pid: null,
          session_file_missing: false,
        }),
      ]);
      const drawn = await sc(['forks', '--root', root]);
      expect(drawn.stdout).toContain(`INCOMPLETE (creation interrupted; remove it: stepchain fork rm ${id})`);
      expect(drawn.stdout).not.toContain('SESSION FILE MISSING');

      const rm = await sc(['fork', 'rm', id, '--root', root, '--json']);
      expect(rm.code).toBe(0);
      expect(JSON.parse(rm.stdout)).toMatchObject({ fork_session_id: id, incomplete: true });
      expect((await forksJson(root)).forks).toEqual([]);
      // Everything the fork made is gone; only its tombstone stays.
      const after = repoState(root);
      expect({
        ...after,
        sdd: (after.sdd as string[]).filter((p) => !p.startsWith(`runtime${path.sep}tombstones`)),
      }).toEqual(before);
    }
  });
});
