import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Cas, casDir, journalFile, readVerifiedJournal } from '../src/journal';
import { readRunJournalFile, runJournalFile } from '../src/runs';
import { sha256Hex } from '../src/util/hash';
import { cli } from './helpers/cli';
import { initRepo } from './helpers/git';
import { cliPath } from './helpers/paths';
import { everythingStored, recordArgs } from './helpers/record';
import { tempDir } from './helpers/tmp';

jest.setTimeout(120_000);

/**
 * A scripted client (fetch, as an agent) speaking OpenAI Chat Completions, OpenAI Responses and Gemini
 * streamGenerateContent, all with SSE, through `stepchain record` to a scripted server on 127.0.0.1.
 */
const dir = tempDir('stepchain-protocols-');
const root = path.join(dir, 'project');
const out = path.join(dir, 'received');
const client = path.join(dir, 'client.mjs');
const OPENAI_KEY = 'sk-openai-secret-5c1d';
const GEMINI_KEY = 'GEMINISECRET93';

const CLIENT = `
import { writeFileSync } from 'node:fs';
const base = process.env.OPENAI_BASE_URL;
// The proxy's base without the upstream's /v1 (the run's secret, its first segment, kept): where Gemini's paths go.
const origin = base.slice(0, base.lastIndexOf('/v1'));
let n = 0;
async function call(url, body, headers = {}, onFirst) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const chunks = [];
  for await (const c of res.body) {
    if (chunks.length === 0 && onFirst) await onFirst();
    chunks.push(Buffer.from(c));
  }
  const all = Buffer.concat(chunks);
  writeFileSync(process.env.OUT + '/' + n++, all);
  return all.toString('utf8');
}
const auth = { authorization: 'Bearer ' + process.env.OPENAI_API_KEY };
const tools = [{ type: 'function', function: { name: 'ls', parameters: { type: 'object' } } }];
const messages = [{ role: 'user', content: 'List the files.' }];
// The server holds the rest of this stream until it hears (directly) that the first event arrived through the proxy.
await call(base + '/chat/completions', { model: 'gpt-test', stream: true, messages, tools }, auth, () => fetch(process.env.ACK));
messages.push({ role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'ls', arguments: '{"path":"."}' } }] });
messages.push({ role: 'tool', tool_call_id: 'call_1', content: 'a.txt' });
// With TOUCH, the client acts on the answer's first byte as an agent runs a tool: it changes a file.
await call(base + '/chat/completions', { model: 'gpt-test', stream: true, messages, tools }, process.env.HANG ? { ...auth, 'x-hang': '1' } : auth, process.env.TOUCH ? () => writeFileSync('next-step.txt', 'x') : undefined);
const input = [{ role: 'user', content: 'Run ls.' }];
await call(base + '/responses', { model: 'gpt-resp', stream: true, input }, auth);
input.push({ type: 'function_call', call_id: 'fc_1', name: 'shell', arguments: '{"cmd":"ls"}' });
input.push({ type: 'function_call_output', call_id: 'fc_1', output: 'a.txt' });
// Codex marks its compaction requests in a header.
await call(base + '/responses', { model: 'gpt-resp', stream: true, input }, { ...auth, 'x-codex-turn-metadata': '{"turn_id":"t1","request_kind":"compaction"}' });
const g = origin + '/v1beta/models/gemini-test:streamGenerateContent?alt=sse&key=${GEMINI_KEY}';
const contents = [{ role: 'user', parts: [{ text: 'Read a.txt.' }] }];
await call(g, { contents }, { 'x-goog-api-key': '${GEMINI_KEY}' });
contents.push({ role: 'model', parts: [{ functionCall: { name: 'read', args: { path: 'a.txt' } } }] });
contents.push({ role: 'user', parts: [{ functionResponse: { name: 'read', response: { text: 'hello' } } }] });
await call(g, { contents }, { 'x-goog-api-key': '${GEMINI_KEY}' });
`;

interface Server {
  port: number;
  raw: { path: string; request: Buffer; response: Buffer }[];
  hung: Promise<void>;
  close(): Promise<void>;
}

const sse = (events: unknown[]): string => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('');
/** One Chat Completions stream chunk of response `id`, its one choice being `choice`. */
const chatChunk = (id: string, choice: Record<string, unknown>): string =>
  sse([{ id, object: 'chat.completion.chunk', choices: [{ index: 0, ...choice }] }]);

async function startServer(): Promise<Server> {
  const raw: Server['raw'] = [];
  let ack: () => void = () => undefined;
  const acked = new Promise<void>((r) => (ack = r));
  let hung: () => void = () => undefined;
  const hungP = new Promise<void>((r) => (hung = r));
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '';
      if (url === '/ack') {
        ack();
        res.end('ok');
        return;
      }
      const x = { path: url, request: Buffer.concat(chunks), response: Buffer.alloc(0) };
      raw.push(x);
      if (req.headers['x-hang'] === '1') {
        held.push(res);
        hung();
        return;
      }
      const body = JSON.parse(x.request.toString('utf8')) as {
        messages?: { role: string }[];
        input?: unknown[];
        contents?: unknown[];
      };
      const send = (text: string): void => {
        x.response = Buffer.concat([x.response, Buffer.from(text)]);
        res.write(text);
      };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (url === '/v1/chat/completions' && !body.messages!.some((m) => m.role === 'tool')) {
        send(
          chatChunk('c1', {
            delta: {
              role: 'assistant',
              tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'ls', arguments: '{"pa' } }],
            },
          }),
        );
        void acked.then(() => {
          send(
            chatChunk('c1', {
              delta: { tool_calls: [{ index: 0, function: { arguments: 'th":"."}' } }] },
              finish_reason: 'tool_calls',
            }),
          );
          send('data: [DONE]\n\n');
          res.end();
        });
        return;
      }
      if (url === '/v1/chat/completions') {
        send(chatChunk('c2', { delta: { content: 'Found a.txt' }, finish_reason: 'stop' }));
        send('data: [DONE]\n\n');
      } else if (url === '/v1/responses' && body.input!.length === 1) {
        send(
          sse([
            { type: 'response.created', response: { id: 'r1' } },
            {
              type: 'response.output_item.done',
              item: { type: 'function_call', call_id: 'fc_1', name: 'shell', arguments: '{"cmd":"ls"}' },
            },
            { type: 'response.completed', response: { id: 'r1', output: [] } },
          ]),
        );
      } else if (url === '/v1/responses') {
        send(
          sse([
            {
              type: 'response.output_item.done',
              item: { type: 'message', content: [{ type: 'output_text', text: 'a.txt' }] },
            },
          ]),
        );
      } else if (body.contents!.length === 1) {
        send(
          sse([
            {
              candidates: [
                { content: { role: 'model', parts: [{ functionCall: { name: 'read', args: { path: 'a.txt' } } }] } },
              ],
            },
          ]),
        );
      } else {
        send(sse([{ candidates: [{ content: { role: 'model', parts: [{ text: 'hello' }] } }] }]));
      }
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    raw,
    hung: hungP,
    close: () =>
      new Promise<void>((r) => {
        for (const h of held) h.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function record(journal: string, port: number, extra: NodeJS.ProcessEnv = {}) {
  return spawn(
    process.execPath,
    [cliPath, ...recordArgs('codex', journal, `http://127.0.0.1:${port}/v1`), '--', process.execPath, client],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        STEPCHAIN_AUDIT: 'off',
        OPENAI_API_KEY: OPENAI_KEY,
        OUT: out,
        ACK: `http://127.0.0.1:${port}/ack`,
        ...extra,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  );
}

function exited(child: ReturnType<typeof spawn>): Promise<{ code: number | null; stderr: string }> {
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  child.stdout!.resume();
  return new Promise((r) => child.on('close', (code) => r({ code, stderr })));
}

beforeAll(() => {
  initRepo(root, { 'a.txt': 'hello\n' });
  mkdirSync(out, { recursive: true });
  writeFileSync(client, CLIENT);
});

test('Chat Completions, Responses and Gemini over SSE: streamed through unbuffered, recorded byte for byte, tool calls and results read, credentials dropped', async () => {
  const server = await startServer();
  try {
    const r = await exited(record('proto-1', server.port));
    expect(r.stderr).toMatch(/6 exchanges recorded/);
    expect(r.code).toBe(0);
    const steps = readVerifiedJournal(journalFile(root, 'proto-1')).entries.map((e) => e.row);
    expect(steps).toHaveLength(6);
    const cas = new Cas(casDir(root), false);
    steps.forEach((s, i) => {
      const x = server.raw[i]!;
      expect(s.input_hash).toBe(sha256Hex(x.request));
      // What the server sent is what the client got, and what the step holds.
      const got = readFileSync(path.join(out, String(i)));
      expect(got.equals(x.response)).toBe(true);
      expect(cas.get(sha256Hex(x.response))!.equals(x.response)).toBe(true);
      expect(s.blob_refs).toContain(sha256Hex(x.response));
    });
    expect(steps.map((s) => s.model)).toEqual([
      'gpt-test',
      'gpt-test',
      'gpt-resp',
      'gpt-resp',
      'gemini-test',
      'gemini-test',
    ]);
    expect(steps[0]!.tool_call).toEqual([{ id: 'call_1', name: 'ls', arguments: { path: '.' } }]);
    expect(steps[0]!.tool_result).toEqual([{ role: 'tool', tool_call_id: 'call_1', content: 'a.txt' }]);
    expect(steps[2]!.tool_call).toEqual([
      { type: 'function_call', call_id: 'fc_1', name: 'shell', arguments: '{"cmd":"ls"}' },
    ]);
    expect(steps[2]!.tool_result).toEqual([{ type: 'function_call_output', call_id: 'fc_1', output: 'a.txt' }]);
    expect(steps[4]!.tool_call).toEqual([{ id: null, name: 'read', args: { path: 'a.txt' } }]);
    expect(steps[4]!.tool_result).toEqual([{ functionResponse: { name: 'read', response: { text: 'hello' } } }]);
    for (const i of [1, 3, 5]) expect(steps[i]!.tool_call).toBeNull();
    expect(steps[0]!.prompt).toEqual([{ role: 'user', content: 'List the files.' }]);
    expect(steps[4]!.prompt).toEqual([{ role: 'user', parts: [{ text: 'Read a.txt.' }] }]);
    // No credential anywhere under .sdd/: not the bearer token, not Gemini's header or its key= parameter.
    const stored = everythingStored(root);
    expect(stored).not.toContain(OPENAI_KEY);
    expect(stored).not.toContain(GEMINI_KEY);
    const meta = JSON.parse(cas.get(steps[4]!.blob_refs.at(-1)!)!.toString('utf8')) as {
      path: string;
      protocol: string;
    };
    expect(meta).toMatchObject({
      protocol: 'gemini',
      path: '/v1beta/models/gemini-test:streamGenerateContent?alt=sse',
    });
    expect(server.raw[4]!.path).toContain(`key=${GEMINI_KEY}`); // it did reach the upstream
    expect(cli(['verify', 'proto-1'], { cwd: root }).code).toBe(0);
    // The compaction Codex marked is pinned, content-addressed, at its exchange's index.
    const run = readRunJournalFile(runJournalFile(root, 'proto-1'));
    expect(run.ok).toBe(true);
    const pinned = run.entries.filter((e) => e.row.event === 'provider_state_mutation').map((e) => e.row.payload);
    expect(pinned.map((p) => [p.get('mutation_kind'), p.get('step_index')])).toEqual([['compaction', 3]]);
    expect(run.capabilities).toEqual([{ adapter: 'proxy-codex', capability: 'observed' }]);
  } finally {
    await server.close();
  }
});

test('a record killed mid-exchange leaves a journal that verifies, with every step before the kill', async () => {
  const server = await startServer();
  try {
    const child = record('proto-kill', server.port, { HANG: '1' });
    const done = exited(child);
    await server.hung; // request 1 is upstream: step 0, whose tool result it carries, is appended meanwhile
    const file = journalFile(root, 'proto-kill');
    while (!existsSync(file) || !readFileSync(file, 'utf8').endsWith('\n')) await new Promise((r) => setTimeout(r, 20));
    process.kill(-child.pid!, 'SIGKILL'); // record, mid-exchange, and its agent
    await done;
    const v = cli(['verify', 'proto-kill', '--json'], { cwd: root });
    expect(v.code).toBe(0);
    expect(JSON.parse(v.stdout)).toMatchObject({ ok: true, steps: 1 });
    expect(cli(['run', 'verify', 'proto-kill'], { cwd: root }).code).toBe(0);
  } finally {
    await server.close();
  }
});

test('an unreachable upstream: the agent gets a 502, no step is made, the journal verifies', async () => {
  const server = await startServer();
  const port = server.port;
  await server.close(); // nothing listens there now
  const r = await exited(record('proto-down', port));
  expect(r.stderr).toMatch(/upstream http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/);
  expect(r.stderr).toMatch(/0 exchanges recorded/);
  expect(cli(['run', 'verify', 'proto-down'], { cwd: root }).code).toBe(0);
});

test("a step's snapshot is taken before any byte of the next answer reaches the agent: it never holds what the agent did next", async () => {
  const server = await startServer();
  try {
    const r = await exited(record('proto-touch', server.port, { TOUCH: '1' }));
    expect(r.code).toBe(0);
    expect(readFileSync(path.join(root, 'next-step.txt'), 'utf8')).toBe('x');
    const refs = execFileSync('git', ['for-each-ref', '--format=%(refname)', 'refs/stepchain/snapshots/proto-touch'], {
      cwd: root,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((l) => l.endsWith('/0'));
    expect(refs).toHaveLength(1);
    const files = execFileSync('git', ['ls-tree', '-r', '--name-only', refs[0]!], { cwd: root, encoding: 'utf8' });
    expect(files.split('\n')).toContain('a.txt');
    expect(files.split('\n')).not.toContain('next-step.txt');
  } finally {
    rmSync(path.join(root, 'next-step.txt'), { force: true });
    await server.close();
  }
});
