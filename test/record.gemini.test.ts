import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type JournalEntry } from '../src/journal';
import { agentBinary, agentPath } from './helpers/agents';
import { expectNoStack } from './helpers/cli';
import { GEMINI_RUN_ENV, geminiHome, startGeminiServer, type GeminiServer } from './helpers/gemini-server';
import * as rec from './helpers/record';

// The real Gemini CLI (0.61.0), through `stepchain record` and `fork --replay`, against scripted Gemini API servers on
// 127.0.0.1. One recording serves every test: record, a replay from step 1, a replay whose tool result changed.
jest.setTimeout(180_000);

const { root, home, note } = rec.recordPlaces('stepchain-record-gemini-');
const KEY = 'gemini-test-not-a-key-3c9d';
const MAKE = 'Make the files.';
const SCRIPTS = {
  [MAKE]: [
    { name: 'run_shell_command', args: { command: `cat ${note} | tee one.txt` } },
    { name: 'run_shell_command', args: { command: 'cat one.txt > two.txt' } },
  ],
};
const MODEL = 'gemini-2.5-flash';

function env(port: number): NodeJS.ProcessEnv {
  return {
    PATH: agentPath(),
    HOME: home,
    GEMINI_API_KEY: KEY,
    // The user's own setting: where record forwards by default, and what it points at the proxy for the child.
    GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${port}`,
    STEPCHAIN_AUDIT: 'off',
    ...GEMINI_RUN_ENV,
  };
}

const GEMINI = () => [agentBinary('gemini'), '-p', MAKE, '--yolo', '--output-format', 'stream-json'];

let serverA: GeminiServer;
let recorded: JournalEntry[];

beforeAll(async () => {
  geminiHome(home, [root], MODEL);
  serverA = await startGeminiServer(SCRIPTS, MODEL);
});

afterAll(async () => {
  await serverA.close();
});

test('record: every exchange of a real Gemini CLI run is a step, byte for byte, without credentials; the chain verifies', async () => {
  const r = await rec.runStepchain(
    [...rec.recordArgs('gemini', 'rec-1'), '--json', '--', ...GEMINI()],
    root,
    env(serverA.port),
  );
  expectNoStack(r);
  expect(r.code).toBe(0);
  expect((JSON.parse(r.stdout) as { upstreams: Record<string, string> }).upstreams).toEqual({
    gemini: `http://127.0.0.1:${serverA.port}`,
  });
  expect(readFileSync(path.join(root, 'two.txt'), 'utf8')).toBe('the first note\n');

  recorded = rec.expectStepsAreExchanges(root, 'rec-1', serverA.raw, { count: 3, prompt: 'contents', model: MODEL });
  const [s0, s1, s2] = recorded.map((e) => e.row);
  expect(s0!.tool_call).toEqual([expect.objectContaining({ name: 'run_shell_command', args: SCRIPTS[MAKE][0]!.args })]);
  expect(JSON.stringify(s0!.tool_result)).toContain('the first note');
  expect(s1!.tool_call).toEqual([expect.objectContaining({ args: SCRIPTS[MAKE][1]!.args })]);
  expect(s2!.tool_call).toBeNull();

  // Gemini CLI sends its key as `x-goog-api-key`: forwarded, never stored.
  rec.expectKeyKeptOut(root, recorded[0]!, KEY, { dropped: 'x-goog-api-key' });
  await rec.expectRecordingObserved(root, 'rec-1', 'gemini');
});

test('fork --replay from step 1: server A is gone, server B gets only the request after step 1, the files are right', async () => {
  await serverA.close();
  await rec.closing(startGeminiServer(SCRIPTS, MODEL), async (serverB) => {
    const r = await rec.runStepchain(
      [...rec.replayArgs('rec-1', 1, `http://127.0.0.1:${serverB.port}`), '--', ...GEMINI()],
      root,
      env(serverA.port),
    );
    const doc = await rec.expectReplayedThenLive(r, { root, recorded, replayed: 2, upstream: serverB.raw });
    expect(serverB.requests[0]!.body.contents).toHaveLength((recorded[2]!.row.prompt as unknown[]).length);
    expect(readFileSync(path.join(doc.fork_worktree, 'two.txt'), 'utf8')).toBe('the first note\n');
  });
});

test('fork --replay stops at the exchange whose tool result changed: exit 1, nothing upstream, Gemini CLI ended', async () => {
  writeFileSync(note, 'a different note\n');
  await rec.closing(startGeminiServer(SCRIPTS, MODEL), async (serverD) => {
    const r = await rec.runStepchain(
      [...rec.replayArgs('rec-1', 1, `http://127.0.0.1:${serverD.port}`), '--', ...GEMINI()],
      root,
      env(serverD.port),
    );
    // Gemini CLI reports the refused request on its stderr, at times with its own stack, which passes through as
    // the agent's output; stepchain's own lines (and its JSON) carry none.
    rec.expectReplayDiverged(r, {
      exchange: 1,
      field: /contents\[\d+\]\.parts\[\d+\]\.functionResponse/,
      shows: [/a different note/],
      upstream: serverD.raw,
      ownLinesOnly: true,
    });
  });
});
