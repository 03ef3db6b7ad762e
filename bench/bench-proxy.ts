/**
 * The recording proxy's added latency (npm run bench): a scripted SSE server
 * on 127.0.0.1 answers a client process run under `stepchain record` (the
 * whole CLI: the proxy, and each exchange appended with its snapshot in a git
 * repository of 100 files), which alternates requests sent directly to the
 * server with requests through the proxy, so the machine's load weighs on
 * both alike. The client measures, per request, the time to the response's
 * first body byte and to its end; medians are printed, and the difference is
 * the proxy's cost.
 *
 * Requests are spaced (BENCH_PROXY_GAP_MS, default 100 ms, as an agent thinks
 * or runs a tool between calls), so each exchange's append is done before the
 * next request; BENCH_PROXY_GAP_MS=0 sends them back to back (then a request
 * also waits for the previous exchange's append).
 *
 *   BENCH_PROXY_REQUESTS=40 BENCH_PROXY_EVENTS=200 BENCH_PROXY_GAP_MS=100
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

const repo = path.resolve(__dirname, '..');
const work = path.join(repo, '.bench', 'proxy');
const cli = path.join(repo, 'dist', 'cli.js');
const requests = Number(process.env.BENCH_PROXY_REQUESTS ?? 40);
const events = Number(process.env.BENCH_PROXY_EVENTS ?? 200);
const gap = Number(process.env.BENCH_PROXY_GAP_MS ?? 100);

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
  // Alternating, so the machine's load weighs on both alike.
  const out = { direct: [], proxied: [] };
  for (let i = 0; i < ${requests}; i++) {
    out.direct.push(await one(direct));
    if (${gap} > 0) await new Promise((r) => setTimeout(r, ${gap}));
    out.proxied.push(await one(proxied));
    if (${gap} > 0) await new Promise((r) => setTimeout(r, ${gap}));
  }
  process.stderr.write('TIMINGS ' + JSON.stringify(out) + '\\n');
})();
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

  // The server: the first event at once, the rest one per turn of its event loop.
  const event = (i: number): string =>
    `data: ${JSON.stringify({ id: 'b', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: `token ${i} ` } }] })}\n\n`;
  const server = http.createServer({ noDelay: true }, (req, res) => {
    req.resume();
    req.on('end', () => {
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
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const upstream = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const env = { ...process.env, STEPCHAIN_AUDIT: 'off' };
  delete env.NODE_EXTRA_CA_CERTS;

  type Timings = { direct: [number, number][]; proxied: [number, number][] };
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
  const { direct, proxied } = await measure(
    [cli, 'record', '--agent', 'codex', '--journal', 'bench', '--upstream', upstream, '--', process.execPath, client],
    { DIRECT_URL: upstream },
  );
  server.close();
  const row = (name: string, t: [number, number][]): string =>
    `  ${name.padEnd(28)} first byte ${median(t.map((x) => x[0]))
      .toFixed(2)
      .padStart(7)} ms   whole ${median(t.map((x) => x[1]))
      .toFixed(2)
      .padStart(7)} ms`;
  const fb = median(proxied.map((x) => x[0])) - median(direct.map((x) => x[0]));
  const whole = median(proxied.map((x) => x[1])) - median(direct.map((x) => x[1]));
  console.log(
    `\nrecording proxy: ${requests} streamed responses of ${events} SSE events (~${((events * 90) / 1024).toFixed(0)} KB), ${gap} ms apart (medians)`,
  );
  console.log(row('direct to the server', direct));
  console.log(row('through stepchain record', proxied));
  console.log(`  added by the proxy: first byte ${fb.toFixed(2)} ms, whole response ${whole.toFixed(2)} ms`);
  rmSync(work, { recursive: true, force: true });
}

void main();
