import path from 'node:path';
import { CanonicalEncodeError, readOnce, type JsonValue } from '../canonical';
import { InputError } from '../errors';
import { ChainFile, type Planned, type TornTailMoved, tornTailOption } from '../util/chain-file';
import { ensureDir } from '../util/fs';
import { preciseNowMs } from '../util/time';
import { noteRow, RunFormat, type RunState } from './format';
import {
  computeEventHash,
  computePayloadHash,
  encodeRunRow,
  RESERVED_PAYLOAD_KEYS,
  type Payload,
  type RunRow,
} from './row';

export { RunJournalRecoveryError, type RunState } from './format';

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
  /** The environment for the checkpoint key and STEPCHAIN_CHECKPOINT (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Told whenever a torn tail is moved aside (default: one line on stderr). */
  onTornTail?: (m: TornTailMoved) => void;
}

function nowSeconds(): number {
  return preciseNowMs() / 1000;
}

/** Python `round(x, 3)` for the display-only elapsed_s (not hashed). */
function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/**
 * Validates an event type and payload for writing: the payload may not use
 * the envelope keys or `event`, and must have a JSON encoding (no NaN). Returns
 * the event as it will be hashed and written: each payload value read once
 * (readOnce), so the row's bytes are what its payload_hash covers.
 */
export function checkRunEvent(e: RunEventInput): RunEventInput {
  const event = e.event;
  if (typeof event !== 'string' || event === '')
    throw new InputError('run journal: the event type must be a non-empty string');
  for (const k of e.payload.keys()) {
    if (RESERVED_PAYLOAD_KEYS.has(k))
      throw new InputError(
        `run journal: payload key ${JSON.stringify(k)} is reserved (${[...RESERVED_PAYLOAD_KEYS].join(', ')})`,
      );
  }
  const payload = new Map<string, JsonValue>();
  try {
    for (const [k, v] of e.payload) payload.set(k, readOnce(v));
  } catch (err) {
    if (err instanceof CanonicalEncodeError) throw new InputError(`run journal: payload: ${err.message}`);
    throw err;
  }
  return { event, payload };
}

/**
 * A run journal (`<root>/.sdd/runs/<run>/journal.jsonl`) opened for appending,
 * over the chain-file writer (src/util/chain-file.ts): every append takes the
 * journal's lock and establishes the verified state (this object's last look,
 * the authenticated checkpoint, else the full walk: a row that does not verify
 * stops the append, naming its line, and a torn final line is moved aside),
 * then writes the new rows with one write and records the new state in the
 * checkpoint.
 */
export class RunJournal {
  readonly lockFile: string;
  private readonly chain: ChainFile<RunState>;

  constructor(
    readonly file: string,
    private readonly options: RunJournalOptions = {},
  ) {
    this.lockFile = `${file}.lock`;
    this.chain = new ChainFile(new RunFormat(file), {
      durable: options.durable ?? true,
      env: options.env ?? process.env,
      ...(options.lockTimeoutMs === undefined ? {} : { lockTimeoutMs: options.lockTimeoutMs }),
      ...tornTailOption(options),
    });
  }

  /**
   * Under the lock: recover and verify, let `plan` decide the events from the
   * verified state, append them. Returns the rows written (none when `plan`
   * returns none).
   */
  transact(plan: (state: RunState) => RunEventInput[]): { rows: RunRow[]; state: RunState } {
    ensureDir(path.dirname(this.file));
    const { result, state } = this.chain.append((s) => {
      const events = plan(s).map(checkRunEvent);
      return events.length === 0 ? undefined : this.rowsFor(s, events);
    });
    return { rows: result ?? [], state };
  }

  /** Appends events (validated) and returns their rows. */
  record(events: RunEventInput[]): RunRow[] {
    return this.transact(() => events).rows;
  }

  /** The verified state, without writing (still fail-closed). */
  state(): RunState {
    return this.transact(() => []).state;
  }

  /** The rows that extend the verified `state` with `events`, their bytes, and the state after them. */
  private rowsFor(state: RunState, events: RunEventInput[]): Planned<RunState, RunRow[]> {
    const ts = (this.options.now ?? nowSeconds)();
    if (!Number.isFinite(ts)) throw new InputError('run journal: ts must be a finite number');
    const start = state.startTs ?? ts;
    const rows: RunRow[] = [];
    let prev = state.head;
    let index = state.count;
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
    const after: RunState = {
      count: index,
      head: prev,
      startTs: start,
      capabilities: new Map(state.capabilities),
      mutationsByAgent: new Map(state.mutationsByAgent),
    };
    for (const r of rows) noteRow(after, r);
    const data = Buffer.from(rows.map((r) => `${encodeRunRow(r)}\n`).join(''), 'utf8');
    return { file: this.file, data, result: rows, next: (id) => ({ state: after, id }) };
  }
}
