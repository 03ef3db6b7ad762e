/**
 * The recording proxy's added latency (npm run bench): a scripted SSE server
 * on 127.0.0.1 answers a client process run under `stepchain record` (the
 * whole CLI: the proxy, and each exchange appended with its snapshot in a git
 * repository of 100 files). The client sends its requests in turn directly to
 * the server, through a bare Node forwarding hop (another process that only
 * pipes: the floor of any proxy in its own process), and through the recording
 * proxy, rotating the order each round so the machine's load weighs on all
 * alike. It measures, per request, the time to the response's first body byte
 * and to its end; medians are printed, with the differences and ratios.
 *
 * Requests are spaced (BENCH_PROXY_GAP_MS, default 100 ms, as an agent thinks
 * or runs a tool between calls); BENCH_PROXY_GAP_MS=0 sends them back to back.
 *
 * The server starts each answer after BENCH_PROXY_TTFB_MS (default 300 ms), as
 * a model does before its first token: the proxy holds an answer until the
 * previous step's append and snapshot are done (docs/record.md), which a model's
 * time to first token hides and a server that answers at once does not
 * (BENCH_PROXY_TTFB_MS=0 shows that cost).
 *
 *   BENCH_PROXY_REQUESTS=60 BENCH_PROXY_EVENTS=200 BENCH_PROXY_GAP_MS=100 BENCH_PROXY_TTFB_MS=300
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

const repo = path.resolve(__dirname, '..');
const work = path.join(repo, '.bench', 'proxy');
const cli = path.join(repo, 'dist', 'cli.js');
const requests = Number(process.env.BENCH_PROXY_REQUESTS ?? 60);
const events = Number(process.env.BENCH_PROXY_EVENTS ?? 200);
const gap = Number(process.env.BENCH_PROXY_GAP_MS ?? 100);
const ttfb = Number(process.env.BENCH_PROXY_TTFB_MS ?? 300);

const CLIENT = `
const http = require('node:http');
const proxied = new URL(process.env.OPENAI_BASE_URL);
const direct = new URL(process.env.DIRECT_URL);
const agent = new http.Agent({ keepAlive: true });
const body = JSON.stringify({ model: 'bench', stream: true, messages: [{ role: 'user', content: 'x'.repeat(2000) }] });
function one(base) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    let first;
    const req = http.request(base.origin + base.pathname + '/chat/completions', { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.on('data', () => { if (first === undefined) first = process.hrtime.bigint(); });
      res.on('end', () => resolve([Number(first - t0) / 1e6, Number(process.hrtime.bigint() - t0) / 1e6]));
    });
    req.on('error', reject);
    req.end(body);
  });
}
(async () => {
  // In turn, the order rotating each round, so the machine's load weighs on all three alike.
  const bases = { direct, bare: new URL(process.env.BARE_URL), proxied };
  const names = Object.keys(bases);
  const out = { direct: [], bare: [], proxied: [] };
  for (let i = 0; i < ${requests}; i++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(i + k) % names.length];
      out[name].push(await one(bases[name]));
      if (${gap} > 0) await new Promise((r) => setTimeout(r, ${gap}));
    }
  }
  process.stderr.write('TIMINGS ' + JSON.stringify(out) + '\\n');
})();
`;

/** A bare forwarding hop in its own process: each request piped to the upstream, each response piped back. */
const BARE = `
const http = require('node:http');
const upstream = new URL(process.env.UPSTREAM);
const agent = new http.Agent({ keepAlive: true });
const server = http.createServer({ noDelay: true }, (req, res) => {
  const up = http.request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers, agent }, (ur) => {
    res.writeHead(ur.statusCode, ur.headers);
    ur.pipe(res);
  });
  up.on('socket', (s) => s.setNoDelay(true));
  req.pipe(up);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
`;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function main(): Promise<void> {
  rmSync(work, { recursive: true, force: true });
  const project = path.join(work, 'project');
  mkdirSync(project, { recursive: true });
  const git = (args: string[]): string =>
    execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@stepchain.invalid', ...args], {
      cwd: project,
      encoding: 'utf8',
    });
  git(['init', '-q', '-b', 'main']);
  writeFileSync(path.join(project, '.gitignore'), '.sdd/\n');
  for (let i = 0; i < 100; i++) writeFileSync(path.join(project, `f${i}.txt`), `file ${i}\n`);
  git(['add', '-A']);
  git(['commit', '-q', '-m', 'bench']);
  const client = path.join(work, 'client.cjs');
  writeFileSync(client, CLIENT);

  // The server: the first event after `ttfb`, the rest one per turn of its event loop.
  const event = (i: number): string =>
    `data: ${JSON.stringify({ id: 'b', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: `token ${i} ` } }] })}\n\n`;
  const server = http.createServer({ noDelay: true }, (req, res) => {
    req.resume();
    req.on('end', () => setTimeout(answer, ttfb));
    const answer = (): void => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(event(0));
      let i = 1;
      const next = (): void => {
        if (i >= events) {
          res.end('data: [DONE]\n\n');
          return;
        }
        res.write(event(i++));
        setImmediate(next);
      };
      setImmediate(next);
    };
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const upstream = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const env = { ...process.env, STEPCHAIN_AUDIT: 'off' };
  delete env.NODE_EXTRA_CA_CERTS;

  const bareFile = path.join(work, 'bare.cjs');
  writeFileSync(bareFile, BARE);
  const bare = spawn(process.execPath, [bareFile], {
    env: { ...env, UPSTREAM: upstream },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const barePort = await new Promise<string>((resolve) =>
    bare.stdout.once('data', (c: Buffer) => resolve(c.toString().trim())),
  );

  type Timings = { direct: [number, number][]; bare: [number, number][]; proxied: [number, number][] };
  const measure = (args: string[], extra: NodeJS.ProcessEnv): Promise<Timings> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, args, {
        cwd: project,
        env: { ...env, ...extra },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let err = '';
      child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
      child.on('close', (code) => {
        const m = /^TIMINGS (.*)$/m.exec(err);
        if (code !== 0 || m === null) reject(new Error(`bench client failed (${code}): ${err}`));
        else resolve(JSON.parse(m[1]!) as Timings);
      });
    });
  const {
    direct,
    bare: hop,
    proxied,
  } = await measure(
    [cli, 'record', '--agent', 'codex', '--journal', 'bench', '--upstream', upstream, '--', process.execPath, client],
    { DIRECT_URL: upstream, BARE_URL: `http://127.0.0.1:${barePort}${new URL(upstream).pathname}` },
  );
  bare.kill();
  server.close();
  const row = (name: string, t: [number, number][]): string =>
    `  ${name.padEnd(28)} first byte ${median(t.map((x) => x[0]))
      .toFixed(2)
      .padStart(7)} ms   whole ${median(t.map((x) => x[1]))
      .toFixed(2)
      .padStart(7)} ms`;
  const m = (t: [number, number][], i: 0 | 1): number => median(t.map((x) => x[i]));
  const added = (t: [number, number][], i: 0 | 1): string =>
    `+${(m(t, i) - m(direct, i)).toFixed(2)} ms (x${(m(t, i) / m(direct, i)).toFixed(2)})`;
  console.log(
    `\nrecording proxy: ${requests} streamed responses of ${events} SSE events (~${((events * 90) / 1024).toFixed(0)} KB) per path, ${gap} ms apart, the server answering after ${ttfb} ms, in turn (medians)`,
  );
  console.log(row('direct to the server', direct));
  console.log(row('a bare forwarding hop', hop));
  console.log(row('through stepchain record', proxied));
  console.log(`  stepchain record: first byte ${added(proxied, 0)}, whole response ${added(proxied, 1)}`);
  console.log(`  bare hop (floor): first byte ${added(hop, 0)}, whole response ${added(hop, 1)}`);
  console.log(
    `  recording's own share (record - bare hop): first byte ${(m(proxied, 0) - m(hop, 0)).toFixed(2)} ms, whole response ${(m(proxied, 1) - m(hop, 1)).toFixed(2)} ms`,
  );
  rmSync(work, { recursive: true, force: true });
}

void main();
