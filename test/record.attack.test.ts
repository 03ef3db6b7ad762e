import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { journalFile, readVerifiedJournal } from '../src/journal';
import { recordAgent, Replayer, type Divergence, type RecordedExchange } from '../src/proxy';
import { sha256Hex } from '../src/util/hash';
import { expectNoStack } from './helpers/cli';
import { initRepo } from './helpers/git';
import { withAgentTmp } from './helpers/agents';
import { casBlob, everythingStored, recordArgs, runStepchain, type StepchainRun } from './helpers/record';
import { tempDir } from './helpers/tmp';

// The recording proxy attacked from outside as a trust boundary: the agent's request targets, the names its
// credentials travel under, and what a hostile model server sends back.
jest.setTimeout(120_000);

const dir = tempDir('stepchain-record-attack-');

/**
 * What `stepchain record --agent <agent> --journal <id> --upstream <upstream> -- node <client>` does in `project`,
 * through the library in this process (recordAgent, what the command runs): its exit code as the command's (a
 * recording failure of an agent that exited 0 is 1) and its warnings as the lines it writes on stderr. What these
 * attacks reach is the proxy; a Node start of the CLI for each was ~0.1 s of CPU (the command as a process: below,
 * for an upstream refused before anything runs and for fork --replay; record's process contract: record.* files).
 */
async function recordLib(
  agent: string,
  id: string,
  upstream: string,
  client: string,
  project: string,
  env: NodeJS.ProcessEnv,
): Promise<StepchainRun> {
  const warnings: string[] = [];
  const r = await recordAgent({
    agent,
    journalId: id,
    root: project,
    upstream,
    command: [process.execPath, client],
    cwd: project,
    env: withAgentTmp({ PATH: process.env.PATH, HOME: dir, STEPCHAIN_AUDIT: 'off', ...env }),
    stdio: 'inherit', // as the command gives it (these clients write only to OUT; a crash exits non-zero)
    onWarning: (w) => warnings.push(`stepchain: warning: ${w}\n`),
  });
  const code = r.recordingFailure !== undefined && r.exitCode === 0 ? 1 : r.exitCode;
  return { code, stdout: '', stderr: warnings.join('') };
}

/**
 * `stepchain record` of the agent script `client` (Claude Code's protocol, journal `id`) in `project` against
 * `server`, listening on 127.0.0.1 for the run and closed after it; `OUT` names the file the client writes.
 */
async function recordThrough(server: http.Server, id: string, client: string, project: string, out: string) {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    return await recordLib(
      'claude',
      id,
      `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      client,
      project,
      { OUT: out },
    );
  } finally {
    server.close();
  }
}

/** A scripted server on `host` that answers every request `{}` and notes what it received. */
async function noting(host: string): Promise<{ server: http.Server; port: number; seen: string[] }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers['x-api-key'] ?? ''}`);
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  return { server, port: (server.address() as AddressInfo).port, seen };
}

// Raw request lines over a socket: an HTTP client would normalise the targets these are.
const RAW_TARGETS = `
import net from 'node:net';
import { writeFileSync } from 'node:fs';
const port = Number(new URL(process.env.ANTHROPIC_BASE_URL).port);
const prefix = new URL(process.env.ANTHROPIC_BASE_URL).pathname; // the run's secret: a path goes on the base
const body = JSON.stringify({ model: 'm-test', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] });
function send(target) {
  return new Promise((resolve) => {
    let got = '';
    const s = net.connect(port, '127.0.0.1', () => s.write('POST ' + target + ' HTTP/1.1\\r\\nHost: 127.0.0.1:' + port +
      '\\r\\nx-api-key: KSECRET\\r\\ncontent-type: application/json\\r\\nconnection: close\\r\\ncontent-length: ' +
      Buffer.byteLength(body) + '\\r\\n\\r\\n' + body));
    s.on('data', (d) => (got += d.toString('latin1')));
    s.on('error', () => undefined);
    s.on('close', () => resolve(got.split('\\r\\n')[0]));
  });
}
const answers = [];
for (const t of JSON.parse(process.env.TARGETS)) answers.push(await send(t.startsWith('/') ? prefix + t : t));
writeFileSync(process.env.OUT, JSON.stringify(answers));
`;

test('record: no request target reaches another host than the upstream (//host, /\\host, userinfo, IPv6, absolute-form)', async () => {
  const project = initRepo(path.join(dir, 'ssrf'), { 'a.txt': 'hello\n' });
  const client = path.join(dir, 'ssrf.mjs');
  const out = path.join(dir, 'ssrf.json');
  writeFileSync(client, RAW_TARGETS);
  const upstream = await noting('127.0.0.1');
  const other = await noting('::'); // IPv4 and IPv6 loopback both
  const e = `127.0.0.1:${other.port}`;
  // Origin-form targets (they start with one '/'): each goes to the upstream, as the agent wrote it.
  const originForm = [
    `//${e}/v1/messages`,
    `/\\${e}/v1/messages`,
    `//user:pw@${e}/v1/messages`,
    `/./\\${e}/v1/messages`,
    `//[::1]:${other.port}/v1/messages`,
    `/v1/../v1/messages`,
  ];
  // Not origin-form (absolute-form, asterisk-form): refused, sent nowhere.
  const refused = [`http://${e}/v1/messages`, `*`];
  let run;
  try {
    run = await recordLib('claude', 's1', `http://127.0.0.1:${upstream.port}`, client, project, {
      OUT: out,
      TARGETS: JSON.stringify([...originForm, ...refused]),
    });
  } finally {
    upstream.server.close();
    other.server.close();
  }
  expectNoStack(run);
  expect(run.code).toBe(0);
  expect(other.seen).toEqual([]);
  expect(upstream.seen).toEqual(originForm.map((t) => `POST ${t} KSECRET`));
  expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual([
    ...originForm.map(() => 'HTTP/1.1 200 OK'),
    ...refused.map(() => 'HTTP/1.1 400 Bad Request'),
  ]);
  expect(run.stderr).toMatch(/refused POST \(not a path\): the request target is not a path/);
  const steps = readVerifiedJournal(journalFile(project, 's1')).entries;
  expect(steps).toHaveLength(originForm.length);
  expect(everythingStored(project)).not.toContain('KSECRET');
});

const CREDENTIAL_NAMES = `
import http from 'node:http';
import { writeFileSync } from 'node:fs';
const base = new URL(process.env.OPENAI_BASE_URL);
const query = '?alt=sse&accessToken=Q1SECRET&authToken=Q2SECRET&clientSecret=Q3SECRET&privateKey=Q4SECRET' +
  '&X-Amz-Signature=Q5SECRET&X-Goog-Credential=Q6SECRET&passwd=Q7SECRET&userkey=Q8SECRET&keyboard=us';
const headers = { 'content-type': 'application/json', 'x-accesstoken': 'H1SECRET', 'x-authtoken': 'H2SECRET',
  'x-apisecret': 'H3SECRET', privatekey: 'H4SECRET', 'x-csrftoken': 'H5SECRET', cookie2: 'H6SECRET',
  'x-goog-iap-jwt-assertion': 'H7SECRET', 'x-bearer': 'H8SECRET', 'x-kept': 'visible' };
const code = await new Promise((resolve) => {
  const req = http.request({ host: '127.0.0.1', port: base.port, method: 'POST', path: base.pathname + '/responses' + query,
    headers }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)); });
  req.end(JSON.stringify({ model: 'gpt-test', input: [{ role: 'user', content: 'hi' }] }));
});
writeFileSync(process.env.OUT, JSON.stringify(code));
`;

test('record: a credential under a name that runs its words together (accessToken, x-authtoken, privatekey) is never stored', async () => {
  const project = initRepo(path.join(dir, 'names'), { 'a.txt': 'hello\n' });
  const client = path.join(dir, 'names.mjs');
  const out = path.join(dir, 'names.json');
  writeFileSync(client, CREDENTIAL_NAMES);
  const upstream = await noting('127.0.0.1');
  let run;
  try {
    run = await recordLib('codex', 'n1', `http://127.0.0.1:${upstream.port}/v1`, client, project, { OUT: out });
  } finally {
    upstream.server.close();
  }
  expectNoStack(run);
  expect(run.code).toBe(0);
  expect(JSON.parse(readFileSync(out, 'utf8'))).toBe(200);
  // Forwarded untouched: the provider gets the agent's credentials.
  expect(upstream.seen[0]).toContain('accessToken=Q1SECRET');
  const stored = everythingStored(project);
  expect(stored.match(/[QH]\dSECRET/g)).toBeNull();
  expect(stored).toContain('/v1/responses?alt=sse&keyboard=us');
  expect(stored).toContain('visible');
});

const ONE_CALL = `
import http from 'node:http';
import { writeFileSync } from 'node:fs';
const base = new URL(process.env.ANTHROPIC_BASE_URL);
const got = await new Promise((resolve) => {
  const req = http.request({ host: '127.0.0.1', port: base.port, method: 'POST', path: base.pathname + '/v1/messages',
    headers: { 'content-type': 'application/json' } }, (res) => {
    let n = 0;
    res.on('data', (c) => (n += c.length));
    res.on('end', () => resolve([res.statusCode, n]));
  });
  req.end(JSON.stringify({ model: 'm-test', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }));
});
writeFileSync(process.env.OUT, JSON.stringify(got));
`;

test('record: a compressed response that decodes past the read cap (a decompression bomb) is passed and stored as bytes, never decoded whole', async () => {
  const project = initRepo(path.join(dir, 'bomb'), { 'a.txt': 'hello\n' });
  const client = path.join(dir, 'bomb.mjs');
  const out = path.join(dir, 'bomb.json');
  writeFileSync(client, ONE_CALL);
  // ~700 KB of gzip that decodes to 100 MiB of SSE events, each naming a tool call. Level 1: what is tested is what
  // the bytes decode to, not how small they are (level 9 made 400 KB in 0.37 s of this process's CPU, level 1 0.07 s).
  const event = `event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}}\n\n`;
  const bomb = gzipSync(Buffer.from(event.repeat(Math.ceil((100 * 1024 * 1024) / event.length))), { level: 1 });
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'gzip' }).end(bomb),
    );
  });
  const run = await recordThrough(server, 'b1', client, project, out);
  expectNoStack(run);
  expect(run.code).toBe(0);
  expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual([200, bomb.length]);
  expect(run.stderr).toMatch(/exchange 0: its response decodes to more than 64 MiB: its tool calls are not read/);
  const steps = readVerifiedJournal(journalFile(project, 'b1')).entries;
  expect(steps).toHaveLength(1);
  expect(steps[0]!.row.blob_refs).toContain(sha256Hex(bomb));
  expect(steps[0]!.row.tool_call).toBeNull();
  expect(steps[0]!.row.model).toBe('m-test');
});

test('Replayer: requests that differ only in bytes that are not UTF-8 (or a BOM) diverge, never match', () => {
  const body = (s: Buffer): Buffer =>
    Buffer.concat([Buffer.from('{"model":"m","messages":[{"role":"user","content":"'), s, Buffer.from('"}]}')]);
  const recorded: RecordedExchange = {
    seq: 0,
    protocol: 'anthropic-messages',
    method: 'POST',
    path: '/v1/messages',
    request: body(Buffer.from([0xff])),
    status: 200,
    responseHeaders: [],
    response: Buffer.from('{}'),
  };
  const take = (request: Buffer): RecordedExchange | Divergence =>
    new Replayer([recorded], [], { paths: [] }).take('POST', '/v1/messages', request);
  // Each decodes to U+FFFD: read as text, all three were "the same request".
  expect(take(body(Buffer.from([0xfe])))).toMatchObject({ exchange: 0, field: 'body' });
  expect(take(body(Buffer.from([0xef, 0xbf, 0xbd])))).toMatchObject({ exchange: 0, field: 'body' });
  expect(take(body(Buffer.from([0xff])))).toBe(recorded);
  // A byte order mark is a byte of the request too.
  const plain = Buffer.from('{"model":"m"}');
  const marked = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), plain]);
  const replayer = new Replayer([{ ...recorded, request: plain }], [], { paths: [] });
  expect(replayer.take('POST', '/v1/messages', marked)).toMatchObject({ exchange: 0, field: 'body' });
});

const MIB = 1024 * 1024;

// The agent sends a request body past the proxy's bound (chunked: no length said up front, and one that says it),
// then asks for a response that never stops growing.
const HUGE_BOTH_WAYS = `
import http from 'node:http';
import { writeFileSync } from 'node:fs';
const base = new URL(process.env.ANTHROPIC_BASE_URL);
const mib = Buffer.alloc(1024 * 1024, 'a');
function call(size, declared) {
  return new Promise((resolve) => {
    const headers = { 'content-type': 'application/json', ...(declared ? { 'content-length': size } : {}) };
    const req = http.request({ host: '127.0.0.1', port: base.port, method: 'POST', path: base.pathname + '/v1/messages', headers }, (res) => {
      let n = 0;
      res.on('data', (c) => (n += c.length));
      res.on('end', () => resolve({ status: res.statusCode, bytes: n, ended: true }));
      res.on('error', () => resolve({ status: res.statusCode, bytes: n, ended: false }));
      res.on('aborted', () => resolve({ status: res.statusCode, bytes: n, ended: false }));
    });
    req.on('error', (e) => resolve({ error: e.code }));
    const head = '{"model":"m-test","max_tokens":8,"messages":[{"role":"user","content":"';
    const tail = '"}]}';
    req.write(head);
    let left = size - head.length - tail.length;
    const more = () => {
      while (left > 0) {
        const n = Math.min(left, mib.length);
        left -= n;
        if (!req.write(mib.subarray(0, n))) return void req.once('drain', more);
      }
      req.end(tail);
    };
    more();
  });
}
const got = [];
got.push(await call(${130 * MIB}, false));
got.push(await call(${130 * MIB}, true));
got.push(await call(100, true));
writeFileSync(process.env.OUT, JSON.stringify(got));
`;

test('record: a request body or a response past 128 MiB is never held whole: the request refused 413, the response cut and recorded as incomplete', async () => {
  const project = initRepo(path.join(dir, 'huge'), { 'a.txt': 'hello\n' });
  const client = path.join(dir, 'huge.mjs');
  const out = path.join(dir, 'huge.json');
  writeFileSync(client, HUGE_BOTH_WAYS);
  const received: number[] = [];
  let sent = 0;
  const server = http.createServer((req, res) => {
    let n = 0;
    req.on('data', (c: Buffer) => (n += c.length));
    req.on('end', () => {
      received.push(n);
      // An answer that never ends (until the connection is cut).
      const event = Buffer.from(`event: ping\ndata: {"type":"ping","pad":"${'x'.repeat(MIB - 64)}"}\n\n`);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const more = (): void => {
        while (!res.destroyed && sent < 200 * MIB) {
          sent += event.length;
          if (!res.write(event)) return void res.once('drain', more);
        }
        res.end();
      };
      res.on('close', () => undefined);
      more();
    });
  });
  const run = await recordThrough(server, 'g1', client, project, out);
  expectNoStack(run);
  expect(run.code).toBe(0);
  const got = JSON.parse(readFileSync(out, 'utf8')) as { status?: number; bytes?: number; ended?: boolean }[];
  // The two huge requests: refused (or, when the proxy closed first, cut), never forwarded.
  for (const g of got.slice(0, 2)) expect(g.status === 413 || 'error' in g).toBe(true);
  expect(received).toEqual([100]);
  // The endless answer: cut at the bound, and recorded as what passed, incomplete.
  expect(got[2]).toMatchObject({ status: 200, ended: false });
  expect(got[2]!.bytes).toBeLessThanOrEqual(128 * MIB);
  expect(sent).toBeLessThan(200 * MIB);
  expect(run.stderr).toMatch(/refused POST \/v1\/messages: its body is over 128 MiB/);
  expect(run.stderr).toMatch(/POST \/v1\/messages: the response passed 128 MiB: cut/);
  const steps = readVerifiedJournal(journalFile(project, 'g1')).entries;
  expect(steps).toHaveLength(1);
  const meta = JSON.parse(casBlob(project, steps[0]!.row.blob_refs.at(-1)!).toString('utf8')) as {
    complete: boolean;
    response_bytes: number;
  };
  expect(meta.complete).toBe(false);
  expect(meta.response_bytes).toBeLessThanOrEqual(128 * MIB);
});

// One model call through the proxy, then a marker in the directory the agent runs in.
const CALL_THEN_MARK = `
const http = require('node:http');
const base = new URL(process.env.ANTHROPIC_BASE_URL);
const req = http.request({ host: '127.0.0.1', port: base.port, method: 'POST', path: base.pathname + '/v1/messages',
  headers: { 'content-type': 'application/json' } }, (res) => {
  res.resume();
  res.on('end', () => require('node:fs').writeFileSync('agent-was-here', process.cwd()));
});
req.end(JSON.stringify({ model: 'm-test', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }));
`;

test('fork --replay: a recorded working directory that leads out of the fork through a link is refused; the agent never runs there', async () => {
  const project = initRepo(path.join(dir, 'linked'), { 'a.txt': 'hello\n' });
  const outside = path.join(dir, 'outside');
  mkdirSync(outside, { recursive: true });
  symlinkSync(outside, path.join(project, 'sub')); // in the start snapshot: a link out of the project
  const agent = path.join(dir, 'mark.cjs');
  writeFileSync(agent, CALL_THEN_MARK);
  const upstream = await noting('127.0.0.1');
  try {
    // Recorded through the link (the library takes the directory as given): the run journal names <project>/sub.
    const r = await recordAgent({
      agent: 'claude',
      journalId: 'l1',
      root: project,
      upstream: `http://127.0.0.1:${upstream.port}`,
      command: [process.execPath, agent],
      cwd: path.join(project, 'sub'),
      env: { PATH: process.env.PATH, HOME: dir, STEPCHAIN_AUDIT: 'off' },
      stdio: 'ignore',
      onWarning: () => undefined,
    });
    expect(r.exitCode).toBe(0);
  } finally {
    upstream.server.close();
  }
  rmSync(path.join(outside, 'agent-was-here'));
  const run = await runStepchain(
    ['fork', 'l1', '--from-step', '0', '--replay', '--upstream', 'http://127.0.0.1:9', '--', process.execPath, agent],
    project,
    { PATH: process.env.PATH, HOME: dir, STEPCHAIN_AUDIT: 'off' },
  );
  expectNoStack(run);
  expect(existsSync(path.join(outside, 'agent-was-here'))).toBe(false);
  expect(run.code).toBe(1);
  expect(run.stderr).toMatch(
    /journal\.jsonl:\d+: the recorded working directory sub is not a directory inside the fork \(it leads to .*outside\)/,
  );
});

// Two calls: the upstream breaks the first mid-event; the agent leaves the second (endless) mid-stream.
const LEAVES_MID_STREAM = `
import http from 'node:http';
import { writeFileSync } from 'node:fs';
const base = new URL(process.env.ANTHROPIC_BASE_URL);
function call(leaveAfter) {
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port: base.port, method: 'POST', path: base.pathname + '/v1/messages',
      headers: { 'content-type': 'application/json' } }, (res) => {
      let n = 0;
      res.on('data', (c) => { n += c.length; if (leaveAfter !== undefined && n >= leaveAfter) { req.destroy(); resolve({ n, left: true }); } });
      res.on('end', () => resolve({ n, ended: true }));
      res.on('aborted', () => resolve({ n, ended: false }));
      res.on('error', () => resolve({ n, ended: false }));
    });
    req.on('error', () => undefined);
    req.end(JSON.stringify({ model: 'm-test', max_tokens: 8, messages: [{ role: 'user', content: String(leaveAfter) }] }));
  });
}
const got = [await call(undefined), await call(4096)];
writeFileSync(process.env.OUT, JSON.stringify(got));
`;

test('record: an upstream that breaks off mid-event and an agent that leaves mid-stream: both recorded byte for byte as incomplete, nothing hangs', async () => {
  const project = initRepo(path.join(dir, 'broken'), { 'a.txt': 'hello\n' });
  const client = path.join(dir, 'broken.mjs');
  const out = path.join(dir, 'broken.json');
  writeFileSync(client, LEAVES_MID_STREAM);
  const half = Buffer.from(
    'event: message_start\ndata: {"type":"message_start"}\n\nevent: content_block_delta\ndata: {"ty',
  );
  let calls = 0;
  let upstreamSawClose = false;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      calls++;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (calls === 1) {
        res.write(half, () => setTimeout(() => res.socket?.destroy(), 50));
        return;
      }
      const tick = setInterval(() => res.write('event: ping\ndata: {"type":"ping"}\n\n'), 2);
      res.on('close', () => {
        clearInterval(tick);
        upstreamSawClose = true;
      });
    });
  });
  const run = await recordThrough(server, 'm1', client, project, out);
  expectNoStack(run);
  expect(run.code).toBe(0);
  const got = JSON.parse(readFileSync(out, 'utf8')) as { n: number; ended?: boolean; left?: boolean }[];
  expect(got[0]).toEqual({ n: half.length, ended: false });
  expect(got[1]!.left).toBe(true);
  expect(upstreamSawClose).toBe(true); // the agent left: the upstream's stream was closed too
  const steps = readVerifiedJournal(journalFile(project, 'm1')).entries;
  expect(steps).toHaveLength(2);
  const meta = steps.map(
    (s) =>
      JSON.parse(casBlob(project, s.row.blob_refs.at(-1)!).toString('utf8')) as {
        complete: boolean;
        response_sha256: string;
      },
  );
  expect(meta.map((m) => m.complete)).toEqual([false, false]);
  expect(meta[0]!.response_sha256).toBe(sha256Hex(half));
  expect(casBlob(project, meta[1]!.response_sha256).length).toBeGreaterThanOrEqual(4096);
});

test('record: an upstream that does not parse is named without the credentials it holds', async () => {
  const run = await runStepchain(
    [...recordArgs('claude', 'u1', 'https://user:USECRET@llm example/v1'), '--', process.execPath, '-e', ''],
    dir,
    { PATH: process.env.PATH, HOME: dir, STEPCHAIN_AUDIT: 'off' },
  );
  expectNoStack(run);
  expect(run.code).toBe(2);
  expect(run.stderr).toMatch(/--upstream: not a URL: "https:\/\/\*\*\*@llm example\/v1"/);
  expect(run.stderr + run.stdout).not.toContain('USECRET');
});
