import { appendFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { journalFile, readVerifiedJournal } from '../src/journal';
import { readRunJournalFile, runJournalFile } from '../src/runs';
import { cli } from './helpers/cli';
import { identifiedProject } from './helpers/record';
import { freshDir, tempDir } from './helpers/tmp';

// Attacks on the Gemini CLI hook's flush before the next model call (PreCompress), which starts a step's snapshot
// early (DeferredSnapshots.startEarly), before the pending calls are paired: real hook processes (dist/cli.js).

const tmp = tempDir('stepchain-gemini-early-');
const SID = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';

/** A project (a git repository) and its Gemini CLI chat file under the test's HOME. */
function session() {
  const root = identifiedProject(freshDir(tmp, 'p'));
  const home = freshDir(tmp, 'home');
  const chat = path.join(home, '.gemini', 'tmp', path.basename(root), 'chats', 'session-x.jsonl');
  mkdirSync(path.dirname(chat), { recursive: true });
  writeFileSync(chat, '');
  const env = { HOME: home, XDG_STATE_HOME: freshDir(tmp, 'state'), GEMINI_PROJECT_DIR: root };
  const payload = (event: string, extra: Record<string, unknown> = {}): string =>
    JSON.stringify({ session_id: SID, transcript_path: chat, cwd: root, hook_event_name: event, ...extra });
  const tool = (command: string): string =>
    payload('AfterTool', {
      tool_name: 'run_shell_command',
      tool_input: { command },
      tool_response: { llmContent: 'x' },
    });
  const turn = (id: string, command: string): void =>
    appendFileSync(
      chat,
      `${JSON.stringify({ id: `m-${id}`, type: 'gemini', model: 'g', toolCalls: [{ id, name: 'run_shell_command', args: { command } }] })}\n`,
    );
  const hook = (input: string, args: string[] = [], extra: Record<string, string> = {}) =>
    cli(['hook', 'gemini', ...args], { cwd: root, input, env: { ...env, ...extra } });
  return { root, payload, tool, turn, hook };
}

/** Every file under the repository's object store. */
function objectFiles(root: string): string[] {
  return readdirSync(path.join(root, '.git', 'objects'), { recursive: true, encoding: 'utf8' }).filter((n) =>
    /^[0-9a-f]{2}[/\\][0-9a-f]{38}$/.test(n),
  );
}

test('--no-snapshot: the flush before the next model call runs no git add and writes nothing into .git', () => {
  const s = session();
  expect(s.hook(s.tool('touch a'), ['--no-snapshot']).code).toBe(0);
  writeFileSync(path.join(s.root, 'a.txt'), 'an untracked file\n');
  s.turn('call_1', 'touch a');
  const objects = objectFiles(s.root);
  const trace = path.join(freshDir(tmp, 'trace'), 'git.trace');
  const r = s.hook(s.payload('PreCompress', { trigger: 'auto' }), ['--no-snapshot'], { GIT_TRACE: trace });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(readVerifiedJournal(journalFile(s.root, `gemini-${SID}`)).steps).toBe(1);
  // Before the early snapshot, a hook told to take none started no git at all; it ran `git add -A` of the work tree
  // (a FIFO where git reads made the call wait out the 30 s snapshot timeout) and left a.txt's blob in .git.
  let traced = '';
  try {
    traced = readFileSync(trace, 'utf8');
  } catch {
    /* no git started: no trace */
  }
  expect(traced).not.toMatch(/ add /);
  expect(objectFiles(s.root)).toEqual(objects);
});

/**
 * A session with one step recorded and one call pending whose journal no longer verifies (its step edited), the
 * pending call's id one a writer may escape: the journal is then read step by step, and the flush throws there.
 */
function tamperedSession(): ReturnType<typeof session> {
  const s = session();
  expect(s.hook(s.tool('touch a')).code).toBe(0);
  s.turn('call/1', 'touch a');
  expect(s.hook(s.payload('PreCompress', { trigger: 'auto' })).code).toBe(0);
  expect(s.hook(s.tool('touch b')).code).toBe(0);
  s.turn('call/2', 'touch b');
  const file = journalFile(s.root, `gemini-${SID}`);
  writeFileSync(file, readFileSync(file, 'utf8').replace('"model":"g"', '"model":"h"'));
  return s;
}

test('AfterTool whose flush of earlier calls fails: its own call is still kept pending, never lost', () => {
  const s = tamperedSession();
  const r = s.hook(s.tool('touch c'));
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/step_hash_mismatch/);
  // The failure is said, and this call kept: it was dropped with the failure (at e25dc12 too), only `touch b` left.
  const pending = path.join(s.root, '.sdd', 'runtime', 'gemini', SID, 'pending');
  const kept = readdirSync(pending).map(
    (n) => JSON.parse(readFileSync(path.join(pending, n), 'utf8')).tool_input.command,
  );
  expect(kept.sort()).toEqual(['touch b', 'touch c']);
});

test('AfterAgent whose final flush fails: the stop event is still recorded in the run journal', () => {
  const s = tamperedSession();
  const r = s.hook(s.payload('AfterAgent', { prompt: 'p', prompt_response: 'done' }));
  expect(r.stderr).toMatch(/AfterAgent: .*step_hash_mismatch/);
  // It was dropped with the failure (at e25dc12 too): no run journal at all.
  const run = readRunJournalFile(runJournalFile(s.root, `gemini-${SID}`));
  expect(run.ok && run.entries.map((e) => e.row.event)).toContain('stop');
});
