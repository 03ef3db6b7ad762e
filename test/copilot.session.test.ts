import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from '../src/canonical';
import { snapshotRefFor } from '../src/git';
import { Cas, casDir, journalFile, readVerifiedJournal, type JournalEntry } from '../src/journal';
import { readRunJournalFile, runJournalFile } from '../src/runs';
import { agentBinary } from './helpers/agents';
import { startChatServer, type ChatServer } from './helpers/chat-server';
import { stepchainBin } from './helpers/claude';
import { cli, expectNoStack } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { runCopilot, type CopilotRun } from './helpers/copilot';
import { git } from './helpers/git';
import { identifiedProject } from './helpers/record';
import { refPython, expectVerifiedByPeer } from './helpers/python';
import { tempDir } from './helpers/tmp';

// The real binary, and a Node process per hook, on a loaded 2-core machine.
jest.setTimeout(240_000);

/**
 * A real GitHub Copilot CLI session (the pinned binary) against a scripted Chat Completions server on 127.0.0.1,
 * recorded by the hooks `stepchain init copilot` installs: a shell command, a failing one (Copilot says
 * `success`; the exit code is 3), a file written, a file read that fails, and the first command again (the
 * same arguments: its call id must not be the first one's).
 */
const dir = tempDir('stepchain-copilot-');
const root = path.join(dir, 'project');
const home = path.join(dir, 'home');
const bin = stepchainBin(path.join(dir, 'bin'));
const hookFile = path.join(root, '.github', 'hooks', 'stepchain.json');
const PROMPT = 'Make the files.';
const MODEL = 'scripted-model';
const FIRST = { command: 'echo hello > a.txt && cat a.txt', description: 'make a' };
/**
 * The turn the resumed session takes after `/compact`. Copilot CLI 1.0.102 ends a headless run by waiting for its
 * event reader to reach the event log's tail; after a compaction it evicts transient events, and when its poll loop was
 * not already waiting then, the reader never sees the last event (`session.usage_info`): the run sat out a fixed 60 s
 * timeout ("a waited send timed out after 60000ms ... the event poll loop may be wedged", on stderr) and exited 0 (in
 * about half the runs under load, measured: 11 of 25). A turn after the compaction appends events the reader does
 * get. Copilot splits one `-p` into turns at COPILOT_PROMPT_TURN_DELIMITER.
 */
const AFTER_COMPACT = 'After the compaction.';
const TURN_DELIMITER = '\n<<next turn>>\n';

let server: ChatServer;
let run: CopilotRun;
let agent: string;

// `stepchain` on the PATH, as the hooks need it (init warns otherwise).
/**
 * `stepchain <args>` through runCli in this process (`cliInProcess`, the code the bundle runs): what each command says
 * is the point; the first install and the hooks Copilot CLI starts run as real processes.
 */
const scEnv = (): NodeJS.ProcessEnv => ({ HOME: home, PATH: `${bin}:${process.env.PATH ?? ''}` });
const sc = (args: string[], cwd = root) => cliInProcess(args, { cwd, env: scEnv() });
const steps = (): JournalEntry[] => readVerifiedJournal(journalFile(root, agent)).entries;

/** The session's own event log, as Copilot wrote it. */
function copilotLog(sid: string): Record<string, unknown>[] {
  const file = path.join(home, '.copilot', 'session-state', sid, 'events.jsonl');
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

beforeAll(async () => {
  agentBinary('copilot');
  identifiedProject(root);
  mkdirSync(path.join(home, '.copilot'), { recursive: true });
  server = await startChatServer(
    {
      [PROMPT]: [
        { tool: 'bash', args: FIRST },
        { tool: 'bash', args: { command: 'echo oops >&2; exit 3', description: 'fail' } },
        { tool: 'create', args: { path: path.join(root, 'b.txt'), file_text: 'one\ntwo\n' } },
        { tool: 'view', args: { path: path.join(root, 'missing.txt') } },
        { tool: 'bash', args: FIRST },
        { text: 'All done.' },
      ],
      [AFTER_COMPACT]: [{ text: 'Compacted.' }],
    },
    { model: MODEL },
  );
});

afterAll(async () => {
  await server?.close();
});

test('init copilot in a folder Copilot does not trust: the hook file, and the one step to take', async () => {
  const dry = await sc(['init', 'copilot', '--dry-run']);
  expect(dry.code).toBe(0);
  expect(dry.stdout).toContain('+++ ');
  expect(existsSync(hookFile)).toBe(false);
  const r = cli(['init', 'copilot'], { cwd: root, env: scEnv() });
  expectNoStack(r);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain(`+++ ${hookFile}`);
  expect(r.stderr).toContain('only in a trusted folder');
  expect(r.stderr).toContain('"trustedFolders"');
  expect(r.stdout).toContain('once the warning above is dealt with');
  const doc = JSON.parse(readFileSync(hookFile, 'utf8')) as { version: number; hooks: Record<string, unknown[]> };
  expect(doc.version).toBe(1);
  expect(Object.keys(doc.hooks)).toEqual([
    'SessionStart',
    'UserPromptSubmit',
    'PostToolUse',
    'PostToolUseFailure',
    'PreCompact',
    'Stop',
    'SessionEnd',
  ]);
  for (const entries of Object.values(doc.hooks))
    expect(entries).toEqual([{ type: 'command', bash: 'stepchain hook copilot' }]);
});

test('once the folder is trusted (as Copilot records it), init says nothing more and changes nothing', async () => {
  // What answering "Yes" to Copilot's trust prompt writes (Copilot's comment lines included).
  writeFileSync(
    path.join(home, '.copilot', 'config.json'),
    `// User settings belong in settings.json.\n// This file is managed automatically.\n${JSON.stringify({ trustedFolders: [root] }, null, 2)}\n`,
  );
  const before = readFileSync(hookFile, 'utf8');
  const r = await sc(['init', 'copilot', '--json']);
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout)).toMatchObject({ agent: 'copilot', changed: false, written: false, warnings: [] });
  expect(readFileSync(hookFile, 'utf8')).toBe(before);
});

test('a real Copilot session: one step per tool call, call ids from its log, exit codes, the model and the prompt', async () => {
  run = await runCopilot({ cwd: root, home, baseUrl: server.baseUrl, prompt: PROMPT, model: MODEL, binDir: bin });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const result = run.events.find((e) => e.type === 'result');
  expect(result).toMatchObject({ exitCode: 0 });
  const sid = String(result!.sessionId);
  agent = `copilot-${sid}`;
  expect(readFileSync(path.join(root, 'b.txt'), 'utf8')).toBe('one\ntwo\n');

  const calls = server.calls;
  expect(calls.map((c) => c.name)).toEqual(['bash', 'bash', 'create', 'view', 'bash']);
  const rows = steps().map((e) => e.row);
  expect(rows.map((r) => r.seq)).toEqual([0, 1, 2, 3, 4]);
  expect(rows.map((r) => r.tool_call)).toEqual([
    { id: calls[0]!.id, input: FIRST, name: 'Bash' },
    { id: calls[1]!.id, input: calls[1]!.args, name: 'Bash' },
    { id: calls[2]!.id, input: calls[2]!.args, name: 'Write' },
    { id: calls[3]!.id, input: calls[3]!.args, name: 'Read' },
    { id: calls[4]!.id, input: FIRST, name: 'Bash' },
  ]);
  for (const r of rows) {
    expect(r.prompt).toBe(PROMPT);
    expect(r.model).toBe(MODEL);
  }
  expect(rows[0]!.tool_result).toEqual({
    exit_code: 0,
    result_type: 'success',
    text_result_for_llm: 'hello\n<shellId: 0 completed with exit code 0>',
  });
  // Copilot says `success` for a failing command; the exit code is the one its own log records.
  expect(rows[1]!.tool_result).toEqual({
    exit_code: 3,
    result_type: 'success',
    text_result_for_llm: 'oops\n<shellId: 1 completed with exit code 3>',
  });
  expect(rows[2]!.tool_result).toEqual({
    result_type: 'success',
    text_result_for_llm: `Created file ${path.join(root, 'b.txt')} with 8 characters`,
  });
  expect(rows[3]!.tool_result).toEqual({ error: 'Path does not exist' });
  expect(rows[4]!.tool_result).toMatchObject({ exit_code: 0 });
  // Every exit code recorded is the one Copilot's log records for that call.
  const logged = new Map<string, unknown>();
  for (const e of copilotLog(sid)) {
    const d = e.data as Record<string, unknown>;
    if (e.type === 'tool.execution_complete')
      logged.set(String(d.toolCallId), (d.shellExecution as { exitCode?: number } | undefined)?.exitCode);
  }
  for (const r of rows) {
    const code = (r.tool_result as { exit_code?: number }).exit_code;
    expect(code).toBe(logged.get(String((r.tool_call as { id: string }).id)));
  }
  // The raw hook payload is the input blob.
  const cas = new Cas(casDir(root));
  rows.forEach((r, i) => {
    expect(parse(cas.get(r.input_hash)!.toString('utf8'))).toMatchObject({
      hook_event_name: i === 3 ? 'PostToolUseFailure' : 'PostToolUse',
      session_id: sid,
      cwd: root,
    });
  });
});

test('the chain verifies, in stepchain and in the Python model of the reference', async () => {
  expectVerifiedByPeer(await sc(['verify', agent, '--json']), journalFile(root, agent), 5);
});

test('each step has the files it had', () => {
  const files = (n: number) => {
    const ref = snapshotRefFor(root, agent, n)!;
    return git(root, ['ls-tree', '-r', '--name-only', ref]).split('\n').filter(Boolean);
  };
  expect(files(0)).toContain('a.txt');
  expect(files(0)).not.toContain('b.txt');
  expect(git(root, ['show', `${snapshotRefFor(root, agent, 2)!}:b.txt`])).toBe('one\ntwo');
});

test('the run journal: copilot observed, the session start, the prompt, Stop and SessionEnd', () => {
  const r = readRunJournalFile(runJournalFile(root, agent));
  expect(r.ok).toBe(true);
  // Copilot does not wait for the SessionStart hook before the UserPromptSubmit one: their events come in the
  // order the two hook processes record them.
  // Issue 23 adds a `step_changes` row after each step that changed files; these are the session's own events.
  const events = r.entries.map((e) => e.row.event).filter((e) => e !== 'step_changes');
  expect(events[0]).toBe('provider_state_capability');
  expect([...events.slice(1, 3)].sort()).toEqual(['prompt', 'session_start']);
  expect(events.slice(3)).toEqual(['stop', 'session_end']);
  const payload = (name: string) => Object.fromEntries(r.entries.find((e) => e.row.event === name)!.row.payload);
  expect(payload('provider_state_capability')).toEqual({ adapter: 'copilot', capability: 'observed' });
  expect(payload('session_start')).toEqual({ source: 'new' });
  expect(payload('prompt')).toEqual({ prompt: PROMPT });
  expect(payload('stop')).toEqual({ stop_reason: 'end_turn' });
  expect(payload('session_end')).toEqual({ reason: 'complete' });
  expect(JSON.parse(refPython('ref_run_journal.py', ['verify', runJournalFile(root, agent)]))).toMatchObject({
    ok: true,
    count: r.entries.length,
  });
});

test('a compaction (`/compact` in the resumed session) is chained into the run journal as a pinned mutation', async () => {
  const sid = agent.slice('copilot-'.length);
  const before = readRunJournalFile(runJournalFile(root, agent)).entries.length;
  const c = await runCopilot({
    cwd: root,
    home,
    baseUrl: server.baseUrl,
    prompt: `/compact${TURN_DELIMITER}${AFTER_COMPACT}`,
    model: MODEL,
    binDir: bin,
    args: ['--resume', sid],
    env: { COPILOT_PROMPT_TURN_DELIMITER: TURN_DELIMITER },
  });
  // Copilot's 60 s wait (above) says so on stderr: its return fails here.
  expect(c.stderr).toBe('');
  expect(c.code).toBe(0);
  const r = readRunJournalFile(runJournalFile(root, agent));
  expect(r.ok).toBe(true);
  // The compaction is the first thing the resumed run records, then the next turn's own events.
  const added = r.entries.slice(before).map((e) => e.row);
  expect(added[0]!.event).toBe('provider_state_mutation');
  expect(added[0]!.payload.get('mutation_kind')).toBe('compact_boundary');
  expect([...added.slice(1, 3).map((e) => e.event)].sort()).toEqual(['prompt', 'session_start']);
  expect(added.slice(3).map((e) => e.event)).toEqual(['stop', 'session_end']);
  expect(Object.fromEntries(added.find((e) => e.event === 'prompt')!.payload)).toEqual({ prompt: AFTER_COMPACT });
  expect(Object.fromEntries(added.find((e) => e.event === 'session_start')!.payload)).toEqual({ source: 'resume' });
  expect(JSON.parse(refPython('ref_run_journal.py', ['verify', runJournalFile(root, agent)]))).toMatchObject({
    ok: true,
    count: r.entries.length,
  });
  // Steps are untouched by it.
  expect(steps()).toHaveLength(5);
});

test('fork --resume is refused for Copilot sessions, with the reason', async () => {
  const r = await sc(['fork', agent, '--from-step', '1', '--resume']);
  expectNoStack(r);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('GitHub Copilot CLI sessions are not resumed');
});

test('init copilot --remove takes out exactly what init wrote', async () => {
  const r = await sc(['init', 'copilot', '--remove']);
  expect(r.code).toBe(0);
  expect(existsSync(hookFile)).toBe(false);
  expect((await sc(['init', 'copilot', '--remove'])).stdout).toContain('no stepchain hooks to remove');
});
