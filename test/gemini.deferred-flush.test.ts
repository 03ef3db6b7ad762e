import { mkdirSync, writeFileSync } from 'node:fs';
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
