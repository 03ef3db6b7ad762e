import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { agentBinary, agentPath, runAgentProcess, type AgentRun } from './agents';
import { jsonBody, startExchangeServer } from './exchange-server';
import { cliPath } from './paths';

/**
 * The real Claude Code binary (test/agents/versions.json pins it; test/agents/install.mjs keeps it in a cache
 * outside the package, and the test sequencer installs it before a test that needs it) against a scripted
 * Messages API server on 127.0.0.1. A test that cannot start the binary fails, saying why: nothing is skipped.
 */
export function claudeBinary(): string {
  const bin = agentBinary('claude');
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' }, timeout: 60_000 });
  if (r.status !== 0 || !/Claude Code/.test(r.stdout))
    throw new Error(`the claude binary ${bin} does not run (exit ${r.status}): ${r.stderr || r.stdout}`);
  return bin;
}

/** One scripted turn of the model: tool calls (in one message), or a final text. */
export type ScriptedTurn = { tools: { name: string; input: Record<string, unknown> }[] } | { text: string };

export interface ServerRequest {
  url: string;
  body: {
    model?: string;
    stream?: boolean;
    messages: { role: string; content: string | Record<string, unknown>[] }[];
  };
}

export interface ScriptedServer {
  port: number;
  requests: ServerRequest[];
  /** Each exchange's exact bytes: the request body received and the response body sent. */
  raw: { request: Buffer; response: Buffer }[];
  /** Tool-use ids the server has handed out, in order. */
  toolUseIds: string[];
  close(): Promise<void>;
}

function textOf(content: string | Record<string, unknown>[]): string[] {
  if (typeof content === 'string') return [content];
  return content.filter((b) => b.type === 'text' && typeof b.text === 'string').map((b) => b.text as string);
}

/**
 * A Messages API server answering `POST /v1/messages` with SSE streams. Each
 * conversation is scripted by its user prompt: the reply is the script's turn
 * number k, where k counts the assistant messages after the last message
 * carrying that prompt. A compaction request (Claude Code's summary
 * instructions) is answered with a summary.
 */
export async function startScriptedServer(scripts: Record<string, ScriptedTurn[]>): Promise<ScriptedServer> {
  const requests: ServerRequest[] = [];
  const toolUseIds: string[] = [];
  let nextId = 0;
  const server = await startExchangeServer((x, res) => {
    const body = jsonBody<ServerRequest['body']>(x);
    if (body === undefined) {
      res.writeHead(400).end('{}');
      return;
    }
    requests.push({ url: x.url, body });
    if (x.method !== 'POST' || !x.url.startsWith('/v1/messages') || !Array.isArray(body.messages)) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"type":"error"}');
      return;
    }
    const model = body.model ?? 'claude-test';
    const msgs = body.messages;
    const last = msgs.at(-1);
    const lastText = last === undefined ? '' : textOf(last.content).join('\n');
    let turn: ScriptedTurn = { text: 'Nothing to do.' };
    if (/Do NOT call any tools/.test(lastText) && /summary/i.test(lastText)) {
      turn = {
        text: '<analysis>Files were made.</analysis>\n<summary>The user asked for files; they were made.</summary>',
      };
    } else {
      for (let i = msgs.length - 1; i >= 0; i--) {
        const m = msgs[i]!;
        if (m.role !== 'user') continue;
        const prompt = textOf(m.content).find((t) => scripts[t] !== undefined);
        if (prompt === undefined) continue;
        const k = msgs.slice(i + 1).filter((x) => x.role === 'assistant').length;
        turn = scripts[prompt]![k] ?? { text: 'Done.' };
        break;
      }
    }
    const events: Record<string, unknown>[] = [
      {
        type: 'message_start',
        message: {
          id: `msg_${String(requests.length).padStart(4, '0')}`,
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 100, output_tokens: 1 },
        },
      },
    ];
    let stop = 'end_turn';
    if ('tools' in turn) {
      stop = 'tool_use';
      turn.tools.forEach((t, index) => {
        const id = `toolu_${String(nextId++).padStart(4, '0')}`;
        toolUseIds.push(id);
        events.push({
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id, name: t.name, input: {} },
        });
        events.push({
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: JSON.stringify(t.input) },
        });
        events.push({ type: 'content_block_stop', index });
      });
    } else {
      events.push({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
      events.push({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: turn.text } });
      events.push({ type: 'content_block_stop', index: 0 });
    }
    events.push({
      type: 'message_delta',
      delta: { stop_reason: stop, stop_sequence: null },
      usage: { output_tokens: 20 },
    });
    events.push({ type: 'message_stop' });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const e of events) res.write(`event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`);
    res.end();
  });
  return { ...server, requests, toolUseIds };
}

/** A directory with a `stepchain` executable running the built CLI (as an npm bin would). */
export function stepchainBin(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const bin = path.join(dir, 'stepchain');
  writeFileSync(bin, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(cliPath)} "$@"\n`);
  chmodSync(bin, 0o755);
  return dir;
}

/** A headless run (its `events` are stream-json events) and the session it ran in. */
export interface ClaudeRun extends AgentRun {
  sessionId: string | undefined;
}

/**
 * Runs `claude -p <prompt> --output-format stream-json --verbose` against the
 * scripted server, offline: HOME is the test's, only the scripted server is
 * reachable, telemetry and other traffic are off. Asynchronous: the server
 * lives in this process.
 */
export async function runClaude(options: {
  binary: string;
  cwd: string;
  home: string;
  port: number;
  prompt: string;
  resume?: string;
  binDir?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}): Promise<ClaudeRun> {
  const args = [
    '-p',
    options.prompt,
    '--output-format',
    'stream-json',
    '--verbose',
    '--allowedTools',
    'Bash',
    '--permission-mode',
    'acceptEdits',
    ...(options.resume === undefined ? [] : ['--resume', options.resume]),
  ];
  const env: NodeJS.ProcessEnv = {
    PATH: agentPath(options.binDir),
    HOME: options.home,
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${options.port}`,
    ANTHROPIC_API_KEY: 'sk-ant-test-not-a-key',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    ...options.env,
  };
  const run = await runAgentProcess(options.binary, args, {
    cwd: options.cwd,
    env,
    timeoutMs: options.timeoutMs ?? 120_000,
  });
  const sid = run.events.find((e) => typeof e.session_id === 'string')?.session_id;
  return { ...run, sessionId: typeof sid === 'string' ? sid : undefined };
}
