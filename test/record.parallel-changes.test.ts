import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { journalFile } from '../src/journal';
import { readRunJournalFile, runJournalFile } from '../src/runs';
import { StepMarker } from '../src/git/step-markers';
import { snapshotRefFor } from '../src/git/snapshot';
import { hostTag } from '../src/util/proc';
import { cliInProcess } from './helpers/cli-in-process';
import { cliPath } from './helpers/paths';
import { identifiedProject } from './helpers/record';
import { freshDir, tempDir } from './helpers/tmp';

// Two processes record steps N and N+1 of one journal at once (an agent's parallel tool calls each run a hook). A
// step's changes are told against the previous step's snapshot: when N+1's snapshot was done before N's (its git add
// ended first), N+1 found no snapshot of N and was told against the commit the run started from, claiming every
// change of the session again, and its step_changes row came before N's.

const tmp = tempDir('stepchain-parallel-changes-');
const AGENT = 'agent-1';

/** A directory holding a `git` that takes `seconds` over an `add`, then runs the real one. */
function slowGitDir(seconds: number): string {
  const bin = freshDir(tmp, 'bin');
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  writeFileSync(
    path.join(bin, 'git'),
    `#!/bin/sh\nfor a in "$@"; do [ "$a" = add ] && sleep ${seconds}; done\nexec ${JSON.stringify(real)} "$@"\n`,
  );
  chmodSync(path.join(bin, 'git'), 0o755);
  return bin;
}

interface Told {
  seq: unknown;
  since: unknown;
  paths: unknown[];
}

function stepChanges(root: string, agent: string): Told[] {
  const run = readRunJournalFile(runJournalFile(root, agent));
  if (!run.ok) throw new Error(`the run journal does not verify: ${JSON.stringify(run)}`);
  const get = (v: unknown, k: string): unknown => (v instanceof Map ? v.get(k) : undefined);
  return run.entries
    .filter((e) => e.row.event === 'step_changes')
    .map((e) => ({
      seq: e.row.payload.get('seq'),
      since: get(e.row.payload.get('since'), 'seq'),
      paths: (e.row.payload.get('changes') as unknown[]).map((c) => get(c, 'path')),
    }));
}

/** Resolves once the journal holds `n` lines. */
async function rows(root: string, agent: string, n: number): Promise<void> {
  for (let waited = 0; waited < 30_000; waited += 20) {
    let lines = 0;
    try {
      lines = readFileSync(journalFile(root, agent), 'utf8').split('\n').length - 1;
    } catch {
      /* not yet */
    }
    if (lines >= n) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`the journal never held ${n} rows`);
}

const SID = '11111111-2222-4333-8444-555555555555';

/** One process of the CLI: its exit code and stderr; `input` on its stdin. */
function run(args: string[], env: NodeJS.ProcessEnv, input = ''): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliPath, ...args], { env, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stderr }));
    child.stdin.end(input);
  });
}

/** How each door records step `name` of journal `agent` in `root`: its command line and stdin. */
interface Door {
  agent: string;
  call(root: string, name: string): { args: string[]; input: string };
}

const APPEND: Door = {
  agent: AGENT,
  call: (root, name) => ({ args: ['append', AGENT, '--root', root, '--prompt', name], input: '' }),
};

/** Claude Code's PostToolUse hook (its snapshot's add runs while the step is appended, then finishes). */
const CLAUDE_HOOK: Door = {
  agent: `claude-${SID}`,
  call: (root, name) => ({
    args: ['hook', 'claude'],
    input: JSON.stringify({
      session_id: SID,
      transcript_path: path.join(root, '..', 'no-transcript', `${SID}.jsonl`),
      cwd: root,
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: `echo ${name}` },
      tool_response: { stdout: name, stderr: '' },
      tool_use_id: `toolu_${name}`,
    }),
  }),
};

test.each([
  ['append (snapshots in line)', APPEND],
  ['hook claude (snapshots finished after the append)', CLAUDE_HOOK],
])(
  'step N+1 recorded while step N is still being snapshot is told against N: %s',
  async (_what, door) => {
    const root = identifiedProject(freshDir(tmp, 'p'));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      STEPCHAIN_AUDIT: 'off',
      XDG_STATE_HOME: freshDir(tmp, 'state'),
      CLAUDE_PROJECT_DIR: root,
    };
    writeFileSync(path.join(root, 'first.txt'), '1\n');
    // Step 0: its git add takes two seconds.
    const slow = { ...env, PATH: `${slowGitDir(2)}${path.delimiter}${env.PATH ?? ''}` };
    const a = door.call(root, 'first');
    const first = run(a.args, slow, a.input);
    await rows(root, door.agent, 1);
    // Step 1 while step 0's add runs: nothing more changed.
    const b = door.call(root, 'second');
    const second = await run(b.args, env, b.input);
    const firstDone = await first;
    expect([firstDone.code, second.code]).toEqual([0, 0]);
    expect(firstDone.stderr + second.stderr).toBe('');
    // Only step 0 changed a file; step 1 is told against it (and claims nothing, so it has no row).
    expect(stepChanges(root, door.agent)).toEqual([{ seq: 0, since: null, paths: ['first.txt'] }]);
    expect(readdirSync(path.join(root, '.git')).filter((n) => n.startsWith('stepchain-'))).toEqual([]);
  },
  30_000,
);

/** The directory of the snapshot refs of journal `agent` in the project at `root`, as a marker names it. */
const refDir = (root: string, agent = AGENT): string => path.posix.dirname(snapshotRefFor(root, agent, 0)!);

/** A marker as the step writer of process `pid` (start ticks unknown) leaves it, naming `text`. */
function marker(root: string, pid: number, text: string, n = 0): string {
  const file = path.join(root, '.git', `stepchain-step-${pid}-x-${hostTag(hostname())}-${n}`);
  writeFileSync(file, text);
  return file;
}

describe('what a waiting step does not wait for', () => {
  // The steps here are appended through runCli in this process (`cliInProcess`, the code the bundle runs): what a
  // step waits for is the point, and the markers it looks at are other processes' (a marker of the process itself is
  // never waited for, and the test's own markers name other pids). The wait is synchronous, as a spawnSync of the bin
  // was. The steps written while another is under way stay real processes (the tests above and below).
  const setup = async () => {
    const root = identifiedProject(freshDir(tmp, 'w'));
    const env: NodeJS.ProcessEnv = { ...process.env, STEPCHAIN_AUDIT: 'off', XDG_STATE_HOME: freshDir(tmp, 'state') };
    writeFileSync(path.join(root, 'first.txt'), '1\n');
    // Step 0 without a snapshot: step 1 finds none to be told against.
    const r = await cliInProcess(['append', AGENT, '--root', root, '--prompt', 'first', '--no-snapshot'], { env });
    expect(r.code).toBe(0);
    return { root, env };
  };
  const second = async (root: string, env: NodeJS.ProcessEnv) => {
    const r = await cliInProcess(['append', AGENT, '--root', root, '--prompt', 'second'], { env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // Told against the commit the run started from: step 0 recorded no snapshot.
    expect(stepChanges(root, AGENT)).toEqual([{ seq: 1, since: null, paths: ['first.txt'] }]);
  };

  test('killed writers: their markers are removed, nothing waited for', async () => {
    const { root, env } = await setup();
    const gone = spawnSync('true').pid;
    const file = marker(root, gone, `${refDir(root)} 0\n`);
    const other = marker(root, gone, `${refDir(root, 'agent-2')} 7\n`, 1);
    await second(root, env);
    // Removed once looked at, whatever journal it named.
    expect([existsSync(file), existsSync(other)]).toEqual([false, false]);
  });

  test('a live writer that never finishes: waited for no longer than the snapshot timeout', async () => {
    const { root, env } = await setup();
    const hung = spawn('sleep', ['60']);
    try {
      const file = marker(root, hung.pid!, `${refDir(root)} 0\n`);
      await second(root, { ...env, STEPCHAIN_SNAPSHOT_TIMEOUT_MS: '1500' });
      expect(existsSync(file)).toBe(true); // a live writer's marker is its own to remove
    } finally {
      hung.kill();
    }
  });

  test('markers of other journals, of other steps, and files that are no marker: not waited for', async () => {
    const { root, env } = await setup();
    const hung = spawn('sleep', ['60']);
    try {
      marker(root, hung.pid!, `${refDir(root, 'agent-2')} 0\n`, 1);
      marker(root, hung.pid!, `${refDir(root)} 5\n`, 2);
      // The journal agent-1 of another project of the repository (another key), and the agent id alone.
      marker(root, hung.pid!, `refs/stepchain/snapshots/${AGENT}/j0123456789abcdef 0\n`, 5);
      marker(root, hung.pid!, `${AGENT} 0\n`, 6);
      symlinkSync('/dev/zero', path.join(root, '.git', `stepchain-step-${hung.pid!}-x-${hostTag(hostname())}-3`));
      execFileSync('mkfifo', [path.join(root, '.git', `stepchain-step-${hung.pid!}-x-${hostTag(hostname())}-4`)]);
      await second(root, { ...env, STEPCHAIN_SNAPSHOT_TIMEOUT_MS: '60000' });
    } finally {
      hung.kill();
    }
  });

  test('a marker that cannot be written: none, and the step is recorded as before', () => {
    expect(
      StepMarker.open(path.join(tmp, 'no-such-dir', '.git'), `refs/stepchain/snapshots/${AGENT}/j0`),
    ).toBeUndefined();
  });
});

/** The process groups `detached` started, killed after each test whatever it came to. */
const started = new Set<number>();
afterEach(() => {
  for (const pid of started)
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  started.clear();
});

/**
 * A process of the CLI in a process group of its own (its git, and the slow git's `sleep`, are killed with it):
 * `done` resolves with its exit code and stderr.
 */
function detached(
  args: string[],
  env: NodeJS.ProcessEnv,
): { stop(): void; stderr(): string; done: Promise<{ code: number | null; stderr: string }> } {
  const child = spawn(process.execPath, [cliPath, ...args], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  started.add(child.pid!);
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const done = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stderr: err })),
  );
  return {
    stop: () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    },
    stderr: () => err,
    done,
  };
}

/** The names of stepchain's files left in a git dir. */
const leftIn = (gitDir: string): string[] => readdirSync(gitDir).filter((n) => n.startsWith('stepchain-'));

describe('another journal of the same agent id in the repository', () => {
  // Journals are per project root (src/git/snapshot.ts, journalKey): a subdirectory holding its own .sdd/, or a linked
  // worktree, has a journal `agent-1` of its own, with refs of its own. Its steps never wait for the other's writers.
  test.each([
    [
      'a project in a subdirectory',
      (root: string): string => {
        const sub = path.join(root, 'sub');
        execFileSync('mkdir', ['-p', path.join(sub, '.sdd')]);
        return sub;
      },
    ],
    [
      'a linked worktree',
      (root: string): string => {
        const w = path.join(root, '..', `${path.basename(root)}-w`);
        execFileSync('git', ['worktree', 'add', '-q', w], { cwd: root });
        return w;
      },
    ],
  ])(
    "%s: a step whose previous step has no snapshot does not wait for the other journal's writer",
    async (_what, other) => {
      const root = identifiedProject(freshDir(tmp, 'x'));
      const second = other(root);
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        STEPCHAIN_AUDIT: 'off',
        XDG_STATE_HOME: freshDir(tmp, 'state'),
        // No wait here ends by the timeout: a wait is for the other writer to finish, which it never does.
        STEPCHAIN_SNAPSHOT_TIMEOUT_MS: '600000',
      };
      // The journal agent-1 of `root`: step 0's add never ends while this test runs.
      const slow = { ...env, PATH: `${slowGitDir(600)}${path.delimiter}${env.PATH ?? ''}` };
      const writer = detached(['append', AGENT, '--root', root, '--prompt', 'slow'], slow);
      try {
        await rows(root, AGENT, 1);
        // The journal agent-1 of the other project: step 0 without a snapshot, step 1 with one.
        const first = await cliInProcess(['append', AGENT, '--root', second, '--prompt', 'first', '--no-snapshot'], {
          env,
        });
        expect(first.code).toBe(0);
        writeFileSync(path.join(second, 'mine.txt'), 'mine\n');
        const r = await detached(['append', AGENT, '--root', second, '--prompt', 'second'], env).done;
        expect(r).toEqual({ code: 0, stderr: '' });
        expect(stepChanges(second, AGENT)).toEqual([
          { seq: 1, since: null, paths: [expect.stringMatching(/^(sub\/)?mine\.txt$/)] },
        ]);
      } finally {
        writer.stop();
      }
    },
    30_000,
  );
});

describe('what a killed writer leaves in the git dir', () => {
  // A writer killed before its append, or after its snapshot's ref but before its changes are written, leaves its
  // marker; no later step finds its previous snapshot missing, so none looks at the markers: the next snapshot taken
  // there removes it, as it removes the killed writers' temporary index directories.
  test.each([
    ['before its append (the journal lock held)', 'append:before-write', false],
    ['before its append (the journal lock held), in a linked worktree', 'append:before-write', true],
    ['after its snapshot, while its changes are written', 'run:after-write', false],
    ['after its snapshot, while its changes are written, in a linked worktree', 'run:after-write', true],
  ])(
    '%s: removed by the next step',
    async (_what, point, linked) => {
      const main = identifiedProject(freshDir(tmp, 'k'));
      let root = main;
      if (linked) {
        root = path.join(main, '..', `${path.basename(main)}-w`);
        execFileSync('git', ['worktree', 'add', '-q', root], { cwd: main });
      }
      const env: NodeJS.ProcessEnv = { ...process.env, STEPCHAIN_AUDIT: 'off', XDG_STATE_HOME: freshDir(tmp, 'state') };
      writeFileSync(path.join(root, 'a.txt'), 'a\n');
      expect((await cliInProcess(['append', AGENT, '--root', root, '--prompt', 's0'], { env })).code).toBe(0);
      writeFileSync(path.join(root, 'b.txt'), 'b\n');
      const killed = detached(['append', AGENT, '--root', root, '--prompt', 's1'], {
        ...env,
        STEPCHAIN_TEST_PAUSE: point,
      });
      try {
        for (let waited = 0; !killed.stderr().includes('paused at'); waited += 20) {
          if (waited > 20_000) throw new Error(`never paused: ${killed.stderr()}`);
          await new Promise((r) => setTimeout(r, 20));
        }
      } finally {
        killed.stop();
      }
      await killed.done; // reaped
      for (const i of [2, 3]) {
        writeFileSync(path.join(root, `${i}.txt`), `${i}\n`);
        const r = await cliInProcess(['append', AGENT, '--root', root, '--prompt', `s${i}`], { env });
        expect([r.code, r.stderr]).toEqual([0, '']);
      }
      const gitDirs = [
        path.join(main, '.git'),
        ...(linked
          ? readdirSync(path.join(main, '.git', 'worktrees')).map((w) => path.join(main, '.git', 'worktrees', w))
          : []),
      ];
      expect(gitDirs.flatMap(leftIn)).toEqual([]);
    },
    30_000,
  );
});

test('a marker not yet given its seq, or being given it, is waited for: the step after it is told against it', async () => {
  const root = identifiedProject(freshDir(tmp, 's'));
  const env: NodeJS.ProcessEnv = { ...process.env, STEPCHAIN_AUDIT: 'off', XDG_STATE_HOME: freshDir(tmp, 'state') };
  writeFileSync(path.join(root, 'first.txt'), '1\n');
  // Step 0's writer stops after its append, before its marker is given the seq (a slow disk, a descheduled process).
  const resume = path.join(root, '..', `${path.basename(root)}-resume`);
  const paused = { ...env, STEPCHAIN_TEST_PAUSE: 'marker:before-seq', STEPCHAIN_TEST_RESUME: resume };
  const writer = spawn(process.execPath, [cliPath, 'append', AGENT, '--root', root, '--prompt', 'first'], {
    env: paused,
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  started.add(writer.pid!);
  let said = '';
  writer.stderr.on('data', (d: Buffer) => (said += d.toString()));
  for (let waited = 0; !/paused at marker:before-seq/.test(said); waited += 20) {
    if (waited > 20_000) throw new Error(`the writer never paused: ${said}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  // Step 1 (nothing more changed) writes its snapshot, then waits for step 0's writer.
  const second = run(['append', AGENT, '--root', root, '--prompt', 'second'], env);
  let refs = '';
  for (let waited = 0; !/\/1$/m.test(refs); waited += 20) {
    if (waited > 20_000) throw new Error(`step 1's snapshot never came: ${refs}`);
    await new Promise((r) => setTimeout(r, 20));
    refs = execFileSync('git', ['-C', root, 'for-each-ref', '--format=%(refname)', 'refs/stepchain/'], {
      encoding: 'utf8',
    });
  }
  // Its changes are not told yet: it is waiting.
  expect(existsSync(runJournalFile(root, AGENT))).toBe(false);
  writeFileSync(resume, '');
  expect(await second).toEqual({ code: 0, stderr: '' });
  const code = await new Promise((r) => (writer.exitCode !== null ? r(writer.exitCode) : writer.on('exit', r)));
  expect(code).toBe(0);
  // Only step 0 changed a file; step 1 is told against it (and claims nothing, so it has no row).
  expect(stepChanges(root, AGENT)).toEqual([{ seq: 0, since: null, paths: ['first.txt'] }]);
}, 60_000);
