import { ChainChecker, type Fault } from '../../journal/chain';
import { FaultList } from '../../journal/faults';
import { forEachReferenceLine } from '../../journal/lines';
import { readRowLine, type StepRow } from '../../journal/row';
import { noRowsFault } from '../../journal/no-rows';
import type { PageFault, PageVerifyResult, ReportWindow } from './data';

/**
 * The report page's chain check, run in chunks so the page stays responsive.
 * It is the journal's own code: lines framed as the reference frames them
 * (`forEachReferenceLine`), each read by `readRowLine` and linked by `ChainChecker`,
 * faults collected in a `FaultList` (src/journal, docs/journal.md), the same walk
 * `stepchain verify` does, so kinds, lines, messages and runs are the CLI's. In the page bundle,
 * src/util/hash.ts is swapped for `./hash.ts` (@noble/hashes).
 */

/** One line of the embedded journal as the page sees it. */
export interface PageEntry {
  /** The 1-based line in the whole journal. */
  line: number;
  /** Byte offsets of the line in the embedded bytes (end excludes its line ending). */
  start: number;
  end: number;
  /** The row, when the line is a row of the right shape. */
  row: StepRow | null;
  /** Recomputed step hash (rows whose hashed fields are all there). */
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
  // Line boundaries first (cheap), so progress has a denominator: \n, \r\n or a bare \r, as the reference reads.
  const bounds: number[] = [];
  forEachReferenceLine(bytes, 0, bytes.length, (s, e) => void bounds.push(s, e));
  const total = bounds.length / 2;
  const reachesEnd = window === null || lineOffset + total >= window.total_lines;
  const entries: PageEntry[] = [];
  const faults = new FaultList();
  const chain = new ChainChecker();
  if (window !== null) {
    chain.expectedSeq = window.first_seq;
    chain.prevHash = window.anchor_hash;
  }
  let done = false;
  let malformed = false;

  const checkLine = (idx: number): void => {
    const start = bounds[idx * 2]!;
    const end = bounds[idx * 2 + 1]!;
    const line = lineOffset + idx + 1;
    const entry: PageEntry = { line, start, end, row: null, computed: null, faults: [] };
    entries.push(entry);
    const sink = {
      add(f: Fault): void {
        entry.faults.push(f);
        faults.add(f);
      },
    };
    const read = readRowLine(bytes.subarray(start, end));
    if (read.kind === 'blank') return; // skipped, as the reference skips it
    if (read.kind === 'malformed') {
      malformed = true;
      sink.add({ line, kind: 'malformed_json', message: read.reason });
      return;
    }
    if (read.shape !== undefined) sink.add({ line, kind: 'malformed_json', message: read.shape });
    chain.check(line, read.view, sink);
    entry.row = read.row ?? null;
    entry.computed = read.view.computedHash ?? null;
  };

  const head = (): string => chain.head;

  const finish = (): void => {
    if (window === null) {
      // The rule verify applies (src/journal/no-rows.ts).
      const noRows = noRowsFault({ bytes: bytes.length, steps: chain.steps, malformedLines: malformed });
      if (noRows !== undefined) faults.add(noRows);
    }
    const expected = options.expectedHead;
    if (reachesEnd && expected !== undefined && expected !== null && expected !== head()) {
      faults.add({ line: null, kind: 'head_mismatch', message: `head ${head()}, expected ${expected}` });
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
      // The shape of verifyJournalBytes' result: runs collapsed, the list capped, both counts.
      const r = {
        ok: done && faults.total === 0,
        head_hash: head(),
        steps: chain.steps,
        errors: faults.list.slice(),
        fault_count: faults.total,
        errors_omitted: faults.omitted,
      };
      return r;
    },
  };
}
