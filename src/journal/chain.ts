import { ZERO_HASH } from '../util/hash';
import type { RowView } from './row';

export type FaultKind =
  | 'malformed_json'
  | 'seq_mismatch'
  | 'prev_hash_mismatch'
  | 'step_hash_mismatch'
  | 'head_mismatch'
  | 'non_canonical'
  | 'empty_journal'
  /** An authenticated checkpoint recorded more than the file holds now (docs/journal.md, "Rollback"). */
  | 'rollback';

/**
 * One fault, with its 1-based line (null for whole-journal faults such as
 * `head_mismatch`). A run of the same kind on consecutive lines is one entry:
 * `line` through `last_line`, `count` faults, the first one's message.
 */
export interface Fault {
  line: number | null;
  kind: FaultKind;
  message: string;
  last_line?: number;
  count?: number;
}

/** Where faults go (a FaultList, or a plain array in tests). */
export interface FaultSink {
  add(f: Fault): void;
}

// Hashes in full: a fault message is evidence, and JSON output never carries a cut hash
// (a value that is no hash is quoted, so nothing in it reaches a terminal raw).
export const hashText = (h: string): string => (/^[0-9a-f]{64}$/.test(h) ? h : JSON.stringify(h));
const short = hashText;

/**
 * The chain rules of docs/journal.md, fed one row (JSON object line) at a time,
 * as the reference walks them: the expected seq is the number of rows walked
 * before (it does not re-synchronise on a row's own seq, so a deleted row makes
 * every later row a `seq_mismatch`), and the chain follows the *stored*
 * step_hash. A field the row's shape lacks (undefined in the view) is not checked.
 */
export class ChainChecker {
  expectedSeq = 0;
  /** The previous row's stored step_hash; null after a row that had none (no prev_hash matches it). */
  prevHash: string | null = ZERO_HASH;
  steps = 0;

  check(line: number, view: RowView, out: FaultSink): void {
    if (view.seq !== undefined && view.seq !== this.expectedSeq && BigInt(view.seq) !== BigInt(this.expectedSeq)) {
      out.add({ line, kind: 'seq_mismatch', message: `seq ${String(view.seq)}, expected ${this.expectedSeq}` });
    }
    if (view.prev_hash !== undefined && view.prev_hash !== this.prevHash) {
      out.add({
        line,
        kind: 'prev_hash_mismatch',
        message:
          this.prevHash === null
            ? `chain break: prev_hash ${short(view.prev_hash)}, but the previous row has no step_hash string`
            : `chain break: prev_hash ${short(view.prev_hash)} does not match the previous step_hash ${short(this.prevHash)}`,
      });
    }
    if (view.computedHash !== undefined && view.step_hash !== undefined && view.computedHash !== view.step_hash) {
      out.add({
        line,
        kind: 'step_hash_mismatch',
        message: `field tamper: stored step_hash ${short(view.step_hash)}, recomputed ${short(view.computedHash)}`,
      });
    }
    this.expectedSeq++;
    this.prevHash = view.step_hash ?? null;
    this.steps++;
  }

  /** The head: the last stored step_hash walked ('' when that row had none), 64 zeros before any row. */
  get head(): string {
    return this.steps === 0 ? ZERO_HASH : (this.prevHash ?? '');
  }
}
