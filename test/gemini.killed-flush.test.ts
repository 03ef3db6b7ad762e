import { appendFileSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { journalFile, readVerifiedJournal } from '../src/journal';
import { cli } from './helpers/cli';
import { cliPaused } from './helpers/proc';
import { tempDir } from './helpers/tmp';
import { geminiPayload, geminiSession, type GeminiSession } from './helpers/gemini-session';

// A Gemini CLI hook call that turns pending tool calls into steps (src/agents/gemini/hook.ts, `flushPending`) can
// be killed anywhere (Gemini CLI stops a hook that outlives its timeout). Killed between a step's append and the
// removal of its pending payload, it used to leave the payload pending: the next flush found its call in the
// journal and left it there, and the session's last flush recorded it again with id null (the call twice, the
// second claiming the transcript did not name it). With two byte-identical payloads (parallel calls of the same
// command in one millisecond), the second call was paired with the first's stale payload and itself recorded with
// id null. Whatever the point of the kill, each call is recorded once, with its id.

const tmp = tempDir('stepchain-gemini-killed-');
const SID = 'cccccccc-bbbb-4ccc-8ddd-eeeeeeeeeeee';

const session = (name: string): GeminiSession => geminiSession(tmp, name, SID);
const payload = geminiPayload;
type Session = GeminiSession;

/** An AfterTool payload of `echo a`: the same bytes each time (the same millisecond, the same output). */
function afterTool(s: Session): string {
  return payload(s, 'AfterTool', {
    timestamp: '2026-12-03T00:00:00.000Z',
    tool_name: 'run_shell_command',
    tool_input: { command: 'echo a' },
    tool_response: { llmContent: 'a' },
  });
}

function hook(s: Session, input: string): string {
  const r = cli(['hook', 'gemini', '--no-snapshot'], { cwd: s.root, input, env: s.env });
  expect(r.code).toBe(0);
  return r.stderr;
}

/** The session's steps, the chain verified: each call's id. */
function stepIds(s: Session): (string | null)[] {
  const read = readVerifiedJournal(journalFile(s.root, `gemini-${SID}`));
  return read.entries.map((e) => (e.row.tool_call as { id: string | null }).id);
}

const pendingDir = (s: Session): string => path.join(s.root, '.sdd', 'runtime', 'gemini', SID, 'pending');

describe.each([
  ['after its step was appended', 'gemini:step-appended'],
  ['with its payload marked, before its row was written', 'gemini:step-marked'],
])('a flush killed %s', (_name, stage) => {
  test.each([
    [1, 'one call'],
    [2, 'two calls of the same bytes'],
  ])('%i: %s, each recorded once, with its id', async (calls) => {
    const s = session(`${stage.slice(11)}-${calls}`);
    for (let i = 0; i < calls; i++) hook(s, afterTool(s));
    const ids = Array.from({ length: calls }, (_, i) => `call_${i}`);
    for (const id of ids)
      appendFileSync(
        s.chat,
        `${JSON.stringify({ id: `m_${id}`, type: 'gemini', model: 'g', content: '', toolCalls: [{ id, name: 'run_shell_command', args: { command: 'echo a' }, status: 'success' }] })}\n`,
      );
    const killed = await cliPaused(['hook', 'gemini', '--no-snapshot'], stage, {
      cwd: s.root,
      input: payload(s, 'PreCompress', { trigger: 'auto' }),
      env: s.env,
    });
    await killed.kill();
    // The next model call's flush, then the turn's end (the last flush: what is still pending is recorded anyway).
    const said = [
      hook(s, payload(s, 'PreCompress', { trigger: 'auto' })),
      hook(s, payload(s, 'AfterAgent', { prompt: 'p', prompt_response: 'r' })),
    ].join('');
    expect(said).not.toMatch(/no call in the transcript/);
    expect(stepIds(s)).toEqual(ids);
    expect(readdirSync(pendingDir(s))).toEqual([]);
  });
});

test('a mark that is a link is never read through, and stops no flush', () => {
  const s = session('link');
  hook(s, afterTool(s));
  appendFileSync(
    s.chat,
    `${JSON.stringify({ id: 'm', type: 'gemini', model: 'g', content: '', toolCalls: [{ id: 'call_0', name: 'run_shell_command', args: { command: 'echo a' }, status: 'success' }] })}\n`,
  );
  const outside = path.join(tmp, 'outside.json');
  writeFileSync(outside, afterTool(s));
  symlinkSync(outside, path.join(pendingDir(s), '000000000000000-x.json.0.recording'));
  hook(s, payload(s, 'PreCompress', { trigger: 'auto' }));
  hook(s, payload(s, 'AfterAgent', { prompt: 'p', prompt_response: 'r' }));
  expect(stepIds(s)).toEqual(['call_0']);
  expect(readdirSync(pendingDir(s))).toEqual(['000000000000000-x.json.0.recording']);
  expect(readFileSync(outside, 'utf8')).toBe(afterTool(s));
});

test('an AfterTool killed while it records the earlier calls keeps its own call: each recorded once, with its id', async () => {
  const s = session('aftertool');
  const call = (id: string, command: string): string =>
    `${JSON.stringify({ id: `m_${id}`, type: 'gemini', model: 'g', content: '', toolCalls: [{ id, name: 'run_shell_command', args: { command }, status: 'success' }] })}\n`;
  // The first call is pending, its call written; the second call's AfterTool records it first, and is killed there.
  hook(s, afterTool(s));
  appendFileSync(s.chat, call('call_0', 'echo a'));
  const second = payload(s, 'AfterTool', {
    timestamp: '2026-12-03T00:00:01.000Z',
    tool_name: 'run_shell_command',
    tool_input: { command: 'echo b' },
    tool_response: { llmContent: 'b' },
  });
  const killed = await cliPaused(['hook', 'gemini', '--no-snapshot'], 'gemini:flush-locked', {
    cwd: s.root,
    input: second,
    env: s.env,
  });
  await killed.kill();
  appendFileSync(s.chat, call('call_1', 'echo b'));
  hook(s, payload(s, 'PreCompress', { trigger: 'auto' }));
  hook(s, payload(s, 'AfterAgent', { prompt: 'p', prompt_response: 'r' }));
  expect(stepIds(s)).toEqual(['call_0', 'call_1']);
  expect(readdirSync(pendingDir(s))).toEqual([]);
});
