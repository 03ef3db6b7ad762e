import { jsonBody, startExchangeServer, type Exchange } from './exchange-server';

/**
 * A scripted OpenAI Chat Completions server on 127.0.0.1 (`POST .../chat/completions`, streamed as SSE or not),
 * the model that Copilot CLI and OpenCode talk to in the tests. Each conversation is scripted by its user
 * prompt: a request that offers tools gets the script's turn k, k counting the assistant messages after the
 * last user message that contains the prompt (so the first request gets the first tool call and a request that
 * carries its result gets the next turn). A request that offers no tools (a title, a router, a compaction) or
 * whose prompt has no script gets text.
 */

/** One scripted turn: one tool call, or a final text. */
export type ChatTurn = { tool: string; args: Record<string, unknown> } | { text: string };

export interface ChatMessage {
  role: string;
  content?: string | { type?: string; text?: string }[] | null;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

export interface ChatRequest {
  url: string;
  body: {
    model?: string;
    stream?: boolean;
    messages?: ChatMessage[];
    tools?: { type?: string; function?: { name?: string } }[];
  };
}

export interface ChatServer {
  port: number;
  /** `http://127.0.0.1:<port>/v1`. */
  baseUrl: string;
  requests: ChatRequest[];
  /** Every request's exact bytes and headers, and the exact bytes it was answered with, in order. */
  raw: Exchange[];
  /** The tool-call ids handed out, in order, with the tool's name and arguments. */
  calls: { id: string; name: string; args: Record<string, unknown> }[];
  close(): Promise<void>;
}

function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (typeof p?.text === 'string' ? p.text : '')).join('\n');
}

/** The turn a request gets. */
function turnFor(body: ChatRequest['body'], scripts: Record<string, ChatTurn[]>, fallback: string): ChatTurn {
  const msgs = Array.isArray(body.messages) ? body.messages : [];
  if (!Array.isArray(body.tools) || body.tools.length === 0) return { text: fallback };
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i]!;
    if (m.role !== 'user') continue;
    const text = textOf(m.content);
    const prompt = Object.keys(scripts).find((p) => text.includes(p));
    if (prompt === undefined) continue;
    const k = msgs.slice(i + 1).filter((x) => x.role === 'assistant').length;
    return scripts[prompt]![k] ?? { text: 'Done.' };
  }
  return { text: fallback };
}

export async function startChatServer(
  scripts: Record<string, ChatTurn[]>,
  options: { model?: string; fallback?: string } = {},
): Promise<ChatServer> {
  const requests: ChatRequest[] = [];
  const calls: ChatServer['calls'] = [];
  const fallback = options.fallback ?? 'A short title';
  let n = 0;
  const server = await startExchangeServer((x, res) => {
    const url = x.url;
    if (x.method === 'GET' && /\/models\/?$/.test(url)) {
      const id = options.model ?? 'test-model';
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id, object: 'model', created: 0, owned_by: 'test' }] }));
      return;
    }
    const body = jsonBody<ChatRequest['body']>(x);
    if (body === undefined) {
      res.writeHead(400).end('{}');
      return;
    }
    requests.push({ url, body });
    if (x.method !== 'POST' || !/\/chat\/completions\/?$/.test(url.split('?')[0]!)) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    const turn = turnFor(body, scripts, fallback);
    const id = `chatcmpl-${String(++n).padStart(4, '0')}`;
    const model = body.model ?? options.model ?? 'test-model';
    const created = 1_700_000_000 + n;
    let message: Record<string, unknown>;
    let finish: string;
    if ('tool' in turn) {
      const callId = `call_${String(calls.length).padStart(4, '0')}`;
      calls.push({ id: callId, name: turn.tool, args: turn.args });
      const call = {
        id: callId,
        type: 'function',
        function: { name: turn.tool, arguments: JSON.stringify(turn.args) },
      };
      message = { role: 'assistant', content: null, tool_calls: [call] };
      finish = 'tool_calls';
    } else {
      message = { role: 'assistant', content: turn.text };
      finish = 'stop';
    }
    const usage = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };
    if (body.stream !== true) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          created,
          model,
          choices: [{ index: 0, message, finish_reason: finish }],
          usage,
        }),
      );
      return;
    }
    const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const delta: Record<string, unknown> = { role: 'assistant' };
    if ('tool' in turn) {
      const c = (message.tool_calls as Record<string, unknown>[])[0]!;
      delta.content = null;
      delta.tool_calls = [{ index: 0, ...c }];
    } else delta.content = turn.text;
    res.write(chunk([{ index: 0, delta, finish_reason: null }]));
    res.write(chunk([{ index: 0, delta: {}, finish_reason: finish }]));
    res.write(chunk([], { usage }));
    res.write('data: [DONE]\n\n');
    res.end();
  });
  return { ...server, baseUrl: `http://127.0.0.1:${server.port}/v1`, requests, calls };
}
