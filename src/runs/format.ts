import { decodeUtf8 } from '../canonical';
import { IntegrityError } from '../errors';
import { tailDigest, type CheckpointRecord, type FileIdentity } from '../util/checkpoint';
import { chainFileIdentity, ChainFormatData } from '../util/chain-file';
import type { ChainFormat, TailRepair, Vouched, Walked } from '../util/chain-file';
import { readRegularFile } from '../util/nofollow';
import type { RollbackFault } from '../util/rollback';
import { parsesAsJson } from '../journal/json-syntax';
import { forEachReferenceLine, pyStrip, type LineEnd } from '../journal/lines';
import { CAPABILITY_EVENT, MUTATION_EVENT } from './provider-state';
import { checkpointedRunTip, runCheckpointFile, RUN_CHECKPOINT_KIND } from './rollback';
import { RUN_GENESIS, type RunRow } from './row';
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

/** Refusal to extend a run journal: names the file, line and remedy. Exit 1. */
export class RunJournalRecoveryError extends IntegrityError {
  override name = 'RunJournalRecoveryError';
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

/**
 * The run journal's rules for the chain-file writer (src/util/chain-file.ts):
 * its state (count, head, the run's start, capabilities, mutations per
 * agent), its walk (the torn-tail rule of per-step journals over run rows),
 * and what its checkpoint records (Maps as pair lists, the digest of the
 * file's last 4 KiB).
 */
export class RunFormat extends ChainFormatData implements ChainFormat<RunState> {
  constructor(target: string) {
    super(RUN_CHECKPOINT_KIND, 'events', target, runCheckpointFile(target), { pauseName: 'run' });
  }

  empty(): RunState {
    return {
      count: 0,
      head: RUN_GENESIS,
      startTs: undefined,
      capabilities: new Map(),
      mutationsByAgent: new Map(),
    };
  }

  identity(): FileIdentity | undefined {
    return chainFileIdentity(this.target);
  }

  restore(saved: Record<string, unknown>, id: FileIdentity): RunState | undefined {
    const parsed = stateFromJson(saved);
    if (parsed === undefined) return undefined;
    try {
      if (tailDigest(this.target, Number(id.size)) !== parsed.tail) return undefined;
    } catch {
      return undefined;
    }
    return parsed.state;
  }

  record(state: RunState, id: FileIdentity): Record<string, unknown> | undefined {
    try {
      return stateToJson(state, tailDigest(this.target, Number(id.size)));
    } catch {
      return undefined;
    }
  }

  /**
   * The full walk (fail-closed), with the torn-tail rule of per-step journals
   * (docs/journal.md, "Recovery on open"): only bytes after the last line
   * ending that do not parse, or a final line that does not parse as JSON at
   * all, are a torn tail (to move aside); any line that parses is judged as a
   * row, and a fault refuses the journal. Blank lines are kept.
   */
  walk(): Walked<RunState> {
    const file = this.target;
    const buf = readRegularFile(file) ?? Buffer.alloc(0);
    const { validEnd, finishLine } = tailOf(buf);
    // Every fault listed: the first that refuses must be found however many others come before it.
    const r = readRunJournalBytes(buf.subarray(0, validEnd), { maxListed: Infinity });
    const bad = r.errors.find((f) => REFUSE.has(f.kind));
    if (bad !== undefined) {
      const e = new RunJournalRecoveryError(
        `${describeRunFault(file, bad)}; refusing to append. Remedy: move the journal aside ` +
          `(mv ${file} ${file}.corrupt) so a fresh run can start, and keep it for \`stepchain run verify\``,
      );
      e.details = [{ file, line: bad.line, kind: bad.kind, message: bad.message }];
      throw e;
    }
    const repairs: TailRepair[] = [];
    if (finishLine) repairs.push({ file, finishAt: buf.length });
    else if (validEnd < buf.length) repairs.push({ file, tornFrom: validEnd, size: buf.length });
    const first = r.entries[0]?.row.ts;
    const state: RunState = {
      ...this.empty(),
      count: r.count,
      head: r.count > 0 ? r.head_hash : RUN_GENESIS,
      startTs: first !== undefined && Number.isFinite(first) ? first : undefined,
    };
    for (const { row } of r.entries) noteRow(state, row);
    return { state, steps: r.count, repairs, headAt: (v) => r.entries[v.steps - 1]?.row.event_hash };
  }

  vouchedBy(state: RunState, id: FileIdentity): Vouched {
    return { steps: state.count, head: state.head, endIn: () => Number(id.size) };
  }

  vouchedIn(record: CheckpointRecord): Vouched | undefined {
    const tip = checkpointedRunTip(record);
    return tip === undefined ? undefined : { steps: tip.steps, head: tip.head, endIn: () => tip.end };
  }

  rollbackError(f: RollbackFault): Error {
    const file = this.target;
    return new RunJournalRecoveryError(
      `${file}: rollback: ${f.message}; refusing to append. Remedy: restore the journal from a copy; to give up ` +
        `its history instead, move it aside (mv ${file} ${file}.rolled-back) so a fresh run can start, and ` +
        `keep it for \`stepchain run verify\``,
    );
  }
}

/**
 * Where the rows of a run journal's bytes end: before a torn write (the last
 * line that is not blank does not parse, with the blank lines around it), or
 * before blank bytes after the last line ending; `finishLine` when the last
 * line parses but lost its newline (judged as a row: if it verifies, its
 * newline is written).
 */
function tailOf(buf: Buffer): { validEnd: number; finishLine: boolean } {
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
  if (last === undefined) return { validEnd: buf.length, finishLine: false };
  if (!parsesAsJson(buf.subarray(last.start, last.end))) return { validEnd: beforeLast, finishLine: false };
  if (last.ending === 'eof') return { validEnd: buf.length, finishLine: true };
  return { validEnd: trailingEof ? last.next : buf.length, finishLine: false };
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
export function noteRow(state: RunState, row: RunRow): void {
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
