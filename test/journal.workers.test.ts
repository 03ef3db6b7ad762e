import path from 'node:path';
import { readFileSync } from 'node:fs';
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import { Journal } from '../src/journal';
import {
  claim,
  closeUnclaimed,
  CHUNK_IDLE_TAG,
  CHUNK_SCANNER_TAG,
  CHUNK_JOB_TAG,
  prestartChunkWorkers,
  releasePrestarted,
  scanSlices,
  setChunkWorkerEntry,
  walkableBuffer,
  type ChunkJob,
  type ChunkReply,
  type ChunkSource,
} from '../src/journal/parallel';
import { wasmModule } from '../src/journal/wasm/scanner';
import type { ChunkOptions, ChunkSummary } from '../src/journal/chunk';
import { CHUNK_WORKER_SOURCE } from '../src/journal/worker/source.generated';
import { tempDir } from './helpers/tmp';

/**
 * Verification in worker threads, in this process: the workers run the program the
 * CLI and the Action carry as text (src/journal/worker/main.ts bundled alone), and
 * whatever a worker does (answers, fails to start), the slices come out as the
 * calling thread alone walks them.
 */
const root = tempDir();
const dir = path.join(root, '.sdd', 'runtime', 'journal', 'w');
const j = Journal.open(dir, { durability: 'none' });
j.appendMany(
  Array.from({ length: 600 }, (_, i) => ({
    input: Buffer.from(`input ${i}`),
    blobs: i % 3 ? [Buffer.from(`blob ${i % 7}`)] : [],
    prompt: `step ${i}: r\u00e9sum\u00e9 "quoted" ${'x'.repeat(i % 50)}`,
    tool_call: { name: 'edit', args: { n: i, ratio: i / 8 } },
    tool_result: { ok: i % 5 !== 0, out: 'a\nb' },
    ts: 1796199133 + i / 3,
  })),
);
const lines = readFileSync(j.file, 'utf8').split('\n');
// Damage in the middle of slices and at their edges: a tampered field, a deleted row, a malformed line.
lines[100] = lines[100]!.replace('"ok":true', '"ok":false');
lines.splice(300, 1);
lines[450] = '{"not a row"';
const bytes = Buffer.from(lines.join('\n'));
const source: ChunkSource = { kind: 'bytes', bytes };
const env = { STEPCHAIN_THREADS: '3', STEPCHAIN_PARALLEL_MIN_BYTES: '0' };

const walk = (options: ChunkOptions): ChunkSummary[] => scanSlices(source, 0, bytes.length, options, env);

function alone(options: ChunkOptions): ChunkSummary[] {
  setChunkWorkerEntry(undefined);
  return walk(options);
}

afterEach(() => {
  releasePrestarted();
  setChunkWorkerEntry(undefined);
});

/**
 * How a thread started ahead of its job gets the caller's compiled scanner: with its idle data, as a message before
 * its job (as prestartChunkWorkers sends it), or not at all (the job's own then).
 */
type Ahead = false | 'idle-data' | 'message' | 'none';

/**
 * Runs the bundled worker program alone on a job of `slices` (this thread takes none), as walkRanges starts it, or
 * (`ahead`) started before its job, which it is then sent, as a thread prestartChunkWorkers started takes it.
 */
function workerAlone(
  slices: [number, number][],
  options: ChunkOptions,
  ahead: Ahead = false,
  offset = 0,
): Promise<ChunkReply> {
  const shared = new SharedArrayBuffer(offset + bytes.length);
  Buffer.from(shared).set(bytes, offset);
  const done = new SharedArrayBuffer(4);
  const { port1, port2 } = new MessageChannel();
  const job: ChunkJob = {
    tag: CHUNK_JOB_TAG,
    source: { kind: 'shared', buffer: shared, offset, length: bytes.length },
    slices,
    claims: new SharedArrayBuffer(4 * (slices.length + 1)),
    mark: 1,
    options,
    wasm: wasmModule(),
    done,
    port: port2,
  };
  const idle = { tag: CHUNK_IDLE_TAG, ...(ahead === 'idle-data' ? { wasm: wasmModule() } : {}) };
  const worker = ahead
    ? new Worker(CHUNK_WORKER_SOURCE, { eval: true, workerData: idle })
    : new Worker(CHUNK_WORKER_SOURCE, { eval: true, workerData: job, transferList: [port2] });
  if (ahead === 'message') worker.postMessage({ tag: CHUNK_SCANNER_TAG, wasm: wasmModule() });
  if (ahead) worker.postMessage(job, [port2]);
  return new Promise((resolve, reject) => {
    worker.on('error', reject);
    worker.on('exit', () => {
      const reply = receiveMessageOnPort(port1)?.message as ChunkReply | undefined;
      port1.close();
      if (Atomics.load(new Int32Array(done), 0) !== 1 || reply === undefined) reject(new Error('no answer'));
      else resolve(reply);
    });
  });
}

describe('verification worker threads', () => {
  it('the bundled worker program walks every slice it is given as the calling thread would', async () => {
    for (const options of [{ strict: false }, { strict: true, collectRefs: true }, { strict: false, wasm: false }]) {
      const want = alone(options);
      const reply = await workerAlone(
        want.map((s) => [s.start, s.end]),
        options,
      );
      expect(reply.error).toBeUndefined();
      expect(reply.results.map(([k]) => k).sort()).toEqual([0, 1, 2]);
      for (const [k, summary] of reply.results) expect(summary).toEqual(want[k]);
    }
  });

  it('bytes already in shared memory are walked where they lie, at any offset in it, as a copy of them is', async () => {
    // A journal read whole into shared memory (walkableBuffer) is not copied for the threads: a view of it at an
    // offset of its buffer (a member of a larger read) is walked from that offset, by the worker program and here.
    for (const offset of [0, 1, 4093]) {
      const options = { strict: true, collectRefs: true };
      const want = alone(options);
      const reply = await workerAlone(
        want.map((s) => [s.start, s.end]),
        options,
        false,
        offset,
      );
      expect(reply.error).toBeUndefined();
      for (const [k, summary] of reply.results) expect(summary).toEqual(want[k]);
      const view = Buffer.from(new SharedArrayBuffer(offset + bytes.length + 5), offset, bytes.length);
      bytes.copy(view);
      setChunkWorkerEntry({ source: CHUNK_WORKER_SOURCE });
      expect(scanSlices({ kind: 'bytes', bytes: view }, 0, view.length, options, env)).toEqual(want);
    }
  });

  it('walkableBuffer gives shared memory exactly when a walk of that many bytes would share it', () => {
    setChunkWorkerEntry({ source: CHUNK_WORKER_SOURCE });
    const at = (size: number, e: NodeJS.ProcessEnv) => walkableBuffer(size, e).buffer instanceof SharedArrayBuffer;
    expect(at(100, { STEPCHAIN_THREADS: '2', STEPCHAIN_PARALLEL_MIN_BYTES: '100' })).toBe(true);
    expect(at(99, { STEPCHAIN_THREADS: '2', STEPCHAIN_PARALLEL_MIN_BYTES: '100' })).toBe(false);
    expect(at(100, { STEPCHAIN_THREADS: '1', STEPCHAIN_PARALLEL_MIN_BYTES: '100' })).toBe(false);
    setChunkWorkerEntry(undefined);
    expect(at(100, { STEPCHAIN_THREADS: '2', STEPCHAIN_PARALLEL_MIN_BYTES: '100' })).toBe(false);
    expect(walkableBuffer(100, {}).length).toBe(100);
  });

  it('started ahead of its job, the bundled worker program walks the job it is sent as the calling thread would', async () => {
    // Its scanner with its idle data, as a message before the job (prestartChunkWorkers), or only the job's.
    for (const ahead of ['idle-data', 'message', 'none'] as const)
      for (const options of [{ strict: false }, { strict: true, collectRefs: true }, { strict: false, wasm: false }]) {
        const want = alone(options);
        const reply = await workerAlone(
          want.map((s) => [s.start, s.end]),
          options,
          ahead,
        );
        expect(reply.error).toBeUndefined();
        expect(reply.results.map(([k]) => k).sort()).toEqual([0, 1, 2]);
        for (const [k, summary] of reply.results) expect(summary).toEqual(want[k]);
      }
  });

  it('threads started ahead (ready or still starting, or none for a small journal) give the same slices', () => {
    for (const options of [{ strict: false }, { strict: true, collectRefs: true }, { strict: false, wasm: false }]) {
      const want = alone(options);
      setChunkWorkerEntry({ source: CHUNK_WORKER_SOURCE });
      for (const wait of [0, 300]) {
        prestartChunkWorkers(bytes.length, env);
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, wait); // let them start, or not
        expect(walk(options)).toEqual(want);
      }
      prestartChunkWorkers(bytes.length, { ...env, STEPCHAIN_PARALLEL_MIN_BYTES: String(bytes.length + 1) });
      expect(walk(options)).toEqual(want);
    }
  });

  it('running the bundled worker program, slices come out as the calling thread walks them', () => {
    for (const options of [{ strict: false }, { strict: true, collectRefs: true }, { strict: false, wasm: false }]) {
      const want = alone(options);
      expect(want.length).toBe(3);
      setChunkWorkerEntry({ source: CHUNK_WORKER_SOURCE });
      expect(walk(options)).toEqual(want);
    }
  });

  it('a worker program that cannot start costs nothing but its thread: the caller walks every slice', () => {
    const want = alone({ strict: false });
    for (const broken of ['throw new Error("this worker cannot start")', 'this is not JavaScript {']) {
      setChunkWorkerEntry({ source: broken });
      expect(walk({ strict: false })).toEqual(want);
      // Started ahead: the job it is sent is never taken, and never waited for.
      prestartChunkWorkers(bytes.length, env);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
      expect(walk({ strict: false })).toEqual(want);
    }
  });
});

describe('slices are taken once, and the caller closes what no thread took', () => {
  it('a thread between the shared counter and its mark finds its slice closed, and is not waited for', () => {
    const claims = new Int32Array(new SharedArrayBuffer(4 * 4)); // three slices
    // A worker takes the counter for slice 0, then is descheduled before it marks the slot.
    const late = Atomics.add(claims, 0, 1);
    expect(claim(claims, 3, -1)).toBe(1); // the caller takes slice 1, then runs out
    expect(claim(claims, 3, -1)).toBe(2);
    expect(claim(claims, 3, -1)).toBe(-1);
    // Done taking, the caller closes what no thread marked (slice 0): it walks it itself, and waits for no one.
    expect([...closeUnclaimed(claims, 3)]).toEqual([-1]);
    // The late worker's mark fails: it does not walk slice 0 (it would read on after the caller returned).
    expect(Atomics.compareExchange(claims, late + 1, 0, 7)).not.toBe(0);
    expect(claim(claims, 3, 7)).toBe(-1);
  });

  it('a slice a worker marked is its own: the caller waits for that worker', () => {
    const claims = new Int32Array(new SharedArrayBuffer(4 * 3));
    expect(claim(claims, 2, 5)).toBe(0);
    expect(claim(claims, 2, -1)).toBe(1);
    expect([...closeUnclaimed(claims, 2)].sort()).toEqual([-1, 5]);
  });
});
