import type { Fault } from './chain';
import { ChainChecker } from './chain';
import { fastRow } from './fast-line';
import { readRowLine } from './row';

/**
 * One line-aligned slice of a journal, walked on its own. Rows only depend on
 * their own bytes for their hash, so slices are walked in parallel and stitched:
 * each slice checks the links between its own rows, and the stitcher checks the
 * link from one slice's last row to the next slice's first row.
 */
export interface ChunkSummary {
  /** Absolute byte offsets of the slice. */
  start: number;
  end: number;
  lines: number;
  rows: number;
  /** The first well-formed row (its link to the previous slice is checked by the stitcher). */
  first?: { line: number; seq: number; prev_hash: string };
  last?: { seq: number; step_hash: string };
  /** Faults with lines relative to the slice (1-based), in line order. */
  faults: Fault[];
  /** The first malformed line (relative) and its absolute offset. */
  firstMalformed?: { line: number; offset: number; reason: string };
  /** The first well-formed row that follows a malformed line in this slice (relative line). */
  rowAfterMalformed?: number;
  /** Absolute offset just past the last well-formed row's newline (or `start`). */
  lastRowEnd: number;
  /** The last well-formed row has no newline (it ends the file). */
  lastRowUnterminated: boolean;
  /** With `collectRefs`: every row's blob refs, in order (duplicates included). */
  refs?: string[];
}

export interface ChunkOptions {
  strict: boolean;
  /** Collect the rows' blob refs (receipts need them). */
  collectRefs?: boolean;
}

const BLOCK = 16 * 1024 * 1024;

/** Walks `buf[from..to)` (line-aligned); `base` is the absolute offset of buf[0]. */
export function scanChunk(buf: Buffer, from: number, to: number, base: number, options: ChunkOptions): ChunkSummary {
  const chain = new ChainChecker();
  const out: ChunkSummary = {
    start: base + from,
    end: base + to,
    lines: 0,
    rows: 0,
    faults: [],
    lastRowEnd: base + from,
    lastRowUnterminated: false,
  };
  if (options.collectRefs) out.refs = [];
  let line = 0;
  let pos = from;
  while (pos < to) {
    // A latin1 view of a block of whole lines: indices are byte offsets, no copy per line.
    let blockEnd = Math.min(to, pos + BLOCK);
    if (blockEnd < to) {
      const nl = buf.lastIndexOf(0x0a, blockEnd - 1);
      blockEnd = nl >= pos ? nl + 1 : Math.min(to, (buf.indexOf(0x0a, blockEnd) + 1) || to);
    }
    let text: string | undefined;
    try {
      text = buf.toString('latin1', pos, blockEnd);
    } catch {
      text = undefined; // a line too long for one string: the slow path reports it
    }
    let a = pos;
    while (a < blockEnd) {
      const nl = buf.indexOf(0x0a, a);
      const terminated = nl >= 0 && nl < blockEnd;
      const b = terminated ? nl : blockEnd;
      line++;
      walkLine(out, chain, options, line, buf, a, b, text, a - pos, b - pos, terminated, base);
      a = b + 1;
    }
    pos = blockEnd;
  }
  out.lines = line;
  if (out.rows > 0) out.last = { seq: chain.expectedSeq - 1, step_hash: chain.prevHash };
  return out;
}

function walkLine(
  out: ChunkSummary,
  chain: ChainChecker,
  options: ChunkOptions,
  line: number,
  buf: Buffer,
  a: number,
  b: number,
  text: string | undefined,
  ta: number,
  tb: number,
  terminated: boolean,
  base: number,
): void {
  let row: { seq: number; prev_hash: string; step_hash: string } | undefined;
  let computed = '';
  let canonical = true;
  if (b > a && text !== undefined) {
    const fast = fastRow(text, ta, tb, out.first === undefined ? undefined : chain.prevHash, out.refs);
    if (fast !== undefined) {
      row = fast;
      computed = fast.computedHash;
    }
  }
  if (row === undefined) {
    const read = b === a ? { kind: 'malformed' as const, reason: 'empty line' } : readRowLine(buf.subarray(a, b));
    if (read.kind === 'malformed') {
      out.faults.push({ line, kind: 'malformed_json', message: read.reason });
      out.firstMalformed ??= { line, offset: base + a, reason: read.reason };
      return;
    }
    row = read.row;
    computed = read.computedHash;
    canonical = read.canonical;
    if (out.refs !== undefined) out.refs.push(...read.row.blob_refs);
  }
  if (out.firstMalformed !== undefined) out.rowAfterMalformed ??= line;
  if (out.first === undefined) {
    out.first = { line, seq: row.seq, prev_hash: row.prev_hash };
    chain.expectedSeq = row.seq;
    chain.prevHash = row.prev_hash;
  }
  const faults = chain.check(line, row, computed);
  if (faults.length > 0) out.faults.push(...faults);
  if (options.strict && !canonical) {
    out.faults.push({ line, kind: 'non_canonical', message: 'line bytes are not the canonical encoding of the row' });
  }
  if (options.strict && !terminated) {
    out.faults.push({ line, kind: 'non_canonical', message: 'last line has no trailing newline' });
  }
  out.rows++;
  out.lastRowEnd = terminated ? base + b + 1 : base + b;
  out.lastRowUnterminated = !terminated;
}
