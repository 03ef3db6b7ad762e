import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { addPending } from '../src/agents/gemini/pending';
import { cleanDeadTemps } from '../src/util/fs';
import { bootId } from '../src/util/proc';
import { cli, type CliResult } from './helpers/cli';
import { cliPaused, deadPid, nodeWithSources, spawnPaused, type Paused } from './helpers/proc';
import { repoRoot } from './helpers/paths';
import { identifiedProject } from './helpers/record';
import { freshDir, tempDir } from './helpers/tmp';

// Gemini CLI's flush lock (src/agents/gemini/pending.ts, `takeFlushLock`) is the project's lock (src/util/lock.ts,
// `tryLock`), taken without waiting by real hook processes (dist/cli.js). It used to be broken by its age alone (120 s):
// a slow holder's lock was taken by the next call, and the slow holder's release then removed the new holder's; two
// calls that both found a lock stale could both remove it and take it.

const tmp = tempDir('stepchain-gemini-lock-');
const SID = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';
const HELD = 'stepchain: hook gemini: warning: another hook call is recording the pending tool calls';

/** One project and session for the file: each test starts with no lock and leaves none. */
let root: string;
let env: Record<string, string>;
let lock: string;
let input: string;
let chat: string;
let n = 0;
beforeAll(() => {
  root = identifiedProject(freshDir(tmp, 'p'));
  const home = freshDir(tmp, 'home');
  chat = path.join(home, '.gemini', 'tmp', path.basename(root), 'chats', 'session-x.jsonl');
  mkdirSync(path.dirname(chat), { recursive: true });
  writeFileSync(chat, '');
  env = { HOME: home, XDG_STATE_HOME: freshDir(tmp, 'state'), GEMINI_PROJECT_DIR: root };
  lock = path.join(root, '.sdd', 'runtime', 'gemini', SID, 'flush.lock');
  // A tool call kept pending whose call the chat file never names: before the next model call, the hook takes the
  // flush lock to pair it, and records nothing (a hook call with nothing pending takes no lock: the last test).
  addPending(root, SID, Buffer.from(afterTool(SID)));
  input = JSON.stringify({
    session_id: SID,
    transcript_path: chat,
    cwd: root,
    hook_event_name: 'PreCompress',
    trigger: 'auto',
  });
  expect(hook().code).toBe(0);
});

const hook = (): CliResult => cli(['hook', 'gemini', '--no-snapshot'], { cwd: root, input, env });

/** An AfterTool payload of session `sid` whose call the (empty) chat file does not name. */
function afterTool(sid: string): string {
  return JSON.stringify({
    session_id: sid,
    transcript_path: chat,
    cwd: root,
    hook_event_name: 'AfterTool',
    timestamp: '2026-12-03T00:00:00.000Z',
    tool_name: 'run_shell_command',
    tool_input: { command: 'true' },
    tool_response: { llmContent: '' },
  });
}

/** A hook call that took the flush lock and holds it (paused there) until `go()`; `at`: a stage before that. */
async function holder(at = 'gemini:flush-locked'): Promise<Paused & { go: () => void }> {
  const resume = path.join(tmp, `resume-${n++}`);
  const p = await cliPaused(['hook', 'gemini', '--no-snapshot'], at, {
    cwd: root,
    input,
    env: { ...env, STEPCHAIN_TEST_RESUME: resume },
  });
  return { ...p, go: () => writeFileSync(resume, '') };
}

const held = (r: CliResult): void => {
  expect(r.code).toBe(0);
  expect(r.stderr).toBe(`${HELD}\n`);
};

test('a release after losing the lock leaves the new holder’s; a live holder keeps its lock however old', async () => {
  const a = await holder();
  let b: Awaited<ReturnType<typeof holder>> | undefined;
  try {
    expect(readFileSync(lock, 'utf8')).toMatch(new RegExp(`^${a.pid}\\b`));
    // The lock is lost (removed, as the age rule's takeover did) and taken by another call, which holds it.
    rmSync(lock);
    b = await holder();
    const theirs = readFileSync(lock, 'utf8');
    expect(theirs).toMatch(new RegExp(`^${b.pid}\\b`));
    // The first lets go: its release leaves the lock it no longer holds.
    a.go();
    expect(await a.exited()).toMatchObject({ code: 0 });
    expect(readFileSync(lock, 'utf8')).toBe(theirs);
    held(hook());
    // As old as a lock the age rule broke (120 s): its holder is alive, so it holds.
    const old = new Date(Date.now() - 3600_000);
    utimesSync(lock, old, old);
    held(hook());
    expect(readFileSync(lock, 'utf8')).toBe(theirs);
    b.go();
    expect(await b.exited()).toMatchObject({ code: 0 });
    expect(existsSync(lock)).toBe(false);
  } finally {
    await a.kill();
    await b?.kill();
  }
});

/** A lock left by a hook killed while it held it (its process gone), as old as the age rule wanted. */
function staleLock(): void {
  writeFileSync(lock, `${deadPid()} ${hostname()} n0 boot=${bootId()} lease=20000`);
  const old = new Date(Date.now() - 3600_000);
  utimesSync(lock, old, old);
}

test('two calls that find the lock stale: one breaks it and takes it, the other leaves it to that one', async () => {
  staleLock();
  // The first judged it stale and is breaking it (it holds the breaker's file), paused before it removes it.
  const a = await holder('lock:break');
  try {
    expect(existsSync(`${lock}.break`)).toBe(true);
    // The second finds it stale too: it neither breaks it nor takes it.
    held(hook());
    a.go();
    const done = await a.exited();
    expect(done.code).toBe(0);
    expect(done.stderr).not.toContain(HELD);
    expect(existsSync(lock)).toBe(false);
    expect(existsSync(`${lock}.break`)).toBe(false);
  } finally {
    await a.kill();
  }
});

test('hook calls racing for a stale lock: exactly one takes it, the others leave it to that one', async () => {
  staleLock();
  const resume = path.join(tmp, `resume-${n++}`);
  const racers = Array.from({ length: 4 }, () =>
    cliPaused(['hook', 'gemini', '--no-snapshot'], 'gemini:flush-locked', {
      cwd: root,
      input,
      env: { ...env, STEPCHAIN_TEST_RESUME: resume },
    }).then(
      (p) => ({ paused: p }),
      (e: Error) => ({ exited: e.message }),
    ),
  );
  // A racer that took the lock holds it, paused; the others have exited by then, saying it is held.
  const outcomes = await Promise.all(racers);
  const winners = outcomes.flatMap((o) => ('paused' in o ? [o.paused] : []));
  const losers = outcomes.flatMap((o) => ('exited' in o ? [o.exited] : []));
  try {
    expect(winners).toHaveLength(1);
    expect(losers).toEqual(Array.from({ length: 3 }, () => expect.stringContaining(HELD)));
    expect(readFileSync(lock, 'utf8')).toMatch(new RegExp(`^${winners[0]!.pid}\\b`));
  } finally {
    writeFileSync(resume, '');
  }
  for (const w of winners) expect(await w.exited()).toMatchObject({ code: 0 });
  expect(existsSync(lock)).toBe(false);
});

/** A writer of a pending payload killed between writing its temporary file and renaming it: what it left. */
async function killedPendingWriter(): Promise<string[]> {
  const pending = path.join(root, '.sdd', 'runtime', 'gemini', SID, 'pending');
  const before = existsSync(pending) ? readdirSync(pending) : [];
  const src = path.join(repoRoot, 'src', 'agents', 'gemini', 'pending');
  const p = await spawnPaused(
    nodeWithSources(
      `require(${JSON.stringify(src)}).addPending(${JSON.stringify(root)}, '${SID}', Buffer.from('{}'));`,
    ),
    'gemini:pending-staged',
  );
  await p.kill();
  return readdirSync(pending).filter((f) => !before.includes(f));
}

test('a pending payload’s temporary file left by a killed writer is named by the one rule, and removed by the next writer', async () => {
  const pending = path.join(root, '.sdd', 'runtime', 'gemini', SID, 'pending');
  // The rule every cleaner knows (src/util/fs.ts, tempPath): the project's cleanup alone recognises it as dead.
  const left = await killedPendingWriter();
  expect(left).toEqual([expect.stringMatching(/\.json\.[0-9]+-[0-9x]+-[0-9a-f]{8}\.[0-9a-f]+\.tmp$/)]);
  expect(cleanDeadTemps(pending)).toEqual(left);
  // The next payload's writer removes what killed writers left there: this rule's, and the name earlier releases gave.
  const again = await killedPendingWriter();
  const old = `000000000000001-${'0'.repeat(24)}-1-0a0b0c0d.json.${deadPid()}.0a0b0c0d.tmp`;
  writeFileSync(path.join(pending, old), '{}');
  const kept = addPending(root, SID, Buffer.from('{}'));
  expect(again).toHaveLength(1);
  expect(readdirSync(pending).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  expect(existsSync(kept)).toBe(true);
  rmSync(pending, { recursive: true });
});

test('a hook call with nothing pending takes no flush lock: one held is neither waited for nor said', () => {
  const sid = 'aaaaaaaa-bbbb-4ccc-8ddd-000000000002';
  const dir = path.join(root, '.sdd', 'runtime', 'gemini', sid);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Held by a live process (this one): a call that tried to take it would say so (HELD).
  const theirs = path.join(dir, 'flush.lock');
  const holder = `${process.pid} ${hostname()} n0 boot=${bootId()} lease=20000`;
  writeFileSync(theirs, holder);
  const preCompress = JSON.stringify({ ...JSON.parse(input), session_id: sid });
  const run = (payload: string): CliResult =>
    cli(['hook', 'gemini', '--no-snapshot'], { cwd: root, input: payload, env });
  // Before a model call, nothing pending; then a tool call, kept pending without a look at the lock.
  for (const r of [run(preCompress), run(afterTool(sid))]) expect(r).toMatchObject({ code: 0, stderr: '' });
  expect(readdirSync(path.join(dir, 'pending')).filter((f) => f.endsWith('.json'))).toHaveLength(1);
  // Now something is pending: the next call tries the lock, and leaves the call to its holder.
  held(run(preCompress));
  expect(readFileSync(theirs, 'utf8')).toBe(holder);
  rmSync(dir, { recursive: true });
});
