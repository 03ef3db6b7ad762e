import { closeSync, openSync, readSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { MessagePort, Worker } from 'node:worker_threads';
import type { Readable } from 'node:stream';

/**
 * node:worker_threads, loaded when threads are started: most processes that
 * import this module (every hook call an agent makes appends a step) start none,
 * and loading it is a noticeable part of a short process's start.
 */
const workerThreads = (): typeof import('node:worker_threads') => process.getBuiltinModule('node:worker_threads');
import { scanChunk, type ChunkOptions, type ChunkSummary, type SliceSeed } from './chunk';
import { scanFileChunk } from './file-chunk';
import { lineEndInFile } from './file-ref';
import { adoptWasmModule, wasmModule } from './wasm/scanner';
import { READ_FLAGS } from '../util/nofollow';
import { pausePoint } from '../util/pause';
import type { RefSink } from '../util/digest-order';

/**
 * Verification is embarrassingly parallel: each row's hash depends only on its
 * own bytes. A journal is cut into line-aligned slices, several per thread; the
 * calling thread and worker threads take the next slice from a shared counter
 * until none is left (so a thread that starts late, or a busy core, takes fewer),
 * synchronously (the caller blocks on Atomics.wait and takes results with
 * receiveMessageOnPort), so recovery on open, which is synchronous, gets the same
 * speed as `verify`.
 *
 * Workers run the script registered with `setChunkWorkerEntry`: the CLI and the
 * Action hand over the text of src/journal/worker/main.ts bundled alone (a thread
 * then compiles ~27 KB, not the ~630 KB bundle), the built library its file
 * dist/lib/chunk-worker.mjs. Without one (tests on the TypeScript sources) slices
 * run on the calling thread, stitched the same way.
 */
export type ChunkSource = { kind: 'file'; path: string } | { kind: 'bytes'; bytes: Buffer } | DescriptorSource;

/**
 * A file its caller holds open (a receipt, whose journal member is walked where it lies): every thread reads it
 * through that descriptor (descriptors are the process's), so all of them read the file the caller opened, never
 * what its path names by then. The caller keeps it open until the walk returns.
 */
export interface DescriptorSource {
  kind: 'fd';
  fd: number;
  /** What messages name it by. */
  path: string;
}

type SliceSource =
  | { kind: 'file'; path: string }
  | DescriptorSource
  | { kind: 'shared'; buffer: SharedArrayBuffer; offset: number; length: number };

export interface ChunkJob {
  tag: typeof CHUNK_JOB_TAG;
  source: SliceSource;
  slices: [number, number][];
  /** Per slice: the known position to walk it from (slices walked again, seeded). */
  seeds?: (SliceSeed | null)[];
  /** Int32 [next slice to take, then per slice: 0, or the mark of the thread that took it]. */
  claims: SharedArrayBuffer;
  /** This worker's mark in `claims` (1, 2, ...). */
  mark: number;
  options: ChunkOptions;
  /** The caller's compiled line scanner, shared (WebAssembly.Module). */
  wasm?: unknown;
  done: SharedArrayBuffer;
  port: MessagePort;
}

/** What a worker posts: the slices it walked, by index. */
export type ChunkReply = { results: [number, ChunkSummary][]; error?: string };

export const CHUNK_JOB_TAG = 'stepchain-journal-chunk';
/** What a thread started before its job was known is handed (prestartChunkWorkers): it waits for one job. */
export const CHUNK_IDLE_TAG = 'stepchain-journal-chunk-idle';
export interface ChunkIdle {
  tag: typeof CHUNK_IDLE_TAG;
  /** The caller's compiled line scanner, instantiated while the thread waits. */
  wasm?: unknown;
}
/** What a thread started ahead may be sent before its job: the caller's compiled line scanner, to make its own from. */
export const CHUNK_SCANNER_TAG = 'stepchain-journal-chunk-scanner';
export interface ChunkScanner {
  tag: typeof CHUNK_SCANNER_TAG;
  wasm: unknown;
}
/**
 * Below this a walk is not worth a thread's start-up: a worker thread boots a second Node (no start-up snapshot for
 * workers in Node 20) before it walks anything, 60-100 ms of CPU on a 2-core VM, on the core the walk would
 * otherwise have to itself. Measured there (`verify`, one thread vs two, interleaved): 19 MB 225 vs 308 ms, 52 MB
 * 284 vs 397 ms, 78 MB 246 vs 265 ms, 104 MB 279 vs 280 ms, 130 MB 339 vs 316 ms under a load of 4; quiet, 130 MB
 * of plain rows 288 vs 280 ms and 113 MB of float rows 391 vs 345 ms. It was 8 MiB, which made every journal of
 * 8-100 MB slower to verify.
 */
const MIN_PARALLEL_BYTES = 64 * 1024 * 1024;
/** Slices per thread when threads share the work, and the smallest slice worth a claim. */
const SLICES_PER_THREAD = 16;
const MIN_SLICE_BYTES = 1024 * 1024;
/** A worker's program: a file to load, or a script's text to evaluate. */
export type ChunkWorkerEntry = string | { source: string };
let workerEntry: ChunkWorkerEntry | undefined;

/** The smallest walk shared among threads (STEPCHAIN_PARALLEL_MIN_BYTES, for tests; 8 MiB). */
export function parallelMinBytes(env: NodeJS.ProcessEnv = process.env): number {
  return Number(env.STEPCHAIN_PARALLEL_MIN_BYTES ?? MIN_PARALLEL_BYTES);
}

/**
 * Bytes in memory, as the threads of a walk see them: where they already lie when that memory is shared (see
 * walkableBuffer), else a shared copy.
 */
function sharedSource(bytes: Buffer): SliceSource {
  if (bytes.buffer instanceof SharedArrayBuffer)
    return { kind: 'shared', buffer: bytes.buffer, offset: bytes.byteOffset, length: bytes.length };
  const copy = new SharedArrayBuffer(bytes.length);
  Buffer.from(copy).set(bytes);
  return { kind: 'shared', buffer: copy, offset: 0, length: bytes.length };
}

/**
 * Memory for `size` bytes a reader is about to fill and then walk (a journal read whole to be checked): shared
 * between threads when a walk of that many would share it (walkRanges then walks it where it lies), else ordinary.
 * The copy it saves is not only a copy: a fresh 129 MB buffer is ~33,000 pages the kernel hands over one fault at a
 * time, ~0.4 s of a `check` of such a journal on a VM whose fresh page costs 12 us.
 */
export function walkableBuffer(size: number, env: NodeJS.ProcessEnv = process.env): Buffer {
  const shared = workerEntry !== undefined && size >= parallelMinBytes(env) && threads(env) > 1;
  return shared ? Buffer.from(new SharedArrayBuffer(size)) : Buffer.allocUnsafe(size);
}

/** Called by a bundle's entry, so slices can run in worker threads. */
export function setChunkWorkerEntry(entry: ChunkWorkerEntry | undefined): void {
  workerEntry = entry;
}

let threadsCompileInline = false;

/**
 * Makes every isolate started from now on optimise on its own thread (V8's `--no-concurrent-recompilation`), once,
 * before the first worker thread. Node 20 can deadlock an ending thread (nodejs/node#54918): a thread whose event loop
 * ends drains the platform's background tasks and waits for all of them, and a background TurboFan job of that
 * thread's isolate that needs a garbage collection waits for that very thread, which runs no JavaScript until the
 * drain ends. Seen here (gdb): `verify` of a journal shared among threads, on a loaded machine, hung 1 run in 12-36
 * for good, every thread asleep, one compile job parked in CollectionBarrier::AwaitCollectionBackground. A worker's
 * few hot functions are compiled in its own time instead; the main thread's isolate, made before this can run,
 * keeps its background compiler, as every Node process does.
 */
function compileInlineInThreads(): void {
  if (threadsCompileInline) return;
  threadsCompileInline = true;
  try {
    process.getBuiltinModule('node:v8').setFlagsFromString('--no-concurrent-recompilation');
  } catch {
    // a runtime that refuses the flag runs its threads as before
  }
}

function startWorker(entry: ChunkWorkerEntry, job: ChunkJob | ChunkIdle, port?: MessagePort): Worker {
  compileInlineInThreads();
  const options = { workerData: job, transferList: port === undefined ? [] : [port], stdout: false, stderr: false };
  const { Worker } = workerThreads();
  const worker =
    typeof entry === 'string' ? new Worker(entry, options) : new Worker(entry.source, { ...options, eval: true });
  // Node pipes a thread's output into process.stdout and process.stderr, and each pipe adds its listeners to those
  // shared streams: 16 threads passed their limit of 10 (a MaxListenersExceededWarning on stderr). The pipes come
  // down and one listener on the thread's own stream forwards what it writes (`stdout: false` kept: a stream so made
  // never holds the process open, as the pipe never did).
  forwardThreadOutput(worker.stdout, process.stdout);
  forwardThreadOutput(worker.stderr, process.stderr);
  return worker;
}

function forwardThreadOutput(from: Readable, to: NodeJS.WriteStream): void {
  from.unpipe(to);
  from.on('data', (chunk: Buffer) => to.write(chunk));
  from.resume(); // unpipe paused it, and a 'data' listener does not resume a stream paused so
}

export function isChunkJob(data: unknown): data is ChunkJob {
  return typeof data === 'object' && data !== null && (data as { tag?: unknown }).tag === CHUNK_JOB_TAG;
}

export function isChunkIdle(data: unknown): data is ChunkIdle {
  return typeof data === 'object' && data !== null && (data as { tag?: unknown }).tag === CHUNK_IDLE_TAG;
}

export function isChunkScanner(data: unknown): data is ChunkScanner {
  return typeof data === 'object' && data !== null && (data as { tag?: unknown }).tag === CHUNK_SCANNER_TAG;
}

/** Threads started ahead of their job, each taken by one walk (walkRanges) or ended. */
const prestarted: Worker[] = [];

/**
 * Starts the worker threads a walk of a journal of about `bytes` will use (none when that is too few to share),
 * before it is known what they will walk: a
 * thread takes ~50 ms to start (Node's own start in it, then its script), which overlaps the caller's own
 * start this way instead of following it (the verify entry calls this first thing). A walk that shares no
 * work ends them (releasePrestarted); an unused one never keeps the process alive.
 */
export function prestartChunkWorkers(bytes: number, env: NodeJS.ProcessEnv = process.env): void {
  if (workerEntry === undefined || prestarted.length > 0) return;
  if (bytes < parallelMinBytes(env)) return;
  // The threads start before the scanner is compiled (wasmModule, 5-9 ms in a fresh process here), not after: their
  // start is the longer wait, and the compiled scanner follows them as their first message, long before a thread is
  // up to read it.
  const idle: ChunkIdle = { tag: CHUNK_IDLE_TAG };
  for (let k = 1; k < threads(env); k++) {
    try {
      const worker = startWorker(workerEntry, idle);
      worker.unref();
      worker.on('error', () => undefined); // never used then: a walk starts its own
      prestarted.push(worker);
    } catch {
      break;
    }
  }
  const wasm = env.STEPCHAIN_WASM === '0' || prestarted.length === 0 ? undefined : wasmModule();
  if (wasm === undefined) return;
  const scanner: ChunkScanner = { tag: CHUNK_SCANNER_TAG, wasm };
  for (const w of prestarted) {
    try {
      w.postMessage(scanner);
    } catch {
      // a thread that cannot take it compiles its own when its job comes
    }
  }
}

/** Ends the threads started ahead that no walk took. */
export function releasePrestarted(): void {
  for (const w of prestarted.splice(0)) void w.terminate();
}

function walkSlice(
  source: SliceSource,
  from: number,
  to: number,
  options: ChunkOptions,
  seed: SliceSeed | null | undefined,
): ChunkSummary {
  if (source.kind === 'file') return scanFileChunk(source.path, from, to, options, seed ?? undefined);
  if (source.kind === 'fd') return scanFileChunk(source, from, to, options, seed ?? undefined);
  return scanChunk(
    Buffer.from(source.buffer, source.offset + from, to - from),
    0,
    to - from,
    from,
    options,
    seed ?? undefined,
  );
}

/** The mark of a slice the calling thread took (a worker's is its job's `mark`, from 1). */
const BY_CALLER = -1;
/** The mark of a slice closed to the workers once the caller is done taking slices (the caller walks it). */
const CLOSED = -2;

/**
 * Takes the next slice no thread has taken (marking it `by`), or -1. The slot is marked by compare-and-swap, so a
 * thread between the counter and its mark cannot take a slice the caller has closed (closeUnclaimed): every slice
 * is walked by one thread the caller knows of, and no worker reads on after the walk returns (a receipt's walk
 * reads through a descriptor the caller closes then), but for one that did not answer within its deadline, which
 * is ended (what it reads after is never used).
 */
export function claim(claims: Int32Array, count: number, by: number): number {
  for (;;) {
    const k = Atomics.add(claims, 0, 1);
    if (k >= count) return -1;
    if (Atomics.compareExchange(claims, k + 1, 0, by) === 0) return k;
  }
}

/** Closes every slice no thread has marked; returns the marks of the threads that took one. */
export function closeUnclaimed(claims: Int32Array, count: number): Set<number> {
  const took = new Set<number>();
  for (let k = 0; k < count; k++) {
    const owner = Atomics.compareExchange(claims, k + 1, 0, CLOSED);
    if (owner !== 0) took.add(owner);
  }
  return took;
}

/** The body of a worker thread: walk slices while there are any, post the summaries, signal. */
export function runChunkJob(job: ChunkJob): void {
  const reply: ChunkReply = { results: [] };
  try {
    const claims = new Int32Array(job.claims);
    adoptWasmModule(job.wasm);
    for (let k = claim(claims, job.slices.length, job.mark); k >= 0; k = claim(claims, job.slices.length, job.mark)) {
      const [from, to] = job.slices[k]!;
      reply.results.push([k, walkSlice(job.source, from, to, job.options, job.seeds?.[k])]);
    }
  } catch (e) {
    reply.error = e instanceof Error ? e.message : String(e); // the caller walks what is missing
  }
  try {
    job.port.postMessage(reply);
  } finally {
    // Whatever happened, the caller stops waiting (a slice taken here with no result it walks itself).
    const flag = new Int32Array(job.done);
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
  }
}

function threads(env: NodeJS.ProcessEnv): number {
  const forced = Number(env.STEPCHAIN_THREADS);
  if (Number.isInteger(forced) && forced >= 1) return Math.min(forced, 16);
  return Math.max(1, Math.min(availableParallelism(), 8));
}

/**
 * The offset just after the first newline at or after `at` (or `end`), in bytes or in a file open as `fd` (read
 * through `window`: a line is a few KB, so one small read finds its end).
 */
function nextLineStart(source: ChunkSource, fd: number | undefined, window: Buffer, at: number, end: number): number {
  if (source.kind === 'bytes') {
    const nl = source.bytes.indexOf(0x0a, at);
    return nl < 0 || nl >= end ? end : nl + 1;
  }
  if (fd === undefined || at >= end) return end;
  const n = readSync(fd, window, 0, Math.min(window.length, end - at), at);
  if (n === 0) return end;
  const nl = window.subarray(0, n).indexOf(0x0a);
  // A line longer than the window: looked through in larger reads.
  return nl >= 0 ? at + nl + 1 : lineEndInFile(fd, at + n, end);
}

/**
 * Cuts [start, end) into up to n line-aligned slices. A file is opened once for all the cuts (it was opened, read
 * 64 KB and closed for each: 31 opens on the critical path of every verify of a large journal).
 */
function plan(source: ChunkSource, start: number, end: number, n: number): [number, number][] {
  const cuts = [start];
  const fd =
    n <= 1
      ? undefined
      : source.kind === 'file'
        ? openSync(source.path, READ_FLAGS)
        : source.kind === 'fd'
          ? source.fd
          : undefined;
  try {
    const window = Buffer.allocUnsafe(n > 1 ? 16 * 1024 : 0);
    for (let k = 1; k < n; k++) {
      const nominal = start + Math.floor(((end - start) * k) / n);
      const cut = nextLineStart(source, fd, window, Math.max(nominal, cuts[cuts.length - 1]!), end);
      // No newline from here to the end: none after any later cut either (each cut looked for one to the end of the
      // file again: a line of gigabytes made the plan read it once per slice).
      if (cut >= end) break;
      if (cut > cuts[cuts.length - 1]!) cuts.push(cut);
    }
  } finally {
    if (fd !== undefined && source.kind === 'file') closeSync(fd);
  }
  cuts.push(end);
  return cuts.slice(0, -1).map((c, i) => [c, cuts[i + 1]!]);
}

/** Progress of a long walk: bytes walked so far, of the total. */
export type ProgressFn = (done: number, total: number) => void;

/**
 * Walks bytes [start, end) of a journal in slices. `env` may force the thread count (STEPCHAIN_THREADS) and the
 * parallel threshold (STEPCHAIN_PARALLEL_MIN_BYTES), and STEPCHAIN_WASM=0 turns the WebAssembly line scanner off.
 * `first`: where the chain stands at `start` (the first slice is then never walked again, whatever its rows say).
 */
export function scanSlices(
  source: ChunkSource,
  start: number,
  end: number,
  options: ChunkOptions,
  env: NodeJS.ProcessEnv = process.env,
  progress?: ProgressFn,
  first?: SliceSeed,
): ChunkSummary[] {
  const n = end - start >= parallelMinBytes(env) ? threads(env) : 1; // several slices a thread, from a counter
  const count =
    n === 1 || workerEntry === undefined
      ? n
      : Math.max(n, Math.min(n * SLICES_PER_THREAD, Math.floor((end - start) / MIN_SLICE_BYTES)));
  return walkRanges(source, plan(source, start, end, count), first && [first], options, env, progress);
}

/**
 * Walks the given line-aligned ranges (each from its seed when given), on worker
 * threads when the bundle registered one and there is enough to share. `refSink`: ranges walked here, in order,
 * hand it their refs as read (`collectRefs: 'packed'`); among threads, each collects its own (`refBytes`).
 */
export function walkRanges(
  source: ChunkSource,
  work: [number, number][],
  seeds: (SliceSeed | null)[] | undefined,
  options: ChunkOptions,
  env: NodeJS.ProcessEnv = process.env,
  progress?: ProgressFn,
  refSink?: RefSink,
): ChunkSummary[] {
  if (env.STEPCHAIN_WASM === '0') options = { ...options, wasm: false };
  // Tests cut the file here, between the plan (made on its size then) and the walk: a journal file, or a receipt
  // whose journal member is walked through the descriptor the command opened (cut, grown, renamed over meanwhile).
  if (source.kind !== 'bytes') pausePoint('walk:planned', env);
  const total = work.reduce((t, [a, b]) => t + b - a, 0);
  const minBytes = parallelMinBytes(env);
  const n = work.length > 1 && total >= minBytes ? Math.min(threads(env), work.length) : 1;
  const inline = (k: number, sink?: RefSink): ChunkSummary => {
    const [from, to] = work[k]!;
    const seed = seeds?.[k] ?? undefined;
    if (source.kind === 'bytes') return scanChunk(source.bytes, from, to, 0, options, seed, undefined, sink);
    return scanFileChunk(source.kind === 'fd' ? source : source.path, from, to, options, seed, sink);
  };
  let done = 0;
  const report = (bytes: number): void => {
    done += bytes;
    progress?.(done, total);
  };
  if (n === 1 || workerEntry === undefined) {
    releasePrestarted();
    return work.map((w, k) => {
      const r = inline(k, refSink); // in order: a range a worker left (below) is walked out of it
      report(w[1] - w[0]);
      return r;
    });
  }

  const sliceSource: SliceSource =
    source.kind === 'bytes'
      ? sharedSource(source.bytes)
      : source.kind === 'fd'
        ? { kind: 'fd', fd: source.fd, path: source.path }
        : { kind: 'file', path: (source as { path: string }).path };
  const claimsBuffer = new SharedArrayBuffer(4 * (work.length + 1));
  const claims = new Int32Array(claimsBuffer);
  const wasm = options.wasm === false ? undefined : wasmModule();
  const jobs: { worker: Worker; done: SharedArrayBuffer; port: MessagePort; mark: number }[] = [];
  for (let k = 1; k < n; k++) {
    const done = new SharedArrayBuffer(4);
    const { port1, port2 } = new (workerThreads().MessageChannel)();
    const job: ChunkJob = {
      tag: CHUNK_JOB_TAG,
      source: sliceSource,
      slices: work,
      ...(seeds === undefined ? {} : { seeds }),
      claims: claimsBuffer,
      mark: k,
      options,
      wasm,
      done,
      port: port2,
    };
    try {
      // A thread started ahead (already past its start) takes the job as a message; else one starts with it.
      const ready = prestarted.shift();
      ready?.postMessage(job, [port2]);
      const worker = ready ?? startWorker(workerEntry!, job, port2);
      worker.unref();
      // A thread that fails (it could not start, or died) is not fatal: the slices it took are walked here.
      worker.on('error', () => undefined);
      jobs.push({ worker, done, port: port1, mark: k });
    } catch {
      port1.close(); // no thread (resources, or a module that cannot be sent): this one does more
      break;
    }
  }
  releasePrestarted(); // more than this walk shares work with
  const results: (ChunkSummary | undefined)[] = new Array<ChunkSummary | undefined>(work.length);
  // Progress counts slices taken by any thread once this one moves on (a taken slice is being walked).
  const takenBytes = (): number => {
    let t = 0;
    for (let k = 0; k < work.length; k++) if (Atomics.load(claims, k + 1) !== 0) t += work[k]![1] - work[k]![0];
    return t;
  };
  for (let k = claim(claims, work.length, BY_CALLER); k >= 0; k = claim(claims, work.length, BY_CALLER)) {
    results[k] = walkSlice(sliceSource, work[k]![0], work[k]![1], options, seeds?.[k]);
    if (progress !== undefined) progress(Math.min(total, takenBytes()), total);
  }
  // Only a thread that took a slice is waited for: one still starting when this thread took the last slice has
  // nothing to give, and finds every slice taken or closed.
  const took = closeUnclaimed(claims, work.length);
  for (const j of jobs) {
    // A thread that never answers (it could not start, or died) is not waited on forever:
    // the slices it took are walked here instead.
    const deadline = Date.now() + 20_000 + total / 5_000;
    const flag = new Int32Array(j.done);
    while (took.has(j.mark) && Atomics.load(flag, 0) === 0 && Date.now() < deadline) {
      Atomics.wait(flag, 0, 0, 200);
      if (progress !== undefined) progress(Math.min(total, takenBytes()), total);
    }
    const msg = workerThreads().receiveMessageOnPort(j.port)?.message as ChunkReply | undefined;
    j.port.close();
    // A thread that answered ends on its own (ending it here kept this thread's loop ~5 ms longer, until its
    // heap was torn down); one that did not is ended.
    if (Atomics.load(flag, 0) === 0) void j.worker.terminate();
    for (const [k, summary] of msg?.results ?? []) results[k] = summary;
  }
  progress?.(total, total);
  return work.map((_w, k) => results[k] ?? inline(k));
}
