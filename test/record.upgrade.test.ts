import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { journalFile, readVerifiedJournal } from '../src/journal';
import { sha256Hex } from '../src/util/hash';
import { expectNoStack } from './helpers/cli';
import { initRepo } from './helpers/git';
import { everythingStored, recordArgs, replayArgs, runStepchain, type StepchainRun } from './helpers/record';
import { codexExecArgs, startResponsesServer, type ResponsesServer } from './helpers/responses-server';
import { tempDir } from './helpers/tmp';
import { HELLO_MESSAGE } from './helpers/anthropic-answer';

// What the recording proxy does with a request to leave HTTP/1.1: a WebSocket handshake (Codex's built-in openai
// provider tries one first), h2c, a bare Upgrade header, a CONNECT. Each is refused at once, on the proxy, and
// never reaches the upstream, the journal or a replay (docs/record.md, "Upgrades and tunnels").
jest.setTimeout(180_000);

const dir = tempDir('stepchain-record-upgrade-');

interface Answer {
  status: string;
  /** Whether the proxy closed the connection after its answer (false: the client gave up waiting). */
  closed: boolean;
}

// A client standing in for any agent: raw HTTP/1.1 on sockets, so nothing in an HTTP library hides what was sent.
const CLIENT = `
import net from 'node:net';
import { writeFileSync } from 'node:fs';
const base = new URL(process.env.ANTHROPIC_BASE_URL);
const host = '127.0.0.1:' + base.port;
const messages = base.pathname + '/v1/messages'; // the base's path: the run's secret
function raw(text) {
  return new Promise((resolve) => {
    let got = '';
    let gaveUp = false;
    const s = net.connect(Number(base.port), '127.0.0.1', () => s.write(text));
    const timer = setTimeout(() => { gaveUp = true; s.destroy(); }, 10000);
    s.on('data', (d) => (got += d.toString('latin1')));
    s.on('error', () => undefined);
    s.on('close', () => { clearTimeout(timer); resolve({ status: got.split('\\r\\n')[0], closed: !gaveUp }); });
  });
}
const body = JSON.stringify({ model: 'm-test', max_tokens: 8, messages: [{ role: 'user', content: 'H2CBODYMARK' }] });
const answers = [];
answers.push(await raw('GET ' + messages + ' HTTP/1.1\\r\\nHost: ' + host + '\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\n' +
  'Sec-WebSocket-Key: V1NLRVlNQVJLMDAwMDAwMA==\\r\\nSec-WebSocket-Version: 13\\r\\n\\r\\n'));
answers.push(await raw('POST ' + messages + ' HTTP/1.1\\r\\nHost: ' + host + '\\r\\nConnection: Upgrade, HTTP2-Settings\\r\\n' +
  'Upgrade: h2c\\r\\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\\r\\ncontent-type: application/json\\r\\ncontent-length: ' +
  Buffer.byteLength(body) + '\\r\\n\\r\\n' + body));
answers.push(await raw('POST ' + messages + ' HTTP/1.1\\r\\nHost: ' + host + '\\r\\nUpgrade: websocket\\r\\n' +
  'content-type: application/json\\r\\ncontent-length: ' + Buffer.byteLength(body) + '\\r\\n\\r\\n' + body));
answers.push(await raw('CONNECT 127.0.0.1:' + process.env.UPSTREAM_PORT + ' HTTP/1.1\\r\\nHost: 127.0.0.1:' +
  process.env.UPSTREAM_PORT + '\\r\\n\\r\\nGET /v1/models HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n'));
// The agent's own model call, after all that: forwarded and recorded as ever.
const ok = JSON.stringify({ model: 'm-test', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] });
answers.push(await raw('POST ' + messages + ' HTTP/1.1\\r\\nHost: ' + host + '\\r\\nConnection: close\\r\\n' +
  'content-type: application/json\\r\\ncontent-length: ' + Buffer.byteLength(ok) + '\\r\\n\\r\\n' + ok));
writeFileSync(process.env.OUT, JSON.stringify(answers));
`;

/** An upstream that notes everything that reaches it: connections, requests, upgrades, tunnels. */
async function startUpstream(): Promise<{ port: number; seen: string[]; connections: number; close(): void }> {
  const state = { port: 0, seen: [] as string[], connections: 0, close: () => undefined as void };
  const server = http.createServer((req, res) => {
    state.seen.push(`${req.method} ${req.url}${req.headers.upgrade === undefined ? '' : ' upgrade'}`);
    req.resume();
    req.on('end', () => {
      const body = HELLO_MESSAGE;
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
  });
  server.on('connection', () => state.connections++);
  server.on('upgrade', (req, socket) => {
    state.seen.push(`UPGRADE ${req.method} ${req.url}`);
    socket.destroy();
  });
  server.on('connect', (req, socket) => {
    state.seen.push(`CONNECT ${req.url}`);
    socket.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.port = (server.address() as AddressInfo).port;
  state.close = () => void server.close();
  return state;
}

describe('any agent', () => {
  const root = path.join(dir, 'project');
  const client = path.join(dir, 'client.mjs');
  const out = path.join(dir, 'answers.json');
  const env = (upstreamPort: number): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    HOME: dir,
    STEPCHAIN_AUDIT: 'off',
    OUT: out,
    UPSTREAM_PORT: String(upstreamPort),
  });
  const EXPECTED = [
    { status: 'HTTP/1.1 426 Upgrade Required', closed: true },
    { status: 'HTTP/1.1 426 Upgrade Required', closed: true },
    { status: 'HTTP/1.1 426 Upgrade Required', closed: true },
    { status: 'HTTP/1.1 405 Method Not Allowed', closed: true },
    { status: 'HTTP/1.1 200 OK', closed: true },
  ];

  /**
   * The raw-socket client under `stepchain <args(upstream URL)> -- node client` against a fresh upstream: it exits 0
   * with no stack, and every request got its expected answer.
   */
  async function clientThrough(
    args: (upstream: string) => string[],
  ): Promise<{ r: StepchainRun; upstream: Awaited<ReturnType<typeof startUpstream>> }> {
    const upstream = await startUpstream();
    let r: StepchainRun;
    try {
      r = await runStepchain(
        [...args(`http://127.0.0.1:${upstream.port}`), '--', process.execPath, client],
        root,
        env(upstream.port),
      );
    } finally {
      upstream.close();
    }
    expectNoStack(r);
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(out, 'utf8')) as Answer[]).toEqual(EXPECTED);
    return { r, upstream };
  }

  beforeAll(() => {
    initRepo(root, { 'a.txt': 'hello\n' });
    writeFileSync(client, CLIENT);
  });

  test('record: a WebSocket handshake, h2c, a bare Upgrade and a CONNECT are refused at once and closed; the upstream sees none of them; nothing of them is stored', async () => {
    const { r, upstream } = await clientThrough((url) => [...recordArgs('claude', 'up-1', url), '--json']);
    // Only the model call reached the upstream, on the one connection the proxy opened for it: no handshake
    // forwarded (not even as a plain GET), no tunnel.
    expect(upstream.seen).toEqual(['POST /v1/messages']);
    expect(upstream.connections).toBe(1);
    const doc = JSON.parse(r.stdout) as Record<string, unknown>;
    // The CONNECT is not counted: its target cannot carry the run's secret, so nothing says it is the agent's.
    expect(doc).toMatchObject({ forwarded: 1, unrecorded: 0, refused_upgrades: 3 });
    expect(r.stderr).toMatch(/refused CONNECT: the proxy is no tunnel/);
    expect(readVerifiedJournal(journalFile(root, 'up-1')).entries.map((e) => e.row.seq)).toEqual([0]);
    const stored = everythingStored(root);
    expect(stored).not.toContain('H2CBODYMARK');
    expect(stored).not.toContain('V1NLRVlNQVJLMDAwMDAwMA==');
    expect(stored).not.toContain('HTTP2-Settings');
  });

  test('fork --replay: the same requests are refused the same way, consume no recorded exchange and stop nothing', async () => {
    const { r, upstream } = await clientThrough((url) => replayArgs('up-1', 0, url));
    expect(upstream.seen).toEqual([]);
    expect(upstream.connections).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ replayed: 1, forwarded: 0, unrecorded: 0, refused_upgrades: 3 });
  });
});

describe('Codex 0.171.0, built-in openai provider', () => {
  // The built-in `openai` provider (`supports_websockets = true`, which no configuration turns off: its feature flags
  // are "removed" and a built-in provider cannot be overridden) opens `GET /v1/responses` with `Upgrade: websocket`
  // before its first request. Answered 426, Codex goes on over HTTPS at once; any other answer it retried five times
  // with backoff (about 7 s) before falling back, printing "Falling back from WebSockets to HTTPS transport".
  const root = path.join(dir, 'codex-project');
  const home = path.join(dir, 'codex-home');
  let server: ResponsesServer;
  const env: NodeJS.ProcessEnv = {
    PATH: [path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
    HOME: home,
    CODEX_HOME: home,
    OPENAI_API_KEY: 'sk-codex-ws-test-not-a-key',
    STEPCHAIN_AUDIT: 'off',
  };

  beforeAll(async () => {
    initRepo(root, { 'README.md': '# project\n' });
    server = await startResponsesServer(['echo one > one.txt']);
    mkdirSync(home, { recursive: true });
    writeFileSync(
      path.join(home, 'config.toml'),
      `model = "gpt-test"\nopenai_base_url = "http://127.0.0.1:${server.port}/v1"\n`,
    );
  }, 60_000);

  afterAll(async () => {
    await server.close();
  });

  /** `stepchain <args> -- codex exec …`: it exits 0 with no stack; its JSON document. */
  async function codexThrough(args: string[]): Promise<{ r: StepchainRun; doc: Record<string, unknown> }> {
    const r = await runStepchain([...args, '--', ...codexExecArgs('Make one.txt.')], root, env);
    expectNoStack(r);
    expect(r.code).toBe(0);
    return { r, doc: JSON.parse(r.stdout) as Record<string, unknown> };
  }

  /** Codex's --json lines that say it fell back from a WebSocket (its own words). */
  const fallbackNotes = (stdout: string): string[] =>
    stdout.split('\n').filter((l) => /Falling back from WebSockets/i.test(l));

  test('record: the WebSocket attempt is refused once and never retried; the upstream receives only the HTTPS requests, each a step', async () => {
    const { r, doc } = await codexThrough([...recordArgs('codex', 'ws-1'), '--json']);
    // One attempt, answered 426 (measured: exactly one every run), and no retry: the stall was seven attempts.
    // At most two are allowed here (a startup preconnect and the turn's own), so Codex's scheduling cannot fail it.
    expect(doc).toMatchObject({ ok: true, unrecorded: 0, forwarded: 2 });
    expect(doc.refused_upgrades).toBeGreaterThanOrEqual(1);
    expect(doc.refused_upgrades).toBeLessThanOrEqual(2);
    expect(fallbackNotes(r.stderr + r.stdout)).toEqual([]);
    expect(readFileSync(path.join(root, 'one.txt'), 'utf8')).toBe('one\n');
    // Every request the upstream received is a model call with a body (a forwarded handshake would be a bodiless
    // GET), and each is a step, byte for byte.
    expect(server.raw.map((x) => x.request.length > 0)).toEqual([true, true]);
    const steps = readVerifiedJournal(journalFile(root, 'ws-1')).entries;
    expect(steps).toHaveLength(2);
    expect(steps.map((e) => e.row.input_hash)).toEqual(server.raw.map((x) => sha256Hex(x.request)));
  });

  test('fork --replay: the attempt is refused the same way; the recording answers the rest', async () => {
    const before = server.raw.length;
    const { r, doc } = await codexThrough(['fork', 'ws-1', '--from-step', '1', '--replay', '--json']);
    expect(doc).toMatchObject({ ok: true, replayed: 2, forwarded: 0, unrecorded: 0 });
    expect(doc.refused_upgrades).toBeGreaterThanOrEqual(1);
    expect(doc.refused_upgrades).toBeLessThanOrEqual(2);
    expect(fallbackNotes(r.stderr + r.stdout)).toEqual([]);
    expect(server.raw.length).toBe(before);
  });
});
