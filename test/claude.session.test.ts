import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { canonical, parse, type JsonValue } from '../src/canonical';
import { snapshotRefFor } from '../src/git';
import { Cas, casDir, journalFile, readVerifiedJournal, type JournalEntry } from '../src/journal';
import { readRunJournalFile, runJournalFile } from '../src/runs';
import { sha256Hex } from '../src/util/hash';
import { cli, expectNoStack } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import {
  claudeBinary,
  runClaude,
  startScriptedServer,
  stepchainBin,
  type ClaudeRun,
  type ScriptedServer,
} from './helpers/claude';
import { git } from './helpers/git';
import { identifiedProject } from './helpers/record';
import { refPython, expectVerifiedByPeer } from './helpers/python';
import { tempDir } from './helpers/tmp';

// The real binary starts once per session and runs a Node process per hook: slow on a loaded machine.
jest.setTimeout(180_000);

/**
 * A real Claude Code session (the devDependency's native binary) against a
 * scripted Messages API server on 127.0.0.1, recorded by the hooks that
 * `stepchain init claude` installs: Bash, a failing Bash, Write and Edit, then
 * `/compact`, then a fork at step 2 whose conversation is resumed.
 */
const dir = tempDir('stepchain-claude-');
const root = path.join(dir, 'project');
const home = path.join(dir, 'home');
const bin = stepchainBin(path.join(dir, 'bin'));
const keyPath = path.join(dir, 'keys', 'audit.key');
const env = { STEPCHAIN_AUDIT: 'on', STEPCHAIN_AUDIT_KEY_PATH: keyPath };
const PROMPT = 'Make the files.';
const RESUME_PROMPT = 'Go on from here.';
const MODEL = 'claude-test-model';

let binary: string;
let server: ScriptedServer;
let sid: string;
let agent: string;
let first: ClaudeRun;
let compact: ClaudeRun;

/** Claude Code in the project (or `cwd`) against the scripted server, with stepchain's bin on its PATH. */
const claude = (prompt: string, more: { cwd?: string; resume?: string; env?: NodeJS.ProcessEnv } = {}) =>
  runClaude({ binary, cwd: root, home, port: server.port, prompt, binDir: bin, env, ...more });

/**
 * `stepchain <args>` through runCli in this process (`cliInProcess`, the code the bundle runs): what each command
 * finds in the session is the point; init and the hooks Claude Code starts run as real processes.
 */
const sc = (args: string[], cwd = root) => cliInProcess(args, { cwd, env });

function steps(file: string): JournalEntry[] {
  return readVerifiedJournal(file).entries;
}

function toolUses(run: ClaudeRun): { id: string; name: string; input: JsonValue }[] {
  const out: { id: string; name: string; input: JsonValue }[] = [];
  for (const e of run.events) {
    if (e.type !== 'assistant') continue;
    const content = (e.message as { content?: unknown[] } | undefined)?.content ?? [];
    for (const b of content as Record<string, unknown>[]) {
      if (b.type === 'tool_use') out.push({ id: String(b.id), name: String(b.name), input: b.input as JsonValue });
    }
  }
  return out;
}

function files(commitish: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of git(root, ['ls-tree', '-r', '--name-only', commitish]).split('\n').filter(Boolean)) {
    out[f] = git(root, ['show', `${commitish}:${f}`]);
  }
  return out;
}

beforeAll(async () => {
  binary = claudeBinary();
  identifiedProject(root);
  server = await startScriptedServer({
    [PROMPT]: [
      { tools: [{ name: 'Bash', input: { command: 'echo hello > a.txt && cat a.txt' } }] },
      { tools: [{ name: 'Bash', input: { command: 'echo oops >&2; exit 3' } }] },
      { tools: [{ name: 'Write', input: { file_path: path.join(root, 'b.txt'), content: 'one\ntwo\n' } }] },
      {
        tools: [
          { name: 'Edit', input: { file_path: path.join(root, 'b.txt'), old_string: 'two', new_string: 'three' } },
        ],
      },
      { text: 'All four done.' },
    ],
    [RESUME_PROMPT]: [
      { tools: [{ name: 'Bash', input: { command: 'echo resumed > c.txt' } }] },
      { text: 'Resumed and done.' },
    ],
  });
});

afterAll(async () => {
  await server?.close();
});

test('the claude binary of the devDependency runs offline', () => {
  const r = spawnSync(binary, ['--version'], { encoding: 'utf8', env: { PATH: '/usr/bin:/bin', HOME: home } });
  expect(r.status).toBe(0);
  expect(r.stdout).toMatch(/^2\.1\.328 \(Claude Code\)/);
});

test('init claude installs the hooks; a real session is recorded with one step per tool call', async () => {
  const init = cli(['init', 'claude'], { cwd: root, env });
  expect(init.code).toBe(0);
  expect(init.stdout).toContain('+++ ');
  first = await claude(PROMPT, { env: { ...env, ANTHROPIC_MODEL: MODEL } });
  expect(first.code).toBe(0);
  expect(first.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  sid = first.sessionId!;
  agent = `claude-${sid}`;
  // Every hook ran and succeeded (Claude Code reports each in stream-json).
  const responses = first.events.filter((e) => e.subtype === 'hook_response');
  expect(responses.length).toBeGreaterThan(0);
  for (const h of responses) expect(h).toMatchObject({ exit_code: 0, outcome: 'success' });
  expect(readFileSync(path.join(root, 'b.txt'), 'utf8')).toBe('one\nthree\n');

  const uses = toolUses(first);
  expect(uses.map((u) => u.name)).toEqual(['Bash', 'Bash', 'Write', 'Edit']);
  const rows = steps(journalFile(root, agent));
  expect(rows.map((e) => e.row.seq)).toEqual([0, 1, 2, 3]);
  rows.forEach((e, i) => {
    expect(e.row.tool_call).toEqual({ id: uses[i]!.id, input: uses[i]!.input, name: uses[i]!.name });
    expect(e.row.prompt).toBe(PROMPT);
    expect([null, MODEL]).toContain(e.row.model);
  });
  expect(rows[0]!.row.tool_result).toMatchObject({ stdout: 'hello', stderr: '', interrupted: false });
  expect(rows[1]!.row.tool_result).toEqual({ error: 'Exit code 3\noops', is_interrupt: false });
  expect(rows[2]!.row.tool_result).toMatchObject({ type: 'create', content: 'one\ntwo\n' });
  expect(rows[3]!.row.tool_result).toMatchObject({ oldString: 'two', newString: 'three', originalFile: 'one\ntwo\n' });
  // The raw hook payload is the input blob.
  const cas = new Cas(casDir(root));
  for (const [i, e] of rows.entries()) {
    const blob = cas.get(e.row.input_hash)!;
    expect(sha256Hex(blob)).toBe(e.row.input_hash);
    const payload = parse(blob.toString('utf8'));
    expect(payload).toMatchObject({
      hook_event_name: i === 1 ? 'PostToolUseFailure' : 'PostToolUse',
      session_id: sid,
      tool_use_id: uses[i]!.id,
      cwd: root,
    });
  }
});

test('the chain verifies, in stepchain and in the Python model of the reference', async () => {
  expectVerifiedByPeer(await sc(['verify', agent, '--json']), journalFile(root, agent), 4);
});

test('each step has the files it had: a.txt from step 0, b.txt as written at step 2 and edited at step 3', () => {
  const snap = (n: number) => files(snapshotRefFor(root, agent, n)!);
  expect(snap(0)).toMatchObject({ 'a.txt': 'hello' });
  expect(snap(0)['b.txt']).toBeUndefined();
  expect(snap(2)['b.txt']).toBe('one\ntwo');
  expect(snap(3)['b.txt']).toBe('one\nthree');
});

test('the run journal: claude observed from SessionStart on, the prompt, Stop and SessionEnd as events', () => {
  const r = readRunJournalFile(runJournalFile(root, agent));
  expect(r.ok).toBe(true);
  const events = r.entries.map((e) => e.row.event);
  // Issue 22 adds PostToolBatch: one `tool_batch` per model turn that ran tools (four here, one tool each).
  // Issue 23 adds `step_changes`: one per step that changed files (three of the four tool calls write a file).
  expect(events).toEqual([
    'provider_state_capability',
    'session_start',
    'prompt',
    'step_changes',
    'tool_batch',
    'tool_batch',
    'step_changes',
    'tool_batch',
    'step_changes',
    'tool_batch',
    'stop',
    'session_end',
  ]);
  const payload = (i: number) => Object.fromEntries(r.entries[i]!.row.payload);
  expect(payload(0)).toEqual({ adapter: 'claude', capability: 'observed' });
  expect(payload(1)).toEqual({ source: 'startup' });
  expect(payload(2)).toMatchObject({ prompt: PROMPT });
  expect(payload(10)).toMatchObject({ last_assistant_message: 'All four done.' });
  expect(JSON.parse(refPython('ref_run_journal.py', ['verify', runJournalFile(root, agent)]))).toMatchObject({
    ok: true,
    count: 12,
  });
});

test('every step is in the audit chain', async () => {
  const q = await sc(['audit', 'query', '--event-type', 'replay.step', '--json']);
  expect(q.code).toBe(0);
  const doc = JSON.parse(q.stdout) as { events: { resource_id: string; details: { seq: number } }[] };
  const mine = doc.events.filter((e) => e.resource_id === agent);
  expect(mine.map((e) => e.details.seq)).toEqual([0, 1, 2, 3]);
  expect((await sc(['audit', 'verify'])).code).toBe(0);
});

test('/compact pins one compact_boundary mutation; run ingest of the same stream-json agrees', async () => {
  compact = await claude('/compact', { resume: sid });
  expect(compact.code).toBe(0);
  const boundary = compact.events.find((e) => e.subtype === 'compact_boundary');
  expect(boundary).toBeDefined();
  const meta = boundary!.compact_metadata as { trigger: string; pre_tokens: number };
  expect(meta.trigger).toBe('manual');

  const hooked = readRunJournalFile(runJournalFile(root, agent));
  expect(hooked.ok).toBe(true);
  const mutations = hooked.entries.filter((e) => e.row.event === 'provider_state_mutation');
  expect(mutations).toHaveLength(1);
  const m = Object.fromEntries(mutations[0]!.row.payload);
  expect(m).toMatchObject({ mutation_kind: 'compact_boundary', step_index: 0, flagged: false, agent_id: agent });
  // The compaction sits between the resumed session's start and its SessionStart(source=compact); PostCompact's
  // summary (issue 22) follows it, naming it by its content address, the summary's text in the CAS.
  const events = hooked.entries.map((e) => [e.row.event, e.row.payload.get('source') ?? null]);
  expect(events.slice(12)).toEqual([
    ['session_start', 'resume'],
    ['provider_state_mutation', null],
    ['subagent_stop', null],
    ['session_start', 'compact'],
    ['compact_summary', null],
    ['session_end', null],
  ]);
  // Claude Code runs the summariser as a subagent: a SubagentStop (agent_type "") with no SubagentStart, recorded as
  // it came; no journal (it made no tool call) and no family in `forks` (nothing launched it).
  expect(Object.fromEntries(hooked.entries.find((e) => e.row.event === 'subagent_stop')!.row.payload)).toMatchObject({
    agent_type: '',
    last_assistant_message: expect.stringContaining('The user asked for files; they were made.'),
  });
  expect((JSON.parse((await sc(['forks', '--json'])).stdout) as { subagents: unknown[] }).subagents).toEqual([]);
  const summary = Object.fromEntries(hooked.entries.find((e) => e.row.event === 'compact_summary')!.row.payload);
  expect(summary).toMatchObject({ trigger: 'manual', compaction: m.content_address });
  const text = new Cas(casDir(root)).get(summary.summary_blob as string)!.toString('utf8');
  expect(text).toContain('The user asked for files; they were made.');
  expect((await sc(['run', 'verify', agent])).code).toBe(0);

  // The same session's stream-json, ingested into another run: the same compaction, same agent, index and trigger.
  const streams = path.join(dir, 'streams');
  mkdirSync(streams, { recursive: true });
  const s1 = path.join(streams, 'first.jsonl');
  const s2 = path.join(streams, 'compact.jsonl');
  writeFileSync(s1, first.stdout);
  writeFileSync(s2, compact.stdout);
  expect((await sc(['run', 'ingest', 'ingested', '--agent', agent, '--claude-stream', s1])).code).toBe(0);
  expect((await sc(['run', 'ingest', 'ingested', '--agent', agent, '--claude-stream', s2])).code).toBe(0);
  const ingested = readRunJournalFile(runJournalFile(root, 'ingested'));
  const im = ingested.entries
    .filter((e) => e.row.event === 'provider_state_mutation')
    .map((e) => Object.fromEntries(e.row.payload));
  expect(im).toHaveLength(1);
  expect(im[0]).toMatchObject({
    mutation_kind: m.mutation_kind,
    step_index: m.step_index,
    flagged: m.flagged,
    agent_id: agent,
  });
  expect(
    ingested.entries
      .filter((e) => e.row.event === 'provider_state_capability')
      .map((e) => Object.fromEntries(e.row.payload)),
  ).toEqual([{ adapter: 'claude', capability: 'observed' }]);
  // What the hook digested is the trigger the stream reports.
  expect(m.after_digest).toBe(sha256Hex(Buffer.from(canonical({ trigger: meta.trigger }))));
});

test('fork --from-step 2 --resume: the files of step 2, the journal prefix, and a conversation cut after its result', async () => {
  // runCli in this process: what the fork made is the point (HOME, where Claude Code's sessions are, is in its env).
  const r = await cliInProcess(['fork', agent, '--from-step', '2', '--resume', '--json'], {
    cwd: root,
    env: { ...env, HOME: home },
  });
  expectNoStack(r);
  expect(r.code).toBe(0);
  const doc = JSON.parse(r.stdout) as Record<string, string>;
  const forkSid = doc.claude_session_id!;
  expect(doc.fork_session_id).toBe(`claude-${forkSid}`);
  expect(doc.resume_command).toBe(`cd ${doc.fork_worktree} && claude --resume ${forkSid}`);
  const wt = doc.fork_worktree!;
  expect(readFileSync(path.join(wt, 'a.txt'), 'utf8')).toBe('hello\n');
  expect(readFileSync(path.join(wt, 'b.txt'), 'utf8')).toBe('one\ntwo\n');
  const parentLines = readFileSync(journalFile(root, agent), 'utf8').split('\n');
  expect(readFileSync(journalFile(wt, doc.fork_session_id!), 'utf8')).toBe(parentLines.slice(0, 3).join('\n') + '\n');
  // The copy sits where Claude Code looks for sessions started in the worktree, and ends with step 2's result.
  const expectedDir = path.join(home, '.claude', 'projects', wt.replace(/[^A-Za-z0-9]/g, '-'));
  expect(doc.claude_transcript).toBe(path.join(expectedDir, `${forkSid}.jsonl`));
  const lines = readFileSync(doc.claude_transcript!, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const last = lines.at(-1)!;
  expect(last.type).toBe('user');
  expect(JSON.stringify(last.message)).toContain(`"tool_use_id":"${toolUses(first)[2]!.id}"`);
  for (const l of lines) if (l.sessionId !== undefined) expect(l.sessionId).toBe(forkSid);
});

test('resuming the fork sends the conversation up to step 2’s result, and the fork’s journal continues at step 3', async () => {
  const forks = readdirSync(path.join(root, '.sdd', 'worktrees'));
  expect(forks).toHaveLength(1);
  const forkId = forks[0]!;
  const wt = path.join(root, '.sdd', 'worktrees', forkId);
  const before = server.requests.length;
  const resumed = await claude(RESUME_PROMPT, { cwd: wt, resume: forkId.slice('claude-'.length) });
  expect(resumed.code).toBe(0);
  const req = server.requests[before]!.body;
  const uses = toolUses(first);
  const resultIds: string[] = [];
  let lastResult = -1;
  req.messages.forEach((m, i) => {
    if (typeof m.content === 'string') return;
    for (const b of m.content) {
      if (b.type === 'tool_result') {
        resultIds.push(String(b.tool_use_id));
        lastResult = i;
      }
    }
  });
  expect(resultIds).toEqual(uses.slice(0, 3).map((u) => u.id));
  // After step 2's result: no tool call or result, only Claude Code's own filler and the new prompt.
  for (const m of req.messages.slice(lastResult + 1)) {
    if (typeof m.content === 'string') continue;
    expect(m.content.filter((b) => b.type === 'tool_use' || b.type === 'tool_result')).toEqual([]);
  }
  expect(JSON.stringify(req.messages.slice(lastResult + 1))).toContain(RESUME_PROMPT);
  expect(JSON.stringify(req.messages)).not.toContain(uses[3]!.id);

  const rows = steps(journalFile(wt, forkId));
  expect(rows.map((e) => e.row.seq)).toEqual([0, 1, 2, 3]);
  const parent = steps(journalFile(root, agent));
  expect(rows[3]!.row.prev_hash).toBe(parent[2]!.row.step_hash);
  expect(rows[3]!.row.tool_call).toMatchObject({ name: 'Bash', input: { command: 'echo resumed > c.txt' } });
  expect(rows[3]!.row.prompt).toBe(RESUME_PROMPT);
  expect(readFileSync(path.join(wt, 'c.txt'), 'utf8')).toBe('resumed\n');
  expect(existsSync(path.join(root, 'c.txt'))).toBe(false);
  expect((await sc(['verify', forkId], wt)).code).toBe(0);
});

test('a compaction in a deterministic replay is recorded flagged, and run verify fails closed', async () => {
  const replay = await claude('/compact', { resume: sid, env: { ...env, STEPCHAIN_REPLAY_RUN_ID: agent } });
  expect(replay.code).toBe(0);
  const r = readRunJournalFile(runJournalFile(root, agent));
  const mutations = r.entries
    .filter((e) => e.row.event === 'provider_state_mutation')
    .map((e) => Object.fromEntries(e.row.payload));
  expect(mutations.map((x) => [x.step_index, x.flagged])).toEqual([
    [0, false],
    [1, true],
  ]);
  const v = await sc(['run', 'verify', agent]);
  expect(v.code).toBe(1);
  expect(v.stderr).toMatch(/flagged_mutation/);
});
