import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parse, type JsonValue } from '../src/canonical';
import { Cas, casDir, journalFile, readVerifiedJournal, type JournalEntry } from '../src/journal';
import { readRunJournalFile, runJournalFile } from '../src/runs';
import { cli, expectNoStack } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { stepchainBin } from './helpers/claude';
import { identifiedProject } from './helpers/record';
import {
  CODEX_MODEL,
  runCodex,
  startResponsesServer,
  writeCodexConfig,
  type CodexRun,
  type ResponsesServer,
} from './helpers/responses-server';
import { refPython, expectVerifiedByPeer } from './helpers/python';
import { tempDir } from './helpers/tmp';

// The real binary runs a Node process per hook: slow on a loaded machine.
jest.setTimeout(180_000);

/**
 * A real Codex CLI session (the pinned binary) against a scripted Responses API server on 127.0.0.1, recorded by
 * the hooks `stepchain init codex` installs and trusts: a command that writes a file, a failing command; then a
 * session that compacts; then a fork at step 0 whose conversation is resumed; then `init codex --remove`.
 */
const dir = tempDir('stepchain-codex-');
const root = path.join(dir, 'project');
const home = path.join(dir, 'codex-home');
const bin = stepchainBin(path.join(dir, 'bin'));
const PROMPT = 'Make the file.';
const CMD_OK = 'echo hello > a.txt && cat a.txt';
const CMD_FAIL = 'echo oops >&2; exit 3';

let server: ResponsesServer;
let first: CodexRun;
let agent: string;

/**
 * `stepchain <args>` through runCli in this process (`cliInProcess`, the code the bundle runs): what each command says
 * is the point; the first install and the hooks Codex starts run as real processes.
 */
const scEnv = (): NodeJS.ProcessEnv => ({ CODEX_HOME: home, PATH: `${bin}:${process.env.PATH ?? ''}` });
const sc = (args: string[], cwd = root) => cliInProcess(args, { cwd, env: scEnv() });

function steps(file: string): JournalEntry[] {
  return readVerifiedJournal(file).entries;
}

beforeAll(async () => {
  identifiedProject(root);
  server = await startResponsesServer([CMD_OK, CMD_FAIL]);
  writeCodexConfig(home, server.port, `[projects.${JSON.stringify(root)}]\ntrust_level = "trusted"\n`);
  const init = cli(['init', 'codex'], { cwd: root, env: scEnv() });
  expect(init.stderr).toBe('');
  expect(init.code).toBe(0);
  first = await runCodex({ cwd: root, home, prompt: PROMPT, binDir: bin });
  if (first.code !== 0) throw new Error(`codex exited ${first.code}: ${first.stderr}\n${first.stdout}`);
  agent = `codex-${first.sessionId!}`;
});

afterAll(async () => {
  await server?.close();
});

test('each tool call is one step of codex-<session_id>, with exactly what Codex reported and the exit codes', () => {
  expect(first.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  const entries = steps(journalFile(root, agent));
  expect(entries).toHaveLength(2);
  const [ok, failed] = entries.map((e) => e.row);
  expect(ok!.tool_call).toEqual({ id: server.callIds[0], input: { command: CMD_OK }, name: 'Bash' });
  expect(ok!.tool_result).toEqual({ exit_code: 0, response: 'hello\n' });
  expect(failed!.tool_call).toEqual({ id: server.callIds[1], input: { command: CMD_FAIL }, name: 'Bash' });
  expect(failed!.tool_result).toEqual({ exit_code: 3, response: 'oops\n' });
  for (const row of [ok!, failed!]) {
    expect(row.prompt).toBe(PROMPT);
    expect(row.model).toBe(CODEX_MODEL);
  }
  // What Codex's own --json stream says about the same commands.
  const done = first.events
    .filter((e) => e.type === 'item.completed')
    .map((e) => e.item as Record<string, unknown>)
    .filter((i) => i.type === 'command_execution');
  expect(done.map((i) => [i.aggregated_output, i.exit_code])).toEqual([
    ['hello\n', 0],
    ['oops\n', 3],
  ]);
  // The raw payload is the step's input blob, byte for byte what the hook read.
  const blob = new Cas(casDir(root)).get(ok!.input_hash)!;
  const payload = parse(blob.toString('utf8'), { objects: 'map' }) as Map<string, JsonValue>;
  expect(payload.get('hook_event_name')).toBe('PostToolUse');
  expect(payload.get('session_id')).toBe(first.sessionId);
});

test('the chain verifies, in stepchain and in the Python model of the reference', async () => {
  expectVerifiedByPeer(await sc(['verify', agent, '--json']), journalFile(root, agent), 2);
});

test('the run journal: the adapter observed, the session events, the prompt', () => {
  const all = readRunJournalFile(runJournalFile(root, agent));
  expect(all.ok).toBe(true);
  // Issue 23 adds a `step_changes` row after each step that changed files; these are the session's own events.
  const run = { entries: all.entries.filter((e) => e.row.event !== 'step_changes') };
  expect(run.entries.map((e) => e.row.event)).toEqual([
    'provider_state_capability',
    'session_start',
    'prompt',
    'stop',
    'session_end',
  ]);
  const payload = (i: number) => Object.fromEntries(run.entries[i]!.row.payload);
  expect(payload(0)).toEqual({ adapter: 'codex', capability: 'observed' });
  expect(payload(1)).toEqual({ source: 'startup', model: CODEX_MODEL });
  expect(payload(2)).toEqual({ turn_id: expect.any(String), prompt: PROMPT });
  expect(payload(3)).toMatchObject({ last_assistant_message: 'Done.' });
  expect(JSON.parse(refPython('ref_run_journal.py', ['verify', runJournalFile(root, agent)]))).toMatchObject({
    ok: true,
    count: all.entries.length,
  });
});

test('a compaction is one pinned provider_state_mutation in the run journal', async () => {
  server.commands.push('echo one', 'echo two');
  server.inputTokens = 5000;
  const r = await runCodex({
    cwd: root,
    home,
    prompt: 'Compact as you go.',
    binDir: bin,
    config: ['model_auto_compact_token_limit=1000'],
  });
  server.inputTokens = 10;
  expect(r.code).toBe(0);
  expect(server.requests.some((q) => q.kind === 'compaction')).toBe(true);
  const id = `codex-${r.sessionId!}`;
  const run = readRunJournalFile(runJournalFile(root, id));
  expect(run.ok).toBe(true);
  const compactions = server.requests.filter((q) => q.kind === 'compaction').length;
  const mutations = run.entries.filter((e) => e.row.event === 'provider_state_mutation');
  expect(mutations).toHaveLength(compactions);
  for (const m of mutations)
    expect(Object.fromEntries(m.row.payload)).toMatchObject({
      mutation_kind: 'compact_boundary',
      flagged: false,
      agent_id: id,
    });
  const v = await sc(['run', 'verify', id]);
  expect(v.code).toBe(0);
  expectNoStack(v);
});

test('fork --resume: the rollout cut after step 0, resumed by codex exec resume in the fork, recording step 1', async () => {
  const f = await sc(['fork', agent, '--from-step', '0', '--resume', '--json']);
  expect(f.stderr).toBe('');
  expect(f.code).toBe(0);
  const doc = JSON.parse(f.stdout) as Record<string, string>;
  const newId = doc.codex_session_id!;
  expect(doc.fork_session_id).toBe(`codex-${newId}`);
  expect(doc.resumes_after_call_id).toBe(server.callIds[0]);
  expect(doc.resume_command).toBe(`cd ${doc.fork_worktree} && CODEX_HOME=${home} codex exec resume ${newId}`);
  // The copy ends with the output of step 0's call; the rest of the parent's conversation is not in it.
  const lines = readFileSync(doc.codex_rollout!, 'utf8').trimEnd().split('\n');
  const last = JSON.parse(lines[lines.length - 1]!) as { type: string; payload: { type: string; call_id: string } };
  expect(last.payload).toMatchObject({ type: 'function_call_output', call_id: server.callIds[0] });
  expect(readFileSync(doc.codex_rollout!, 'utf8')).not.toContain(server.callIds[1]!);
  expect(readFileSync(doc.codex_rollout!, 'utf8')).not.toContain(first.sessionId!);

  server.commands.push('echo resumed');
  const before = server.requests.length;
  const r = await runCodex({ cwd: doc.fork_worktree!, home, prompt: 'Go on.', resume: newId, binDir: bin });
  expect(r.code).toBe(0);
  expect(r.sessionId).toBe(newId);
  // The model saw the conversation up to step 0's result, and nothing after it.
  const input = server.requests[before]!.body.input!;
  expect(input.filter((i) => i.type === 'function_call_output').map((i) => i.call_id)).toEqual([server.callIds[0]]);
  const forked = steps(journalFile(doc.fork_worktree!, `codex-${newId}`));
  expect(forked).toHaveLength(2);
  expect(forked[1]!.row.tool_call).toMatchObject({ input: { command: 'echo resumed' }, name: 'Bash' });
  expect(forked[1]!.row.tool_result).toEqual({ exit_code: 0, response: 'resumed\n' });
  expect(forked[1]!.row.prompt).toBe('Go on.');
  expect((await sc(['verify', `codex-${newId}`], doc.fork_worktree!)).code).toBe(0);
});

test('fork --resume refuses a step the journal does not have, saying why', async () => {
  const r = await sc(['fork', agent, '--from-step', '7', '--resume']);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('out of range');
  expectNoStack(r);
});

test('init codex --remove: no hooks, no trust left, and the next session records nothing', async () => {
  const rm = await sc(['init', 'codex', '--remove']);
  expect(rm.code).toBe(0);
  // The project's hooks and their trust are gone (the fork's worktree keeps its own until it is removed).
  expect(readFileSync(path.join(root, '.codex', 'hooks.json'), 'utf8')).not.toContain('stepchain');
  expect(readFileSync(path.join(home, 'config.toml'), 'utf8')).not.toContain(`${root}/.codex/hooks.json`);
  const journals = readdirSync(path.join(root, '.sdd', 'runtime', 'journal')).sort();
  server.commands.push('echo unrecorded');
  const r = await runCodex({ cwd: root, home, prompt: 'Once more.', binDir: bin });
  expect(r.code).toBe(0);
  expect(readdirSync(path.join(root, '.sdd', 'runtime', 'journal')).sort()).toEqual(journals);
  expect(existsSync(journalFile(root, `codex-${r.sessionId!}`))).toBe(false);
});
