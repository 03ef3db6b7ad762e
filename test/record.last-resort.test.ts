/**
 * `record`'s last resort (src/proxy/last-resort.ts): a fault in the recorder's process outside every guard, an
 * uncaught exception or an unhandled rejection, used to print Node's stack trace and exit, leaving the agent and
 * what it had started running without their proxy. Now the agent's process tree (and the group a descendant leads)
 * is killed, the exchanges recorded before are appended, and record exits 1 with one line.
 *
 * Real processes: the built CLI runs `record` with a preloaded script (`node --require`) that throws (or rejects) in
 * record's own main thread once the agent has had one exchange answered; the agent is a node script that starts two
 * long-lived processes (one in its own process group) and then waits forever.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { journalFile, readVerifiedJournal } from '../src/journal';
import { expectNoStack } from './helpers/cli';
import { cliPath } from './helpers/paths';
import { identifiedProject, recordArgs } from './helpers/record';
import { tempDir } from './helpers/tmp';
import { HELLO_MESSAGE } from './helpers/anthropic-answer';

const dir = tempDir('stepchain-last-resort-');

// Runs in record's process (node --require), main thread only (the append worker loads it too): once the agent
// has written its marker, a fault no handler of stepchain's catches.
const PRELOAD = `
const { isMainThread } = require('node:worker_threads');
const { existsSync } = require('node:fs');
if (isMainThread && process.env.FAULT_MARKER) {
  const t = setInterval(() => {
    if (!existsSync(process.env.FAULT_MARKER)) return;
    clearInterval(t);
    if (process.env.FAULT_KIND === 'rejection') Promise.reject(new Error('injected rejection\\nsecond line'));
    else setImmediate(() => { throw new Error('injected exception\\nsecond line'); });
  }, 20);
  t.unref();
}
`;

// The agent: one exchange through the proxy, then two long-lived processes (one leading its own group), their pids
// and its own written down, then the marker, then it waits.
const AGENT = `
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
const base = process.env.ANTHROPIC_BASE_URL;
const res = await fetch(base + '/v1/messages', {
  method: 'POST',
  headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
  body: JSON.stringify({ model: 'm-test', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }),
});
await res.text();
const forever = ['-e', 'setInterval(() => {}, 1000)'];
const inGroup = spawn(process.execPath, forever, { stdio: 'ignore' });
const ownGroup = spawn(process.execPath, forever, { stdio: 'ignore', detached: true });
writeFileSync(process.env.PIDS, JSON.stringify([process.pid, inGroup.pid, ownGroup.pid]));
writeFileSync(process.env.FAULT_MARKER, '');
setInterval(() => {}, 1000);
`;

/** Whether a process is still running (a zombie waiting to be reaped is not). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

test.each([
  ['uncaught exception', 'exception'],
  ['unhandled rejection', 'rejection'],
])('an %s in record kills the agent tree, keeps the recorded exchange, exits 1 with one line', async (what, kind) => {
  const at = path.join(dir, kind);
  mkdirSync(at, { recursive: true });
  const project = identifiedProject(path.join(at, 'project'));
  const preload = path.join(at, 'preload.cjs');
  const agent = path.join(at, 'agent.mjs');
  const pidsFile = path.join(at, 'pids.json');
  const marker = path.join(at, 'marker');
  writeFileSync(preload, PRELOAD);
  writeFileSync(agent, AGENT);
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(HELLO_MESSAGE));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let pids: number[] = [];
  try {
    // stderr into a file, and record's own exit awaited (not its pipes' end): an agent left running would hold a
    // pipe open, and the test would hang instead of failing on what it finds.
    const errFile = path.join(at, 'stderr.txt');
    const errFd = openSync(errFile, 'w');
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(
        process.execPath,
        ['--require', preload, cliPath, ...recordArgs('claude', 'j1', url), '--', process.execPath, agent],
        {
          cwd: project,
          env: {
            PATH: process.env.PATH,
            HOME: at,
            STEPCHAIN_AUDIT: 'off',
            FAULT_MARKER: marker,
            FAULT_KIND: kind,
            PIDS: pidsFile,
          },
          stdio: ['ignore', 'ignore', errFd],
        },
      );
      child.on('exit', (c) => resolve(c));
    });
    closeSync(errFd);
    const run = { code, stderr: readFileSync(errFile, 'utf8') };
    expect(existsSync(pidsFile)).toBe(true);
    pids = JSON.parse(readFileSync(pidsFile, 'utf8')) as number[];
    expectNoStack({ code: run.code ?? -1, stdout: '', stderr: run.stderr });
    expect(run.code).toBe(1);
    const file = journalFile(project, 'j1');
    const lines = run.stderr.split('\n').filter((l) => l.includes('internal error'));
    expect(lines).toEqual([
      `stepchain: record: internal error (${what}: injected ${kind}); the agent (pid ${pids[0]}) and everything it ` +
        `started were killed; 1 exchange recorded before it is kept in ${file}`,
    ]);
    expect(run.stderr).not.toContain('second line');
    // The agent and both processes it started are gone by the time record has exited.
    expect(pids.filter(running)).toEqual([]);
    const steps = readVerifiedJournal(file).entries;
    expect(steps).toHaveLength(1);
    expect(steps[0]!.row.model).toBe('m-test');
  } finally {
    server.close();
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL'); // only ours, left by a failed run
      } catch {
        /* gone */
      }
    }
  }
});
