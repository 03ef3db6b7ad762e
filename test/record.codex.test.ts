import { writeFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type JournalEntry } from '../src/journal';
import { readRunJournalFile, runJournalFile } from '../src/runs';
import { agentPath } from './helpers/agents';
import { expectNoStack } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import * as rec from './helpers/record';
import {
  CODEX_MODEL,
  codexExecArgs,
  startResponsesServer,
  writeCodexConfig,
  type ResponsesServer,
} from './helpers/responses-server';

// The real Codex CLI (0.171.0), through `stepchain record` and `fork --replay`, against scripted Responses servers on
// 127.0.0.1. One recording serves every test: record, a replay from step 1, a replay whose tool result changed.
jest.setTimeout(180_000);

const { root, home, note } = rec.recordPlaces('stepchain-record-codex-');
const KEY = 'sk-codex-test-not-a-key-5e1b';
const MAKE = 'Make the files.';
const CMD_NOTE = `cat ${note} | tee one.txt`;
const CMD_COPY = 'cat one.txt > two.txt';
const env: NodeJS.ProcessEnv = {
  PATH: agentPath(),
  HOME: home,
  CODEX_HOME: home,
  SCRIPTED_KEY: KEY,
  STEPCHAIN_AUDIT: 'off',
};

const stepchain = (args: string[]) => rec.runStepchain(args, root, env);

let serverA: ResponsesServer;
let recorded: JournalEntry[];

beforeAll(async () => {
  serverA = await startResponsesServer([CMD_NOTE, CMD_COPY]);
  // The user's own provider: its base_url is where record forwards by default, and what it points at the proxy.
  writeCodexConfig(home, serverA.port);
});

afterAll(async () => {
  await serverA.close();
});

test('record: every exchange of a real Codex run is a step, byte for byte, without credentials; the chain verifies', async () => {
  const r = await stepchain([...rec.recordArgs('codex', 'rec-1'), '--json', '--', ...codexExecArgs(MAKE)]);
  expectNoStack(r);
  expect(r.code).toBe(0);
  const doc = JSON.parse(r.stdout) as { ok: boolean; upstreams: Record<string, string> };
  // The default upstream is the provider's base_url in config.toml; the child's was the proxy (every request came through it).
  expect(doc.upstreams['openai-responses']).toBe(`http://127.0.0.1:${serverA.port}/v1`);
  // Codex saw the whole stream: both commands ran.
  expect(readFileSync(path.join(root, 'two.txt'), 'utf8')).toBe('the first note\n');

  recorded = rec.expectStepsAreExchanges(root, 'rec-1', serverA.raw, { count: 3, prompt: 'input', model: CODEX_MODEL });
  const [s0, s1, s2] = recorded.map((e) => e.row);
  expect(s0!.tool_call).toEqual([
    expect.objectContaining({ type: 'function_call', call_id: serverA.callIds[0], name: 'exec_command' }),
  ]);
  expect(s0!.tool_result).toEqual([
    expect.objectContaining({ type: 'function_call_output', call_id: serverA.callIds[0] }),
  ]);
  expect(JSON.stringify(s0!.tool_result)).toContain('the first note');
  expect(s1!.tool_result).toEqual([expect.objectContaining({ call_id: serverA.callIds[1] })]);
  expect(s2!.tool_call).toBeNull();
  expect(s2!.tool_result).toBeNull();

  // Codex sends its key as `authorization: Bearer ...`: forwarded, never stored.
  rec.expectKeyKeptOut(root, recorded[0]!, KEY, { dropped: 'authorization', kept: 'x-codex-turn-metadata' });
  await rec.expectRecordingObserved(root, 'rec-1', 'codex');
});

test("record: Codex's compaction request is pinned as a content-addressed provider_state_mutation", async () => {
  const before = serverA.requests.length;
  serverA.commands.push('echo one');
  serverA.inputTokens = 5000; // over the limit below: Codex compacts before its next request
  const r = await stepchain([
    ...rec.recordArgs('codex', 'rec-compact'),
    '--json',
    '--',
    ...codexExecArgs('Compact as you go.', ['model_auto_compact_token_limit=1000']),
  ]);
  serverA.inputTokens = 10;
  expectNoStack(r);
  expect(r.code).toBe(0);
  const kinds = serverA.requests.slice(before).map((q) => q.kind);
  const at = kinds.indexOf('compaction');
  expect(at).toBeGreaterThan(0);
  const doc = JSON.parse(r.stdout) as { mutations: { seq: number; kind: string }[] };
  expect(doc.mutations).toContainEqual(expect.objectContaining({ kind: 'compaction', seq: at }));
  const run = readRunJournalFile(runJournalFile(root, 'rec-compact'));
  expect(run.ok).toBe(true);
  const m = run.entries.find((e) => e.row.event === 'provider_state_mutation')!;
  expect(m.row.payload.get('mutation_kind')).toBe('compaction');
  expect(m.row.payload.get('step_index')).toBe(at);
  // Reads of what the recording wrote (runCli in this process, as record.claude's): the recording ran as a process.
  expect((await cliInProcess(['verify', 'rec-compact'], { cwd: root })).code).toBe(0);
  expect((await cliInProcess(['run', 'verify', 'rec-compact'], { cwd: root })).code).toBe(0);
});

test('fork --replay from step 1: server A is gone, server B gets only the request after step 1, the files are right', async () => {
  await serverA.close();
  await rec.closing(startResponsesServer([]), async (serverB) => {
    const r = await stepchain([
      ...rec.replayArgs('rec-1', 1, `http://127.0.0.1:${serverB.port}/v1`),
      '--',
      ...codexExecArgs(MAKE),
    ]);
    const doc = await rec.expectReplayedThenLive(r, { root, recorded, replayed: 2, upstream: serverB.raw });
    expect(serverB.requests[0]!.body.input).toHaveLength((recorded[2]!.row.prompt as unknown[]).length);
    expect(readFileSync(path.join(doc.fork_worktree, 'two.txt'), 'utf8')).toBe('the first note\n');
  });
});

test('fork --replay stops at the exchange whose tool result changed: exit 1, nothing upstream, Codex ended', async () => {
  writeFileSync(note, 'a different note\n'); // the command of step 0 now prints something else
  await rec.closing(startResponsesServer([]), async (serverD) => {
    const r = await stepchain([
      ...rec.replayArgs('rec-1', 1, `http://127.0.0.1:${serverD.port}/v1`),
      '--',
      ...codexExecArgs(MAKE),
    ]);
    rec.expectReplayDiverged(r, {
      exchange: 1,
      field: /input\[\d+\]\.output/,
      shows: [/the first note/, /a different note/],
      upstream: serverD.raw,
    });
  });
});
