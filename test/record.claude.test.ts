import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type JournalEntry } from '../src/journal';
import { readRunJournalFile, runJournalFile } from '../src/runs';
import { agentPath } from './helpers/agents';
import { expectNoStack } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { claudeBinary, startScriptedServer, type ScriptedServer } from './helpers/claude';
import * as rec from './helpers/record';

// The real Claude Code binary, through `stepchain record` and `fork --replay`, against scripted servers on 127.0.0.1.
// One recording serves the record test and both replays (a replay from step 1; a replay whose tool result changed,
// the note step 0 read): a second recording only for the changed note cost a Claude Code start and a record process.
jest.setTimeout(180_000);

const { root, home, note } = rec.recordPlaces('stepchain-record-');
const KEY = 'sk-ant-test-not-a-key-7f3a';
const MAKE = 'Make the files.';
const CMD_NOTE = `cat ${note} | tee one.txt`;
const SCRIPTS = {
  [MAKE]: [
    { tools: [{ name: 'Bash', input: { command: CMD_NOTE, description: 'first file' } }] },
    { tools: [{ name: 'Bash', input: { command: 'cat one.txt > two.txt', description: 'second file' } }] },
    { text: 'Done.' },
  ],
};
const env: NodeJS.ProcessEnv = {
  PATH: agentPath(),
  HOME: home,
  ANTHROPIC_API_KEY: KEY,
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_AUTOUPDATER: '1',
  STEPCHAIN_AUDIT: 'off',
};

let binary: string;

function claudeArgs(prompt: string, extra: string[] = []): string[] {
  return [binary, '-p', prompt, '--output-format', 'stream-json', '--verbose', '--allowedTools', 'Bash', ...extra];
}

const stepchain = (args: string[]) => rec.runStepchain(args, root, env);
const blob = (digest: string): Buffer => rec.casBlob(root, digest);

let serverA: ScriptedServer;
let recorded: JournalEntry[];
let sessionCwdRun: rec.StepchainRun;

beforeAll(async () => {
  binary = claudeBinary();
  serverA = await startScriptedServer(SCRIPTS);
});

afterAll(async () => {
  await serverA.close();
});

test('record: every exchange of a real Claude Code run is a step, byte for byte, streamed, without credentials', async () => {
  sessionCwdRun = await stepchain([
    ...rec.recordArgs('claude', 'rec-1', `http://127.0.0.1:${serverA.port}`),
    '--',
    ...claudeArgs(MAKE),
  ]);
  expectNoStack(sessionCwdRun);
  expect(sessionCwdRun.stderr).toMatch(/3 exchanges recorded/);
  expect(sessionCwdRun.code).toBe(0);
  // The agent saw the whole stream: both tool calls ran, and the final text came through.
  expect(readFileSync(path.join(root, 'two.txt'), 'utf8')).toBe('the first note\n');
  const result = sessionCwdRun.stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((e) => e.type === 'result');
  expect(result?.result).toBe('Done.');

  // input_hash is the SHA-256 of what the upstream received; the response blob is what it sent.
  recorded = rec.expectStepsAreExchanges(root, 'rec-1', serverA.raw, { count: 3, prompt: 'messages' });
  // tool_call: what the response asked for; tool_result: what the next request carried for it.
  const [s0, s1, s2] = recorded.map((e) => e.row);
  expect(s0!.tool_call).toEqual([
    { id: serverA.toolUseIds[0], name: 'Bash', input: { command: CMD_NOTE, description: 'first file' } },
  ]);
  expect(s0!.tool_result).toEqual([
    expect.objectContaining({ type: 'tool_result', tool_use_id: serverA.toolUseIds[0] }),
  ]);
  expect(JSON.stringify(s0!.tool_result)).toContain('the first note');
  expect(s1!.tool_result).toEqual([expect.objectContaining({ tool_use_id: serverA.toolUseIds[1] })]);
  expect(s2!.tool_call).toBeNull();
  expect(s2!.tool_result).toBeNull();
  // Credentials never enter the record; the exchange record names the headers it kept.
  const meta = rec.expectKeyKeptOut(root, recorded[0]!, KEY, {
    dropped: 'x-api-key',
    kept: 'x-claude-code-session-id',
  });
  expect(meta.status).toBe(200);
  // The chain verifies; the run journal holds the adapter's capability and the start.
  const run = await rec.expectRecordingObserved(root, 'rec-1', 'claude');
  // Issue 23's `step_changes` rows (one per exchange whose tools changed files) are set apart: these are the proxy's.
  expect(run.entries.map((e) => e.row.event).filter((e) => e !== 'step_changes')).toEqual([
    'provider_state_capability',
    'proxy.start',
    'proxy.end',
  ]);
});

test('record: /compact is pinned as a content-addressed provider_state_mutation, and the run verifies', async () => {
  const sid = sessionCwdRun.stdout.match(/"session_id":"([^"]+)"/)?.[1];
  expect(sid).toBeDefined();
  const r = await stepchain([
    ...rec.recordArgs('claude', 'rec-compact', `http://127.0.0.1:${serverA.port}`),
    '--json',
    '--',
    ...claudeArgs('/compact', ['--resume', sid!]),
  ]);
  expectNoStack(r);
  expect(r.code).toBe(0);
  const doc = JSON.parse(r.stdout) as { ok: boolean; mutations: { seq: number; kind: string }[] };
  expect(doc.ok).toBe(true);
  expect(doc.mutations).toEqual([expect.objectContaining({ kind: 'compaction', seq: 0 })]);
  const run = readRunJournalFile(runJournalFile(root, 'rec-compact'));
  expect(run.ok).toBe(true);
  const m = run.entries.find((e) => e.row.event === 'provider_state_mutation')!;
  expect(m.row.payload.get('mutation_kind')).toBe('compaction');
  expect(m.row.payload.get('step_index')).toBe(0);
  // Pinned before the next exchange: it comes before the run's end, and the step it names is the compaction request.
  const steps = rec.recordedSteps(root, 'rec-compact');
  expect(blob(steps[0]!.row.input_hash).toString('utf8')).toMatch(/create a detailed summary of the conversation/);
  // A read of what the recording wrote (runCli in this process): the recording itself ran as a process.
  expect((await cliInProcess(['run', 'verify', 'rec-compact'], { cwd: root })).code).toBe(0);
});

test('fork --replay from step 1: server A is gone, server B gets only the requests after step 1, the files are right', async () => {
  await serverA.close();
  await rec.closing(startScriptedServer(SCRIPTS), async (serverB) => {
    const r = await stepchain([
      ...rec.replayArgs('rec-1', 1, `http://127.0.0.1:${serverB.port}`),
      '--',
      ...claudeArgs(MAKE),
    ]);
    // Only the request after step 1 reached an upstream; the fork's journal: the parent's steps 0..1, then the live
    // exchange; it verifies.
    const doc = await rec.expectReplayedThenLive(r, { root, recorded, replayed: 2, upstream: serverB.raw });
    // The live request is the third turn of the same conversation.
    expect(serverB.requests[0]!.body.messages).toHaveLength((recorded[2]!.row.prompt as unknown[]).length);
    // The tools of steps 0 and 1 ran for real in the fork, from the files the run started with.
    expect(readFileSync(path.join(doc.fork_worktree, 'two.txt'), 'utf8')).toBe('the first note\n');
  });
});

test('fork --replay stops at the exchange whose tool result changed: exit 1, nothing upstream, the agent ended', async () => {
  writeFileSync(note, 'a different note\n'); // the tool of step 0 now reads something else
  await rec.closing(startScriptedServer(SCRIPTS), async (serverD) => {
    const r = await stepchain([
      ...rec.replayArgs('rec-1', 1, `http://127.0.0.1:${serverD.port}`),
      '--',
      ...claudeArgs(MAKE),
    ]);
    rec.expectReplayDiverged(r, {
      exchange: 1,
      field: /messages\[\d+\]\.content\[\d+\]/,
      shows: [/the first note/, /a different note/],
      upstream: serverD.raw,
    });
  });
});
