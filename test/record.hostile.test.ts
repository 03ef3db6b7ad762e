import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { codexProxy } from '../src/agents/codex/proxy';
import { InputError } from '../src/errors';
import { Cas, casDir, journalFile, readVerifiedJournal } from '../src/journal';
import { recordablePath, recordedExchange } from '../src/proxy';
import { MAX_MESSAGE_BYTES } from '../src/proxy/exchange';
import { readRunJournalFile, runJournalFile } from '../src/runs';
import { EXCHANGE_LINK_EVENT } from '../src/runs/exchange-links';
import { cli, expectNoStack } from './helpers/cli';
import { initRepo } from './helpers/git';
import { repoRoot } from './helpers/paths';
import { everythingStored, recordArgs, runStepchain, type StepchainRun } from './helpers/record';
import { tempDir } from './helpers/tmp';

// The recording proxy attacked from outside: a hostile Codex config.toml, credentials where a client puts them, and
// requests that are not the agent's (a web page reaching the ephemeral port on 127.0.0.1).
jest.setTimeout(120_000);

const dir = tempDir('stepchain-record-hostile-');

test('a credential in any query parameter naming one, in any case, is never recorded', () => {
  expect(recordablePath('/v1/m:generateContent?alt=sse&Key=S1&apiKey=S2&token=S3&x-goog-api-key=S4&sig=S5')).toBe(
    '/v1/m:generateContent?alt=sse',
  );
  expect(recordablePath('/v1/responses?API_KEY=S1&Access_Token=S2&client_secret=S3')).toBe('/v1/responses');
  expect(recordablePath('/v1/responses?alt=sse&keyboard=1')).toBe('/v1/responses?alt=sse&keyboard=1');
});

test("Codex: a provider id its -c cannot name (dots, '=', quotes, a newline) is refused naming config.toml, never a broken override", () => {
  const home = path.join(dir, 'codex-home');
  mkdirSync(home, { recursive: true });
  const env = { CODEX_HOME: home, HOME: home };
  const base = () => 'http://127.0.0.1:4000/v1';
  const file = path.join(home, 'config.toml');
  for (const id of ['my.proxy', 'a=b', 'x" -c "y', 'p\nq', '']) {
    const q = JSON.stringify(id); // a TOML basic string too
    writeFileSync(file, `model_provider = ${q}\n[model_providers.${q}]\nbase_url = "https://llm.example/v1"\n`);
    let thrown: unknown;
    try {
      codexProxy.childCommand!(['codex', 'exec', 'hi'], base, env);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(InputError);
    expect((thrown as Error).message).toContain(`${file}: the model provider`);
  }
  // A base_url full of TOML syntax stays one string value in one argument.
  writeFileSync(file, 'model_provider = "ok"\n[model_providers.ok]\nbase_url = "https://llm.example/v1"\n');
  expect(codexProxy.childCommand!(['codex', 'exec'], () => 'http://127.0.0.1:1/a"\n-c x=1', env)).toEqual([
    'codex',
    '-c',
    'model_providers.ok.base_url="http://127.0.0.1:1/a\\"\\u000a-c x=1"',
    'exec',
  ]);
});

const CLIENT = `
import http from 'node:http';
import { writeFileSync } from 'node:fs';
const base = new URL(process.env.OPENAI_BASE_URL);
function post(headers) {
  return new Promise((resolve) => {
    const body = JSON.stringify({ model: 'gpt-test', input: [{ role: 'user', content: 'hi' }] });
    const req = http.request({ host: '127.0.0.1', port: base.port, method: 'POST', path: base.pathname + '/responses?Key=QSECRET1&apiKey=QSECRET2',
      headers: { 'content-type': 'application/json', 'X-Api-Key': 'HSECRET3', ...headers } }, (res) => {
      res.resume(); res.on('end', () => resolve(res.statusCode));
    });
    req.end(body);
  });
}
const codes = [];
codes.push(await post({}));
codes.push(await post({ origin: 'https://evil.example' }));
codes.push(await post({ host: 'rebound.evil.example:' + base.port }));
writeFileSync(process.env.OUT, JSON.stringify(codes));
`;

const root = path.join(dir, 'project');
const marker = path.join(dir, 'client-ran');

test('record: requests a web page could send (an Origin, a foreign Host) are refused, not forwarded, not recorded; no credential under .sdd/', async () => {
  initRepo(root, { 'a.txt': 'hello\n' });
  const client = path.join(dir, 'client.mjs');
  const out = path.join(dir, 'codes.json');
  writeFileSync(client, CLIENT);
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => {
      const body = JSON.stringify({ id: 'r1', output: [{ type: 'message', content: [] }] });
      res.writeHead(200, { 'content-type': 'application/json' }).end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  let run: StepchainRun;
  try {
    run = await runStepchain(
      [...recordArgs('codex', 'h1', `http://127.0.0.1:${port}/v1`), '--', process.execPath, client],
      root,
      { PATH: process.env.PATH, HOME: dir, STEPCHAIN_AUDIT: 'off', OUT: out },
    );
  } finally {
    server.close();
  }
  expect(run.code).toBe(0);
  // The agent's own request went through; the web page's two were refused before reaching the upstream.
  expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual([200, 403, 403]);
  expect(seen).toEqual(['POST /v1/responses?Key=QSECRET1&apiKey=QSECRET2']);
  expect(run.stderr).toMatch(/refused POST \/v1\/responses: a request with an Origin/);
  expect(run.stderr).toMatch(/refused POST \/v1\/responses: the Host "rebound\.evil\.example:\d+" is not the proxy's/);
  expect(run.stderr).not.toMatch(/SECRET/);
  const journal = readVerifiedJournal(journalFile(root, 'h1'));
  expect(journal.entries.map((e) => e.row.seq)).toEqual([0]);
  expect(everythingStored(root)).not.toMatch(/[QH]SECRET/);
});

/** Runs `body` with the CAS file of `digest` replaced by `replace(its bytes)`, then puts the bytes back. */
function withBlobReplaced(digest: string, replace: (file: string) => void, body: () => void): void {
  const blobFile = path.join(casDir(root), digest.slice(0, 2), digest);
  const bytes = readFileSync(blobFile);
  chmodSync(blobFile, 0o644);
  try {
    replace(blobFile);
    body();
  } finally {
    rmSync(blobFile, { force: true }); // whatever replaced it (a link is not written through)
    writeFileSync(blobFile, bytes);
  }
}

test('a replay reads a recorded body when it is used, and checks it again then (not every body held from the start)', () => {
  const file = journalFile(root, 'h1');
  const step = readVerifiedJournal(file).entries[0]!;
  const x = recordedExchange(step, new Cas(casDir(root), false), file);
  withBlobReplaced(
    step.row.blob_refs[1]!,
    (f) => writeFileSync(f, 'another response'),
    () =>
      expect(() => x.response).toThrow(`${file}:1: step 0: blob ${step.row.blob_refs[1]} does not match its digest`),
  );
  expect(x.response.length).toBeGreaterThan(0);
});

test("a body put in a recorded one's place after its check (larger, a link) is refused at its use, never read", () => {
  const file = journalFile(root, 'h1');
  const step = readVerifiedJournal(file).entries[0]!;
  const x = recordedExchange(step, new Cas(casDir(root), false), file);
  const digest = step.row.blob_refs[1]!;
  const size = readFileSync(path.join(casDir(root), digest.slice(0, 2), digest)).length;
  withBlobReplaced(
    digest,
    (f) => truncateSync(f, 2 ** 40), // sparse: a reader that sized its buffer by the file would ask for a TiB
    () =>
      expect(() => x.response).toThrow(
        `is no longer the body checked: ${path.join(casDir(root), digest.slice(0, 2), digest)}: cannot read: it holds 1099511627776 bytes, more than the ${size} allowed`,
      ),
  );
  withBlobReplaced(
    digest,
    (f) => {
      rmSync(f);
      symlinkSync(path.join(root, 'a.txt'), f);
    },
    () => expect(() => x.response).toThrow('symbolic link'),
  );
});

/**
 * `fork h1 --from-step 0 --replay` of a recording made unusable: refused naming `expected`, before anything runs or a
 * worktree is made (the command would write the marker).
 */
function expectReplayRefused(expected: string): void {
  const command = [process.execPath, '-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, '')`];
  const r = cli(
    ['fork', 'h1', '--from-step', '0', '--replay', '--upstream', 'http://127.0.0.1:9/v1', '--', ...command],
    {
      cwd: root,
      env: { STEPCHAIN_AUDIT: 'off' },
    },
  );
  expectNoStack(r);
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(expected);
  expect(existsSync(marker)).toBe(false);
  expect(
    existsSync(path.join(root, '.sdd', 'worktrees')) ? readdirSync(path.join(root, '.sdd', 'worktrees')) : [],
  ).toEqual([]);
}

test('fork --replay of a recording with a body larger than the proxy ever records: refused by its size, unread', () => {
  const file = journalFile(root, 'h1');
  const step = readVerifiedJournal(file).entries[0]!;
  const big = MAX_MESSAGE_BYTES + 1;
  withBlobReplaced(
    step.row.input_hash,
    (f) => truncateSync(f, big), // sparse: no disk, and a reader that held it would take 128 MiB
    () =>
      expectReplayRefused(
        `${file}:1: step 0: blob ${step.row.input_hash} holds ${big.toLocaleString('en-US')} bytes, more than any body the proxy records (128 MiB)`,
      ),
  );
});

test('fork --replay of a recording whose response blob was altered: refused before anything runs or is served, naming the journal line and the blob', () => {
  const file = journalFile(root, 'h1');
  const step = readVerifiedJournal(file).entries[0]!;
  const response = step.row.blob_refs[1]!;
  withBlobReplaced(
    response,
    (f) => writeFileSync(f, Buffer.from(readFileSync(f, 'utf8').replace('r1', 'r2'))),
    () => expectReplayRefused(`${file}:1: step 0: blob ${response} does not match its digest`),
  );
});

const SWAPPING_CLIENT = `
import http from 'node:http';
import { chmodSync, statSync, writeFileSync } from 'node:fs';
const f = process.env.SWAP;
chmodSync(f, 0o644);
writeFileSync(f, Buffer.alloc(statSync(f).size, 'z')); // the same size: only its digest tells
const base = new URL(process.env.OPENAI_BASE_URL);
const body = JSON.stringify({ model: 'gpt-test', input: [{ role: 'user', content: 'hi' }] });
const req = http.request({ host: '127.0.0.1', port: base.port, method: 'POST', path: base.pathname + '/responses',
  headers: { 'content-type': 'application/json' } }, (res) => {
  let got = ''; res.on('data', (c) => (got += c)); res.on('end', () => writeFileSync(process.env.OUT, res.statusCode + ' ' + got));
});
req.end(body);
`;

// After the refusals above (which find no worktree): this replay runs, and makes one.
test('fork --replay whose recorded response changes between its check and its use: the agent gets no recorded bytes, the fork exits 1 naming the blob', () => {
  const file = journalFile(root, 'h1');
  const step = readVerifiedJournal(file).entries[0]!;
  const response = step.row.blob_refs[1]!;
  const blobFile = path.join(casDir(root), response.slice(0, 2), response);
  const client = path.join(dir, 'swapping-client.mjs');
  const out = path.join(dir, 'swapped.txt');
  writeFileSync(client, SWAPPING_CLIENT);
  withBlobReplaced(
    response,
    () => undefined, // the agent replaces it, after the replay checked it
    () => {
      const r = cli(
        [
          'fork',
          'h1',
          '--from-step',
          '0',
          '--replay',
          '--upstream',
          'http://127.0.0.1:9/v1',
          '--',
          process.execPath,
          client,
        ],
        { cwd: root, env: { STEPCHAIN_AUDIT: 'off', SWAP: blobFile, OUT: out } },
      );
      expectNoStack(r);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        `exchange 0: its recorded response cannot be answered: ${file}:1: step 0: blob ${response} does not match its digest`,
      );
      expect(r.stderr).not.toContain('answered from the recording');
      // The agent is stopped once its exchange is refused: on a loaded machine that can be before it has read the
      // 502 and written it down (the suite at 00:40, Dec 8: no file). What it read, if anything, is never the
      // recorded bytes.
      if (existsSync(out)) expect(readFileSync(out, 'utf8')).toMatch(/^502 /);
    },
  );
});

// A model (or a recorded process) makes two exchanges ask for the same tool call id: the agent ran the second's, and
// the hook step names only the id. Which exchange asked for the step's call is not known, so neither is linked,
// whatever the order the exchanges were appended in (the first one waits for its link until record's end).
const REUSED_ID_AGENT = `
import http from 'node:http';
import { Journal } from ${JSON.stringify(path.join(repoRoot, 'dist', 'lib', 'index.mjs'))};
const base = new URL(process.env.OPENAI_BASE_URL);
function post(input) {
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port: base.port, method: 'POST', path: base.pathname + '/responses',
      headers: { 'content-type': 'application/json', 'session-id': 'S1' } }, (res) => {
      res.resume(); res.on('end', () => resolve(res.statusCode));
    });
    req.end(JSON.stringify({ model: 'gpt-test', input }));
  });
}
const output = { type: 'function_call_output', call_id: 'call_A', output: 'done' };
const hook = Journal.open(process.env.HOOK_DIR, { durability: 'none' });
// The session's hook journal holds a step already (a tool call of its own, before this turn).
hook.append({ tool_call: { id: 'call_0', name: 'shell', input: {} }, tool_result: { exit_code: 0 }, ts: 1700000000 });
await post([{ role: 'user', content: 'first' }]);
// The first exchange's call answered (it is appended now, no hook step names call_A yet), and asked for again.
await post([{ role: 'user', content: 'second' }, output]);
// The agent runs the second exchange's call: its hook records the step.
hook.append({
  tool_call: { id: 'call_A', name: 'shell', input: { command: 'true' } }, tool_result: { exit_code: 0 }, ts: 1700000000,
});
await post([{ role: 'user', content: 'third' }, output]);
`;

test('record: a tool call id two exchanges asked for is linked to neither (the first one, linked at the end, included)', async () => {
  const project = path.join(dir, 'reused-id');
  initRepo(project, { 'a.txt': 'hello\n' });
  const client = path.join(dir, 'reused-id.mjs');
  writeFileSync(client, REUSED_ID_AGENT);
  let answered = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      answered++;
      const call = { type: 'function_call', call_id: 'call_A', name: 'shell', arguments: '{}' };
      const output = answered <= 2 ? [call] : [{ type: 'message', content: [] }];
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id: `r${answered}`, output }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  let run: StepchainRun;
  try {
    run = await runStepchain(
      [...recordArgs('codex', 'x1', `http://127.0.0.1:${port}/v1`), '--', process.execPath, client],
      project,
      {
        PATH: process.env.PATH,
        HOME: dir,
        STEPCHAIN_AUDIT: 'off',
        HOOK_DIR: path.dirname(journalFile(project, 'codex-S1')),
      },
    );
  } finally {
    server.close();
  }
  expect(run.stderr).toMatch(/exchange 1: the tool call call_A was asked for by exchange 0 too; not linked/);
  expect(run.stderr).toMatch(/exchange 0: the tool call call_A was asked for by exchange 1 too; not linked/);
  expect(run.code).toBe(0);
  expect(answered).toBe(3);
  expect(readVerifiedJournal(journalFile(project, 'codex-S1')).entries).toHaveLength(2);
  const runFile = runJournalFile(project, 'codex-S1');
  const links = existsSync(runFile)
    ? readRunJournalFile(runFile).entries.filter((e) => e.row.event === EXCHANGE_LINK_EVENT)
    : [];
  expect(links).toEqual([]);
});

// A request to upgrade that the HTTP parser reads as a plain request (an `Upgrade` without `Connection: upgrade`, or
// an empty one) lets the parser read on: a request pipelined behind it on the same connection must not be served.
const PIPELINED_AFTER_UPGRADE = `
import net from 'node:net';
import { writeFileSync } from 'node:fs';
const base = new URL(process.env.ANTHROPIC_BASE_URL);
const host = '127.0.0.1:' + base.port;
const body = (m) => JSON.stringify({ model: 'm-test', max_tokens: 8, messages: [{ role: 'user', content: m }] });
const post = (m, extra) => 'POST ' + base.pathname + '/v1/messages HTTP/1.1\\r\\nHost: ' + host + '\\r\\n' + extra +
  'content-type: application/json\\r\\ncontent-length: ' + Buffer.byteLength(body(m)) + '\\r\\n\\r\\n' + body(m);
function raw(text) {
  return new Promise((resolve) => {
    let got = '';
    const s = net.connect(Number(base.port), '127.0.0.1', () => s.write(text));
    s.on('data', (d) => (got += d.toString('latin1')));
    s.on('error', () => undefined);
    s.on('close', () => resolve(got.split('\\r\\n').filter((l) => l.startsWith('HTTP/1.1 '))));
  });
}
const answers = [];
answers.push(await raw(post('UPGRADEBARE', 'Upgrade: websocket\\r\\n') + post('SMUGGLEDONE', '')));
answers.push(await raw(post('UPGRADEEMPTY', 'Upgrade:\\r\\nConnection: upgrade\\r\\n') + post('SMUGGLEDTWO', '')));
writeFileSync(process.env.OUT, JSON.stringify(answers));
`;

test('record: a request pipelined behind a refused upgrade on its connection is never forwarded or recorded', async () => {
  const project = path.join(dir, 'pipelined');
  initRepo(project, { 'a.txt': 'hello\n' });
  const client = path.join(dir, 'pipelined.mjs');
  const out = path.join(dir, 'pipelined.json');
  writeFileSync(client, PIPELINED_AFTER_UPGRADE);
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  let run: StepchainRun;
  try {
    run = await runStepchain(
      [...recordArgs('claude', 'p1', `http://127.0.0.1:${port}`), '--json', '--', process.execPath, client],
      project,
      { PATH: process.env.PATH, HOME: dir, STEPCHAIN_AUDIT: 'off', OUT: out },
    );
  } finally {
    server.close();
  }
  expect(run.code).toBe(0);
  // Each connection: its upgrade refused, and no answer to what followed it (the connection closed after the 426).
  expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual([
    ['HTTP/1.1 426 Upgrade Required'],
    ['HTTP/1.1 426 Upgrade Required'],
  ]);
  expect(seen).toEqual([]);
  expect(JSON.parse(run.stdout)).toMatchObject({ forwarded: 0, refused_upgrades: 2, steps: [] });
  expect(run.stderr).toMatch(/refused POST \/v1\/messages: it follows a refused upgrade on its connection/);
  expect(everythingStored(project)).not.toMatch(/SMUGGLED|UPGRADE(BARE|EMPTY)/);
});
