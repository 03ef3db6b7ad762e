import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { agentBinary, agentPath, runAgentProcess, type AgentRun } from './agents';
import { jsonBody, startExchangeServer, type Exchange } from './exchange-server';

/**
 * The real Gemini CLI (test/agents/versions.json pins it) against a scripted Gemini API server on 127.0.0.1
 * (`POST /v1beta/models/<model>:streamGenerateContent?alt=sse`, and `:generateContent` for utility calls). A
 * conversation is scripted by its user prompt: a request with tools gets the script's call number k, k counting
 * the function responses the request already carries (one function call per turn), then text; a request without
 * tools (a title, a router, a summary) gets text.
 */
export interface FunctionCall {
  name: string;
  args: Record<string, unknown>;
}

export interface GeminiServer {
  port: number;
  requests: { url: string; body: Record<string, unknown> }[];
  /** Every request's body bytes and headers and the response body bytes sent for it, in order. */
  raw: Exchange[];
  close(): Promise<void>;
}

interface Part {
  text?: string;
  functionCall?: unknown;
  functionResponse?: unknown;
}

export async function startGeminiServer(
  scripts: Record<string, FunctionCall[]>,
  model = 'gemini-2.5-flash',
): Promise<GeminiServer> {
  const requests: GeminiServer['requests'] = [];
  const server = await startExchangeServer((x, res) => {
    // An empty or odd body is answered with text below.
    const body = jsonBody<Record<string, unknown>>(x) ?? {};
    const url = x.url;
    requests.push({ url, body });
    if (x.method !== 'POST' || !/:(stream)?[gG]enerateContent/.test(url)) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":404}}');
      return;
    }
    const contents = (Array.isArray(body.contents) ? body.contents : []) as { role?: string; parts?: Part[] }[];
    const parts = contents.flatMap((c) => c.parts ?? []);
    const texts = parts.map((p) => p.text).filter((t): t is string => typeof t === 'string');
    const prompt = texts.find((t) => scripts[t] !== undefined);
    const k = parts.filter((p) => p.functionResponse !== undefined).length;
    const tools = Array.isArray(body.tools) && body.tools.length > 0;
    const call = tools && prompt !== undefined ? scripts[prompt]![k] : undefined;
    const answer: Part[] = call === undefined ? [{ text: tools ? 'All done.' : 'ok' }] : [{ functionCall: call }];
    const chunk = {
      candidates: [{ content: { role: 'model', parts: answer }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 2, totalTokenCount: 12 },
      modelVersion: model,
    };
    const sse = url.includes('alt=sse');
    res
      .writeHead(200, { 'content-type': sse ? 'text/event-stream' : 'application/json' })
      .end(sse ? `data: ${JSON.stringify(chunk)}\n\n` : JSON.stringify(chunk));
  });
  return { ...server, requests };
}

/**
 * The user settings an offline run needs (`<home>/.gemini/settings.json`): API-key auth, no usage statistics, a
 * pinned model (else a router request comes first), and `trusted` folders in `trustedFolders.json`.
 */
export function geminiHome(home: string, trusted: string[], model = 'gemini-2.5-flash'): void {
  const dir = path.join(home, '.gemini');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'settings.json'),
    `${JSON.stringify(
      {
        security: { auth: { selectedType: 'gemini-api-key' } },
        privacy: { usageStatisticsEnabled: false },
        model: { name: model },
      },
      null,
      2,
    )}\n`,
  );
  writeFileSync(
    path.join(dir, 'trustedFolders.json'),
    `${JSON.stringify(Object.fromEntries(trusted.map((t) => [t, 'TRUST_FOLDER'])), null, 2)}\n`,
  );
}

/**
 * What every test run of Gemini CLI adds to its environment: no relaunch. Gemini CLI's entry otherwise loads part of
 * its bundle only to start a second Node process (with a larger heap) that runs the CLI while the first waits for it;
 * the session, its hooks and its requests are the same either way. Measured here: ~0.5 s of CPU saved per run.
 */
export const GEMINI_RUN_ENV: Readonly<NodeJS.ProcessEnv> = { GEMINI_CLI_NO_RELAUNCH: 'true' };

export interface GeminiRun extends AgentRun {
  sessionId: string | undefined;
}

/** `gemini -p <prompt> --yolo --output-format stream-json --session-id <id>` against the scripted server, offline. */
export async function runGemini(options: {
  cwd: string;
  home: string;
  port: number;
  prompt: string;
  sessionId: string;
  binDir?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}): Promise<GeminiRun> {
  const binary = agentBinary('gemini');
  const args = ['-p', options.prompt, '--yolo', '--output-format', 'stream-json', '--session-id', options.sessionId];
  const env: NodeJS.ProcessEnv = {
    PATH: agentPath(options.binDir),
    HOME: options.home,
    GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${options.port}`,
    GEMINI_API_KEY: 'test-key-not-a-key',
    ...GEMINI_RUN_ENV,
    ...options.env,
  };
  const run = await runAgentProcess(binary, args, { cwd: options.cwd, env, timeoutMs: options.timeoutMs ?? 150_000 });
  const sid = run.events.find((e) => typeof e.session_id === 'string')?.session_id;
  return { ...run, sessionId: typeof sid === 'string' ? sid : undefined };
}
