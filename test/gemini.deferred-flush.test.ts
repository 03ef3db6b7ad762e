import { appendFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { handleGeminiHook } from '../src/agents/gemini';
import { DeferredSnapshots } from '../src/record';
import { readRunJournalFile, runJournalFile } from '../src/runs';
import { identifiedProject } from './helpers/record';
import { freshDir, tempDir } from './helpers/tmp';

// Gemini CLI's hook records its pending calls under a flush lock, so that two hook calls (parallel tool calls) never
// record the same calls, and a call that finds the lock held leaves them to a later one. A step's changes are told
// against the previous step's snapshot: a hook call that handed its snapshots over to finish after the lock was
// released (`deferSnapshots`, as the hook command does) let the next call record a step whose previous snapshot was
// not written yet, and that step was told against the start commit: it claimed every change of the session again.

const tmp = tempDir('stepchain-gemini-deferred-');
const SID = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';

test('a flush whose snapshots are still finishing: the next hook call tells its step against the one before', async () => {
  const root = identifiedProject(freshDir(tmp, 'p'));
  const home = freshDir(tmp, 'home');
  const state = freshDir(tmp, 'state');
  mkdirSync(path.join(home, '.gemini'), { recursive: true });
  writeFileSync(path.join(root, 'new.txt'), 'n\n');
  const env = { ...process.env, STEPCHAIN_AUDIT: 'off', HOME: home, XDG_STATE_HOME: state, GEMINI_PROJECT_DIR: root };
  const payload = (event: string, extra: Record<string, unknown> = {}): Buffer =>
    Buffer.from(
      JSON.stringify({
        session_id: SID,
        transcript_path: path.join(home, '.gemini', 'tmp', 'p', 'chats', 'session-none.jsonl'),
        cwd: root,
        hook_event_name: event,
        timestamp: '2026-12-03T00:00:00.000Z',
        ...extra,
      }),
    );
  const tool = (command: string): Buffer =>
    payload('AfterTool', {
      tool_name: 'run_shell_command',
      tool_input: { command },
      tool_response: { llmContent: 'x' },
    });
  const end = payload('AfterAgent', { prompt: 'p', prompt_response: 'done' });
  // Two hook processes, the second while the first's snapshots are still finishing.
  const first = new DeferredSnapshots();
  const second = new DeferredSnapshots();
  expect(handleGeminiHook(tool('ls 1'), { env, deferSnapshots: first }).errors).toEqual([]);
  expect(handleGeminiHook(end, { env, deferSnapshots: first }).recorded).toContain('step 0');
  expect(handleGeminiHook(tool('ls 2'), { env, deferSnapshots: second }).errors).toEqual([]);
  const b = handleGeminiHook(end, { env, deferSnapshots: second });
  await second.settled();
  await first.settled();
  // Either step 1 is recorded against step 0 (nothing changed: no row), or it is left pending to a later call.
  const run = readRunJournalFile(runJournalFile(root, `gemini-${SID}`));
  expect(run.ok).toBe(true);
  const seqs = run.ok
    ? run.entries.filter((e) => e.row.event === 'step_changes').map((e) => e.row.payload.get('seq'))
    : [];
  expect(seqs).toEqual([0]);
  expect(b.warnings.filter((w) => !/recorded with id null/.test(w))).toEqual([]);
});

/** A project, Gemini CLI's home with an empty chat file, and payloads naming both. */
function chatSession(name: string) {
  const root = identifiedProject(freshDir(tmp, name));
  const home = freshDir(tmp, `home-${name}`);
  const state = freshDir(tmp, `state-${name}`);
  const chat = path.join(home, '.gemini', 'tmp', name, 'chats', 'session-x.jsonl');
  mkdirSync(path.dirname(chat), { recursive: true });
  writeFileSync(chat, '');
  const env = { ...process.env, STEPCHAIN_AUDIT: 'off', HOME: home, XDG_STATE_HOME: state, GEMINI_PROJECT_DIR: root };
  const payload = (event: string, extra: Record<string, unknown> = {}): Buffer =>
    Buffer.from(
      JSON.stringify({
        session_id: SID,
        transcript_path: chat,
        cwd: root,
        hook_event_name: event,
        timestamp: '2026-12-03T00:00:00.000Z',
        ...extra,
      }),
    );
  return { root, chat, env, payload };
}

test('a flush before the next model call hands its snapshots over and holds the lock until they are written', async () => {
  const { root, chat, env, payload } = chatSession('q');
  const call = (command: string) => ({
    tool_name: 'run_shell_command',
    tool_input: { command },
    tool_response: { llmContent: 'x' },
  });
  const turn = (id: string, command: string) =>
    `${JSON.stringify({ id: `m-${id}`, type: 'gemini', model: 'g', toolCalls: [{ id, name: 'run_shell_command', args: { command } }] })}\n`;
  const lock = path.join(root, '.sdd', 'runtime', 'gemini', SID, 'flush.lock');
  const changes = () => {
    const run = readRunJournalFile(runJournalFile(root, `gemini-${SID}`));
    if (!run.ok) throw new Error('the run journal does not verify');
    return run.entries
      .filter((e) => e.row.event === 'step_changes')
      .map((e) => {
        const get = (v: unknown, k: string): unknown => (v instanceof Map ? v.get(k) : undefined);
        const paths = (e.row.payload.get('changes') as unknown[]).map((c) => get(c, 'path'));
        return { seq: e.row.payload.get('seq'), since: get(e.row.payload.get('since'), 'seq'), paths };
      });
  };

  // Call 1 changes a.txt; PreCompress (before the next model call) records it, its snapshot handed over.
  const first = new DeferredSnapshots();
  expect(handleGeminiHook(payload('AfterTool', call('touch a')), { env, deferSnapshots: first }).errors).toEqual([]);
  await first.settled();
  writeFileSync(path.join(root, 'a.txt'), 'a\n');
  appendFileSync(chat, turn('call_1', 'touch a'));
  const flushing = new DeferredSnapshots();
  const r1 = handleGeminiHook(payload('PreCompress', { trigger: 'auto' }), { env, deferSnapshots: flushing });
  expect(r1.recorded).toEqual(['step 0']);
  // Its snapshot is still being taken: the lock is held, and a hook call meanwhile leaves what is pending (call 2,
  // kept by then) alone.
  expect(existsSync(lock)).toBe(true);
  const second = new DeferredSnapshots();
  expect(handleGeminiHook(payload('AfterTool', call('touch b')), { env, deferSnapshots: second }).errors).toEqual([]);
  const meanwhile = new DeferredSnapshots();
  const r2 = handleGeminiHook(payload('PreCompress', { trigger: 'auto' }), { env, deferSnapshots: meanwhile });
  expect(r2.warnings).toEqual(['another hook call is recording the pending tool calls']);
  expect(r2.recorded).toEqual([]);
  await meanwhile.settled();
  await flushing.settled();
  await second.settled();
  expect(existsSync(lock)).toBe(false);
  expect(r1.warnings).toEqual([]);
  expect(changes()).toEqual([{ seq: 0, since: null, paths: ['a.txt'] }]);

  // Call 2 changes b.txt: its step is told against step 0's snapshot (b.txt only).
  writeFileSync(path.join(root, 'b.txt'), 'b\n');
  appendFileSync(chat, turn('call_2', 'touch b'));
  const third = new DeferredSnapshots();
  expect(
    handleGeminiHook(payload('PreCompress', { trigger: 'auto' }), { env, deferSnapshots: third }).recorded,
  ).toEqual(['step 1']);
  await third.settled();
  expect(changes()).toEqual([
    { seq: 0, since: null, paths: ['a.txt'] },
    { seq: 1, since: 0, paths: ['b.txt'] },
  ]);
  expect(existsSync(lock)).toBe(false);
});

test('a snapshot started before the pairing that no step takes is dropped: nothing of it is left', async () => {
  const { root, env, payload } = chatSession('r');
  const after = payload('AfterTool', {
    tool_name: 'run_shell_command',
    tool_input: { command: 'ls' },
    tool_response: { llmContent: 'x' },
  });
  const first = new DeferredSnapshots();
  expect(handleGeminiHook(after, { env, deferSnapshots: first }).errors).toEqual([]);
  await first.settled();
  // The transcript does not name the call yet: nothing is paired, the early snapshot is dropped.
  const flushing = new DeferredSnapshots();
  const r = handleGeminiHook(payload('PreCompress', { trigger: 'auto' }), { env, deferSnapshots: flushing });
  // It was started (its temporary index is there) before the pairing found nothing.
  expect(readdirSync(path.join(root, '.git')).filter((n) => n.startsWith('stepchain-snap-'))).toHaveLength(1);
  await flushing.settled();
  expect(r.recorded).toEqual([]);
  expect(r.errors).toEqual([]);
  expect(readdirSync(path.join(root, '.git')).filter((n) => n.startsWith('stepchain-'))).toEqual([]);
  expect(existsSync(path.join(root, '.git', 'refs', 'stepchain'))).toBe(false);
  expect(existsSync(path.join(root, '.sdd', 'runtime', 'gemini', SID, 'flush.lock'))).toBe(false);
  expect(readdirSync(path.join(root, '.sdd', 'runtime', 'gemini', SID, 'pending'))).toHaveLength(1);
});
