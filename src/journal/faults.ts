import type { Fault, FaultKind } from './chain';

/**
 * Fault lists stay bounded whatever the input (docs/journal.md, "Fault output"):
 * a run of the same kind on consecutive lines is one entry (`line`..`last_line`,
 * `count`), and past this many entries faults are only counted.
 */
export const MAX_LISTED_FAULTS = 1000;

/** What a bounded list needs of a fault: its line (null: the whole file), kind, and the run it may stand for. */
export interface ListedFault {
  line: number | null;
  kind: string;
  last_line?: number;
  count?: number;
}

/**
 * An ordered, bounded list of faults with the total count. Journal faults by
 * default; run journal and audit faults too (`mayJoin` says whether a fault may
 * extend the run before it: one file of a multi-file log, say).
 */
export class FaultList<F extends ListedFault = Fault> {
  readonly list: F[] = [];
  /** Every fault added (a run of n counts n). */
  total = 0;
  /** Faults counted but not listed (past MAX_LISTED_FAULTS entries). */
  omitted = 0;
  /** The latest entry of each kind, which a fault on the next line extends. */
  private readonly open = new Map<string, F>();

  constructor(
    private readonly cap = MAX_LISTED_FAULTS,
    private readonly mayJoin: (run: F, next: F) => boolean = () => true,
  ) {}

  add(f: F): void {
    const n = f.count ?? 1;
    this.total += n;
    if (f.line !== null) {
      const o = this.open.get(f.kind);
      if (o !== undefined && (o.last_line ?? o.line!) + 1 === f.line && this.mayJoin(o, f)) {
        o.count = (o.count ?? 1) + n;
        o.last_line = f.last_line ?? f.line;
        return;
      }
    }
    // Whole-journal faults (no line: at most an empty journal and a head mismatch) are always listed.
    if (this.list.length >= this.cap && f.line !== null) {
      this.omitted += n;
      this.open.delete(f.kind);
      return;
    }
    const entry: F = { ...f };
    this.list.push(entry);
    if (f.line !== null) this.open.set(f.kind, entry);
  }

  /** Faults counted elsewhere and not listed (a slice's own overflow). */
  addOmitted(n: number): void {
    this.total += n;
    this.omitted += n;
  }

  /** Adds every entry of another list, then its overflow. */
  addAll(other: { list: readonly F[]; omitted: number }): void {
    for (const f of other.list) this.add(f);
    if (other.omitted > 0) this.addOmitted(other.omitted);
  }
}

/** The order of one line's faults: its shape, then the reference's seq, prev_hash, step_hash, then strict notes. */
export const FAULT_ORDER: Record<FaultKind, number> = {
  malformed_json: 0,
  seq_mismatch: 1,
  prev_hash_mismatch: 2,
  step_hash_mismatch: 3,
  non_canonical: 4,
  head_mismatch: 5,
  empty_journal: 6,
  rollback: 7,
};

/** Every (line, kind) a fault list stands for, runs expanded, in line order (for tests and comparisons). */
export function expandFaults(faults: readonly Fault[]): { line: number | null; kind: FaultKind }[] {
  const out: { line: number | null; kind: FaultKind; at: number }[] = [];
  let at = 0;
  for (const f of faults) {
    if (f.line === null || f.last_line === undefined) out.push({ line: f.line, kind: f.kind, at: at++ });
    else for (let l = f.line; l <= f.last_line; l++) out.push({ line: l, kind: f.kind, at: at++ });
  }
  out.sort(
    (a, b) => (a.line ?? Infinity) - (b.line ?? Infinity) || FAULT_ORDER[a.kind] - FAULT_ORDER[b.kind] || a.at - b.at,
  );
  return out.map(({ line, kind }) => ({ line, kind }));
}
