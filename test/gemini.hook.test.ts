import { appendFileSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { Cas, journalFile, readVerifiedJournal } from '../src/journal';
import { cli, expectNoStack } from './helpers/cli';
import { tempDir } from './helpers/tmp';
import { freshRepo } from './helpers/project';

/**
 * `stepchain hook gemini` on payloads, where the real binary cannot be made to misbehave: a tool call whose call the
 * transcript never names is kept until the turn ends and then recorded with id null, never lost; a bad payload is
 * one line and exit 1, never 2 (Gemini CLI reads 2 as "block").
 */
const dir = tempDir('stepchain-gemini-hook-');
const SID = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';
const off = { STEPCHAIN_AUDIT: 'off', HOME: path.join(dir, 'home') };

const project = () => freshRepo(dir, { 'README.md': 'x\n' });
const payload = (root: string, event: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    session_id: SID,
    transcript_path: path.join(dir, 'home', '.gemini', 'tmp', 'p', 'chats', 'session-none.jsonl'),
    cwd: root,
    hook_event_name: event,
    timestamp: '2026-12-03T00:00:00.000Z',
    ...extra,
  });
const hook = (root: string, input: string) => cli(['hook', 'gemini'], { cwd: root, input, env: off });

test('a tool call the transcript never names is pending until AfterAgent, then recorded with id null', () => {
  const root = project();
  const after = payload(root, 'AfterTool', {
    tool_name: 'run_shell_command',
    tool_input: { command: 'ls' },
    tool_response: { llmContent: 'Output: x\nProcess Group PGID: 4', returnDisplay: 'x' },
  });
  expect(hook(root, payload(root, 'BeforeAgent', { prompt: 'list' })).code).toBe(0);
  expect(hook(root, after).code).toBe(0);
  // Before the next model call the transcript would have the call: without it the payload stays pending.
  expect(hook(root, payload(root, 'PreCompress', { trigger: 'auto' })).code).toBe(0);
  expect(existsSync(journalFile(root, `gemini-${SID}`))).toBe(false);
  const pending = path.join(root, '.sdd', 'runtime', 'gemini', SID, 'pending');
  expect(readdirSync(pending)).toHaveLength(1);
  const end = hook(root, payload(root, 'AfterAgent', { prompt: 'list', prompt_response: 'done' }));
  expect(end.code).toBe(0);
  expect(end.stderr).toMatch(/no call in the transcript for this run_shell_command call; recorded with id null/);
  const rows = readVerifiedJournal(journalFile(root, `gemini-${SID}`)).entries.map((e) => e.row);
  expect(rows.map((r) => [r.tool_call, r.prompt, r.model])).toEqual([
    [{ id: null, input: { command: 'ls' }, name: 'run_shell_command' }, 'list', null],
  ]);
  expect(rows[0]!.tool_result).toEqual({
    llmContent: 'Output: x\nProcess Group PGID: 4',
    returnDisplay: 'x',
    exit_code: 0,
  });
  expect(readdirSync(pending)).toEqual([]);
});

test('a transcript path outside Gemini CLI’s directory is never read; a linked runtime directory is refused', () => {
  const root = project();
  const outside = payload(root, 'AfterTool', { tool_name: 't', tool_input: {}, tool_response: {} }).replace(
    /"transcript_path":"[^"]*"/,
    `"transcript_path":${JSON.stringify('/etc/passwd')}`,
  );
  expect(hook(root, outside).code).toBe(0);
  const end = hook(
    root,
    payload(root, 'SessionEnd', { reason: 'exit' }).replace(
      /"transcript_path":"[^"]*"/,
      '"transcript_path":"/etc/passwd"',
    ),
  );
  expect(end.stderr).toMatch(/not where Gemini CLI keeps sessions here/);
  expect(readVerifiedJournal(journalFile(root, `gemini-${SID}`)).steps).toBe(1);

  const linked = project();
  mkdirSync(path.join(linked, '.sdd', 'runtime'), { recursive: true });
  mkdirSync(path.join(dir, 'elsewhere'), { recursive: true });
  symlinkSync(path.join(dir, 'elsewhere'), path.join(linked, '.sdd', 'runtime', 'gemini'));
  const kept = payload(linked, 'AfterTool', { tool_name: 't', tool_input: {}, tool_response: {} });
  const r = hook(linked, kept);
  expectNoStack(r);
  expect(r.code).toBe(1);
  expect(readdirSync(path.join(dir, 'elsewhere'))).toEqual([]);
  // The call that could not be kept pending is not lost: its payload is in the CAS, named on stderr.
  const digest = createHash('sha256').update(kept).digest('hex');
  const cas = path.join(linked, '.sdd', 'runtime', 'cas');
  expect(r.stderr).toContain(`AfterTool: tool call not kept pending: `);
  expect(r.stderr).toContain(`its payload is kept as ${digest} in ${cas}`);
  expect(new Cas(cas).get(digest)?.toString('utf8')).toBe(kept);
});

test('bad payloads: one line, exit 1, never 2', () => {
  const root = project();
  for (const input of ['', 'nope', '[]', payload(root, 'AfterTool').replace(SID, '../x')]) {
    const r = hook(root, input);
    expectNoStack(r);
    expect(r.code).toBe(1);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  }
});

test.each([
  ['plain ids (looked for as bytes)', ['call_one', 'call_two']],
  ['ids a writer may escape (the journal read step by step)', ['call/one', 'call/tw\u00e9']],
])('the same command run twice: each step takes its own call, none is recorded twice (%s)', (_what, ids) => {
  const root = project();
  const chat = path.join(dir, 'home', '.gemini', 'tmp', path.basename(root), 'chats', 'session-x.jsonl');
  mkdirSync(path.dirname(chat), { recursive: true });
  const at = (event: string, extra: Record<string, unknown> = {}) =>
    payload(root, event, extra).replace(/"transcript_path":"[^"]*"/, `"transcript_path":${JSON.stringify(chat)}`);
  const call = { tool_name: 'run_shell_command', tool_input: { command: 'ls' }, tool_response: { llmContent: 'x' } };
  const turn = (id: string) =>
    `${JSON.stringify({ id: `m-${id}`, type: 'gemini', model: 'g', toolCalls: [{ id, name: 'run_shell_command', args: { command: 'ls' } }] })}\n`;
  expect(hook(root, at('AfterTool', call)).code).toBe(0);
  writeFileSync(chat, turn(ids[0]!));
  expect(hook(root, at('PreCompress', { trigger: 'auto' })).code).toBe(0);
  expect(hook(root, at('AfterTool', call)).code).toBe(0);
  appendFileSync(chat, turn(ids[1]!));
  expect(hook(root, at('PreCompress', { trigger: 'auto' })).code).toBe(0);
  const rows = readVerifiedJournal(journalFile(root, `gemini-${SID}`)).entries.map((e) => e.row);
  expect(rows.map((r) => (r.tool_call as { id: string }).id)).toEqual(ids);
});
