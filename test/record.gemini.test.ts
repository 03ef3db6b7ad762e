import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse, type JsonValue } from '../src/canonical';
import { journalFile, readVerifiedJournal, type JournalEntry } from '../src/journal';
import { readRunJournalFile, runJournalFile } from '../src/runs';
import { sha256Hex } from '../src/util/hash';
import { agentBinary } from './helpers/agents';
import { cli, expectNoStack } from './helpers/cli';
import { geminiHome, startGeminiServer, type GeminiServer } from './helpers/gemini-server';
import { initRepo } from './helpers/git';
import { casBlob, everythingStored, expectReplayedThenLive, processesIn, runStepchain } from './helpers/record';
import { tempDir } from './helpers/tmp';

// The real Gemini CLI (0.61.0), through `stepchain record` and `fork --replay`, against scripted Gemini API servers on
// 127.0.0.1. One recording serves every test: record, a replay from step 1, a replay whose tool result changed.
jest.setTimeout(180_000);

const dir = tempDir('stepchain-record-gemini-');
const root = path.join(dir, 'project');
const home = path.join(dir, 'home');
const note = path.join(dir, 'note.txt');
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
    PATH: [path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
    HOME: home,
    GEMINI_API_KEY: KEY,
    // The user's own setting: where record forwards by default, and what it points at the proxy for the child.
    GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${port}`,
    STEPCHAIN_AUDIT: 'off',
  };
}

const GEMINI = () => [agentBinary('gemini'), '-p', MAKE, '--yolo', '--output-format', 'stream-json'];
const entries = (file: string): JournalEntry[] => readVerifiedJournal(file).entries;

let serverA: GeminiServer;
let recorded: JournalEntry[];

beforeAll(async () => {
  initRepo(root, { 'README.md': '# project\n' });
  writeFileSync(note, 'the first note\n');
  geminiHome(home, [root], MODEL);
  serverA = await startGeminiServer(SCRIPTS, MODEL);
});

afterAll(async () => {
  await serverA.close();
});

test('record: every exchange of a real Gemini CLI run is a step, byte for byte, without credentials; the chain verifies', async () => {
  const r = await runStepchain(
    ['record', '--agent', 'gemini', '--journal', 'rec-1', '--json', '--', ...GEMINI()],
    root,
    env(serverA.port),
  );
  expectNoStack(r);
  expect(r.code).toBe(0);
  expect((JSON.parse(r.stdout) as { upstreams: Record<string, string> }).upstreams).toEqual({
    gemini: `http://127.0.0.1:${serverA.port}`,
  });
  expect(readFileSync(path.join(root, 'two.txt'), 'utf8')).toBe('the first note\n');

  recorded = entries(journalFile(root, 'rec-1'));
  expect(serverA.raw).toHaveLength(3);
  expect(recorded).toHaveLength(3);
  recorded.forEach((e, i) => {
    const raw = serverA.raw[i]!;
    expect(e.row.input_hash).toBe(sha256Hex(raw.request));
    expect(casBlob(root, e.row.input_hash).equals(raw.request)).toBe(true);
    expect(e.row.blob_refs).toContain(sha256Hex(raw.response));
    expect(casBlob(root, sha256Hex(raw.response)).equals(raw.response)).toBe(true);
    expect(e.row.model).toBe(MODEL);
    expect(e.row.prompt).toEqual((parse(raw.request.toString('utf8')) as { contents: JsonValue }).contents);
  });
  const [s0, s1, s2] = recorded.map((e) => e.row);
  expect(s0!.tool_call).toEqual([expect.objectContaining({ name: 'run_shell_command', args: SCRIPTS[MAKE][0]!.args })]);
  expect(JSON.stringify(s0!.tool_result)).toContain('the first note');
  expect(s1!.tool_call).toEqual([expect.objectContaining({ args: SCRIPTS[MAKE][1]!.args })]);
  expect(s2!.tool_call).toBeNull();

  // Gemini CLI sends its key as `x-goog-api-key`: forwarded, never stored.
  expect(everythingStored(root)).not.toContain(KEY);
  const meta = JSON.parse(casBlob(root, s0!.blob_refs.at(-1)!).toString('utf8')) as {
    request_headers: [string, string][];
  };
  expect(meta.request_headers.map(([k]) => k)).not.toContain('x-goog-api-key');

  expect(cli(['verify', 'rec-1'], { cwd: root }).code).toBe(0);
  const run = readRunJournalFile(runJournalFile(root, 'rec-1'));
  expect(run.ok).toBe(true);
  expect(run.capabilities).toEqual([{ adapter: 'proxy-gemini', capability: 'observed' }]);
});

test('fork --replay from step 1: server A is gone, server B gets only the request after step 1, the files are right', async () => {
  await serverA.close();
  const serverB = await startGeminiServer(SCRIPTS, MODEL);
  try {
    const r = await runStepchain(
      [
        'fork',
        'rec-1',
        '--from-step',
        '1',
        '--replay',
        '--upstream',
        `http://127.0.0.1:${serverB.port}`,
        '--json',
        '--',
        ...GEMINI(),
      ],
      root,
      env(serverA.port),
    );
    const doc = expectReplayedThenLive(r, {
      root,
      recordedHashes: recorded.map((e) => e.row.step_hash),
      replayed: 2,
      upstream: serverB.raw,
    });
    expect(serverB.requests[0]!.body.contents).toHaveLength((recorded[2]!.row.prompt as unknown[]).length);
    expect(readFileSync(path.join(doc.fork_worktree, 'two.txt'), 'utf8')).toBe('the first note\n');
  } finally {
    await serverB.close();
  }
});

test('fork --replay stops at the exchange whose tool result changed: exit 1, nothing upstream, Gemini CLI ended', async () => {
  writeFileSync(note, 'a different note\n');
  const serverD = await startGeminiServer(SCRIPTS, MODEL);
  try {
    const r = await runStepchain(
      [
        'fork',
        'rec-1',
        '--from-step',
        '1',
        '--replay',
        '--upstream',
        `http://127.0.0.1:${serverD.port}`,
        '--json',
        '--',
        ...GEMINI(),
      ],
      root,
      env(serverD.port),
    );
    // Gemini CLI reports the refused request on its stderr, at times with its own stack, which passes through as
    // the agent's output; stepchain's own lines (and its JSON) carry none.
    expectNoStack({
      ...r,
      stderr: r.stderr
        .split('\n')
        .filter((l) => l.startsWith('stepchain'))
        .join('\n'),
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /exchange 1: the replayed request differs from the recorded one at contents\[\d+\]\.parts\[\d+\]\.functionResponse/,
    );
    const doc = JSON.parse(r.stdout) as { ok: boolean; fork_worktree: string; divergence: { exchange: number } };
    expect(doc.ok).toBe(false);
    expect(doc.divergence.exchange).toBe(1);
    expect(JSON.stringify(doc.divergence)).toMatch(/a different note/);
    expect(serverD.raw).toHaveLength(0);
    expect(processesIn(doc.fork_worktree)).toEqual([]);
  } finally {
    await serverD.close();
  }
});
