import path from 'node:path';
import { CanonicalEncodeError, canonical, decodeUtf8 } from '../canonical';
import { InputError, IntegrityError, isOsError, osError } from '../errors';
import {
  checkpointKey,
  identityOf,
  readCheckpoint,
  sameIdentity,
  statIdentity,
  tailDigest,
  writeCheckpoint,
  type FileIdentity,
} from '../util/checkpoint';
import { appendDurably, ensureDir, finishLastLine, moveTornTailAside } from '../util/fs';
import { acquireLock, lockTimeoutFromEnv } from '../util/lock';
import { pausePoint } from '../util/pause';
import { parsesAsJson } from '../journal/json-syntax';
import { forEachReferenceLine, pyStrip, type LineEnd } from '../journal/lines';
import { printTornTailNotice, type TornTailMoved } from '../journal/tail';
import { CAPABILITY_EVENT, MUTATION_EVENT } from './provider-state';
import {
  computeEventHash,
  computePayloadHash,
  encodeRunRow,
  RESERVED_PAYLOAD_KEYS,
  RUN_GENESIS,
  type Payload,
  type RunRow,
} from './row';
import { describeRunFault, readRunJournalBytes, type RunFaultKind } from './verify';
import { checkpointedRunTip, runCheckpointFile, runRollback, RUN_CHECKPOINT_KIND } from './rollback';
import { priorCheckpoint } from '../util/rollback';
import { readRegularFile } from '../util/nofollow';

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
  /** The environment for the checkpoint key and STEPCHAIN_CHECKPOINT (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Told whenever a torn tail is moved aside (default: one line on stderr). */
  onTornTail?: (m: TornTailMoved) => void;
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

const CHECKPOINT_KIND = RUN_CHECKPOINT_KIND;

/** The state a checkpoint stores (Maps as pair lists). */
function stateToJson(s: RunState, tail: string): Record<string, unknown> {
  return {
    count: s.count,
    head: s.head,
    start_ts: s.startTs ?? null,
    capabilities: [...s.capabilities],
    mutations_by_agent: [...s.mutationsByAgent],
    tail_sha256: tail,
  };
}

function pairs(v: unknown): Map<string, unknown> | undefined {
  if (!Array.isArray(v)) return undefined;
  const m = new Map<string, unknown>();
  for (const p of v) {
    if (!Array.isArray(p) || p.length !== 2 || typeof p[0] !== 'string') return undefined;
    m.set(p[0], p[1]);
  }
  return m;
}

function stateFromJson(j: Record<string, unknown>): { state: RunState; tail: string } | undefined {
  const { count, head, start_ts, tail_sha256 } = j;
  const caps = pairs(j.capabilities);
  const muts = pairs(j.mutations_by_agent);
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0 || typeof head !== 'string')
    return undefined;
  if (start_ts !== null && (typeof start_ts !== 'number' || !Number.isFinite(start_ts))) return undefined;
  if (typeof tail_sha256 !== 'string' || caps === undefined || muts === undefined) return undefined;
  if ([...caps.values()].some((c) => typeof c !== 'string')) return undefined;
  if ([...muts.values()].some((n) => typeof n !== 'number' || !Number.isSafeInteger(n))) return undefined;
  return {
    state: {
      count,
      head,
      startTs: start_ts ?? undefined,
      capabilities: caps as Map<string, string>,
      mutationsByAgent: muts as Map<string, number>,
    },
    tail: tail_sha256,
  };
}

/**
 * A run journal (`<root>/.sdd/runs/<run>/journal.jsonl`) opened for appending.
 * Every append takes the journal's lock and establishes the verified state:
 * from the authenticated checkpoint beside the file when it holds for the file
 * as it is (docs/journal.md, "Checkpoints"), else by re-verifying the whole
 * chain (fail-closed: a row that does not verify stops the append, naming its
 * line) and moving a torn final line aside. Then it writes the new rows with
 * one write and records the new state in the checkpoint.
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
    ensureDir(path.dirname(this.file));
    const timeoutMs = this.options.lockTimeoutMs ?? lockTimeoutFromEnv(this.options.env ?? process.env);
    const lock = acquireLock(this.lockFile, timeoutMs === undefined ? {} : { timeoutMs });
    try {
      let id: FileIdentity | undefined;
      try {
        id = statIdentity(this.file);
      } catch (e) {
        if (isOsError(e)) throw osError(e, this.file, 'cannot open');
        throw e;
      }
      const fromCheckpoint = this.fromCheckpoint(id);
      const { state, known } = fromCheckpoint !== undefined ? { state: fromCheckpoint, known: id } : this.recover(id);
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
      lock.refresh();
      lock.assertHeld();
      const written = appendDurably(this.file, data, this.durable, id === undefined ? 'new' : known);
      const after: RunState = {
        count: index,
        head: prev,
        startTs: start,
        capabilities: new Map(state.capabilities),
        mutationsByAgent: new Map(state.mutationsByAgent),
      };
      for (const r of rows) noteRow(after, r);
      pausePoint('run:after-write', this.options.env);
      // Only a file nothing else touched while we verified and wrote it is vouched for (docs/journal.md, "Checkpoints").
      if (written.untouched) this.saveCheckpoint(identityOf(written.after), after);
      return { rows, state: after };
    } finally {
      lock();
    }
  }

  private key(): Buffer | undefined {
    return checkpointKey(this.options.env ?? process.env);
  }

  private checkpointFile(): string {
    return runCheckpointFile(this.file);
  }

  /** The state the checkpoint records, when it holds for the file whose identity is `id` now. */
  private fromCheckpoint(id: FileIdentity | undefined): RunState | undefined {
    const key = this.key();
    if (key === undefined || id === undefined) return undefined;
    const raw = readCheckpoint(this.checkpointFile(), CHECKPOINT_KIND, id, key);
    const parsed = raw === undefined ? undefined : stateFromJson(raw);
    if (parsed === undefined) return undefined;
    try {
      if (tailDigest(this.file, Number(id.size)) !== parsed.tail) return undefined;
    } catch {
      return undefined;
    }
    return parsed.state;
  }

  private saveCheckpoint(id: FileIdentity | undefined, state: RunState): void {
    const key = this.key();
    if (key === undefined || id === undefined) return;
    let tail: string;
    try {
      tail = tailDigest(this.file, Number(id.size));
    } catch {
      return;
    }
    writeCheckpoint(this.checkpointFile(), CHECKPOINT_KIND, this.file, id, stateToJson(state, tail), key);
  }

  /** The rollback rule (docs/journal.md, "Rollback") against the authenticated checkpoint, whatever the file's identity now. */
  private refuseRollback(count: number, entries: readonly { row: RunRow }[], tornFrom: number | undefined): void {
    const key = this.key();
    if (key === undefined) return;
    const prior = priorCheckpoint(runCheckpointFile(this.file), CHECKPOINT_KIND, this.options.env ?? process.env, key);
    const ck = prior !== undefined && 'record' in prior ? checkpointedRunTip(prior.record) : undefined;
    if (ck === undefined) return;
    const f = runRollback(ck, { count, hashAt: entries[ck.steps - 1]?.row.event_hash }, tornFrom);
    if (f !== undefined)
      throw new RunJournalRecoveryError(
        `${this.file}: rollback: ${f.message}; refusing to append. Remedy: restore the journal from a copy; to give up ` +
          `its history instead, move it aside (mv ${this.file} ${this.file}.rolled-back) so a fresh run can start, and ` +
          `keep it for \`stepchain run verify\``,
      );
  }

  /** Appends events (validated) and returns their rows. */
  record(events: RunEventInput[]): RunRow[] {
    return this.transact(() => events).rows;
  }

  /** The verified state, without writing (still fail-closed). */
  state(): RunState {
    return this.transact(() => []).state;
  }

  /**
   * The full walk (fail-closed), with the torn-tail rule of per-step journals
   * (docs/journal.md, "Recovery on open"): only bytes after the last line
   * ending that do not parse, or a final line that does not parse as JSON at
   * all, are a torn tail (moved aside, and the operator told); any line that
   * parses is judged as a row, and a fault refuses the journal. Blank lines
   * are kept. `id` is the file's identity before the walk: the result is
   * vouched for (`known`) only if the file is still exactly that.
   */
  private recover(id: FileIdentity | undefined): { state: RunState; known: FileIdentity | undefined } {
    const buf = readRegularFile(this.file) ?? Buffer.alloc(0);
    // The last line that is not blank, and the end of the one before it.
    let last: { start: number; end: number; next: number; ending: LineEnd } | undefined;
    let beforeLast = 0;
    let trailingEof = false;
    forEachReferenceLine(buf, 0, buf.length, (start, end, next, ending) => {
      if (isBlankLine(buf.subarray(start, end))) {
        trailingEof = ending === 'eof';
        return;
      }
      beforeLast = last?.next ?? 0;
      last = { start, end, next, ending };
      trailingEof = false;
    });
    let validEnd = buf.length;
    let finishLine = false;
    if (last !== undefined && !parsesAsJson(buf.subarray(last.start, last.end))) {
      validEnd = beforeLast; // a torn write (with the blank lines around it)
    } else if (last !== undefined && last.ending === 'eof') {
      finishLine = true; // judged below as a row: if it verifies, its newline is written
    } else if (trailingEof && last !== undefined) {
      validEnd = last.next; // blank bytes after the last line ending
    }
    // Every fault listed: the first that refuses must be found however many others come before it.
    const r = readRunJournalBytes(buf.subarray(0, validEnd), { maxListed: Infinity });
    const bad = r.errors.find((f) => REFUSE.has(f.kind));
    if (bad !== undefined) {
      const e = new RunJournalRecoveryError(
        `${describeRunFault(this.file, bad)}; refusing to append. Remedy: move the journal aside ` +
          `(mv ${this.file} ${this.file}.corrupt) so a fresh run can start, and keep it for \`stepchain run verify\``,
      );
      e.details = [{ file: this.file, line: bad.line, kind: bad.kind, message: bad.message }];
      throw e;
    }
    // Rollback is tampering: never repair or extend a file that holds less than a checkpoint recorded (before any repair).
    // A missing file is a fresh run (the checkpoint of one moved aside is overwritten by its first append).
    if (id !== undefined)
      this.refuseRollback(r.count, r.entries, validEnd < buf.length && !finishLine ? validEnd : undefined);
    if (finishLine) {
      finishLastLine(this.file, buf.length, this.durable);
    } else if (validEnd < buf.length) {
      const sideFile = moveTornTailAside(this.file, validEnd, this.durable);
      (this.options.onTornTail ?? printTornTailNotice)({ file: this.file, sideFile, bytes: buf.length - validEnd });
    }
    const first = r.entries[0]?.row.ts;
    const state: RunState = {
      count: r.count,
      head: r.count > 0 ? r.head_hash : RUN_GENESIS,
      startTs: first !== undefined && Number.isFinite(first) ? first : undefined,
      capabilities: new Map<string, string>(),
      mutationsByAgent: new Map<string, number>(),
    };
    for (const { row } of r.entries) noteRow(state, row);
    // Vouched for only if nothing changed the file while it was walked (a repaired one is walked again next time).
    let now: FileIdentity | undefined;
    try {
      now = statIdentity(this.file);
    } catch {
      now = undefined;
    }
    const known =
      now !== undefined && id !== undefined && !finishLine && validEnd === buf.length && sameIdentity(now, id)
        ? now
        : undefined;
    if (known !== undefined) this.saveCheckpoint(known, state);
    return { state, known };
  }
}

/** A line Python's str.strip() leaves empty. */
function isBlankLine(raw: Uint8Array): boolean {
  for (const c of raw) {
    if (c === 0x20 || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f)) continue;
    if (c < 0x80) return false;
    try {
      return pyStrip(decodeUtf8(raw)) === '';
    } catch {
      return false; // invalid UTF-8 is not blank
    }
  }
  return true;
}

/** Folds a row's capability or mutation into the state. */
function noteRow(state: RunState, row: RunRow): void {
  if (row.event === CAPABILITY_EVENT) {
    const a = row.payload.get('adapter');
    const c = row.payload.get('capability');
    if (typeof a === 'string' && typeof c === 'string') state.capabilities.set(a, c);
  } else if (row.event === MUTATION_EVENT) {
    const agent = row.payload.get('agent_id');
    const key = typeof agent === 'string' ? agent : '';
    state.mutationsByAgent.set(key, (state.mutationsByAgent.get(key) ?? 0) + 1);
  }
}
