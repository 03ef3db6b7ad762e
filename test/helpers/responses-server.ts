import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { agentBinary } from './agents';

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
  const raw: ResponsesServer['raw'] = [];
  const state: ResponsesServer = {
    port: 0,
    requests,
    raw,
    callIds,
    commands,
    inputTokens: 10,
    close: async () => undefined,
  };
  let n = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const exchange = { request: Buffer.concat(chunks), response: Buffer.alloc(0) };
      raw.push(exchange);
      let body: ResponsesRequest['body'];
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ResponsesRequest['body'];
      } catch {
        res.writeHead(400).end('{}');
        return;
      }
      let kind: string | undefined;
      try {
        const meta = JSON.parse(String(req.headers['x-codex-turn-metadata'] ?? '{}')) as { request_kind?: string };
        kind = meta.request_kind;
      } catch {
        kind = undefined;
      }
      requests.push({ url: req.url ?? '', kind, body });
      if (req.method !== 'POST' || !(req.url ?? '').startsWith('/v1/responses')) {
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
      const send = (e: Record<string, unknown>): boolean => {
        const piece = Buffer.from(`event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`);
        exchange.response = Buffer.concat([exchange.response, piece]);
        return res.write(piece);
      };
      send({ type: 'response.created', response: { id } });
      send({ type: 'response.output_item.done', output_index: 0, item });
      send({ type: 'response.completed', response: { id, usage } });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.port = (server.address() as AddressInfo).port;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}

export const CODEX_MODEL = 'gpt-test';

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

export interface CodexRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** `--json` events. */
  events: Record<string, unknown>[];
  /** The session id Codex reports (`thread.started`). */
  sessionId: string | undefined;
}

/**
 * `codex exec --json --disable plugins` (or `exec resume <id>`) in `cwd`, offline: HOME and CODEX_HOME are the
 * test's, only the scripted server is reachable, and commands run without Codex's sandbox (the test machine may
 * not allow it). Asynchronous: the server lives in this process.
 */
export function runCodex(options: {
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
    '--disable',
    'plugins',
    '--dangerously-bypass-approvals-and-sandbox',
    ...(options.config ?? []).flatMap((c) => ['-c', c]),
    ...(options.resume === undefined ? [] : ['resume', options.resume]),
    options.prompt,
  ];
  const env: NodeJS.ProcessEnv = {
    PATH: [options.binDir, path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin']
      .filter((p) => p !== undefined)
      .join(':'),
    HOME: options.home,
    CODEX_HOME: options.home,
    SCRIPTED_KEY: 'sk-test-not-a-key',
    STEPCHAIN_AUDIT: 'off',
  };
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const events: Record<string, unknown>[] = [];
      for (const line of stdout.split('\n')) {
        if (!line.startsWith('{')) continue;
        try {
          events.push(JSON.parse(line) as Record<string, unknown>);
        } catch {
          /* not an event line */
        }
      }
      const started = events.find((e) => e.type === 'thread.started');
      const sid = started?.thread_id;
      resolve({ code, stdout, stderr, events, sessionId: typeof sid === 'string' ? sid : undefined });
    });
  });
}
