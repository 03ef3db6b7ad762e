import { closeSync, fstatSync } from 'node:fs';
import { readRange } from '../util/fs';
import { DEFAULT_MAX_READ_BYTES, openRegularFile } from '../util/nofollow';
import { RUN_GENESIS, type RunRow } from './row';
import { readRunJournalBytes, readRunJournalFile } from './verify';

/**
 * The rows of one event in a run journal, read as the journal grows. `record` links each exchange to the hook steps
 * that ran its calls right after appending it, and it read the hook journal's run journal whole twice for every
 * exchange (the links there already, then again under the append's lock): 200-240 ms per exchange at 5,000 links,
 * quadratic over a session. Only the lines appended since the last look are walked, seeded with the chain as it
 * stood (their first row must link to the last one read). The file replaced, cut, its last bytes read changed, or new
 * lines that do not hold as an append: read again from its start, as before (its well-formed rows, whether or not
 * the chain holds). A line still being written (no newline yet) waits for the next look. What is linked is checked
 * again against the whole verified journals by `run verify` and `check` (docs/record.md).
 */
interface Read {
  dev: bigint;
  ino: bigint;
  /** Bytes walked: up to the last newline read. */
  size: number;
  index: number;
  prev: string;
  /** The last bytes read (up to TAIL_BYTES): still there, unchanged, or the journal is read again from its start. */
  tail: Buffer;
  rows: RunRow[];
}

const TAIL_BYTES = 256;
/** Per run journal and event, for the life of the process (a recording's append worker links after every exchange). */
const known = new Map<string, Read>();

/** The well-formed rows of `event` in the run journal `file`, in order (none when there is no such file). */
export function grownEventRows(file: string, event: string): readonly RunRow[] {
  const key = `${event}\0${file}`;
  const opened = openRegularFile(file);
  if (opened === undefined) {
    known.delete(key);
    return [];
  }
  try {
    const st = fstatSync(opened.fd, { bigint: true });
    const k = known.get(key);
    if (k !== undefined && k.dev === st.dev && k.ino === st.ino && opened.size >= k.size && tailHolds(opened.fd, k))
      if (walkOn(opened.fd, opened.size, k, event)) return k.rows;
    const fresh: Read = {
      dev: st.dev,
      ino: st.ino,
      size: 0,
      index: 0,
      prev: RUN_GENESIS,
      tail: Buffer.alloc(0),
      rows: [],
    };
    if (walkOn(opened.fd, opened.size, fresh, event)) {
      known.set(key, fresh);
      return fresh.rows;
    }
  } finally {
    closeSync(opened.fd);
  }
  // Lines that do not hold as an append (or too many to walk at once): the whole file, as it reads.
  known.delete(key);
  reads.wholeReads++;
  return readRunJournalFile(file)
    .entries.map((e) => e.row)
    .filter((r) => r.event === event);
}

/** Bytes walked on, and whole reads made, since the process started (what the tests hold the reading to). */
const reads = { walkedBytes: 0, wholeReads: 0 };

/** Forgets what was read (tests compare a look that walks on with one from the start). */
export function forgetGrownRows(): void {
  known.clear();
}

/** How much was read so far: each byte of a journal that only grows is walked once, and nothing read whole. */
export function grownRowsReads(): { walkedBytes: number; wholeReads: number } {
  return { ...reads };
}

function tailHolds(fd: number, k: Read): boolean {
  return readRange(fd, k.size - k.tail.length, k.tail.length).equals(k.tail);
}

/** Walks k's journal from k.size to its last newline before `size`, seeded; false when a line does not hold. */
function walkOn(fd: number, size: number, k: Read, event: string): boolean {
  if (size === k.size) return true;
  if (size - k.size > DEFAULT_MAX_READ_BYTES) return false;
  const bytes = readRange(fd, k.size, size - k.size);
  reads.walkedBytes += bytes.length;
  const end = bytes.lastIndexOf(0x0a) + 1;
  // One line still being written; at the first look, a file of lines no newline ends is read whole instead.
  if (end === 0) return k.size > 0;
  const r = readRunJournalBytes(bytes.subarray(0, end), { seed: { prev_hash: k.prev, index: k.index } });
  // `count` is the index after the walk (it began at k.index): every line a row, every row linked.
  if (!r.chain_ok || r.entries.length !== r.count - k.index) return false;
  for (const { row } of r.entries) if (row.event === event) k.rows.push(row);
  k.index = r.count;
  k.prev = r.head_hash;
  k.size += end;
  k.tail = Buffer.from(bytes.subarray(Math.max(0, end - TAIL_BYTES), end));
  return true;
}
