import { readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { journalFile, readVerifiedJournal } from '../src/journal';
import { expectNoStack } from './helpers/cli';
import { initRepo } from './helpers/git';
import { recordArgs, runStepchain } from './helpers/record';
import { tempDir } from './helpers/tmp';

// An upstream whose answer's head Node's parser reads but Node will not send on (a status under 100): the agent gets
// a 502 naming the upstream, as for one that could not be reached; record lives on and records what follows.
jest.setTimeout(120_000);

const dir = tempDir('stepchain-record-upstream-head-');

const CLIENT = `
import { writeFileSync } from 'node:fs';
const got = [];
for (let i = 0; i < 2; i++) {
  try {
    const r = await fetch(process.env.ANTHROPIC_BASE_URL + '/v1/messages', { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'k' }, body: JSON.stringify({ model: 'm-test', messages: [{ role: 'user', content: 'hi ' + i }] }) });
    got.push([r.status, await r.text()]);
  } catch (e) {
    got.push([String(e.cause?.code ?? e.message)]);
  }
}
writeFileSync(process.env.OUT, JSON.stringify(got));
`;

const GOOD = '{"type":"message","role":"assistant","content":[{"type":"text","text":"ok"}]}';

test('record: an answer whose status Node will not send on (099) is a 502 to the agent, never a crash; the next exchange is recorded', async () => {
  const project = initRepo(path.join(dir, 'p'), { 'a.txt': 'hello\n' });
  const client = path.join(dir, 'client.mjs');
  const out = path.join(dir, 'out.json');
  writeFileSync(client, CLIENT);
  let n = 0;
  const server = net.createServer((c) => {
    c.on('error', () => undefined);
    c.once('data', () => {
      const body = n++ === 0 ? '{}' : GOOD;
      c.end(
        `HTTP/1.1 ${n === 1 ? '099 Odd' : '200 OK'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const upstream = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  let run;
  try {
    run = await runStepchain([...recordArgs('claude', 'h1', upstream), '--', process.execPath, client], project, {
      PATH: process.env.PATH,
      HOME: dir,
      STEPCHAIN_AUDIT: 'off',
      OUT: out,
    });
  } finally {
    server.close();
  }
  expectNoStack(run);
  expect(run.code).toBe(0);
  const got = JSON.parse(readFileSync(out, 'utf8')) as [number, string][];
  expect(got[0]![0]).toBe(502);
  expect(got[0]![1]).toContain(`the upstream ${upstream} could not be reached: its answer's head cannot be passed on`);
  expect(got[1]).toEqual([200, GOOD]);
  expect(run.stderr).toMatch(/upstream http:\/\/127\.0\.0\.1:\d+: its answer's head cannot be passed on \(.*99/);
  const steps = readVerifiedJournal(journalFile(project, 'h1')).entries;
  expect(steps).toHaveLength(1);
  expect(steps[0]!.row.prompt).toEqual([{ role: 'user', content: 'hi 1' }]);
});
