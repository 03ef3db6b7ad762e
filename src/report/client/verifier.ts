import { ChainChecker, type Fault } from '../../journal/chain';
import { readRowLine, type StepRow } from '../../journal/row';
import { ZERO_HASH } from '../../util/hash';
import type { PageFault, PageVerifyResult, ReportWindow } from './data';

/**
 * The report page's chain check, run in chunks so the page stays responsive.
 * It is the journal's own code: each line is read by `readRowLine` and linked by
 * `ChainChecker` (src/journal, docs/format.md §2), the same walk `stepchain verify`
 * does, so kinds, lines and messages are the CLI's. In the page bundle,
 * src/util/hash.ts is swapped for `./hash.ts` (@noble/hashes).
 */

/** One line of the embedded journal as the page sees it. */
export interface PageEntry {
  /** The 1-based line in the whole journal. */
  line: number;
  /** Byte offsets of the line in the embedded bytes (end excludes the newline). */
  start: number;
  end: number;
  /** The row, when the line is a well-formed row. */
  row: StepRow | null;
  /** Recomputed step hash (well-formed rows only). */
  computed: string | null;
  faults: PageFault[];
}

export interface PageVerifier {
  entries: PageEntry[];
  /** Number of embedded lines (known up front). */
  total: number;
  /** Checks up to `maxLines` more lines; returns true when done. */
  run(maxLines: number): boolean;
  /** The result (complete once `run` returned true). */
  result(): PageVerifyResult;
}

export interface VerifierOptions {
  /** The head the chain must end at (a receipt manifest's), checked when the bytes reach the journal's end. */
  expectedHead?: string | null;
  /** When the bytes are a window of the journal: where they sit and what they link to. */
  window?: ReportWindow | null;
}

export function createVerifier(bytes: Uint8Array, options: VerifierOptions = {}): PageVerifier {
  const window = options.window ?? null;
  const lineOffset = window === null ? 0 : window.first_line - 1;
  // Line boundaries first (cheap), so progress has a denominator.
  const bounds: number[] = [];
  for (let s = 0; s < bytes.length;) {
    let nl = bytes.indexOf(0x0a, s);
    if (nl < 0) nl = bytes.length;
    bounds.push(s, nl);
    s = nl + 1;
  }
  const total = bounds.length / 2;
  const reachesEnd = window === null || lineOffset + total >= window.total_lines;
  const entries: PageEntry[] = [];
  const errors: PageFault[] = [];
  const chain = new ChainChecker();
  if (window !== null) {
    chain.expectedSeq = window.first_seq;
    chain.prevHash = window.anchor_hash;
  }
  let done = false;

  const checkLine = (idx: number): void => {
    const start = bounds[idx * 2]!;
    const end = bounds[idx * 2 + 1]!;
    const line = lineOffset + idx + 1;
    const entry: PageEntry = { line, start, end, row: null, computed: null, faults: [] };
    entries.push(entry);
    const add = (faults: readonly Fault[]): void => {
      for (const f of faults) {
        entry.faults.push(f);
        errors.push(f);
      }
    };
    if (end === start) {
      add([{ line, kind: 'malformed_json', message: 'empty line' }]);
      return;
    }
    const read = readRowLine(bytes.subarray(start, end));
    if (read.kind === 'malformed') {
      add([{ line, kind: 'malformed_json', message: read.reason }]);
      return;
    }
    entry.row = read.row;
    entry.computed = read.computedHash;
    add(chain.check(line, read.row, read.computedHash));
  };

  const head = (): string => (chain.steps > 0 || window !== null ? chain.head : ZERO_HASH);

  const finish = (): void => {
    if (window === null && bytes.length === 0)
      errors.push({ line: null, kind: 'empty_journal', message: 'journal has no steps' });
    const expected = options.expectedHead;
    if (reachesEnd && expected !== undefined && expected !== null && expected !== head()) {
      errors.push({ line: null, kind: 'head_mismatch', message: `head ${head()}, expected ${expected}` });
    }
    done = true;
  };

  return {
    entries,
    total,
    run(maxLines: number): boolean {
      if (done) return true;
      const stop = Math.min(total, entries.length + maxLines);
      while (entries.length < stop) checkLine(entries.length);
      if (entries.length >= total) finish();
      return done;
    },
    result(): PageVerifyResult {
      return { ok: done && errors.length === 0, head_hash: head(), steps: chain.steps, errors: errors.slice() };
    },
  };
}
