/**
 * Append latency against history length (npm run bench; docs/journal.md, "Checkpoints"):
 * - per-step journal at 1,000 / 100,000 / 1,000,000 steps: the first append after the
 *   journal was written by someone else (no checkpoint: the full walk), then steady
 *   appends (a fresh `Journal.open(dir).append(step)` each, as every CLI process does),
 *   the CLI as a whole process, and the same append with checkpoints off (the walk every
 *   time, as before); the Python peer's open (the reference revalidates the whole chain on
 *   every open) side by side;
 * - run-journal events and audit events at 1,000 and 500,000.
 * Figures are printed, never asserted. Sizes: BENCH_APPEND_STEPS="1000,100000,1000000",
 * BENCH_EVENTS="1000,500000".
 */
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { appendAuditEvent } from '../src/audit';
import { auditTimestamp, computeAuditHmac, GENESIS_HMAC } from '../src/audit/entry';
import { encode, type JsonObject } from '../src/canonical';
import { Journal } from '../src/journal';
import { RunJournal } from '../src/runs';
import { makeJournal } from './make-journal';
import { fmt, PYTHON, timeProcess } from './util';

const repo = path.resolve(__dirname, '..');
const work = path.join(repo, '.bench', 'append');
const cli = path.join(repo, 'dist', 'cli.js');
const peer = path.join(repo, 'test', 'python', 'stepchain_ref.py');
// The bench's own checkpoint key and state directory, for the processes it starts and for this one (the audit log's
// appends below read process.env): the checkpoints and tip mirrors of an earlier run's logs at the same paths would
// otherwise be taken for a rollback of the logs this run writes anew (they are, by design, refused).
rmSync(work, { recursive: true, force: true });
process.env.STEPCHAIN_CHECKPOINT_KEY_PATH = path.join(work, 'checkpoint.key');
process.env.XDG_STATE_HOME = path.join(work, 'state');
const env = {
  ...process.env,
  STEPCHAIN_AUDIT: 'off',
};
const off = { ...env, STEPCHAIN_CHECKPOINT: 'off' };
const list = (v: string | undefined, d: number[]): number[] => (v ? v.split(',').map(Number) : d);
const stepCounts = list(process.env.BENCH_APPEND_STEPS, [1000, 100_000, 1_000_000]);
const eventCounts = list(process.env.BENCH_EVENTS, [1000, 500_000]);
mkdirSync(work, { recursive: true });

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
function timeMs(fn: () => void): number {
  const t0 = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}
const ms = (x: number): string => (x < 10 ? `${x.toFixed(2)} ms` : fmt(x));
const step = (i: number) => ({ prompt: `bench step ${i}`, tool_call: { name: 'edit', args: { i } } });

/** A journal of `steps` rows written by make-journal (no checkpoint: as if written by another program). */
function journalOf(steps: number): string {
  const dir = path.join(work, `journal-${steps}`);
  const file = path.join(dir, '000000.jsonl');
  const pristine = path.join(repo, '.bench', `journal-plain-${steps}.jsonl`); // shared with bench/journal.ts
  if (!existsSync(pristine)) makeJournal(pristine, steps);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  execFileSync('cp', [pristine, file]);
  return dir;
}

console.log('\n# Append latency against history (checkpointed appends; median wall time)');
console.log(
  '| steps | size | first append (no checkpoint: full walk) | append (library, fresh open) | append (CLI process) | append, checkpoints off | Python peer open (full walk) |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- |');
const steady: number[] = [];
for (const steps of stepCounts) {
  const dir = journalOf(steps);
  const size = statSync(path.join(dir, '000000.jsonl')).size / 1e6;
  const first = timeMs(() => void Journal.open(dir, { env }).append(step(0)));
  const lib = median(
    Array.from({ length: 51 }, (_, i) => timeMs(() => void Journal.open(dir, { env }).append(step(i)))),
  );
  steady.push(lib);
  const proc = timeProcess(process.execPath, [cli, 'append', dir, '--no-snapshot', '--prompt', 'cli'], {
    env,
    runs: 7,
  });
  const runsOff = steps >= 1_000_000 ? 3 : 7;
  const noCkpt = median(
    Array.from({ length: runsOff }, (_, i) => timeMs(() => void Journal.open(dir, { env: off }).append(step(i)))),
  );
  const py = timeProcess(PYTHON, [peer, 'verify', path.join(dir, '000000.jsonl')], {
    runs: steps >= 1_000_000 ? 1 : 3,
  });
  console.log(
    `| ${steps.toLocaleString('en')} | ${size.toFixed(1)} MB | ${ms(first)} | ${ms(lib)} | ${ms(proc.ms)} | ${ms(noCkpt)} | ${ms(py.ms)} |`,
  );
}
if (steady.length > 1)
  console.log(
    `\nappend at ${stepCounts.at(-1)!.toLocaleString('en')} steps / at ${stepCounts[0]!.toLocaleString('en')} steps: ${(steady.at(-1)! / steady[0]!).toFixed(2)}x (target: within 2x)`,
  );

/** A run journal of `count` events (written in batches, so quickly). */
function runJournalOf(count: number): string {
  const file = path.join(work, `run-${count}`, 'journal.jsonl');
  rmSync(path.dirname(file), { recursive: true, force: true });
  const rj = new RunJournal(file, { env, durable: false });
  for (let done = 0; done < count; done += 5000)
    rj.record(
      Array.from({ length: Math.min(5000, count - done) }, (_, i) => ({
        event: 'tool.call',
        payload: new Map<string, string | number>([
          ['tool', 'edit'],
          ['i', done + i],
        ]),
      })),
    );
  return file;
}

/** An audit log of `count` entries in one day file (written directly, then one append builds the checkpoint). */
function auditLogOf(count: number, key: Uint8Array): string {
  const dir = path.join(work, `audit-${count}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const t0 = Date.UTC(2026, 0, 2) * 1000;
  const fd = openSync(path.join(dir, '2026-01-02.jsonl'), 'w');
  let prev = GENESIS_HMAC;
  let buf: string[] = [];
  for (let i = 0; i < count; i++) {
    const entry: JsonObject = {
      timestamp: auditTimestamp(t0 + i),
      event_type: 'replay.step',
      actor: 'bench',
      resource_type: 'journal',
      resource_id: 'bench',
      details: { agent: 'bench', seq: i },
      prev_hmac: prev,
    };
    const hmac = computeAuditHmac(key, prev, entry);
    buf.push(`${encode({ ...entry, hmac }, { separators: 'pretty' })}\n`);
    prev = hmac;
    if (buf.length === 10_000) {
      writeSync(fd, buf.join(''));
      buf = [];
    }
  }
  writeSync(fd, buf.join(''));
  closeSync(fd);
  return dir;
}

console.log('\n# Run journal and audit events against history (median wall time per event)');
console.log(
  '| events | run record (checkpoint) | run record, checkpoints off | audit event (checkpoint) | audit log size |',
);
console.log('| --- | --- | --- | --- | --- |');
const key = Buffer.from('b'.repeat(64));
const fields = (i: number) => ({ actor: 'bench', resource_type: 'journal', resource_id: 'bench', details: { i } });
for (const count of eventCounts) {
  const file = runJournalOf(count);
  const run = median(
    Array.from({ length: 51 }, (_, i) =>
      timeMs(() => void new RunJournal(file, { env }).record([{ event: 'e', payload: new Map([['i', i]]) }])),
    ),
  );
  const runOff = median(
    Array.from({ length: 3 }, (_, i) =>
      timeMs(() => void new RunJournal(file, { env: off }).record([{ event: 'e', payload: new Map([['i', i]]) }])),
    ),
  );
  const dir = auditLogOf(count, key);
  const t = Date.UTC(2026, 0, 2) * 1000 + count;
  appendAuditEvent(dir, key, 'replay.step', fields(-1), { nowMicros: t }); // the first append walks the log once
  const audit = median(
    Array.from({ length: 51 }, (_, i) =>
      timeMs(() => void appendAuditEvent(dir, key, 'replay.step', fields(i), { nowMicros: t + 1 + i })),
    ),
  );
  const logSize = readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .reduce((s, f) => s + statSync(path.join(dir, f)).size, 0);
  console.log(
    `| ${count.toLocaleString('en')} | ${ms(run)} | ${ms(runOff)} | ${ms(audit)} | ${(logSize / 1e6).toFixed(1)} MB |`,
  );
}
rmSync(work, { recursive: true, force: true });
