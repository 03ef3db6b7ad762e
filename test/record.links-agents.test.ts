import { cpSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { codexHookSession } from '../src/agents/codex/proxy';
import { copilotHookSession } from '../src/agents/copilot/proxy';
import { journalDir } from '../src/journal';
import { readRunJournalFile, runJournalFile } from '../src/runs';
import { exchangeCallIds, recordExchangeLinks } from '../src/runs/exchange-links';
import { agentBinary } from './helpers/agents';
import { expectNoStack } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { GEMINI_RUN_ENV, geminiHome, startGeminiServer, type FunctionCall } from './helpers/gemini-server';
import { recordArgs, runStepchain } from './helpers/record';
import {
  basePath,
  expectLinked,
  linkProject,
  linksOf,
  MAKE,
  recordUnderHooks,
  requestAnsweredWith,
  steps,
} from './helpers/record-links';
import { codexExecArgs, startResponsesServer, writeCodexConfig } from './helpers/responses-server';
import { tempDir } from './helpers/tmp';

// Each agent's real binary with its stepchain hooks installed AND run under `stepchain record` against a scripted
// server: every hook step that is a tool call is linked to the exchange whose response asked for that call, and
// replay and show display it. How each agent's requests name their hook session: docs/record.md. Codex and Gemini
// CLI here; the Chat Completions agents (Copilot, OpenCode) in record.links-chat.test.ts, so that two workers share
// them.
jest.setTimeout(400_000);

const dir = tempDir('stepchain-record-links-agents-');
const project = (name: string) => linkProject(dir, name);

describe('Codex (0.171.0): the session-id header', () => {
  const p = project('codex');
  let hookJournal: string;

  test('every hook step is linked to the exchange that asked for its call id', async () => {
    const server = await startResponsesServer(['printf one > one.txt', 'printf two > two.txt', 'cat one.txt two.txt']);
    try {
      writeCodexConfig(p.home, server.port, `[projects.${JSON.stringify(p.root)}]\ntrust_level = "trusted"\n`);
      const env = {
        PATH: [p.bin, ...basePath].join(':'),
        HOME: p.home,
        CODEX_HOME: p.home,
        SCRIPTED_KEY: 'sk-codex-test-not-a-key',
        STEPCHAIN_AUDIT: 'off',
      };
      const r = await recordUnderHooks(p, 'codex', env, [...codexExecArgs(MAKE)]);
      ({ hookJournal } = await expectLinked(p, 'codex', r, {
        calls: 3,
        askedBy: (id) => requestAnsweredWith(server.raw, `"call_id":"${id}"`),
      }));
      expect(server.callIds).toHaveLength(3);
    } finally {
      await server.close();
    }
  });

  test('a link naming an exchange that did not ask for the call: exit 1, exchange_step_mismatch', async () => {
    const at = path.join(dir, 'codex-tampered');
    cpSync(p.root, at, { recursive: true });
    const [l] = linksOf(at, hookJournal);
    // The last exchange (the final answer) asked for no tool call; the row itself chains well.
    const last = steps(at, 'rec').at(-1)!.row;
    const forged = { ...l!, exchange_seq: last.seq, exchange_step_hash: last.step_hash };
    expect(recordExchangeLinks(at, [forged], { env: {} })).toHaveLength(1);
    // replay and show through runCli in this process (`cliInProcess`, the code the bundle runs): what they say and
    // their exit code are the point, not the process.
    for (const args of [
      ['replay', hookJournal],
      ['show', hookJournal, '0'],
    ]) {
      const r = await cliInProcess(args, { cwd: at, env: { HOME: p.home } });
      expectNoStack(r);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        `exchange_step_mismatch: step ${last.seq} of rec did not ask for the tool call ${l!.tool_use_id}`,
      );
      expect(r.stdout).not.toContain('model exchanges behind');
    }
  });
});

describe('Gemini CLI (0.61.0): no session in its requests, the one session that ran under the recording', () => {
  const p = project('gemini');
  const MODEL = 'gemini-2.5-flash';
  // The model gives the second call an id; Gemini CLI names it `<name>__<id>` and makes up one for the others.
  const calls: FunctionCall[] = [
    { name: 'run_shell_command', args: { command: 'printf one > one.txt' } },
    { name: 'run_shell_command', args: { command: 'printf two > two.txt' }, id: 'model-call-7' } as FunctionCall,
    { name: 'run_shell_command', args: { command: 'cat one.txt two.txt > three.txt' } },
  ];

  /** Gemini CLI's environment against the scripted server on `port`, stepchain first on PATH, audit off. */
  const geminiEnv = (port: number): NodeJS.ProcessEnv => ({
    PATH: [p.bin, ...basePath].join(':'),
    HOME: p.home,
    GEMINI_API_KEY: 'gemini-test-not-a-key',
    GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${port}`,
    STEPCHAIN_AUDIT: 'off',
    ...GEMINI_RUN_ENV,
  });

  test('every hook step is linked to the exchange whose function call Gemini CLI gave its id', async () => {
    geminiHome(p.home, [p.root], MODEL);
    const server = await startGeminiServer({ [MAKE]: calls }, MODEL);
    try {
      const env = geminiEnv(server.port);
      const r = await recordUnderHooks(p, 'gemini', env, [
        agentBinary('gemini'),
        '-p',
        MAKE,
        '--yolo',
        '--output-format',
        'stream-json',
      ]);
      const tools = server.raw.filter((_, i) => Array.isArray(server.requests[i]!.body.tools));
      const { hookJournal } = await expectLinked(p, 'gemini', r, {
        calls: 3,
        askedBy: (id) => {
          // `run_shell_command__<wire id>`: the model's own id, or the one Gemini CLI sent with the result.
          const wire = id.slice('run_shell_command__'.length);
          if (wire === 'model-call-7') return requestAnsweredWith(tools, '"id":"model-call-7"');
          const next = tools.findIndex((x) => x.request.includes(`"id":"${wire}"`));
          expect(next).toBeGreaterThan(0);
          return tools[next - 1]!.request;
        },
      });
      const ids = steps(p.root, hookJournal).map((h) => (h.row.tool_call as { id: string }).id);
      expect(ids[1]).toBe('run_shell_command__model-call-7');
      expect(ids[0]).toMatch(/^run_shell_command__run_shell_command_\d{13}_\d+$/);
      // The session recorded the recording's token: how record knew it was the one.
      const start = readRunJournalFile(runJournalFile(p.root, hookJournal)).entries.find(
        (e) => e.row.event === 'session_start',
      )!;
      expect(start.row.payload.get('recording')).toMatch(/^[0-9a-f]{32}$/);
    } finally {
      await server.close();
    }
  });

  test('two Gemini CLI sessions under one recording: which exchange is whose is not known, nothing is linked', async () => {
    // One call a session: what is refused is telling two sessions apart, which one call each shows as well as three
    // (three cost each session two more turns and their hooks' processes; with them this test took 34 s of the file's
    // 71 s wall, load ~43).
    const server = await startGeminiServer({ [MAKE]: calls.slice(0, 1) }, MODEL);
    try {
      const env = geminiEnv(server.port);
      const gemini = `${JSON.stringify(agentBinary('gemini'))} -p ${JSON.stringify(MAKE)} --yolo --output-format json`;
      const before = new Set(readdirSync(path.dirname(journalDir(p.root, 'x'))));
      const r = await runStepchain(
        [...recordArgs('gemini', 'rec-2'), '--json', '--', 'sh', '-c', `${gemini} && ${gemini}`],
        p.root,
        env,
      );
      expectNoStack(r);
      expect(r.code).toBe(0);
      const sessions = readdirSync(path.dirname(journalDir(p.root, 'x'))).filter(
        (n) => n.startsWith('gemini-') && !before.has(n),
      );
      expect(sessions).toHaveLength(2);
      for (const s of sessions) {
        expect(steps(p.root, s)).toHaveLength(1);
        expect(linksOf(p.root, s)).toEqual([]);
      }
      const doc = JSON.parse(r.stdout) as { hook_links: number; unlinked_tool_calls: string[] };
      expect(doc.hook_links).toBe(0);
      expect(doc.unlinked_tool_calls).toHaveLength(2);
      expect(r.stderr).toContain('2 gemini sessions ran under this recording');
    } finally {
      await server.close();
    }
  });
});

describe('what names a session, and what a link may claim (fail-closed)', () => {
  test('Codex: the session-id header, unless thread-id names another thread', () => {
    const sid = '01a23df9-017d-79c0-842c-d7322a94265a';
    const s = (headers: Record<string, string>) => codexHookSession({ headers, body: undefined });
    expect(s({ 'session-id': sid, 'thread-id': sid })).toEqual({ journal: `codex-${sid}` });
    expect(s({ 'session-id': sid })).toEqual({ journal: `codex-${sid}` });
    expect(s({ 'session-id': sid, 'thread-id': 'another' })).toBeUndefined();
    expect(s({ 'session-id': `${sid}, ${sid}` })).toBeUndefined(); // repeated: joined by the HTTP parser
    expect(s({ 'session-id': '../x' })).toBeUndefined();
    expect(s({})).toBeUndefined();
  });

  test('Copilot: the session folder said once, in the first (system) message, under this Copilot home', () => {
    const env = { HOME: '/h' };
    const sid = '49b8d8f6-5bd1-4ee8-824a-76212e75b1c1';
    const sys = (content: unknown) => ({ role: 'system', content });
    const s = (messages: unknown[]) => copilotHookSession({ headers: {}, body: { messages } as never }, env);
    const folder = `<session_context>\nSession folder: /h/.copilot/session-state/${sid}\n\nContents:`;
    expect(s([sys(`You are Copilot.\n${folder}`)])).toEqual({ journal: `copilot-${sid}` });
    expect(s([sys([{ type: 'text', text: `x\n${folder}` }])])).toEqual({ journal: `copilot-${sid}` });
    expect(s([sys(`x\n${folder}\n${folder}`)])).toBeUndefined(); // said twice
    expect(s([sys('x\nSession folder: /elsewhere/session-state/abc\n')])).toBeUndefined();
    expect(s([{ role: 'user', content: `x\n${folder}` }])).toBeUndefined(); // a user's text names nothing
    expect(s([])).toBeUndefined();
  });

  test("Gemini: a call's id as Gemini CLI names it, and an id-less call only where one result answers it", () => {
    const call = (name: string, id: string | null) => ({ args: {}, id, name });
    const result = (name: string, id: string) => ({ functionResponse: { id, name, response: {} } });
    expect(exchangeCallIds([call('run', 'x1')], [result('run', 'x1')])).toEqual(['x1', 'run__x1']);
    expect(exchangeCallIds([call('run', 'run__x1')], null)).toEqual(['run__x1']);
    expect(exchangeCallIds([call('run', null)], [result('run', 'run_1796336072163_0')])).toEqual([
      'run__run_1796336072163_0',
    ]);
    // Two id-less calls of one name: which result answers which is not known.
    expect(exchangeCallIds([call('run', null), call('run', null)], [result('run', 'a'), result('run', 'b')])).toEqual(
      [],
    );
    expect(exchangeCallIds([call('run', null), call('read', null)], [result('run', 'a'), result('read', 'b')])).toEqual(
      ['run__a', 'read__b'],
    );
    // A result that answers a call with an id answers no id-less one.
    expect(exchangeCallIds([call('run', 'x'), call('run', null)], [result('run', 'x'), result('run', 'a')])).toEqual([
      'x',
      'run__x',
      'run__a',
    ]);
    // Other protocols' calls: their own ids only.
    expect(exchangeCallIds([{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: {} }], null)).toEqual(['toolu_1']);
    expect(exchangeCallIds([{ type: 'function_call', call_id: 'call_1', id: 'fc_1', name: 'x' }], null)).toEqual([
      'call_1',
    ]);
  });
});
