import { cpSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { codexHookSession } from '../src/agents/codex/proxy';
import { copilotHookSession } from '../src/agents/copilot/proxy';
import { journalDir, journalFile, readVerifiedJournal, type JournalEntry } from '../src/journal';
import { readRunJournalFile, runJournalFile } from '../src/runs';
import {
  EXCHANGE_LINK_EVENT,
  exchangeCallIds,
  recordExchangeLinks,
  type ExchangeLink,
} from '../src/runs/exchange-links';
import { sha256Hex } from '../src/util/hash';
import { agentBinary } from './helpers/agents';
import { startChatServer, type ChatTurn } from './helpers/chat-server';
import { stepchainBin } from './helpers/claude';
import { cli, expectNoStack } from './helpers/cli';
import { copilotCommand, copilotEnv } from './helpers/copilot';
import { geminiHome, startGeminiServer, type FunctionCall } from './helpers/gemini-server';
import { initRepo } from './helpers/git';
import { openCodeCommand, openCodeEnv } from './helpers/opencode';
import { recordArgs, runStepchain, type StepchainRun } from './helpers/record';
import { codexExecArgs, startResponsesServer, writeCodexConfig } from './helpers/responses-server';
import { tempDir } from './helpers/tmp';

// Each agent's real binary with its stepchain hooks installed AND run under `stepchain record` against a scripted
// server: every hook step that is a tool call is linked to the exchange whose response asked for that call, and
// replay and show display it. How each agent's requests name their hook session: docs/record.md.
jest.setTimeout(400_000);

const dir = tempDir('stepchain-record-links-agents-');
const MAKE = 'Make the files.';
const basePath = [path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'];

interface Project {
  root: string;
  home: string;
  bin: string;
}

function project(name: string): Project {
  const at = path.join(dir, name);
  const root = initRepo(path.join(at, 'project'), { 'README.md': '# project\n' });
  const home = path.join(at, 'home');
  mkdirSync(home, { recursive: true });
  return { root, home, bin: stepchainBin(path.join(at, 'bin')) };
}

/** Two shell calls that write one.txt and two.txt, then `final` (a Chat Completions script). */
const twoFilesThen = (final: string): ChatTurn[] => [
  { tool: 'bash', args: { command: 'printf one > one.txt', description: 'first' } },
  { tool: 'bash', args: { command: 'printf two > two.txt', description: 'second' } },
  { text: final },
];

/** The run options of a Chat Completions agent (Copilot, OpenCode) in project `p` against `baseUrl`, audit off. */
const chatRun = (p: Project, baseUrl: string) => ({
  cwd: p.root,
  home: p.home,
  baseUrl,
  prompt: MAKE,
  binDir: p.bin,
  env: { STEPCHAIN_AUDIT: 'off' },
});

/** `stepchain init <agent>` in the project, then the agent's command under `record --agent <agent> --journal rec --json`. */
async function recordUnderHooks(
  p: Project,
  agent: string,
  env: NodeJS.ProcessEnv,
  command: string[],
): Promise<StepchainRun> {
  expect(cli(['init', agent], { cwd: p.root, env }).code).toBe(0);
  return runStepchain([...recordArgs(agent, 'rec'), '--json', '--', ...command], p.root, env);
}

const steps = (root: string, id: string): JournalEntry[] => readVerifiedJournal(journalFile(root, id)).entries;

/** The one hook journal `<agent>-<session>` the run wrote. */
function hookJournalOf(root: string, agent: string): string {
  const ids = readdirSync(path.dirname(journalDir(root, 'x'))).filter((n) => n.startsWith(`${agent}-`));
  expect(ids).toHaveLength(1);
  return ids[0]!;
}

function linksOf(root: string, hookJournal: string): ExchangeLink[] {
  return readRunJournalFile(runJournalFile(root, hookJournal))
    .entries.filter((e) => e.row.event === EXCHANGE_LINK_EVENT)
    .map((e) => Object.fromEntries(e.row.payload) as unknown as ExchangeLink);
}

/**
 * The checks every agent gets: `record` linked every tool call; each hook step is linked, by hash, to the exchange
 * `askedBy(its id)` names (a request the scripted server answered, found in the exchange journal by the request's
 * SHA-256); replay --json, the table and show display the exchange.
 */
function expectLinked(
  p: Project,
  agent: string,
  r: { code: number; stdout: string; stderr: string },
  o: { calls: number; askedBy: (id: string) => Buffer },
): { hookJournal: string } {
  expectNoStack(r);
  expect(r.code).toBe(0);
  const doc = JSON.parse(r.stdout) as { hook_links: number; unlinked_tool_calls: string[] };
  expect({ linked: doc.hook_links, unlinked: doc.unlinked_tool_calls }).toEqual({ linked: o.calls, unlinked: [] });
  const hookJournal = hookJournalOf(p.root, agent);
  const hooks = steps(p.root, hookJournal);
  const exchanges = steps(p.root, 'rec');
  expect(hooks).toHaveLength(o.calls);
  const got = linksOf(p.root, hookJournal).sort((a, b) => a.hook_seq - b.hook_seq);
  expect(got).toHaveLength(o.calls);
  const expected = hooks.map((h) => {
    const id = (h.row.tool_call as { id: string }).id;
    const request = o.askedBy(id);
    const x = exchanges.find((e) => e.row.input_hash === sha256Hex(request));
    expect(x).toBeDefined();
    return {
      tool_use_id: id,
      hook_journal: hookJournal,
      hook_seq: h.row.seq,
      hook_step_hash: h.row.step_hash,
      exchange_journal: 'rec',
      exchange_seq: x!.row.seq,
      exchange_step_hash: x!.row.step_hash,
    };
  });
  expect(got).toEqual(expected);

  const sc = (args: string[]) => cli(args, { cwd: p.root, env: { HOME: p.home, STEPCHAIN_AUDIT: 'off' } });
  const json = sc(['replay', hookJournal, '--json']);
  expect(json.code).toBe(0);
  const shown = JSON.parse(json.stdout) as {
    exchanges: { seq: number; tool_use_id: string; exchange: { seq: number; request_blob: string } }[];
  };
  expect(shown.exchanges.map((x) => [x.seq, x.tool_use_id, x.exchange.seq])).toEqual(
    expected.map((l) => [l.hook_seq, l.tool_use_id, l.exchange_seq]),
  );
  for (const x of shown.exchanges) expect(x.exchange.request_blob).toBe(exchanges[x.exchange.seq]!.row.input_hash);
  const table = sc(['replay', hookJournal]);
  expect(table.code).toBe(0);
  expect(table.stdout).toMatch(/model exchanges behind the tool calls .*links verified/);
  const last = expected.at(-1)!;
  expect(table.stdout).toContain(`step ${last.hook_seq}: exchange ${last.exchange_seq} of rec`);
  const show = sc(['show', hookJournal, String(last.hook_seq)]);
  expect(show.code).toBe(0);
  expect(show.stdout).toContain('asked for by the model exchange (link verified):');
  expect(show.stdout).toContain(`what the model saw: request blob ${exchanges[last.exchange_seq]!.row.input_hash}`);
  return { hookJournal };
}

/** The request answered with the response that holds `needle` (the call as the model asked for it). */
function requestAnsweredWith(raw: { request: Buffer; response: Buffer }[], needle: string): Buffer {
  const hits = raw.filter((x) => x.response.includes(needle));
  expect(hits).toHaveLength(1);
  return hits[0]!.request;
}

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
      ({ hookJournal } = expectLinked(p, 'codex', r, {
        calls: 3,
        askedBy: (id) => requestAnsweredWith(server.raw, `"call_id":"${id}"`),
      }));
      expect(server.callIds).toHaveLength(3);
    } finally {
      await server.close();
    }
  });

  test('a link naming an exchange that did not ask for the call: exit 1, exchange_step_mismatch', () => {
    const at = path.join(dir, 'codex-tampered');
    cpSync(p.root, at, { recursive: true });
    const [l] = linksOf(at, hookJournal);
    // The last exchange (the final answer) asked for no tool call; the row itself chains well.
    const last = steps(at, 'rec').at(-1)!.row;
    const forged = { ...l!, exchange_seq: last.seq, exchange_step_hash: last.step_hash };
    expect(recordExchangeLinks(at, [forged], { env: {} })).toHaveLength(1);
    for (const args of [
      ['replay', hookJournal],
      ['show', hookJournal, '0'],
    ]) {
      const r = cli(args, { cwd: at, env: { HOME: p.home } });
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
      const { hookJournal } = expectLinked(p, 'gemini', r, {
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
    const server = await startGeminiServer({ [MAKE]: calls }, MODEL);
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
        expect(steps(p.root, s)).toHaveLength(3);
        expect(linksOf(p.root, s)).toEqual([]);
      }
      const doc = JSON.parse(r.stdout) as { hook_links: number; unlinked_tool_calls: string[] };
      expect(doc.hook_links).toBe(0);
      expect(doc.unlinked_tool_calls).toHaveLength(6);
      expect(r.stderr).toContain('2 gemini sessions ran under this recording');
    } finally {
      await server.close();
    }
  });
});

/** A Chat Completions agent's two shell calls recorded under its hooks: each hook step linked to the exchange that asked. */
async function expectChatAgentLinked(
  p: Project,
  agent: string,
  o: { final: string; model?: string; env: (run: ReturnType<typeof chatRun>) => NodeJS.ProcessEnv; command: string[] },
): Promise<void> {
  const server = await startChatServer(
    { [MAKE]: twoFilesThen(o.final) },
    o.model === undefined ? {} : { model: o.model },
  );
  try {
    const r = await recordUnderHooks(p, agent, o.env(chatRun(p, server.baseUrl)), o.command);
    expectLinked(p, agent, r, { calls: 2, askedBy: (id) => requestAnsweredWith(server.raw, `"id":"${id}"`) });
  } finally {
    await server.close();
  }
}

describe('Copilot CLI (1.0.102): the session folder in its system message', () => {
  const p = project('copilot');

  test('every hook step is linked to the exchange that asked for its call id', async () => {
    mkdirSync(path.join(p.home, '.copilot'), { recursive: true });
    // Copilot runs a folder's hooks only once it is trusted.
    writeFileSync(path.join(p.home, '.copilot', 'config.json'), JSON.stringify({ trustedFolders: [p.root] }));
    await expectChatAgentLinked(p, 'copilot', {
      final: 'Done.',
      env: copilotEnv,
      command: copilotCommand({ prompt: MAKE }),
    });
  });
});

describe('OpenCode (1.18.33): the x-session-id header', () => {
  const p = project('opencode');

  test('every hook step is linked to the exchange that asked for its call id', async () => {
    await expectChatAgentLinked(p, 'opencode', {
      final: 'All done.',
      model: 'scripted-model',
      env: openCodeEnv,
      command: openCodeCommand(MAKE),
    });
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
