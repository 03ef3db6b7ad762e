/**
 * A walk shared among worker threads always lets its process end. Node 20 can deadlock an ending thread
 * (nodejs/node#54918): its event loop's end drains the platform's background tasks, and a background TurboFan job of
 * its own isolate that needs a garbage collection waits for that thread. `verify` on threads hung so, for good, in
 * 1 run of 12-36 on a loaded 2-core machine (gdb: every thread asleep, a compile job parked in
 * CollectionBarrier::AwaitCollectionBackground); the threads now compile on their own thread
 * (compileInlineInThreads in src/journal/parallel.ts). The deadlock needs a compile job and a collection to meet,
 * so this is a net, not a proof: many short threaded verifies at once, each given a minute to end.
 */
import { spawn } from 'node:child_process';
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

interface Verify {
  threads: number;
  form: 'text' | 'json';
  /** The exit code, or 'hung' when it did not end within a minute (it is then killed). */
  code: number | 'hung';
  stdout: string;
  stderr: string;
}

/** One threaded verify, in the text or the JSON form, its output kept. */
function threadedVerify(threads: number, form: 'text' | 'json'): Promise<Verify> {
  return new Promise((resolve) => {
    const env = { ...process.env, STEPCHAIN_THREADS: String(threads), STEPCHAIN_PARALLEL_MIN_BYTES: '1' };
    const args = [cliPath, 'verify', file, '--strict', ...(form === 'json' ? ['--json'] : [])];
    const p = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    p.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => {
      p.kill('SIGKILL');
      resolve({ threads, form, code: 'hung', stdout, stderr });
    }, 60_000);
    p.on('close', (code) => {
      clearTimeout(timer);
      resolve({ threads, form, code: code ?? -1, stdout, stderr });
    });
  });
}

/** The 24 verifies of the first test, which the second reads (a 16-thread verify of its own was two more processes). */
const runs: Verify[] = [];

test('24 verifies shared among 2-16 threads, 6 at a time: every one ends, with the verdict', async () => {
  for (let round = 0; round < 4; round++) {
    const form = round % 2 === 0 ? 'json' : 'text';
    runs.push(...(await Promise.all([2, 4, 6, 8, 12, 16].map((t) => threadedVerify(t, form)))));
  }
  expect(runs.map((r) => r.code)).toEqual(new Array(24).fill(0));
  expect(runs.filter((r) => !/3000 steps|"steps":3000/.test(r.stdout)).map((r) => r.stdout)).toEqual([]);
});

/**
 * Node pipes each thread's output into the process's stdout and stderr, which added listeners to those two shared
 * streams per thread: at 16 threads they passed their limit of 10 and every verify printed two
 * MaxListenersExceededWarning lines on stderr (src/journal/parallel.ts, startWorker).
 */
test('a verify shared among 16 threads prints its verdict and nothing on stderr (of the 24, in both forms)', () => {
  const at16 = runs.filter((r) => r.threads === 16);
  expect(at16.map((r) => r.form).sort()).toEqual(['json', 'json', 'text', 'text']);
  // Every verify of the net, not only those at 16 threads: no thread count may print on stderr.
  expect(runs.filter((r) => r.stderr !== '').map((r) => `${r.threads} ${r.form}: ${r.stderr}`)).toEqual([]);
  expect(at16.map((r) => ({ code: r.code, said: /3000 steps|"steps":3000/.test(r.stdout) }))).toEqual(
    new Array(4).fill({ code: 0, said: true }),
  );
});
