import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { agentBinary } from './agents';

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
  /** Every request's body bytes and the response body bytes sent for it, in order. */
  raw: { request: Buffer; response: Buffer }[];
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
  const raw: GeminiServer['raw'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const exchange = { request: Buffer.concat(chunks), response: Buffer.alloc(0) };
      raw.push(exchange);
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        /* an empty or odd body: answered with text below */
      }
      const url = req.url ?? '';
      requests.push({ url, body });
      if (req.method !== 'POST' || !/:(stream)?[gG]enerateContent/.test(url)) {
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
      exchange.response = Buffer.from(sse ? `data: ${JSON.stringify(chunk)}\n\n` : JSON.stringify(chunk));
      res.writeHead(200, { 'content-type': sse ? 'text/event-stream' : 'application/json' }).end(exchange.response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    raw,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
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

export interface GeminiRun {
  code: number | null;
  stdout: string;
  stderr: string;
  events: Record<string, unknown>[];
  sessionId: string | undefined;
}

/** `gemini -p <prompt> --yolo --output-format stream-json --session-id <id>` against the scripted server, offline. */
export function runGemini(options: {
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
    PATH: [options.binDir, path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin']
      .filter((p) => p !== undefined)
      .join(':'),
    HOME: options.home,
    GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${options.port}`,
    GEMINI_API_KEY: 'test-key-not-a-key',
    ...options.env,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 150_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const events: Record<string, unknown>[] = [];
      for (const line of stdout.split('\n')) {
        try {
          if (line.trim() !== '') events.push(JSON.parse(line) as Record<string, unknown>);
        } catch {
          /* not an event line */
        }
      }
      const sid = events.find((e) => typeof e.session_id === 'string')?.session_id;
      resolve({ code, stdout, stderr, events, sessionId: typeof sid === 'string' ? sid : undefined });
    });
  });
}
