/**
 * A walk shared among worker threads always lets its process end. Node 20 can deadlock an ending thread
 * (nodejs/node#54918): its event loop's end drains the platform's background tasks, and a background TurboFan job of
 * its own isolate that needs a garbage collection waits for that thread. `verify` on threads hung so, for good, in
 * 1 run of 12-36 on a loaded 2-core machine (gdb: every thread asleep, a compile job parked in
 * CollectionBarrier::AwaitCollectionBackground); the threads now compile on their own thread
 * (compileInlineInThreads in src/journal/parallel.ts). The deadlock needs a compile job and a collection to meet,
 * so this is a net, not a proof: many short threaded verifies at once, each given a minute to end.
 */
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { cliPath } from './helpers/paths';
import { writeSyntheticJournal } from './helpers/journal-rows';
import { tempDir } from './helpers/tmp';

jest.setTimeout(300_000);

const file = path.join(tempDir('stepchain-threads-exit-'), 'j', '000000.jsonl');
writeSyntheticJournal(file, 3_000, (seq) => ({
  model: 'm',
  prompt: `step ${seq} ${'x'.repeat(seq % 97)}`,
  tool_call: { name: 'Bash', input: { command: `echo ${seq}`, ratio: seq / 7 } },
  tool_result: { ok: true, out: 'y'.repeat(seq % 53), ms: seq * 1.5 },
  ts: 1_700_000_000 + seq / 3,
}));

/** One threaded verify: its exit code, or 'hung' when it did not end within a minute (it is then killed). */
function threadedVerify(threads: number): Promise<number | 'hung'> {
  return new Promise((resolve) => {
    const env = { ...process.env, STEPCHAIN_THREADS: String(threads), STEPCHAIN_PARALLEL_MIN_BYTES: '1' };
    const p = spawn(process.execPath, [cliPath, 'verify', file, '--json', '--strict'], { env, stdio: 'ignore' });
    const timer = setTimeout(() => {
      p.kill('SIGKILL');
      resolve('hung');
    }, 60_000);
    p.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code ?? -1);
    });
  });
}

test('24 verifies shared among 2-16 threads, 6 at a time: every one ends, with the verdict', async () => {
  const codes: (number | 'hung')[] = [];
  for (let round = 0; round < 4; round++) {
    codes.push(...(await Promise.all([2, 4, 6, 8, 12, 16].map((t) => threadedVerify(t)))));
  }
  expect(codes).toEqual(new Array(24).fill(0));
});

/**
 * Node pipes each thread's output into the process's stdout and stderr, which added listeners to those two shared
 * streams per thread: at 16 threads they passed their limit of 10 and every verify printed two
 * MaxListenersExceededWarning lines on stderr (src/journal/parallel.ts, startWorker).
 */
test('a verify shared among 16 threads prints its verdict and nothing on stderr', () => {
  const env = { ...process.env, STEPCHAIN_THREADS: '16', STEPCHAIN_PARALLEL_MIN_BYTES: '1' };
  for (const args of [[], ['--json']]) {
    const r = spawnSync(process.execPath, [cliPath, 'verify', file, ...args], { env, encoding: 'utf8' });
    expect({ code: r.status, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(r.stdout).toContain('3000');
  }
});
