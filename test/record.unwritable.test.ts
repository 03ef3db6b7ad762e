import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { journalFile, readVerifiedJournal } from '../src/journal';
import { sha256Hex } from '../src/util/hash';
import { expectNoStack } from './helpers/cli';
import { initRepo } from './helpers/git';
import { recordArgs, runStepchain } from './helpers/record';
import { tempDir } from './helpers/tmp';

// What an exchange carries that no journal row can hold (NaN, which the parser reads as Python's does; nesting past a
// line's 900 levels), sent by a hostile upstream and by the agent: each such field is recorded as null with a
// warning, its bytes kept in the blobs; `record` never dies of it.
jest.setTimeout(120_000);

const dir = tempDir('stepchain-record-unwritable-');

// The agent writes its bodies as text: JSON.stringify never writes NaN, a hostile client may. Its second request
// answers the first call with a result holding NaN (so that request's prompt holds it too).
const CLIENT = `
import { writeFileSync } from 'node:fs';
const base = process.env.ANTHROPIC_BASE_URL;
const user = '{"role":"user","content":"go"}';
const call = (id) => '{"role":"assistant","content":[{"type":"tool_use","id":"' + id + '","name":"Write","input":{}}]}';
const bodies = [
  '{"model":"m-test","messages":[' + user + ']}',
  '{"model":"m-test","stream":true,"messages":[' + user + ',' + call('toolu_1') + ',{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":NaN}]}]}',
  '{"model":"m-test","messages":[' + user + ',' + call('toolu_2') + ',{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":"ok"}]}]}',
];
const got = [];
for (const body of bodies) {
  try {
    const r = await fetch(base + '/v1/messages', { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'k' }, body });
    got.push((await r.arrayBuffer()).byteLength);
  } catch (e) {
    got.push(String(e.cause?.code ?? e.message));
  }
}
writeFileSync(process.env.OUT, JSON.stringify(got));
`;

const DEEP = 900;
const sse = (e: Record<string, unknown>): string => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`;
const ANSWERS = [
  '{"type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Write","input":{}}],"stop_reason":"tool_use"}',
  // A streamed tool call whose input, put together from its deltas, is nested 900 levels deep.
  [
    sse({ type: 'message_start', message: { id: 'm1', type: 'message', role: 'assistant', content: [] } }),
    sse({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'tool_use', id: 'toolu_2', name: 'Write', input: {} },
    }),
    sse({
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'input_json_delta', partial_json: '['.repeat(DEEP) + ']'.repeat(DEEP) },
    }),
    sse({ type: 'content_block_stop', index: 0 }),
    sse({ type: 'message_stop' }),
  ].join(''),
  // A tool call whose input holds NaN.
  '{"type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_3","name":"Write","input":{"a":NaN}}],"stop_reason":"tool_use"}',
];

test('record: a NaN or a value nested past a row, from the upstream or the agent, is recorded as null with a warning; record never dies of it', async () => {
  const project = initRepo(path.join(dir, 'p'), { 'a.txt': 'hello\n' });
  const client = path.join(dir, 'client.mjs');
  const out = path.join(dir, 'out.json');
  writeFileSync(client, CLIENT);
  let n = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const i = n++;
      res
        .writeHead(200, { 'content-type': i === 1 ? 'text/event-stream' : 'application/json' })
        .end(ANSWERS[i] ?? '{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  let run;
  try {
    run = await runStepchain(
      [
        ...recordArgs('claude', 'nan1', `http://127.0.0.1:${(server.address() as AddressInfo).port}`),
        '--',
        process.execPath,
        client,
      ],
      project,
      { PATH: process.env.PATH, HOME: dir, STEPCHAIN_AUDIT: 'off', OUT: out },
    );
  } finally {
    server.close();
  }
  expectNoStack(run);
  expect(run.stderr).not.toMatch(/CanonicalEncodeError/);
  expect(run.code).toBe(0);
  // Every answer reached the agent whole: the proxy lived to the end.
  expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(ANSWERS.map((a) => Buffer.byteLength(a)));
  expect(run.stderr).toMatch(/exchange 0: tool_result: NaN is not allowed .*: recorded as null/);
  expect(run.stderr).toMatch(/exchange 1: prompt: NaN is not allowed .*: recorded as null/);
  expect(run.stderr).toMatch(/exchange 1: tool_call: nested deeper than 899 levels .*: recorded as null/);
  expect(run.stderr).toMatch(/exchange 2: tool_call: NaN is not allowed .*: recorded as null/);
  const steps = readVerifiedJournal(journalFile(project, 'nan1')).entries;
  expect(steps.map((s) => [s.row.model, s.row.tool_call === null, s.row.tool_result === null])).toEqual([
    ['m-test', false, true],
    ['m-test', true, true],
    ['m-test', true, true],
  ]);
  expect(steps[1]!.row.prompt).toBeNull();
  expect(steps[2]!.row.prompt).not.toBeNull();
  // The bytes of each answer are kept, whatever its fields could not hold.
  steps.forEach((s, i) => expect(s.row.blob_refs).toContain(sha256Hex(Buffer.from(ANSWERS[i]!))));
});
