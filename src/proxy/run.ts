import { tornTailOption, type TornTailMoved } from '../util/chain-file';
import type { ChildProcess, StdioOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { RECORDING_ENV } from '../agents/hook-session';
import { InputError } from '../errors';
import { journalFile } from '../journal';
import { recordCapability, recordRunEvent } from '../runs/record';
import type { JsonObject } from '../canonical';
import { Recorder, type RecordedStep } from './recorder';
import type { Divergence, Replayer } from './replay';
import { startProxy, type ProxyCounts } from './server';
import { killTree } from './tree-kill';
import { guardAgent, type LastResort } from './last-resort';
import type { AgentSpec } from './agents';
import type { ProtocolName } from './protocols';

/**
 * Runs an agent's command with its model calls pointed at a recording proxy
 * (for that process only), and waits for it: the proxy lives exactly as long
 * as the command, every exchange becomes a step, and the command's exit code
 * is the result's.
 */
export interface ProxiedRunOptions {
  agent: AgentSpec;
  /** `--upstream`: one base URL for every protocol (default: the agent's, per protocol). */
  upstream?: string;
  /** The project whose journal and run journal record the exchanges. */
  root: string;
  journalDir: string;
  journalId: string;
  /** The first recorded exchange's seq (the journal's length). */
  firstSeq: number;
  command: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdio: StdioOptions;
  replayer?: Replayer;
  /** Called once, before the first request that goes live after a replay. */
  onLive?(): void;
  onWarning(line: string): void;
  /** Told whenever a torn tail of a journal the recording writes is moved aside (default: one line on stderr). */
  onTornTail?: (m: TornTailMoved) => void;
  /** Extra fields for the run journal's `proxy.start` event. */
  startEvent?: JsonObject;
  /** In the CLI's own process: a fault outside every guard kills the agent and exits with one line (last-resort.ts). */
  lastResort?: LastResort;
}

export interface ProxiedRunResult {
  exitCode: number;
  signal: NodeJS.Signals | null;
  steps: RecordedStep[];
  mutations: { seq: number; kind: string; content_address: string }[];
  /** Tool calls linked to the hook steps that ran them (the agent's hooks installed too), and those not linked. */
  links: { linked: number; unlinked: string[] };
  counts: ProxyCounts;
  divergence: Divergence | undefined;
  /** Why recording stopped early, if it did. */
  recordingFailure: string | undefined;
  upstreams: Record<string, string>;
}

/**
 * A URL that does not parse, as an error names it: without what stands before an `@` of its authority, a user and
 * a password (a CI log keeps the line).
 */
function withoutUserinfo(text: string): string {
  return text.replace(/^((?:[^/?#:]*:)?\/\/)?[^/?#]*@/, (_m, scheme?: string) => `${scheme ?? ''}***@`);
}

/** An upstream base URL: http(s), no credentials in it. */
export function parseUpstream(text: string, what: string): URL {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new InputError(`${what}: not a URL: ${JSON.stringify(withoutUserinfo(text))}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new InputError(`${what}: expected an http or https URL, got ${u.protocol}`);
  if (u.username !== '' || u.password !== '')
    throw new InputError(`${what}: a URL with credentials in it is refused (they would be recorded)`);
  if (u.search !== '' || u.hash !== '') throw new InputError(`${what}: give the base URL without a query or fragment`);
  return u;
}

function withoutTrailingSlash(p: string): string {
  return p.replace(/\/+$/, '');
}

const PROTOCOLS: readonly ProtocolName[] = ['anthropic-messages', 'openai-responses', 'openai-chat', 'gemini'];

/**
 * The upstream of each protocol (`--upstream`, else the agent's default), or an InputError when the agent's setup
 * cannot be recorded (its `refuse`, or a default it cannot give). Asked before anything is written.
 */
export function resolveUpstreams(
  agent: AgentSpec,
  upstream: string | undefined,
  env: NodeJS.ProcessEnv,
  cwd: string,
): Map<ProtocolName, URL> {
  const why = agent.refuse?.(env, cwd);
  if (why !== undefined) throw new InputError(`record --agent ${agent.name}: ${why}`);
  const explicit = upstream === undefined ? undefined : parseUpstream(upstream, '--upstream');
  const out = new Map<ProtocolName, URL>();
  for (const p of PROTOCOLS) {
    if (explicit !== undefined) {
      out.set(p, explicit);
      continue;
    }
    let url: string;
    try {
      url = agent.defaultUpstream(p, env, cwd);
    } catch (e) {
      if (e instanceof InputError) throw new InputError(`record --agent ${agent.name}: ${e.message}`);
      throw e;
    }
    out.set(p, parseUpstream(url, `the ${agent.name} upstream`));
  }
  return out;
}

/** The agent's pid only while it runs: once it has exited, the system may give its number to another process. */
function runningPid(child: ChildProcess | undefined): number | undefined {
  return child !== undefined && child.exitCode === null && child.signalCode === null ? child.pid : undefined;
}

/**
 * The proxy closed, then the recorder (its appends done: what was recorded before a fault is appended here too); after
 * a fault (last-resort.ts) a failure to close is the fault's, and `finish` says the line and exits 1.
 */
async function closeRecording(
  proxy: { close(): Promise<void> },
  recorder: Recorder,
  guard: ReturnType<typeof guardAgent>,
): Promise<void> {
  try {
    await proxy.close();
    await recorder.close();
  } catch (e) {
    if (guard.fault === undefined) throw e;
  }
  guard.finish(recorder.steps.length);
}

const SIGNALS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15 };

export async function runProxied(o: ProxiedRunOptions): Promise<ProxiedRunResult> {
  if (o.command.length === 0 || o.command[0] === '') throw new InputError('no command to run (give it after --)');
  const upstreams = resolveUpstreams(o.agent, o.upstream, o.env, o.cwd);
  const main = upstreams.get(o.agent.protocols[0]!)!;
  const shown: Record<string, string> = {};
  for (const p of o.agent.protocols) shown[p] = withoutTrailingSlash(upstreams.get(p)!.href);

  const env = { env: o.env, ...tornTailOption(o) };
  recordCapability(o.root, o.journalId, o.agent.adapter, 'observed', env);
  recordRunEvent(
    o.root,
    o.journalId,
    'proxy.start',
    {
      agent: o.agent.name,
      journal: o.journalId,
      first_seq: o.firstSeq,
      upstreams: shown,
      ...(o.startEvent ?? {}),
    },
    env,
  );

  // The agent's process (and so its hooks) gets a token of this recording: how hook sessions that ran under it are
  // known where the agent's requests name none (src/agents/hook-session.ts).
  const token = randomBytes(16).toString('hex');
  const recorder = new Recorder({
    root: o.root,
    journalDir: o.journalDir,
    runId: o.journalId,
    agentId: o.journalId,
    agent: o.agent.name,
    env: o.env,
    firstSeq: o.firstSeq,
    onWarning: o.onWarning,
    ...tornTailOption(o),
    ...(o.agent.hookSession === undefined ? {} : { hookSession: o.agent.hookSession }),
    recordingToken: token,
  });
  let child: ChildProcess | undefined;
  let divergence: Divergence | undefined;
  const proxy = await startProxy({
    upstreamFor: (p) => (p === undefined ? main : upstreams.get(p)!),
    recorder,
    ...(o.replayer === undefined ? {} : { replayer: o.replayer }),
    onDivergence: (d) => {
      divergence = d;
      if (child?.pid !== undefined) killTree(child.pid); // fail-closed: the agent goes, with everything it started
    },
    ...(o.onLive === undefined ? {} : { onLive: o.onLive }),
    onWarning: o.onWarning,
  });
  // The agent's base URLs carry the proxy's secret as their first path segment (the proxy serves nothing else, and
  // strips it): only the agent is given them, in its environment or on its command line, shown nowhere.
  const base = (p: ProtocolName): string => `${proxy.base}${withoutTrailingSlash(upstreams.get(p)!.pathname)}`;

  let exit: { code: number | null; signal: NodeJS.Signals | null };
  // A terminal's Ctrl-C reaches the agent itself (same process group): record outlives it to close the journal.
  // SIGTERM and SIGHUP, sent to record alone, are passed on.
  const forwardSignal = (s: NodeJS.Signals): void => {
    if (s !== 'SIGINT' && child?.pid !== undefined) child.kill(s);
  };
  const guard = guardAgent(o.lastResort, () => runningPid(child), journalFile(o.root, o.journalId), recorder);
  try {
    // PWD is the directory the child starts in, as a shell sets it (OpenCode takes its project from $PWD).
    const childEnv = {
      ...o.env,
      PWD: path.resolve(o.cwd),
      [RECORDING_ENV]: token,
      ...o.agent.childEnv(base, o.env, o.cwd),
    };
    const command = o.agent.childCommand === undefined ? o.command : o.agent.childCommand(o.command, base, o.env);
    if (command === undefined)
      o.onWarning(
        `${o.command[0]} is not ${o.agent.name}'s executable: the proxy's base URL could not be set on its command line, only in the environment (docs/record.md)`,
      );
    const argv = command ?? o.command;
    exit = await new Promise((resolve, reject) => {
      // node:child_process loaded here, not with the CLI: only `record` and `fork --replay` start the agent.
      child = process
        .getBuiltinModule('node:child_process')
        .spawn(argv[0]!, argv.slice(1), { cwd: o.cwd, env: childEnv, stdio: o.stdio });
      child.once('error', (e: NodeJS.ErrnoException) =>
        reject(
          new InputError(`${o.command[0]}: cannot run it: ${e.code === 'ENOENT' ? 'no such command' : e.message}`),
        ),
      );
      child.once('exit', (code, signal) => resolve({ code, signal }));
      for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(s, forwardSignal);
    });
  } finally {
    for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.removeListener(s, forwardSignal);
    await closeRecording(proxy, recorder, guard);
  }
  const exitCode = exit.code ?? 128 + (SIGNALS[exit.signal ?? ''] ?? 1);
  recordRunEvent(
    o.root,
    o.journalId,
    'proxy.end',
    {
      exit_code: exitCode,
      steps: recorder.steps.length,
      replayed: proxy.counts.replayed,
      ...(divergence === undefined ? {} : { diverged_at: divergence.exchange, diverged_field: divergence.field }),
      ...(recorder.failure === undefined ? {} : { recording_failure: recorder.failure }),
    },
    env,
  );
  return {
    exitCode,
    signal: exit.signal,
    steps: recorder.steps,
    mutations: recorder.mutations,
    links: recorder.links,
    counts: proxy.counts,
    divergence,
    recordingFailure: recorder.failure,
    upstreams: shown,
  };
}
