import path from 'node:path';
import type { JsonValue } from '../src/canonical';
import { journalFile, readVerifiedJournal, type JournalEntry } from '../src/journal';
import { reportForkTree } from '../src/report';
import { readRunJournalFile, runJournalFile } from '../src/runs';
import { cliInProcess } from './helpers/cli-in-process';
import { claudeBinary, runClaude, startScriptedServer, stepchainBin, type ScriptedServer } from './helpers/claude';
import { identifiedProject } from './helpers/record';
import { refPython, expectVerifiedByPeer } from './helpers/python';
import { tempDir } from './helpers/tmp';

// The real binary starts once per session and runs a Node process per hook: slow on a loaded machine.
jest.setTimeout(240_000);

/**
 * Claude Code's subagents, with the real binary (2.1.328) against the scripted Messages server: the main
 * conversation calls the Agent tool; the subagent's conversation (scripted by its own prompt) makes tool calls.
 * Each subagent's tool calls are the steps of its own journal, linked in the session's run journal to the step
 * that launched it, whether the subagent ran synchronously or in the background (`async_launched`, where the
 * session's Stop comes before the subagent has finished).
 */
const dir = tempDir('stepchain-claude-sub-');
const root = path.join(dir, 'project');
const home = path.join(dir, 'home');
const bin = stepchainBin(path.join(dir, 'bin'));
const env = { STEPCHAIN_AUDIT: 'off' };
const SYNC = 'Delegate and wait.';
const ASYNC = 'Delegate in the background.';
const SUB_SYNC = 'Sub task: write s.txt, then fail once.';
const SUB_ASYNC = 'Background sub task: write t.txt.';
const BG_COMMAND =
  'for i in $(seq 600); do grep -qs \'"Launched\\."\' .sdd/runs/*/journal.jsonl && break; sleep 0.1; done; echo bg > t.txt';

let binary: string;
let server: ScriptedServer;

/**
 * `stepchain <args>` through runCli in this process (`cliInProcess`, the code the bundle runs): what each command
 * finds in the sessions is the point; init and the hooks Claude Code starts run as real processes.
 */
const sc = (args: string[]) => cliInProcess(args, { cwd: root, env });
const steps = (id: string): JournalEntry[] => readVerifiedJournal(journalFile(root, id)).entries;
const runRows = (id: string) => readRunJournalFile(runJournalFile(root, id)).entries.map((e) => e.row);
const payloadOf = (row: { payload: Map<string, JsonValue> }) => Object.fromEntries(row.payload);

beforeAll(async () => {
  binary = claudeBinary();
  identifiedProject(root);
  const agentCall = (prompt: string, background: boolean) => ({
    tools: [
      {
        name: 'Agent',
        input: {
          description: 'delegated work',
          prompt,
          subagent_type: 'general-purpose',
          ...(background ? {} : { run_in_background: false }),
        },
      },
    ],
  });
  server = await startScriptedServer({
    [SYNC]: [agentCall(SUB_SYNC, false), { text: 'Main done.' }],
    [SUB_SYNC]: [
      { tools: [{ name: 'Bash', input: { command: 'echo sub > s.txt && cat s.txt' } }] },
      { tools: [{ name: 'Bash', input: { command: 'echo nope >&2; exit 4' } }] },
      { text: 'Sub done.' },
    ],
    [ASYNC]: [agentCall(SUB_ASYNC, true), { text: 'Launched.' }],
    [SUB_ASYNC]: [
      // The main session's Stop must come first (what the test is about): the subagent's call waits for it, until
      // the Stop hook has written it into the run journal (its message, 'Launched.', is in no other row), for at most
      // 60 s; were Stop held back until the subagent is done, the call goes on then and the order below fails. (It
      // slept 5 s instead, a margin waited out in full on every run, and still only a margin.)
      { tools: [{ name: 'Bash', input: { command: BG_COMMAND } }] },
      { text: 'Background done.' },
    ],
  });
  // The install through runCli in this process (claude.session installs as a process): the subagents are the point.
  expect((await sc(['init', 'claude'])).code).toBe(0);
});

afterAll(async () => {
  await server?.close();
});

/** The one subagent link of a session's run journal. */
function linkOf(session: string) {
  const links = runRows(session).filter((r) => r.event === 'subagent_link');
  expect(links).toHaveLength(1);
  return payloadOf(links[0]!);
}

test('a synchronous subagent: its tool calls are its own journal, linked to the Agent step that launched it', async () => {
  const run = await runClaude({ binary, cwd: root, home, port: server.port, prompt: SYNC, binDir: bin, env });
  expect([run.code, run.stderr]).toEqual([0, expect.any(String)]);
  const session = `claude-${run.sessionId!}`;
  // The session's own journal: one step, the Agent call, whose result names the subagent.
  const parent = steps(session);
  expect(parent.map((e) => (e.row.tool_call as { name: string }).name)).toEqual(['Agent']);
  const launched = parent[0]!.row;
  const response = launched.tool_result as { status: string; agentId: string };
  expect(response.status).toBe('completed');
  const sub = `${session}-${response.agentId}`;

  const link = linkOf(session);
  expect(link).toEqual({
    agent_id: response.agentId,
    agent_type: 'general-purpose',
    journal: sub,
    parent_journal: session,
    parent_step: 0,
    parent_tool_use_id: (launched.tool_call as { id: string }).id,
    status: 'completed',
  });

  // The subagent's journal: exactly its two Bash calls, the failing one with its error.
  const rows = steps(sub).map((e) => e.row);
  expect(rows.map((r) => r.tool_call)).toEqual([
    { id: expect.stringMatching(/^toolu_/), input: { command: 'echo sub > s.txt && cat s.txt' }, name: 'Bash' },
    { id: expect.stringMatching(/^toolu_/), input: { command: 'echo nope >&2; exit 4' }, name: 'Bash' },
  ]);
  expect(rows[0]!.tool_result).toMatchObject({ stdout: 'sub', stderr: '' });
  expect(rows[1]!.tool_result).toEqual({ error: 'Exit code 4\nnope', is_interrupt: false });
  expect(rows.map((r) => r.prompt)).toEqual([SYNC, SYNC]);

  // Start, stop and the batches are in the session's run journal; it verifies here and in the Python model.
  const events = runRows(session).map((r) => r.event);
  expect(events.filter((e) => e.startsWith('subagent_'))).toEqual(['subagent_start', 'subagent_stop', 'subagent_link']);
  const stop = payloadOf(runRows(session).find((r) => r.event === 'subagent_stop')!);
  expect(stop).toMatchObject({ agent_id: response.agentId, journal: sub, last_assistant_message: 'Sub done.' });
  const batches = runRows(session)
    .filter((r) => r.event === 'tool_batch')
    .map((r) => payloadOf(r));
  expect(batches).toEqual([
    { agent_id: response.agentId, tool_use_ids: [(rows[0]!.tool_call as { id: string }).id] },
    { agent_id: response.agentId, tool_use_ids: [(rows[1]!.tool_call as { id: string }).id] },
    { agent_id: null, tool_use_ids: [(launched.tool_call as { id: string }).id] },
  ]);
  for (const id of [session, sub]) {
    expectVerifiedByPeer(await sc(['verify', id, '--json']), journalFile(root, id));
  }
  expect((await sc(['run', 'verify', session])).code).toBe(0);
  expect(JSON.parse(refPython('ref_run_journal.py', ['verify', runJournalFile(root, session)]))).toMatchObject({
    ok: true,
  });

  // `forks` shows the family: the subagent under the session, launched by step 0.
  const forks = await sc(['forks', '--json']);
  expect(forks.code).toBe(0);
  const doc = JSON.parse(forks.stdout) as { subagents: Record<string, unknown>[] };
  expect(doc.subagents).toContainEqual(
    expect.objectContaining({ journal: sub, parent_journal: session, parent_step: 0, steps: 2, journal_ok: true }),
  );
  const drawn = (await sc(['forks'])).stdout;
  expect(drawn).toContain(
    `subagents:\n${session}\n└── ${sub}  subagent "general-purpose"  launched by step 0  2 steps`,
  );

  // The report's family tree: the subagent under the session, from the step that launched it (current in its own).
  const subNode = { id: sub, label: 'subagent general-purpose', from_step: 0, steps_since: 2, journal_ok: true };
  expect(await reportForkTree(root, session, env)).toMatchObject({
    id: session,
    current: true,
    children: [{ ...subNode, current: false }],
  });
  expect(await reportForkTree(root, sub, env)).toMatchObject({
    id: session,
    current: false,
    children: [{ ...subNode, current: true }],
  });

  // A subagent's step is not a conversation Claude Code resumes: refused with the reason, nothing made.
  const resume = await sc(['fork', sub, '--from-step', '0', '--resume']);
  expect(resume.code).toBe(2);
  expect(resume.stderr).toMatch(/is a tool call of subagent .*fork .* at the step that launched it/);
});

test('a background subagent (async_launched): nothing lost, the link holds though Stop came first', async () => {
  const run = await runClaude({ binary, cwd: root, home, port: server.port, prompt: ASYNC, binDir: bin, env });
  expect(run.code).toBe(0);
  const session = `claude-${run.sessionId!}`;
  const parent = steps(session);
  expect(parent.map((e) => (e.row.tool_call as { name: string }).name)).toEqual(['Agent']);
  const response = parent[0]!.row.tool_result as { status: string; agentId: string; isAsync: boolean };
  expect(response).toMatchObject({ status: 'async_launched', isAsync: true });
  const sub = `${session}-${response.agentId}`;
  expect(linkOf(session)).toMatchObject({
    agent_id: response.agentId,
    agent_type: 'general-purpose',
    journal: sub,
    parent_journal: session,
    parent_step: 0,
    status: 'async_launched',
  });
  // The session stopped (its first Stop names the subagent as still running) before the subagent's work was done.
  const events = runRows(session).map((r) => r.event);
  const firstStop = events.indexOf('stop');
  const stopped = payloadOf(runRows(session)[firstStop]!);
  expect(firstStop).toBeGreaterThan(events.indexOf('subagent_link'));
  expect(stopped.last_assistant_message).toBe('Launched.');
  expect(events.indexOf('subagent_stop')).toBeGreaterThan(firstStop);
  // Every step of the subagent is in its journal, in order, and the chain verifies.
  expect(steps(sub).map((e) => e.row.tool_call)).toEqual([
    { id: expect.stringMatching(/^toolu_/), input: { command: BG_COMMAND }, name: 'Bash' },
  ]);
  expect((await sc(['verify', sub])).code).toBe(0);
  expect((await sc(['run', 'verify', session])).code).toBe(0);
  const doc = JSON.parse((await sc(['forks', '--json'])).stdout) as { subagents: Record<string, unknown>[] };
  expect(doc.subagents).toContainEqual(
    expect.objectContaining({ journal: sub, parent_journal: session, status: 'async_launched', steps: 1 }),
  );
});
