import { mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { journalDir, journalFile, readVerifiedJournal, type JournalEntry } from '../../src/journal';
import { readRunJournalFile, runJournalFile } from '../../src/runs';
import { EXCHANGE_LINK_EVENT, type ExchangeLink } from '../../src/runs/exchange-links';
import { sha256Hex } from '../../src/util/hash';
import { startChatServer, type ChatTurn } from './chat-server';
import { stepchainBin } from './claude';
import { expectNoStack } from './cli';
import { cliInProcess } from './cli-in-process';
import { expectNoProxySecret, identifiedProject, recordArgs, runStepchain, type StepchainRun } from './record';

// The places, runs and checks of the record-links tests (record.links-agents, record.links-chat): each agent's real
// binary with its stepchain hooks installed AND run under `stepchain record` against a scripted server, every hook
// step that is a tool call linked to the exchange whose response asked for that call.

/** The prompt every agent gets. */
export const MAKE = 'Make the files.';
/** node's folder and the system's (a run's PATH puts the project's stepchain bin first). */
export const basePath = [path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'];

/** An agent's place: its project (a git repository), its HOME, and the folder of its `stepchain` bin. */
export interface Project {
  root: string;
  home: string;
  bin: string;
}

/** The place of agent `name` under `dir`. */
export function linkProject(dir: string, name: string): Project {
  const at = path.join(dir, name);
  const root = identifiedProject(path.join(at, 'project'));
  const home = path.join(at, 'home');
  mkdirSync(home, { recursive: true });
  return { root, home, bin: stepchainBin(path.join(at, 'bin')) };
}

/** Two shell calls that write one.txt and two.txt, then `final` (a Chat Completions script). */
export const twoFilesThen = (final: string): ChatTurn[] => [
  { tool: 'bash', args: { command: 'printf one > one.txt', description: 'first' } },
  { tool: 'bash', args: { command: 'printf two > two.txt', description: 'second' } },
  { text: final },
];

/** The run options of a Chat Completions agent (Copilot, OpenCode) in project `p` against `baseUrl`, audit off. */
export const chatRun = (p: Project, baseUrl: string) => ({
  cwd: p.root,
  home: p.home,
  baseUrl,
  prompt: MAKE,
  binDir: p.bin,
  env: { STEPCHAIN_AUDIT: 'off' },
});

/**
 * `stepchain init <agent>` in the project, then the agent's command under `record --agent <agent> --journal rec --json`.
 * The install runs through runCli in this process (`cliInProcess`, the code the bundle runs, with the same
 * environment): here it only sets the place up (the init tests check `init` as a process); the record, the agent
 * and the hooks it starts run as real processes.
 */
export async function recordUnderHooks(
  p: Project,
  agent: string,
  env: NodeJS.ProcessEnv,
  command: string[],
): Promise<StepchainRun> {
  expect((await cliInProcess(['init', agent], { cwd: p.root, env })).code).toBe(0);
  return runStepchain([...recordArgs(agent, 'rec'), '--json', '--', ...command], p.root, env);
}

/** The verified steps of journal `id`. */
export const steps = (root: string, id: string): JournalEntry[] => readVerifiedJournal(journalFile(root, id)).entries;

/** The one hook journal `<agent>-<session>` the run wrote. */
export function hookJournalOf(root: string, agent: string): string {
  const ids = readdirSync(path.dirname(journalDir(root, 'x'))).filter((n) => n.startsWith(`${agent}-`));
  expect(ids).toHaveLength(1);
  return ids[0]!;
}

/** The exchange links recorded in the run journal of `hookJournal`. */
export function linksOf(root: string, hookJournal: string): ExchangeLink[] {
  return readRunJournalFile(runJournalFile(root, hookJournal))
    .entries.filter((e) => e.row.event === EXCHANGE_LINK_EVENT)
    .map((e) => Object.fromEntries(e.row.payload) as unknown as ExchangeLink);
}

/**
 * The checks every agent gets: `record` linked every tool call; each hook step is linked, by hash, to the exchange
 * `askedBy(its id)` names (a request the scripted server answered, found in the exchange journal by the request's
 * SHA-256); replay --json, the table and show display the exchange (through runCli in this process: what they show
 * is the point; the record and the hooks ran as real processes).
 */
export async function expectLinked(
  p: Project,
  agent: string,
  r: { code: number; stdout: string; stderr: string },
  o: { calls: number; askedBy: (id: string) => Buffer },
): Promise<{ hookJournal: string }> {
  expectNoStack(r);
  expect(r.code).toBe(0);
  expectNoProxySecret(p.root);
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

  const sc = (args: string[]) => cliInProcess(args, { cwd: p.root, env: { HOME: p.home, STEPCHAIN_AUDIT: 'off' } });
  const json = await sc(['replay', hookJournal, '--json']);
  expect(json.code).toBe(0);
  const shown = JSON.parse(json.stdout) as {
    exchanges: { seq: number; tool_use_id: string; exchange: { seq: number; request_blob: string } }[];
  };
  expect(shown.exchanges.map((x) => [x.seq, x.tool_use_id, x.exchange.seq])).toEqual(
    expected.map((l) => [l.hook_seq, l.tool_use_id, l.exchange_seq]),
  );
  for (const x of shown.exchanges) expect(x.exchange.request_blob).toBe(exchanges[x.exchange.seq]!.row.input_hash);
  const table = await sc(['replay', hookJournal]);
  expect(table.code).toBe(0);
  expect(table.stdout).toMatch(/model exchanges behind the tool calls .*links verified/);
  const last = expected.at(-1)!;
  expect(table.stdout).toContain(`step ${last.hook_seq}: exchange ${last.exchange_seq} of rec`);
  const show = await sc(['show', hookJournal, String(last.hook_seq)]);
  expect(show.code).toBe(0);
  expect(show.stdout).toContain('asked for by the model exchange (link verified):');
  expect(show.stdout).toContain(`what the model saw: request blob ${exchanges[last.exchange_seq]!.row.input_hash}`);
  return { hookJournal };
}

/** The request answered with the response that holds `needle` (the call as the model asked for it). */
export function requestAnsweredWith(raw: { request: Buffer; response: Buffer }[], needle: string): Buffer {
  const hits = raw.filter((x) => x.response.includes(needle));
  expect(hits).toHaveLength(1);
  return hits[0]!.request;
}

/** A Chat Completions agent's two shell calls recorded under its hooks: each hook step linked to the exchange that asked. */
export async function expectChatAgentLinked(
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
    await expectLinked(p, agent, r, { calls: 2, askedBy: (id) => requestAnsweredWith(server.raw, `"id":"${id}"`) });
  } finally {
    await server.close();
  }
}
