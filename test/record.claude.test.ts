import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse, type JsonValue } from '../src/canonical';
import { Cas, casDir, journalFile, readVerifiedJournal, type JournalEntry } from '../src/journal';
import { readRunJournalFile, runJournalFile } from '../src/runs';
import { sha256Hex } from '../src/util/hash';
import { cli, expectNoStack } from './helpers/cli';
import { claudeBinary, startScriptedServer, type ScriptedServer } from './helpers/claude';
import { initRepo } from './helpers/git';
import { cliPath } from './helpers/paths';
import { tempDir } from './helpers/tmp';

// The real Claude Code binary, through `stepchain record` and `fork --replay`, against scripted servers on 127.0.0.1.
jest.setTimeout(180_000);

const dir = tempDir('stepchain-record-');
const root = path.join(dir, 'project');
const home = path.join(dir, 'home');
const note = path.join(dir, 'note.txt');
const KEY = 'sk-ant-test-not-a-key-7f3a';
const MAKE = 'Make the files.';
const NOTE = 'Read the note.';
const SCRIPTS = {
  [MAKE]: [
    { tools: [{ name: 'Bash', input: { command: 'printf one > one.txt', description: 'first file' } }] },
    { tools: [{ name: 'Bash', input: { command: 'cat one.txt > two.txt', description: 'second file' } }] },
    { text: 'Done.' },
  ],
  [NOTE]: [{ tools: [{ name: 'Bash', input: { command: `cat ${note}`, description: 'read it' } }] }, { text: 'Read.' }],
};

let binary: string;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function claudeArgs(prompt: string, extra: string[] = []): string[] {
  return [binary, '-p', prompt, '--output-format', 'stream-json', '--verbose', '--allowedTools', 'Bash', ...extra];
}

/** `stepchain <args>` as a real process, asynchronous (the scripted servers live in this process). */
function stepchain(args: string[], cwd = root, extraEnv: NodeJS.ProcessEnv = {}): Promise<Run> {
  const env: NodeJS.ProcessEnv = {
    PATH: [path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
    HOME: home,
    ANTHROPIC_API_KEY: KEY,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    STEPCHAIN_AUDIT: 'off',
    ...extraEnv,
  };
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliPath, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

function entries(file: string): JournalEntry[] {
  return readVerifiedJournal(file).entries;
}

function blob(digest: string, at = root): Buffer {
  const b = new Cas(casDir(at), false).get(digest);
  if (b === undefined) throw new Error(`blob ${digest} missing`);
  return b;
}

/** Every file under the CAS and the journals, read as text, for a credential search. */
function everythingStored(at: string): string {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push(readFileSync(p, 'latin1'));
    }
  };
  walk(path.join(at, '.sdd'));
  return out.join('\n');
}

let serverA: ScriptedServer;
let recorded: JournalEntry[];
let sessionCwdRun: Run;

beforeAll(async () => {
  binary = claudeBinary();
  initRepo(root, { 'README.md': '# project\n' });
  writeFileSync(note, 'the first note\n');
  serverA = await startScriptedServer(SCRIPTS);
});

afterAll(async () => {
  await serverA.close();
});

test('record: every exchange of a real Claude Code run is a step, byte for byte, streamed, without credentials', async () => {
  sessionCwdRun = await stepchain([
    'record',
    '--agent',
    'claude',
    '--journal',
    'rec-1',
    '--upstream',
    `http://127.0.0.1:${serverA.port}`,
    '--',
    ...claudeArgs(MAKE),
  ]);
  expectNoStack(sessionCwdRun);
  expect(sessionCwdRun.stderr).toMatch(/3 exchanges recorded/);
  expect(sessionCwdRun.code).toBe(0);
  // The agent saw the whole stream: both tool calls ran, and the final text came through.
  expect(readFileSync(path.join(root, 'two.txt'), 'utf8')).toBe('one');
  const result = sessionCwdRun.stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((e) => e.type === 'result');
  expect(result?.result).toBe('Done.');

  recorded = entries(journalFile(root, 'rec-1'));
  expect(recorded).toHaveLength(3);
  expect(serverA.raw).toHaveLength(3);
  recorded.forEach((e, i) => {
    const raw = serverA.raw[i]!;
    // input_hash is the SHA-256 of what the upstream received; the response blob is what it sent.
    expect(e.row.input_hash).toBe(sha256Hex(raw.request));
    expect(blob(e.row.input_hash).equals(raw.request)).toBe(true);
    expect(e.row.blob_refs).toContain(sha256Hex(raw.response));
    expect(blob(sha256Hex(raw.response)).equals(raw.response)).toBe(true);
    const body = parse(raw.request.toString('utf8')) as { model: JsonValue; messages: JsonValue };
    expect(e.row.model).toBe(body.model);
    expect(e.row.prompt).toEqual(body.messages);
  });
  // tool_call: what the response asked for; tool_result: what the next request carried for it.
  const [s0, s1, s2] = recorded.map((e) => e.row);
  expect(s0!.tool_call).toEqual([
    { id: serverA.toolUseIds[0], name: 'Bash', input: { command: 'printf one > one.txt', description: 'first file' } },
  ]);
  expect(s0!.tool_result).toEqual([
    expect.objectContaining({ type: 'tool_result', tool_use_id: serverA.toolUseIds[0] }),
  ]);
  expect(s1!.tool_result).toEqual([expect.objectContaining({ tool_use_id: serverA.toolUseIds[1] })]);
  expect(s2!.tool_call).toBeNull();
  expect(s2!.tool_result).toBeNull();
  // Credentials never enter the record; the exchange record names the headers it kept.
  const stored = everythingStored(root);
  expect(stored).not.toContain(KEY);
  const meta = JSON.parse(blob(recorded[0]!.row.blob_refs.at(-1)!).toString('utf8')) as {
    request_headers: [string, string][];
    status: number;
  };
  expect(meta.status).toBe(200);
  expect(meta.request_headers.map(([k]) => k)).not.toContain('x-api-key');
  expect(meta.request_headers.map(([k]) => k)).toContain('x-claude-code-session-id');
  // The chain verifies; the run journal holds the adapter's capability and the start.
  expect(cli(['verify', 'rec-1'], { cwd: root }).code).toBe(0);
  const run = readRunJournalFile(runJournalFile(root, 'rec-1'));
  expect(run.ok).toBe(true);
  expect(run.capabilities).toEqual([{ adapter: 'proxy-claude', capability: 'observed' }]);
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
    'record',
    '--agent',
    'claude',
    '--journal',
    'rec-compact',
    '--upstream',
    `http://127.0.0.1:${serverA.port}`,
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
  const steps = entries(journalFile(root, 'rec-compact'));
  expect(blob(steps[0]!.row.input_hash).toString('utf8')).toMatch(/create a detailed summary of the conversation/);
  expect(cli(['run', 'verify', 'rec-compact'], { cwd: root }).code).toBe(0);
});

/** Processes whose working directory is under `d` (a fork's agent that survived). */
function processesIn(d: string): number[] {
  const out: number[] = [];
  for (const n of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(n)) continue;
    try {
      if (readlinkSync(`/proc/${n}/cwd`).startsWith(d)) out.push(Number(n));
    } catch {
      /* gone, or not ours */
    }
  }
  return out;
}

test('fork --replay from step 1: server A is gone, server B gets only the requests after step 1, the files are right', async () => {
  await serverA.close();
  const serverB = await startScriptedServer(SCRIPTS);
  try {
    const r = await stepchain([
      'fork',
      'rec-1',
      '--from-step',
      '1',
      '--replay',
      '--upstream',
      `http://127.0.0.1:${serverB.port}`,
      '--json',
      '--',
      ...claudeArgs(MAKE),
    ]);
    expectNoStack(r);
    const doc = JSON.parse(r.stdout) as {
      ok: boolean;
      fork_worktree: string;
      journal_path: string;
      replayed: number;
      forwarded: number;
      divergence: unknown;
      files_at_step: { checked: boolean; differing: string[] };
    };
    expect({ code: r.code, stderr: r.stderr.includes('warning') ? r.stderr : '' }).toEqual({ code: 0, stderr: '' });
    expect(doc).toMatchObject({ ok: true, replayed: 2, forwarded: 1, divergence: null });
    // Only the request after step 1 reached an upstream, and it is the third turn of the same conversation.
    expect(serverB.raw).toHaveLength(1);
    expect(serverB.requests[0]!.body.messages).toHaveLength((recorded[2]!.row.prompt as unknown[]).length);
    // The tools of steps 0 and 1 ran for real in the fork, from the files the run started with.
    expect(readFileSync(path.join(doc.fork_worktree, 'two.txt'), 'utf8')).toBe('one');
    expect(doc.files_at_step).toEqual({ checked: true, differing: [] });
    // The fork's journal: the parent's steps 0..1, then the live exchange; it verifies.
    const fork = entries(doc.journal_path);
    expect(fork).toHaveLength(3);
    expect(fork.slice(0, 2).map((e) => e.row.step_hash)).toEqual(recorded.slice(0, 2).map((e) => e.row.step_hash));
    expect(fork[2]!.row.input_hash).toBe(sha256Hex(serverB.raw[0]!.request));
    expect(cli(['verify', doc.journal_path], { cwd: root }).code).toBe(0);
  } finally {
    await serverB.close();
  }
});

test('fork --replay stops at the exchange whose tool result changed: exit 1, nothing upstream, the agent ended', async () => {
  const serverC = await startScriptedServer(SCRIPTS);
  const rec = await stepchain([
    'record',
    '--agent',
    'claude',
    '--journal',
    'rec-note',
    '--upstream',
    `http://127.0.0.1:${serverC.port}`,
    '--',
    ...claudeArgs(NOTE),
  ]);
  expect(rec.code).toBe(0);
  await serverC.close();
  writeFileSync(note, 'a different note\n'); // the tool of step 0 now reads something else
  const serverD = await startScriptedServer(SCRIPTS);
  try {
    const r = await stepchain([
      'fork',
      'rec-note',
      '--from-step',
      '1',
      '--replay',
      '--upstream',
      `http://127.0.0.1:${serverD.port}`,
      '--json',
      '--',
      ...claudeArgs(NOTE),
    ]);
    expectNoStack(r);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /exchange 1: the replayed request differs from the recorded one at messages\[\d+\]\.content\[\d+\]/,
    );
    const doc = JSON.parse(r.stdout) as {
      ok: boolean;
      fork_worktree: string;
      divergence: { exchange: number; recorded: string; replayed: string };
    };
    expect(doc.ok).toBe(false);
    expect(doc.divergence.exchange).toBe(1);
    expect(JSON.stringify(doc.divergence)).toMatch(/the first note/);
    expect(JSON.stringify(doc.divergence)).toMatch(/a different note/);
    expect(serverD.raw).toHaveLength(0);
    expect(processesIn(doc.fork_worktree)).toEqual([]);
  } finally {
    await serverD.close();
  }
});
