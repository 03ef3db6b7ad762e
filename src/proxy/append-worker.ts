import type { TornTailMoved } from '../util/chain-file';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { parse } from '../canonical';
import { recordStep } from '../record';
import { linkExchange, type LinkOutcome } from './links';

/**
 * Where a recording's appends run. An append is a journal write plus a
 * worktree snapshot (tens to hundreds of milliseconds of git, synchronous):
 * on the proxy's thread it would hold every response streaming meanwhile. So
 * the CLI runs them on a worker thread (its own bundle, started as a worker:
 * `setAppendWorkerEntry`), one at a time, in order; without an entry (the
 * library in a caller's process) they run in the caller's thread.
 */
export const APPEND_JOB = 'stepchain-proxy-appends';

/** One step to append; the JSON fields as canonical text (a worker message cannot carry the parser's floats). */
export interface AppendJob {
  journalDir: string;
  root: string;
  env: Record<string, string | undefined>;
  input: Uint8Array;
  model: string;
  prompt: string;
  tool_call: string;
  tool_result: string;
  blobs: Uint8Array[];
  /** The hook journal the exchange's tool calls went to (the agent's hooks installed too): link them once appended. */
  link?: { hookJournal: string; exchangeJournal: string; calls: string[][] };
}

/** The links of an appended exchange: what was linked, or why linking failed (the step stands either way). */
export type LinkReply = LinkOutcome | { error: string };

export type AppendReply =
  | {
      ok: true;
      seq: number;
      step_hash: string;
      warnings: string[];
      /** Torn tails moved aside on the way (the caller tells them: a notice function cannot cross threads). */
      torn: TornTailMoved[];
      link?: LinkReply;
    }
  | { ok: false; error: string; torn: TornTailMoved[] };

export interface Appender {
  append(job: AppendJob): Promise<AppendReply>;
  close(): Promise<void>;
}

let entry: string | undefined;

/** The script a worker thread runs for the appends (the CLI's own bundle). */
export function setAppendWorkerEntry(file: string | undefined): void {
  entry = file;
}

function appendNow(job: AppendJob): AppendReply {
  const torn: TornTailMoved[] = [];
  const onTornTail = (m: TornTailMoved): void => void torn.push(m);
  try {
    const r = recordStep(
      job.journalDir,
      {
        input: Buffer.from(job.input),
        model: parse(job.model),
        prompt: parse(job.prompt),
        tool_call: parse(job.tool_call),
        tool_result: parse(job.tool_result),
        blobs: job.blobs.map((b) => Buffer.from(b)),
      },
      { root: job.root, env: job.env, onTornTail },
    );
    const reply: AppendReply = { ok: true, seq: r.row.seq, step_hash: r.row.step_hash, warnings: r.warnings, torn };
    if (job.link !== undefined) reply.link = linkNow(job, r.row.seq, r.row.step_hash, onTornTail);
    return reply;
  } catch (e) {
    return { ok: false, error: (e as Error).message, torn };
  }
}

/** After the append, on the same thread (never the forwarding path): the exchange's tool calls linked. */
function linkNow(job: AppendJob, seq: number, step_hash: string, onTornTail: (m: TornTailMoved) => void): LinkReply {
  try {
    return linkExchange(job.root, { ...job.link!, seq, step_hash }, { env: job.env, onTornTail });
  } catch (e) {
    return { error: (e as Error).message };
  }
}

export function startAppender(): Appender {
  if (entry === undefined) return { append: (job) => Promise.resolve(appendNow(job)), close: () => Promise.resolve() };
  const worker = new Worker(entry, { workerData: { tag: APPEND_JOB }, stdout: false, stderr: false });
  const waiting: ((r: AppendReply) => void)[] = [];
  let dead: string | undefined;
  worker.on('message', (r: AppendReply) => waiting.shift()?.(r));
  const fail = (why: string): void => {
    dead ??= why;
    for (const w of waiting.splice(0)) w({ ok: false, error: why, torn: [] });
  };
  worker.on('error', (e) => fail(`the append worker failed: ${e.message}`));
  worker.on('exit', (code) => fail(`the append worker exited (${code})`));
  return {
    append(job) {
      if (dead !== undefined) return Promise.resolve({ ok: false, error: dead, torn: [] });
      return new Promise((resolve) => {
        waiting.push(resolve);
        worker.postMessage(job);
      });
    },
    async close() {
      while (waiting.length > 0) await new Promise((r) => setImmediate(r));
      worker.removeAllListeners('exit');
      await worker.terminate();
    },
  };
}

/** Whether this thread is an append worker (the CLI's entry asks before anything else). */
export function isAppendWorker(): boolean {
  return !isMainThread && (workerData as { tag?: unknown } | null)?.tag === APPEND_JOB;
}

/** The worker's loop: each job appended, in the order given, and answered. */
export function runAppendWorker(): void {
  parentPort!.on('message', (job: AppendJob) => parentPort!.postMessage(appendNow(job)));
}
