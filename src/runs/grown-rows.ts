import { GrownFiles, grownReads } from '../util/grown-file';
import { RUN_GENESIS, type RunRow } from './row';
import { readRunJournalBytes, readRunJournalFile } from './verify';

/**
 * The rows of one event in a run journal, read as the journal grows (GrownFiles). `record` links each exchange to the
 * hook steps that ran its calls right after appending it, and it read the hook journal's run journal whole twice for
 * every exchange (the links there already, then again under the append's lock): 200-240 ms per exchange at 5,000
 * links, quadratic over a session. Only the lines appended since the last look are walked, seeded with the chain as
 * it stood (their first row must link to the last one read); anything else: read again from its start, as before
 * (its well-formed rows, whether or not the chain holds). What is linked is checked again against the whole verified
 * journals by `run verify` and `check` (docs/record.md).
 */
interface Rows {
  index: number;
  prev: string;
  /** The rows of every event, in order (the callers ask for one event each). */
  rows: RunRow[];
}

/** Per run journal, for the life of the process (a recording's append worker links after every exchange). */
const grown = new GrownFiles<Rows>(() => ({ index: 0, prev: RUN_GENESIS, rows: [] }), walkRows);

/** Bytes walked on, and whole reads made, since the process started (what the tests hold the reading to). */
const reads = { wholeReads: 0 };

/** The well-formed rows of `event` in the run journal `file`, in order (none when there is no such file). */
export function grownEventRows(file: string, event: string): readonly RunRow[] {
  const looked = grown.look(file);
  if (looked === null) return [];
  if (looked !== undefined) return looked.rows.filter((r) => r.event === event);
  // Lines that do not hold as an append (or too many to walk at once): the whole file, as it reads.
  reads.wholeReads++;
  return readRunJournalFile(file)
    .entries.map((e) => e.row)
    .filter((r) => r.event === event);
}

/** Forgets what was read (tests compare a look that walks on with one from the start). */
export function forgetGrownRows(): void {
  grown.forget();
}

/** How much was read so far: each byte of a journal that only grows is walked once, and nothing read whole. */
export function grownRowsReads(): { walkedBytes: number; wholeReads: number } {
  return { walkedBytes: grownReads.walkedBytes, wholeReads: reads.wholeReads };
}

/** Walks whole lines appended to a run journal, seeded with the chain as it stood; false when one does not hold. */
function walkRows(bytes: Buffer, k: Rows): boolean {
  const r = readRunJournalBytes(bytes, { seed: { prev_hash: k.prev, index: k.index } });
  // `count` is the index after the walk (it began at k.index): every line a row, every row linked.
  if (!r.chain_ok || r.entries.length !== r.count - k.index) return false;
  for (const { row } of r.entries) k.rows.push(row);
  k.index = r.count;
  k.prev = r.head_hash;
  return true;
}
