import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CanonicalEncodeError, canonical } from '../canonical';
import { InputError, IntegrityError } from '../errors';
import { appendDurably, finishLastLine, moveTornTailAside } from '../util/fs';
import { acquireLock } from '../util/lock';
import { CAPABILITY_EVENT, MUTATION_EVENT } from './provider-state';
import {
  computeEventHash,
  computePayloadHash,
  encodeRunRow,
  readRunLine,
  RESERVED_PAYLOAD_KEYS,
  RUN_GENESIS,
  type Payload,
  type RunRow,
} from './row';
import { describeRunFault, readRunJournalBytes, type RunFaultKind } from './verify';

/** What a writer knows about the verified journal it extends. */
export interface RunState {
  count: number;
  head: string;
  /** ts of row 0 (elapsed_s is measured from it), undefined for an empty journal. */
  startTs: number | undefined;
  capabilities: Map<string, string>;
  /** Mutation rows per agent id (the next mutation's default step_index). */
  mutationsByAgent: Map<string, number>;
}

export interface RunEventInput {
  event: string;
  payload: Payload;
}

export interface RunJournalOptions {
  /** fsync each append (default true). */
  durable?: boolean;
  lockTimeoutMs?: number;
  /** Unix seconds for the rows' ts (default now). */
  now?: () => number;
}

/** Faults that make a journal unsafe to extend. A flagged mutation is not one: it is policy, and the run keeps its record. */
const REFUSE: ReadonlySet<RunFaultKind> = new Set<RunFaultKind>([
  'malformed_json',
  'index_mismatch',
  'prev_hash_mismatch',
  'payload_hash_mismatch',
  'event_hash_mismatch',
  'content_address_mismatch',
  'bad_capability',
  'capability_conflict',
]);

/** Refusal to extend a run journal: names the file, line and remedy. Exit 1. */
export class RunJournalRecoveryError extends IntegrityError {
  override name = 'RunJournalRecoveryError';
}

function nowSeconds(): number {
  return (performance.timeOrigin + performance.now()) / 1000;
}

/** Python `round(x, 3)` for the display-only elapsed_s (not hashed). */
function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/**
 * Validates an event type and payload for writing: the payload may not use
 * the envelope keys or `event`, and must have a JSON encoding (no NaN).
 */
export function checkRunEvent(e: RunEventInput): void {
  if (typeof e.event !== 'string' || e.event === '')
    throw new InputError('run journal: the event type must be a non-empty string');
  for (const k of e.payload.keys()) {
    if (RESERVED_PAYLOAD_KEYS.has(k))
      throw new InputError(
        `run journal: payload key ${JSON.stringify(k)} is reserved (${[...RESERVED_PAYLOAD_KEYS].join(', ')})`,
      );
  }
  try {
    canonical(e.payload);
  } catch (err) {
    if (err instanceof CanonicalEncodeError) throw new InputError(`run journal: payload: ${err.message}`);
    throw err;
  }
}

/**
 * A run journal (`<root>/.sdd/runs/<run>/journal.jsonl`) opened for appending.
 * Every append takes the journal's lock and re-verifies the whole chain inside
 * it (fail-closed: a row that does not verify stops the append, naming its
 * line), moves a torn final line aside, then writes the new rows with one write.
 */
export class RunJournal {
  readonly lockFile: string;
  private readonly durable: boolean;
  private readonly options: RunJournalOptions;

  constructor(
    readonly file: string,
    options: RunJournalOptions = {},
  ) {
    this.lockFile = `${file}.lock`;
    this.durable = options.durable ?? true;
    this.options = options;
  }

  /**
   * Under the lock: recover and verify, let `plan` decide the events from the
   * verified state, append them. Returns the rows written (none when `plan`
   * returns none).
   */
  transact(plan: (state: RunState) => RunEventInput[]): { rows: RunRow[]; state: RunState } {
    mkdirSync(path.dirname(this.file), { recursive: true });
    const release = acquireLock(
      this.lockFile,
      this.options.lockTimeoutMs === undefined ? {} : { timeoutMs: this.options.lockTimeoutMs },
    );
    try {
      const state = this.recover();
      const events = plan(state);
      for (const e of events) checkRunEvent(e);
      if (events.length === 0) return { rows: [], state };
      const rows: RunRow[] = [];
      let prev = state.head;
      let index = state.count;
      const ts = (this.options.now ?? nowSeconds)();
      if (!Number.isFinite(ts)) throw new InputError('run journal: ts must be a finite number');
      const start = state.startTs ?? ts;
      for (const e of events) {
        const payload_hash = computePayloadHash(e.event, e.payload);
        const event_hash = computeEventHash(prev, e.event, payload_hash, index);
        rows.push({
          ts,
          elapsed_s: round3(ts - start),
          index,
          event: e.event,
          prev_hash: prev,
          payload_hash,
          event_hash,
          payload: e.payload,
        });
        prev = event_hash;
        index++;
      }
      const data = Buffer.from(rows.map((r) => `${encodeRunRow(r)}\n`).join(''), 'utf8');
      appendDurably(this.file, data, this.durable);
      const after: RunState = { ...state, count: index, head: prev, startTs: start };
      return { rows, state: after };
    } finally {
      release();
    }
  }

  /** Appends events (validated) and returns their rows. */
  record(events: RunEventInput[]): RunRow[] {
    return this.transact(() => events).rows;
  }

  /** The verified state, without writing (still fail-closed). */
  state(): RunState {
    return this.transact(() => []).state;
  }

  private recover(): RunState {
    let buf: Buffer;
    try {
      buf = readFileSync(this.file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') buf = Buffer.alloc(0);
      else
        throw new InputError(`${this.file}: cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    let validEnd = buf.length;
    let finishLine = false;
    if (buf.length > 0 && buf[buf.length - 1] !== 0x0a) {
      // A torn write, or a complete row whose newline never made it.
      const cut = buf.lastIndexOf(0x0a) + 1;
      const whole = readRunJournalBytes(buf);
      const lastLine = whole.entries.at(-1);
      const lineCount = buf.subarray(0, cut).toString('latin1').split('\n').length;
      const lastFaults = whole.errors.filter((f) => f.line === lineCount && REFUSE.has(f.kind));
      if (lastLine !== undefined && lastLine.line === lineCount && lastFaults.length === 0) finishLine = true;
      else validEnd = cut;
    } else if (buf.length > 0) {
      // A terminated last line that does not parse is a torn write too (nothing follows it).
      const start = buf.lastIndexOf(0x0a, buf.length - 2) + 1;
      if (readRunLine(buf.subarray(start, buf.length - 1)).kind === 'malformed') validEnd = start;
    }
    const valid = buf.subarray(0, validEnd);
    const r = readRunJournalBytes(valid);
    const bad = r.errors.find((f) => REFUSE.has(f.kind));
    if (bad !== undefined) {
      throw new RunJournalRecoveryError(
        `${describeRunFault(this.file, bad)}; refusing to append. Remedy: move the journal aside ` +
          `(mv ${this.file} ${this.file}.corrupt) so a fresh run can start, and keep it for \`stepchain run verify\``,
      );
    }
    if (finishLine) {
      finishLastLine(this.file, buf.length, this.durable);
    } else if (validEnd < buf.length) {
      moveTornTailAside(this.file, validEnd, this.durable);
    }
    const capabilities = new Map<string, string>();
    const mutationsByAgent = new Map<string, number>();
    for (const { row } of r.entries) {
      if (row.event === CAPABILITY_EVENT) {
        const a = row.payload.get('adapter');
        const c = row.payload.get('capability');
        if (typeof a === 'string' && typeof c === 'string') capabilities.set(a, c);
      } else if (row.event === MUTATION_EVENT) {
        const agent = row.payload.get('agent_id');
        const key = typeof agent === 'string' ? agent : '';
        mutationsByAgent.set(key, (mutationsByAgent.get(key) ?? 0) + 1);
      }
    }
    const first = r.entries[0]?.row.ts;
    return {
      count: r.count,
      head: r.count > 0 ? r.head_hash : RUN_GENESIS,
      startTs: first !== undefined && Number.isFinite(first) ? first : undefined,
      capabilities,
      mutationsByAgent,
    };
  }
}
