import { appendFileSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { journalFile, readVerifiedJournal } from '../src/journal';
import { cli } from './helpers/cli';
import { cliPaused } from './helpers/proc';
import { tempDir } from './helpers/tmp';
import { tearLastLine } from './helpers/torn-line';
import { geminiPayload, geminiSession, type GeminiSession } from './helpers/gemini-session';

// A review of the Gemini CLI hook's marks (src/agents/gemini/pending.ts, `markRecording`, `settleRecordings`): a
// pending payload is renamed `<name>.<seq>.recording` under the journal's lock before its row is written, and the
// next flush settles the mark from row `seq`. Each test here is a way a flush can be stopped or a mark found, and
// what must hold after the session's last flush: each call recorded once, with its id, nothing left pending.

const tmp = tempDir('stepchain-review-67g-');
const SID = 'dddddddd-bbbb-4ccc-8ddd-eeeeeeeeeeee';

const session = (name: string): GeminiSession => geminiSession(tmp, name, SID);
const payload = geminiPayload;
type Session = GeminiSession;

function afterTool(s: Session, command: string): string {
  return payload(s, 'AfterTool', {
    timestamp: '2026-12-03T00:00:00.000Z',
    tool_name: 'run_shell_command',
    tool_input: { command },
    tool_response: { llmContent: command },
  });
}

/** The transcript's line for a call: Gemini CLI writes it once the AfterTool hooks ran. */
function called(s: Session, id: string, command: string): void {
  appendFileSync(
    s.chat,
    `${JSON.stringify({ id: `m_${id}`, type: 'gemini', model: 'g', content: '', toolCalls: [{ id, name: 'run_shell_command', args: { command }, status: 'success' }] })}\n`,
  );
}

function hook(s: Session, input: string): string {
  const r = cli(['hook', 'gemini', '--no-snapshot'], { cwd: s.root, input, env: s.env });
  expect(r.code).toBe(0);
  return r.stderr;
}

const preCompress = (s: Session): string => payload(s, 'PreCompress', { trigger: 'auto' });
const afterAgent = (s: Session): string => payload(s, 'AfterAgent', { prompt: 'p', prompt_response: 'r' });

/** The session's steps, the chain verified: each call's id. */
function stepIds(s: Session): (string | null)[] {
  const read = readVerifiedJournal(journalFile(s.root, `gemini-${SID}`));
  return read.entries.map((e) => (e.row.tool_call as { id: string | null }).id);
}

const pendingDir = (s: Session): string => path.join(s.root, '.sdd', 'runtime', 'gemini', SID, 'pending');

// Killed (or the machine stopped) while its row was being written, a flush leaves the row torn: the journal's next
// append moves a torn tail aside and goes on. The mark left beside it had the next flush read the journal first,
// verified, and a torn tail does not verify: every flush of the session failed on it from then on, the append that
// would have repaired it never reached, and every tool call after it stayed pending.
test('a flush stopped while its row was written (a torn tail beside the mark): the next one repairs it and records the call', async () => {
  const s = session('torn');
  hook(s, afterTool(s, 'echo a'));
  called(s, 'call_0', 'echo a');
  hook(s, preCompress(s));
  hook(s, afterTool(s, 'echo b'));
  called(s, 'call_1', 'echo b');
  // Its row written but not yet synced: what a crash then leaves on disk is part of it.
  const killed = await cliPaused(['hook', 'gemini', '--no-snapshot'], 'append:before-fsync', {
    cwd: s.root,
    input: preCompress(s),
    env: s.env,
  });
  await killed.kill();
  expect(readdirSync(pendingDir(s))).toEqual([expect.stringMatching(/\.json\.1\.recording$/)]);
  tearLastLine(journalFile(s.root, `gemini-${SID}`), 40);
  const said = hook(s, preCompress(s));
  expect(said).toMatch(/torn/);
  expect(said).not.toMatch(/malformed_json/);
  hook(s, afterTool(s, 'echo c'));
  called(s, 'call_2', 'echo c');
  hook(s, afterAgent(s));
  expect(stepIds(s)).toEqual(['call_0', 'call_1', 'call_2']);
  expect(readdirSync(pendingDir(s))).toEqual([]);
});

// A mark the hook leaves unread (a link, a FIFO, a file past the payload bound: 14b9288) stays where it is, and with
// it anyPending's yes: every later hook call of the session flushes. Each one read the whole journal, verified, for
// that mark, to settle nothing: ~0.5 s more per hook call at 10,000 steps (AfterTool 44 -> 538 ms, PreCompress 150
// -> 650 ms, measured on the kept bench project), and a journal fault said by calls that had nothing to record.
test('a mark left unread (a link) has no hook call read the journal for it', () => {
  const s = session('unread');
  hook(s, afterTool(s, 'echo a'));
  called(s, 'call_0', 'echo a');
  hook(s, preCompress(s));
  symlinkSync(path.join(tmp, 'nowhere.json'), path.join(pendingDir(s), '000000000000000-x.json.0.recording'));
  // The journal made unreadable as a chain (its one row's hash altered): only a call that reads it can tell.
  const file = journalFile(s.root, `gemini-${SID}`);
  writeFileSync(file, readFileSync(file, 'utf8').replace(/"step_hash":"[0-9a-f]/, '"step_hash":"x'));
  const r = cli(['hook', 'gemini', '--no-snapshot'], { cwd: s.root, input: afterTool(s, 'echo b'), env: s.env });
  expect(r.stderr).not.toMatch(/000000\.jsonl/);
  expect(r.code).toBe(0);
  expect(readdirSync(pendingDir(s))).toHaveLength(2);
});
