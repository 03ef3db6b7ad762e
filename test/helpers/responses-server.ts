import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { agentBinary, agentPath, runAgentProcess, type AgentRun } from './agents';
import { jsonBody, startExchangeServer } from './exchange-server';

/**
 * A scripted OpenAI Responses API server on 127.0.0.1 (what Codex CLI speaks, `wire_api = "responses"`), and the
 * real Codex binary run against it offline. The server answers `POST /v1/responses` with an SSE stream
 * (`response.created`, one `response.output_item.done`, `response.completed`): a turn request gets the next
 * scripted command, while there is one, as one `exec_command` function call; any other request (no command left,
 * no tools, a compaction) gets text. Commands are handed out once each, whichever request asks. A test that cannot start the binary fails, saying why.
 */
export interface ResponsesRequest {
  url: string;
  /** `request_kind` of the `x-codex-turn-metadata` header (`turn`, `compaction`). */
  kind: string | undefined;
  body: { model?: string; input?: Record<string, unknown>[]; tools?: unknown[] };
}

export interface ResponsesServer {
  port: number;
  requests: ResponsesRequest[];
  /** Every request's body bytes and the response body bytes sent for it, in order. */
  raw: { request: Buffer; response: Buffer }[];
  /** Call ids handed out, in order. */
  callIds: string[];
  /** Scripted commands, in the order they are handed out (one per turn request without a tool result). */
  commands: string[];
  /** `input_tokens` reported for the next responses (a large value makes Codex compact). */
  inputTokens: number;
  close(): Promise<void>;
}

export async function startResponsesServer(commands: string[]): Promise<ResponsesServer> {
  const requests: ResponsesRequest[] = [];
  const callIds: string[] = [];
  const state: ResponsesServer = {
    port: 0,
    requests,
    raw: [],
    callIds,
    commands,
    inputTokens: 10,
    close: async () => undefined,
  };
  let n = 0;
  const server = await startExchangeServer((x, res) => {
    const body = jsonBody<ResponsesRequest['body']>(x);
    if (body === undefined) {
      res.writeHead(400).end('{}');
      return;
    }
    let kind: string | undefined;
    try {
      const meta = JSON.parse(String(x.headers['x-codex-turn-metadata'] ?? '{}')) as { request_kind?: string };
      kind = meta.request_kind;
    } catch {
      kind = undefined;
    }
    requests.push({ url: x.url, kind, body });
    if (x.method !== 'POST' || !x.url.startsWith('/v1/responses')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
    const id = `resp_${String(n++).padStart(4, '0')}`;
    let item: Record<string, unknown>;
    const next = state.commands.shift();
    if (hasTools && kind !== 'compaction' && next !== undefined) {
      const callId = `call_${String(callIds.length).padStart(4, '0')}`;
      callIds.push(callId);
      item = {
        type: 'function_call',
        id: `fc_${callId}`,
        call_id: callId,
        name: 'exec_command',
        arguments: JSON.stringify({ cmd: next }),
      };
    } else {
      if (next !== undefined) state.commands.unshift(next);
      const text = kind === 'compaction' ? 'Summary: files were made.' : 'Done.';
      item = {
        type: 'message',
        id: `msg_${id}`,
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text, annotations: [] }],
      };
    }
    const usage = {
      input_tokens: state.inputTokens,
      input_tokens_details: null,
      output_tokens: 5,
      output_tokens_details: null,
      total_tokens: state.inputTokens + 5,
    };
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (e: Record<string, unknown>): boolean =>
      res.write(`event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`);
    send({ type: 'response.created', response: { id } });
    send({ type: 'response.output_item.done', output_index: 0, item });
    send({ type: 'response.completed', response: { id, usage } });
    res.end();
  });
  state.port = server.port;
  state.raw = server.raw;
  state.close = server.close;
  return state;
}

export const CODEX_MODEL = 'gpt-test';

/**
 * The features every test run of Codex turns off (`--disable`, as `codex features list` names them): `plugins`, and
 * `shell_snapshot`, Codex's capture of the user's login shell (a `bash -l` and its pipeline of awk, sed, wc and tr
 * at each start) for its commands to start from. The tests' commands read no login-shell state (their outputs and
 * exit codes, all that is checked, are the same), and the hooks are started by Codex itself either way. Measured:
 * ~0.2 s of CPU a run.
 */
export const CODEX_DISABLED = ['--disable', 'plugins', '--disable', 'shell_snapshot'];

/** `codex exec --json` of the pinned binary on `prompt`, `CODEX_DISABLED`, no sandbox prompt (`-c` for each of `config`). */
export function codexExecArgs(prompt: string, config: string[] = []): string[] {
  return [
    agentBinary('codex'),
    'exec',
    '--json',
    ...CODEX_DISABLED,
    '--dangerously-bypass-approvals-and-sandbox',
    ...config.flatMap((c) => ['-c', c]),
    prompt,
  ];
}

/** `$CODEX_HOME/config.toml` for the scripted server (and whatever `extra` TOML follows). */
export function writeCodexConfig(home: string, port: number, extra = ''): string {
  mkdirSync(home, { recursive: true });
  const file = path.join(home, 'config.toml');
  writeFileSync(
    file,
    [
      '# the test model',
      'model_provider = "scripted"',
      `model = "${CODEX_MODEL}"`,
      '',
      '[model_providers.scripted]',
      'name = "scripted"',
      `base_url = "http://127.0.0.1:${port}/v1"`,
      'env_key = "SCRIPTED_KEY"',
      'wire_api = "responses"',
      '',
      extra,
    ].join('\n'),
  );
  return file;
}

export interface CodexRun extends AgentRun {
  /** The session id Codex reports (`thread.started`). */
  sessionId: string | undefined;
}

/**
 * `codex exec --json` with `CODEX_DISABLED` (or `exec resume <id>`) in `cwd`, offline: HOME and CODEX_HOME are the
 * test's, only the scripted server is reachable, and commands run without Codex's sandbox (the test machine may
 * not allow it). Asynchronous: the server lives in this process.
 */
export async function runCodex(options: {
  cwd: string;
  home: string;
  prompt: string;
  resume?: string;
  binDir?: string;
  config?: string[];
  timeoutMs?: number;
}): Promise<CodexRun> {
  const binary = agentBinary('codex');
  const args = [
    'exec',
    '--json',
    ...CODEX_DISABLED,
    '--dangerously-bypass-approvals-and-sandbox',
    ...(options.config ?? []).flatMap((c) => ['-c', c]),
    ...(options.resume === undefined ? [] : ['resume', options.resume]),
    options.prompt,
  ];
  const env: NodeJS.ProcessEnv = {
    PATH: agentPath(options.binDir),
    HOME: options.home,
    CODEX_HOME: options.home,
    SCRIPTED_KEY: 'sk-test-not-a-key',
    STEPCHAIN_AUDIT: 'off',
  };
  const run = await runAgentProcess(binary, args, { cwd: options.cwd, env, timeoutMs: options.timeoutMs ?? 120_000 });
  const sid = run.events.find((e) => e.type === 'thread.started')?.thread_id;
  return { ...run, sessionId: typeof sid === 'string' ? sid : undefined };
}
