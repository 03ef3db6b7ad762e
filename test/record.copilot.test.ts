import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse, type JsonValue } from '../src/canonical';
import { COPILOT_RULES } from '../src/agents/copilot/proxy';
import { normalise } from '../src/proxy/normalise';
import { Replayer } from '../src/proxy/replay';
import { journalFile, type JournalEntry } from '../src/journal';
import { runJournalFile } from '../src/runs';
import { startChatServer, type ChatServer, type ChatTurn } from './helpers/chat-server';
import { expectNoStack } from './helpers/cli';
import { copilotCommand, copilotEnv } from './helpers/copilot';
import { git } from './helpers/git';
import * as rec from './helpers/record';

// The real Copilot CLI (its bring-your-own-key provider, Chat Completions), through `stepchain record` and
// `fork --replay`, against scripted servers on 127.0.0.1. One recording serves every test (as record.gemini's): record,
// a replay from step 1, a replay whose tool result changed (its first call reads the note, which the last test
// changes). A recording of its own for that last replay was one Copilot run more (~3 s of CPU of the file's ~21).
jest.setTimeout(180_000);

const { root, home, note } = rec.recordPlaces('stepchain-record-copilot-');
const KEY = 'sk-local-scripted';
const MAKE = 'Make the files.';
const SCRIPTS: Record<string, ChatTurn[]> = {
  [MAKE]: [
    { tool: 'bash', args: { command: `cat ${note} | tee one.txt`, description: 'first file' } },
    { tool: 'bash', args: { command: 'cat one.txt > two.txt', description: 'second file' } },
    { text: 'Done.' },
  ],
};

/** `stepchain <args> -- copilot -p <prompt> ...`, Copilot's provider URL in the environment being `baseUrl`. */
function stepchain(args: string[], prompt: string, baseUrl: string) {
  const env = copilotEnv({ cwd: root, home, baseUrl, prompt, env: { STEPCHAIN_AUDIT: 'off' } });
  return rec.runStepchain([...args, '--', ...copilotCommand({ prompt })], root, env);
}

let serverA: ChatServer;
let recorded: JournalEntry[];

beforeAll(async () => {
  copilotCommand({ prompt: '' });
  serverA = await startChatServer(SCRIPTS);
});

afterAll(async () => {
  await serverA.close();
});

test("Copilot's normalisation list, on the texts it is for (measured: two directories, and a fork's worktree)", () => {
  const n = (text: string, paths: string[] = []): string => normalise(text, COPILOT_RULES, { paths }, '') as string;
  expect(n('<current_datetime>2026-12-03T18:39:11.002+00:00</current_datetime>\n\nMake the files.')).toBe(
    '<current_datetime><now></current_datetime>\n\nMake the files.',
  );
  expect(
    n('Session folder: /h/.copilot/session-state/8e4c0b2b-32b3-411a-9827-9c10c1bd9f3a\n\nContents:\n- files/'),
  ).toBe('Session folder: /h/.copilot/session-state/<session>\n\nContents:\n- files/');
  expect(
    n('* Current working directory: /w/p/.sdd/worktrees/f1\n* Git repository root: /w/p/.sdd/worktrees/f1', [
      '/w/p',
      '/w/p/.sdd/worktrees/f1',
    ]),
  ).toBe('* Current working directory: <dir>\n* Git repository root: <dir>');
  // Nothing else: a date the user wrote stays.
  expect(n('on 2026-12-03 at session-state/abc')).toBe('on 2026-12-03 at session-state/abc');
});

test('a divergence in a long text is shown from where the texts part, not from their common start', () => {
  const system = (cwd: string) => `You are the GitHub Copilot CLI. ${'Be brief. '.repeat(30)}* Session: ${cwd}`;
  const request = (cwd: string) =>
    Buffer.from(JSON.stringify({ messages: [{ role: 'system', content: system(cwd) }] }));
  const replayer = new Replayer(
    [
      {
        seq: 0,
        protocol: 'openai-chat',
        method: 'POST',
        path: '/v1/chat/completions',
        request: request('one'),
        status: 200,
        responseHeaders: [],
        response: Buffer.from('{}'),
      },
    ],
    COPILOT_RULES,
    { paths: [] },
  );
  expect(replayer.take('POST', '/v1/chat/completions', request('two'))).toEqual({
    exchange: 0,
    field: 'messages[0].content',
    recorded: '...e brief. Be brief. Be brief. * Session: one',
    replayed: '...e brief. Be brief. Be brief. * Session: two',
  });
});

test('record: every exchange of a real Copilot run is a step, byte for byte, without credentials', async () => {
  // No --upstream: the upstream is Copilot's own COPILOT_PROVIDER_BASE_URL, which the child sees as the proxy.
  const r = await stepchain(rec.recordArgs('copilot', 'rec-1'), MAKE, serverA.baseUrl);
  expectNoStack(r);
  expect(r.stderr).toMatch(/3 exchanges recorded/);
  expect(r.code).toBe(0);
  // The agent saw the whole streams: both tool calls ran, and the final text came through.
  expect(readFileSync(path.join(root, 'two.txt'), 'utf8')).toBe('the first note\n');
  expect(r.stdout).toContain('Done.');

  // Measured: Copilot 1.0.102 sends nothing but `POST /v1/chat/completions`, streamed.
  expect(serverA.raw.map((x) => `${x.method} ${x.url}`)).toEqual(Array(3).fill('POST /v1/chat/completions'));
  recorded = rec.expectStepsAreExchanges(root, 'rec-1', serverA.raw, {
    count: 3,
    prompt: 'messages',
    model: 'scripted-model',
  });
  for (const raw of serverA.raw) {
    expect(raw.response.toString('utf8')).toMatch(/^data: \{"id":"chatcmpl-/);
    expect((parse(raw.request.toString('utf8')) as { stream: JsonValue }).stream).toBe(true);
  }
  const [s0, s1, s2] = recorded.map((e) => e.row);
  expect(s0!.tool_call).toEqual([
    {
      id: serverA.calls[0]!.id,
      name: 'bash',
      arguments: { command: `cat ${note} | tee one.txt`, description: 'first file' },
    },
  ]);
  expect(s0!.tool_result).toEqual([expect.objectContaining({ role: 'tool', tool_call_id: serverA.calls[0]!.id })]);
  expect(JSON.stringify(s0!.tool_result)).toContain('the first note');
  expect(s1!.tool_result).toEqual([expect.objectContaining({ tool_call_id: serverA.calls[1]!.id })]);
  expect(s2!.tool_call).toBeNull();
  // The key went upstream (as a bearer token) and nowhere into the record.
  expect(serverA.raw[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  rec.expectKeyKeptOut(root, recorded[0]!, KEY, { dropped: 'authorization', kept: 'x-initiator' });
  await rec.expectRecordingObserved(root, 'rec-1', 'copilot');
});

test('fork --replay from step 1: server A is gone, server B gets only the request after step 1, the files are right', async () => {
  await serverA.close();
  await rec.closing(startChatServer(SCRIPTS), async (serverB) => {
    // A later run: its date and time, session folder and working directory (the fork worktree) are its own.
    const r = await stepchain(rec.replayArgs('rec-1', 1, serverB.baseUrl), MAKE, 'http://127.0.0.1:9/v1');
    const doc = await rec.expectReplayedThenLive(r, {
      root,
      recorded,
      replayed: 2,
      upstream: serverB.raw,
      warnings: 'stepchain',
    });
    expect(serverB.requests[0]!.body.messages).toHaveLength((recorded[2]!.row.prompt as unknown[]).length);
    expect(readFileSync(path.join(doc.fork_worktree, 'two.txt'), 'utf8')).toBe('the first note\n');
  });
});

test('fork --replay stops at the exchange whose tool result changed: exit 1, nothing upstream, the agent ended', async () => {
  writeFileSync(note, 'a different note\n'); // the tool of step 0 now reads something else
  await rec.closing(startChatServer(SCRIPTS), async (serverD) => {
    const r = await stepchain(rec.replayArgs('rec-1', 1, serverD.baseUrl), MAKE, serverD.baseUrl);
    rec.expectReplayDiverged(r, {
      exchange: 1,
      field: /messages\[\d+\]\.content/,
      shows: [/the first note/, /a different note/],
      upstream: serverD.raw,
    });
  });
});

test.each([
  [
    'the WebSocket transport',
    { COPILOT_PROVIDER_TRANSPORT: 'websockets' },
    'COPILOT_PROVIDER_TRANSPORT=websockets: the proxy records HTTP requests only; unset it (or set it to http) to record this agent',
  ],
  [
    "Copilot's own models (no provider set, no --upstream)",
    { COPILOT_PROVIDER_BASE_URL: '' },
    "COPILOT_PROVIDER_BASE_URL is not set: Copilot then uses its GitHub-hosted models, which record does not redirect; record points Copilot's bring-your-own-key provider at the proxy: set COPILOT_PROVIDER_BASE_URL (and its key), or give --upstream",
  ],
])('record --agent copilot refuses %s, saying why, before anything is written', async (_what, extra, why) => {
  const env = {
    ...copilotEnv({ cwd: root, home, baseUrl: 'http://127.0.0.1:9/v1', prompt: MAKE }),
    STEPCHAIN_AUDIT: 'off',
    ...extra,
  };
  const r = await rec.runStepchain(
    [...rec.recordArgs('copilot', 'rec-no'), '--', ...copilotCommand({ prompt: MAKE })],
    root,
    env,
  );
  expectNoStack(r);
  expect({ code: r.code, stderr: r.stderr.trim() }).toEqual({
    code: 2,
    stderr: `stepchain: record --agent copilot: ${why}`,
  });
  expect(existsSync(journalFile(root, 'rec-no'))).toBe(false);
  expect(existsSync(runJournalFile(root, 'rec-no'))).toBe(false);
  expect(git(root, ['for-each-ref', 'refs/stepchain/snapshots/rec-no'])).toBe(''); // no start snapshot either
});
