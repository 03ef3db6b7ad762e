import { ZERO_HASH } from '../util/hash';

export type FaultKind =
  | 'malformed_json'
  | 'seq_mismatch'
  | 'prev_hash_mismatch'
  | 'step_hash_mismatch'
  | 'head_mismatch'
  | 'non_canonical'
  | 'empty_journal';

/** One fault, with its 1-based line (null for whole-journal faults such as `head_mismatch`). */
export interface Fault {
  line: number | null;
  kind: FaultKind;
  message: string;
}

/** The shared "no faults" result (most rows): not allocated per row. */
export const NO_FAULTS: readonly Fault[] = Object.freeze([]);

// Hashes in full: a fault message is evidence, and JSON output never carries a cut hash.
const short = (h: string): string => h;

/**
 * The chain rules of docs/format.md §2, fed one well-formed row at a time. The expected seq
 * resynchronises on the row's own seq, and the chain follows the *stored*
 * step_hash, so one edit is reported once rather than at every later line.
 */
export class ChainChecker {
  expectedSeq = 0;
  prevHash = ZERO_HASH;
  steps = 0;

  check(
    line: number,
    row: { seq: number; prev_hash: string; step_hash: string },
    computedHash: string,
  ): readonly Fault[] {
    return this.finish(line, row, computedHash, this.link(line, row));
  }

  /** The seq and prev_hash checks of a row against the expected position (no state change). */
  link(line: number, row: { seq: number; prev_hash: string }): readonly Fault[] {
    if (row.seq === this.expectedSeq && row.prev_hash === this.prevHash) return NO_FAULTS;
    const faults: Fault[] = [];
    if (row.seq !== this.expectedSeq) {
      faults.push({ line, kind: 'seq_mismatch', message: `seq ${row.seq}, expected ${this.expectedSeq}` });
    }
    if (row.prev_hash !== this.prevHash) {
      faults.push({
        line,
        kind: 'prev_hash_mismatch',
        message: `chain break: prev_hash ${short(row.prev_hash)} does not match the previous step_hash ${short(this.prevHash)}`,
      });
    }
    return faults;
  }

  /** The step hash check, then advance past the row. */
  private finish(
    line: number,
    row: { seq: number; step_hash: string },
    computedHash: string,
    linkFaults: readonly Fault[],
  ): readonly Fault[] {
    let faults = linkFaults;
    if (computedHash !== row.step_hash) {
      faults = [
        ...linkFaults,
        {
          line,
          kind: 'step_hash_mismatch',
          message: `field tamper: stored step_hash ${short(row.step_hash)}, recomputed ${short(computedHash)}`,
        },
      ];
    }
    this.expectedSeq = row.seq + 1;
    this.prevHash = row.step_hash;
    this.steps++;
    return faults;
  }

  get head(): string {
    return this.prevHash;
  }
}
