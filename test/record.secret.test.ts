import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import path from 'node:path';
import { expectNoStack } from './helpers/cli';
import { initRepo } from './helpers/git';
import { everythingStored, recordArgs, recordedSteps, replayArgs, runStepchain } from './helpers/record';
import { tempDir } from './helpers/tmp';
import { HELLO_MESSAGE } from './helpers/anthropic-answer';

// The recording proxy serves only its own agent: another process on the machine that finds its port (a scan of
// 127.0.0.1, `ss -ltn`) and sends requests to it is refused, and none of what it sends is recorded, forwarded, or
// answered from a replay. The agent alone was given the run's secret, the first segment of its base URL's path.
jest.setTimeout(120_000);

const dir = tempDir('stepchain-record-secret-');

// The agent: a model call, then the port (and nothing else) where an outsider finds it, a wait while the outsider
// sends its requests, a second model call.
const AGENT = `
import http from 'node:http';
import { existsSync, writeFileSync } from 'node:fs';
const base = new URL(process.env.ANTHROPIC_BASE_URL);
function post(content) {
  const body = JSON.stringify({ model: 'm-test', max_tokens: 8, messages: [{ role: 'user', content }] });
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: base.port, method: 'POST', path: base.pathname + '/v1/messages',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k' } }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)); });
    req.on('error', reject);
    req.end(body);
  });
}
const statuses = [await post('AGENT-FIRST')];
writeFileSync(process.env.PORT_FILE, base.port);
while (!existsSync(process.env.GO_FILE)) await new Promise((r) => setTimeout(r, 20));
statuses.push(await post('AGENT-SECOND'));
writeFileSync(process.env.OUT, JSON.stringify({ base: process.env.ANTHROPIC_BASE_URL, statuses }));
`;

/** A Messages API upstream that notes the path and the prompt of each request. */
async function startUpstream(): Promise<{ port: number; seen: string[]; close(): void }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const m = /"content":"([^"]*)"/.exec(body);
      seen.push(`${req.method} ${req.url} ${m?.[1] ?? ''}`);
      const answer = HELLO_MESSAGE;
      res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, seen, close: () => void server.close() };
}

/** One raw request to 127.0.0.1:port; the status line of its answer ('' when the connection closed with none). */
function raw(port: number, text: string): Promise<string> {
  return new Promise((resolve) => {
    let got = '';
    const s = net.connect(port, '127.0.0.1', () => s.write(text));
    const timer = setTimeout(() => s.destroy(), 10_000); // a connection the proxy keeps open: its answer is what came
    s.on('data', (d: Buffer) => (got += d.toString('latin1')));
    s.on('error', () => undefined);
    s.on('close', () => {
      clearTimeout(timer);
      resolve(got.split('\r\n')[0]!);
    });
  });
}

/** What another process sends once it has found the port: the agent's model call, as the agent would send it. */
async function outsider(port: number): Promise<string[]> {
  const host = `127.0.0.1:${port}`;
  const post = (target: string, content: string): string => {
    const body = JSON.stringify({ model: 'm-test', max_tokens: 8, messages: [{ role: 'user', content }] });
    return `POST ${target} HTTP/1.1\r\nHost: ${host}\r\ncontent-type: application/json\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  };
  return [
    await raw(port, post('/v1/messages', 'AGENT-FIRST')), // the replayed run's first request, word for word
    await raw(port, post('/v1/messages', 'FORGED-PLAIN')),
    await raw(port, post(`/${'A'.repeat(43)}/v1/messages`, 'FORGED-GUESS')), // a guessed secret
    await raw(port, post('/', 'FORGED-ROOT')),
    await raw(
      port,
      `GET /v1/messages HTTP/1.1\r\nHost: ${host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: Rk9SR0VEV1NLRVkwMDAwMA==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    ),
    await raw(port, `CONNECT ${host} HTTP/1.1\r\nHost: ${host}\r\n\r\n`),
  ];
}

const REFUSED = [
  'HTTP/1.1 403 Forbidden',
  'HTTP/1.1 403 Forbidden',
  'HTTP/1.1 403 Forbidden',
  'HTTP/1.1 403 Forbidden',
  'HTTP/1.1 403 Forbidden',
  'HTTP/1.1 405 Method Not Allowed',
];

/**
 * `stepchain <args>` running the agent, with an outsider's requests sent to the proxy's port while the agent waits:
 * what the run printed, the outsider's answers, and what the agent wrote (its base URL, its answers).
 */
async function runWithOutsider(
  args: string[],
  root: string,
  name: string,
): Promise<{
  run: Awaited<ReturnType<typeof runStepchain>>;
  answers: string[];
  agent: { base: string; statuses: number[] };
}> {
  const files = {
    PORT_FILE: path.join(dir, `${name}.port`),
    GO_FILE: path.join(dir, `${name}.go`),
    OUT: path.join(dir, `${name}.json`),
  };
  const pending = runStepchain([...args, '--', process.execPath, path.join(dir, 'agent.mjs')], root, {
    PATH: process.env.PATH,
    HOME: dir,
    STEPCHAIN_AUDIT: 'off',
    ...files,
  });
  let done = false;
  void pending.then(() => (done = true));
  while (!existsSync(files.PORT_FILE) && !done) await new Promise((r) => setTimeout(r, 20));
  const answers = done ? [] : await outsider(Number(readFileSync(files.PORT_FILE, 'utf8')));
  writeFileSync(files.GO_FILE, '');
  const run = await pending;
  expectNoStack(run);
  return { run, answers, agent: JSON.parse(readFileSync(files.OUT, 'utf8')) as { base: string; statuses: number[] } };
}

describe('a process other than the agent', () => {
  const root = path.join(dir, 'project');
  beforeAll(() => {
    initRepo(root, { 'a.txt': 'hello\n' });
    writeFileSync(path.join(dir, 'agent.mjs'), AGENT);
  });

  test('record: its requests to the proxy (no secret, a guessed one, an upgrade, a tunnel) are refused; the journal holds only the agent’s exchanges; the secret is shown and stored nowhere', async () => {
    const upstream = await startUpstream();
    let r: Awaited<ReturnType<typeof runWithOutsider>>;
    try {
      r = await runWithOutsider(
        [...recordArgs('claude', 'sec-1', `http://127.0.0.1:${upstream.port}`), '--json'],
        root,
        'rec',
      );
    } finally {
      upstream.close();
    }
    const { run, answers, agent } = r;
    expect(run.code).toBe(0);
    expect(answers).toEqual(REFUSED);
    expect(agent.statuses).toEqual([200, 200]);
    // The agent's base URL: the proxy's origin, then the secret (256 bits, base64url) as the path's one segment.
    const secret = new URL(agent.base).pathname.slice(1);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The upstream got the agent's two calls, the secret stripped from their path, and nothing of the outsider's.
    expect(upstream.seen).toEqual(['POST /v1/messages AGENT-FIRST', 'POST /v1/messages AGENT-SECOND']);
    const steps = recordedSteps(root, 'sec-1');
    expect(steps).toHaveLength(2);
    const doc = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(doc).toMatchObject({ forwarded: 2, unrecorded: 0, refused_upgrades: 0 });
    // One warning line for each refusal, naming why, the secret in none.
    expect(
      run.stderr.match(/refused POST \/v1\/messages: its path does not begin with this run's secret/g),
    ).toHaveLength(2);
    expect(run.stderr).toMatch(/refused POST \/A{43}\/v1\/messages: its path does not begin with this run's secret/);
    expect(run.stderr).toMatch(/refused GET \/v1\/messages: its path does not begin with this run's secret/);
    expect(run.stderr).toMatch(/refused CONNECT: the proxy is no tunnel/);
    const stored = everythingStored(root);
    expect(stored).toContain('AGENT-SECOND');
    expect(stored).not.toContain('FORGED');
    expect(stored).not.toContain('Rk9SR0VEV1NLRVkwMDAwMA==');
    for (const text of [stored, run.stdout, run.stderr]) expect(text).not.toContain(secret);
  });

  test('fork --replay: its request, the recorded one word for word, is refused and consumes no recorded exchange; the agent’s are answered from the recording', async () => {
    const upstream = await startUpstream();
    let r: Awaited<ReturnType<typeof runWithOutsider>>;
    try {
      r = await runWithOutsider(replayArgs('sec-1', 1, `http://127.0.0.1:${upstream.port}`), root, 'replay');
    } finally {
      upstream.close();
    }
    const { run, answers, agent } = r;
    expect(run.code).toBe(0);
    expect(answers).toEqual(REFUSED);
    expect(agent.statuses).toEqual([200, 200]);
    expect(upstream.seen).toEqual([]);
    expect(JSON.parse(run.stdout)).toMatchObject({ replayed: 2, forwarded: 0, unrecorded: 0, refused_upgrades: 0 });
    expect(run.stderr).not.toContain(new URL(agent.base).pathname.slice(1));
  });
});
