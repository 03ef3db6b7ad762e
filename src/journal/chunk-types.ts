import type { Fault } from './chain';
import type { LineEnd } from './lines';
import type { RowView, StepRow } from './row';

/** What a walk of one journal slice is given and gives back (see chunk.ts). */

/**
 * One line-aligned slice of a journal, walked on its own. Rows only depend on
 * their own bytes for their hash, so slices are walked in parallel and stitched:
 * each slice checks the links between its own rows, and the stitcher checks the
 * link from one slice's last row to the next slice's first row. The expected seq
 * of a row is the number of rows before it (docs/journal.md), which a slice does
 * not know: it assumes its first row's own seq, and the stitcher walks a slice
 * again, seeded, when that guess was wrong (only in a damaged journal).
 */
export interface ChunkSummary {
  /** Absolute byte offsets of the slice. */
  start: number;
  end: number;
  lines: number;
  /** Rows walked (JSON object lines). */
  rows: number;
  /** The first row (its link to the previous slice is checked by the stitcher). */
  first?: { line: number; seq: number | bigint | undefined; prev_hash: string | undefined };
  /** The last row's stored step_hash (null: it had none). */
  last?: { step_hash: string | null };
  /** Without a seed: the rows-before count the slice assumed (its first row's seq; -1 when that is unusable). */
  guessedBase?: number;
  /** Walked from a known position (a seed): its faults are final. */
  seeded: boolean;
  /** Faults with lines relative to the slice (1-based), in line order. */
  faults: { list: Fault[]; omitted: number };
  /** With `collectRefs`: the rows' blob refs, first occurrence, unique. */
  refs?: string[];
  /** With `collectRefs: 'packed'`: those refs as 32 raw bytes each, in that order, instead (DigestSet.packed). */
  refBytes?: Uint8Array;
  /** With `maxRefs`: the slice met more distinct refs than that, and holds none (no `refBytes`). */
  refsOver?: boolean;
  /** With `indexEvery`: [row ordinal, line start offset, line] of every indexEvery-th row, flattened. */
  index?: number[];
  /** With `indexEvery`: those rows' prev_hash (the step_hash before them, in a chain that verifies). */
  indexPrev?: string[];
  /** With `recovery`: what the torn-tail rule needs. */
  recovery?: RecoveryInfo;
  /** Rows of the right shape carrying keys outside the ten (lines relative); absent when there are none. */
  unhashed?: UnhashedRows;
  /** With `markedValue`: what the lines holding it say (see MarkedRows). */
  marked?: MarkedRows;
}

/**
 * The rows of the lines whose bytes hold `markedValue` as a JSON string (`"<value>"`, as a canonical row writes it;
 * only those lines are parsed, so the answer is a line's own and does not depend on how the bytes were cut): the
 * row keys whose whole value is that string, and whether one of those rows lists blobs.
 */
export interface MarkedRows {
  fields: string[];
  blobRefs: boolean;
}

/** Rows carrying keys no hash covers: the first MAX_LISTED_FAULTS listed with their keys, all counted. */
export interface UnhashedRows {
  list: { line: number; keys: string[] }[];
  count: number;
}

/** The torn-tail rule's view of a slice (docs/journal.md, "Recovery on open"); lines relative. */
export interface RecoveryInfo {
  /** Lines that do not parse as JSON at all (the only kind a torn write leaves). */
  nonParsing: number;
  firstNonParsing?: { line: number; offset: number; reason: string };
  /** The first line that parses after the first non-parsing one. */
  parsingAfterNonParsing?: number;
  /** The first line that parses at all. */
  firstParsing?: number;
  /** The last line that parses (a row or another JSON value): where it ends and how. */
  lastParsing?: { line: number; next: number; ending: LineEnd };
  /** How the slice's last line (of any kind) ended. */
  lastEnding?: LineEnd;
}

/**
 * Receives each row walked (every JSON object line), with its line and chain
 * view; `row` (the row of the right shape), its stripped bytes and whether they
 * are canonical when its shape is right.
 */
export type EntrySink = (
  line: number,
  view: RowView,
  row: StepRow | undefined,
  bytes: Uint8Array | undefined,
  canonical: boolean,
) => void;

/** A known position to walk a slice from: the rows before it and the previous row's stored step_hash. */
export interface SliceSeed {
  steps: number;
  prevHash: string | null;
}

export interface ChunkOptions {
  strict: boolean;
  /**
   * Collect the rows' blob refs (receipts need them): as hex strings (`refs`), or `'packed'` as raw bytes
   * (`refBytes`; a receipt may name millions, src/util/digest-set.ts).
   */
  collectRefs?: boolean | 'packed';
  /**
   * With `collectRefs: 'packed'` and no sink: a slice that meets more distinct refs than this keeps none of them
   * (`refsOver`), so what slices walked among threads hold is bounded; the caller walks the refs again in order
   * (a receipt's manifest listing n digests: a slice with more than n distinct refs belongs to a receipt that fails).
   */
  maxRefs?: number;
  /** Use the WebAssembly line scanner where available (default); false: the JS fast path only. */
  wasm?: boolean;
  /** false: every line takes the lossless slow path (tests compare the paths). */
  fast?: boolean;
  /** Record where every n-th row starts (windows read later seek there). */
  indexEvery?: number;
  /** Recovery on open: lines that do not parse are recorded as torn-tail candidates, not faults. */
  recovery?: boolean;
  /** Note the rows that hold this string as a key's whole value (a receipt's redaction mark): `marked`. */
  markedValue?: string;
  /** The longest line read (MAX_LINE_BYTES; tests make it small): a longer one is one malformed line, not read. */
  maxLineBytes?: number;
  /**
   * A line longer than this is checked as its bytes come and never held (src/journal/long-row.ts): taken when it is
   * a canonical row the fast path takes, else one non_canonical fault (LONG_LINE_BYTES in a receipt's walk, whose
   * memory must not grow with a line; undefined: every line is read whole).
   */
  longLineBytes?: number;
}
