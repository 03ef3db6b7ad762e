import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { journalFile, readVerifiedJournal } from '../src/journal';
import { expectNoStack } from './helpers/cli';
import { initRepo } from './helpers/git';
import { recordArgs, runStepchain } from './helpers/record';
import { tempDir } from './helpers/tmp';

// A tool the provider runs itself (Anthropic's server_tool_use and mcp_tool_use, the Responses API's
// code_interpreter_call and mcp_call): its result is in the same response, no request of the agent's answers it. A
// step waiting for that answer held back every step after it, their appends and snapshots, to the end of the run.
jest.setTimeout(120_000);

const dir = tempDir('stepchain-record-server-tools-');

// The agent: a file written before each request (what the step before it ran), and one after the last answer.
const CLIENT = `
import { writeFileSync } from 'node:fs';
const base = process.env.ANTHROPIC_BASE_URL;
const post = async (p, body) => (await fetch(base + p, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'k' }, body: JSON.stringify(body) })).json();
const m = [{ role: 'user', content: 'search' }];
const r0 = await post('/v1/messages', { model: 'm-test', messages: m });
writeFileSync('a.txt', 'a');
await post('/v1/responses', { model: 'r-test', input: [{ role: 'user', content: 'compute' }] });
writeFileSync('b.txt', 'b');
m.push({ role: 'assistant', content: r0.content }, { role: 'user', content: 'write' });
const r2 = await post('/v1/messages', { model: 'm-test', messages: m });
writeFileSync('c.txt', 'c'); // the tool the answer asked for
m.push({ role: 'assistant', content: r2.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }] });
await post('/v1/messages', { model: 'm-test', messages: m });
writeFileSync('d.txt', 'd'); // after the last answer: in no step's snapshot but the last's
`;

const ANSWERS = [
  {
    type: 'message',
    role: 'assistant',
    content: [
      { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'q' } },
      { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
      { type: 'mcp_tool_use', id: 'mcptoolu_1', name: 'lookup', server_name: 's', input: {} },
      { type: 'mcp_tool_result', tool_use_id: 'mcptoolu_1', content: [] },
      { type: 'text', text: 'found' },
    ],
    stop_reason: 'end_turn',
  },
  {
    object: 'response',
    status: 'completed',
    output: [
      { type: 'code_interpreter_call', id: 'ci_1', code: '1+1', outputs: [], status: 'completed' },
      { type: 'mcp_call', id: 'mcp_1', name: 'lookup', server_label: 's', arguments: '{}', output: 'x' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: '2' }] },
    ],
  },
  {
    type: 'message',
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'toolu_1', name: 'Write', input: { file: 'c.txt' } }],
    stop_reason: 'tool_use',
  },
  { type: 'message', role: 'assistant', content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' },
];

test('record: a tool the provider runs itself is no call the step waits for; each step is appended, its snapshot taken, before the next answer', async () => {
  const project = initRepo(path.join(dir, 'p'), { 'README.md': '# p\n' });
  const client = path.join(dir, 'client.mjs');
  writeFileSync(client, CLIENT);
  let n = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(ANSWERS[n++] ?? {})),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  let run;
  try {
    run = await runStepchain(
      [
        ...recordArgs('claude', 'srv1', `http://127.0.0.1:${(server.address() as AddressInfo).port}`),
        '--',
        process.execPath,
        client,
      ],
      project,
      { PATH: process.env.PATH, HOME: dir, STEPCHAIN_AUDIT: 'off' },
    );
  } finally {
    server.close();
  }
  expectNoStack(run);
  expect(run.code).toBe(0);
  // Each step's snapshot holds what the agent had done when the next request went out, nothing after.
  const refs = execFileSync('git', ['for-each-ref', '--format=%(refname)', 'refs/stepchain/snapshots/srv1'], {
    cwd: project,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((r) => /\/\d+$/.test(r))
    .sort((x, y) => Number(x.split('/').at(-1)) - Number(y.split('/').at(-1)));
  const files = refs.map((r) =>
    execFileSync('git', ['ls-tree', '--name-only', r], { cwd: project, encoding: 'utf8' })
      .split('\n')
      .filter((f) => f.endsWith('.txt')),
  );
  expect(files).toEqual([
    ['a.txt'],
    ['a.txt', 'b.txt'],
    ['a.txt', 'b.txt', 'c.txt'],
    ['a.txt', 'b.txt', 'c.txt', 'd.txt'],
  ]);
  const steps = readVerifiedJournal(journalFile(project, 'srv1')).entries;
  expect(steps.map((s) => s.row.tool_call)).toEqual([
    null,
    null,
    [{ id: 'toolu_1', name: 'Write', input: { file: 'c.txt' } }],
    null,
  ]);
  expect(steps[2]!.row.tool_result).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }]);
});
