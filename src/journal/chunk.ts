import type { Fault } from './chain';
import { ChainChecker } from './chain';
import { fastRow, type FastRow } from './fast-line';
import { readRowLine } from './row';
import { closeSync, openSync, readSync } from 'node:fs';
import { wasmScanner, WASM_BLOCK_CAP, type BlockRecord, type WasmScanner } from './wasm/scanner';

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
  /** Use the WebAssembly line scanner where available (default); false: the JS fast path only. */
  wasm?: boolean;
}

const BLOCK = 16 * 1024 * 1024;
/** Blocks for the WebAssembly scanner: small enough to stay in cache between scan, copy and hash. */
const WASM_BLOCK = 1024 * 1024;

/** The end of the block of whole lines starting at pos: about `size` bytes, or one longer line. */
function blockEndOf(buf: Buffer, pos: number, to: number, size: number): number {
  const end = Math.min(to, pos + size);
  if (end >= to) return to;
  const nl = buf.lastIndexOf(0x0a, end - 1);
  return nl >= pos ? nl + 1 : Math.min(to, buf.indexOf(0x0a, end) + 1 || to);
}

/**
 * Walks `buf[from..to)` (line-aligned); `base` is the absolute offset of buf[0].
 * A trap in the WebAssembly scanner (a bug of ours: it checks its bounds) is not
 * fatal: the slice is walked again by the JS path.
 */
export function scanChunk(buf: Buffer, from: number, to: number, base: number, options: ChunkOptions): ChunkSummary {
  return withJsFallback(options, (o) => {
    const walker = new ChunkWalker(base + from, base + to, o);
    const wasm = o.wasm === false ? undefined : wasmScanner();
    let pos = from;
    while (pos < to) {
      const blockEnd = blockEndOf(buf, pos, to, wasm === undefined ? BLOCK : WASM_BLOCK);
      if (wasm !== undefined && blockEnd - pos <= WASM_BLOCK_CAP) {
        wasm.ensure(blockEnd - pos);
        buf.copy(wasm.mem, wasm.data, pos, blockEnd);
        walker.wasmBlock(wasm, blockEnd - pos, base + pos);
      } else walker.jsBlock(buf, pos, blockEnd, base);
      pos = blockEnd;
    }
    return walker.finish();
  });
}

/**
 * Walks bytes [from, to) of a journal file (line-aligned), read block by block
 * straight into the WebAssembly scanner's memory (no copy of the whole slice).
 */
export function scanFileChunk(path: string, from: number, to: number, options: ChunkOptions): ChunkSummary {
  return withJsFallback(options, (o) => {
    const wasm = o.wasm === false ? undefined : wasmScanner();
    if (wasm === undefined) {
      const buf = readFileRange(path, from, to - from);
      return scanChunk(buf, 0, buf.length, from, o);
    }
    const walker = new ChunkWalker(from, to, o);
    const fd = openSync(path, 'r');
    try {
      let pos = from;
      while (pos < to) {
        wasm.ensure(WASM_BLOCK);
        let got = readInto(fd, wasm.mem, wasm.data, Math.min(WASM_BLOCK, to - pos), pos);
        if (got === 0) break; // the file shrank under us: what is there was walked
        let len = got;
        if (pos + got < to) {
          const nl = wasm.mem.lastIndexOf(0x0a, wasm.data + got - 1);
          if (nl >= wasm.data) len = nl + 1 - wasm.data;
          else {
            // One line longer than a block: read on to its end, in the scanner's memory while it fits.
            let nlAt = -1;
            while (nlAt < 0 && pos + got < to && got < WASM_BLOCK_CAP) {
              const want = Math.min(WASM_BLOCK, to - pos - got, WASM_BLOCK_CAP - got);
              wasm.ensure(got + want);
              const n = readInto(fd, wasm.mem, wasm.data + got, want, pos + got);
              if (n === 0) break;
              const k = wasm.mem.subarray(wasm.data + got, wasm.data + got + n).indexOf(0x0a);
              if (k >= 0) nlAt = got + k;
              got += n;
            }
            if (nlAt >= 0) len = nlAt + 1;
            else if (pos + got >= to || got < WASM_BLOCK_CAP) len = got;
            else {
              const want = lineEndInFile(fd, pos + got, to) - pos;
              const buf = readFileRange(path, pos, want);
              walker.jsBlock(buf, 0, buf.length, pos);
              pos += buf.length;
              if (buf.length < want) break;
              continue;
            }
          }
        }
        walker.wasmBlock(wasm, len, pos);
        pos += len;
      }
    } finally {
      closeSync(fd);
    }
    return walker.finish();
  });
}

function withJsFallback(options: ChunkOptions, walk: (o: ChunkOptions) => ChunkSummary): ChunkSummary {
  try {
    return walk(options);
  } catch (e) {
    if (options.wasm !== false && typeof WebAssembly !== 'undefined' && e instanceof WebAssembly.RuntimeError) {
      return walk({ ...options, wasm: false });
    }
    throw e;
  }
}

function readInto(fd: number, into: Buffer, at: number, length: number, position: number): number {
  let off = 0;
  while (off < length) {
    const n = readSync(fd, into, at + off, length - off, position + off);
    if (n === 0) break;
    off += n;
  }
  return off;
}

function readFileRange(path: string, position: number, length: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(length);
    return buf.subarray(0, readInto(fd, buf, 0, length, position));
  } finally {
    closeSync(fd);
  }
}

/** The offset just after the first newline at or after `at` (or `end`). */
function lineEndInFile(fd: number, at: number, end: number): number {
  const window = Buffer.allocUnsafe(64 * 1024);
  for (let pos = at; pos < end; pos += window.length) {
    const n = readSync(fd, window, 0, Math.min(window.length, end - pos), pos);
    if (n === 0) return pos;
    const nl = window.subarray(0, n).indexOf(0x0a);
    if (nl >= 0) return pos + nl + 1;
  }
  return end;
}

/** The walk of one slice, line by line, fed block by block. */
class ChunkWalker {
  readonly out: ChunkSummary;
  readonly chain = new ChainChecker();
  private line = 0;
  private readonly rec: BlockRecord = { start: 0, end: 0, terminated: false, row: undefined };

  constructor(
    start: number,
    end: number,
    private readonly options: ChunkOptions,
  ) {
    this.out = { start, end, lines: 0, rows: 0, faults: [], lastRowEnd: start, lastRowUnterminated: false };
    if (options.collectRefs) this.out.refs = [];
  }

  /** The block of whole lines loaded in the scanner's memory (len bytes at wasm.data), at absolute offset `at`. */
  wasmBlock(wasm: WasmScanner, len: number, at: number): void {
    const { out, chain, options, rec } = this;
    const mem = wasm.mem;
    const base = at - wasm.data;
    wasm.start(len);
    for (let n = wasm.batch(); n > 0; n = wasm.batch()) {
      for (let k = 0; k < n; k++) {
        wasm.record(k, out.refs, rec);
        const fast = rec.row ?? lineFastRow(out, chain, mem, rec.start, rec.end);
        walkLine(out, chain, options, ++this.line, mem, rec.start, rec.end, rec.terminated, base, fast);
      }
    }
  }

  /** `buf[pos..blockEnd)` (whole lines) by the JS fast path, on a latin1 view of the block. */
  jsBlock(buf: Buffer, pos: number, blockEnd: number, base: number): void {
    const { out, chain, options } = this;
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
      const fast =
        b > a && text !== undefined ? fastRow(text, a - pos, b - pos, expectedPrev(out, chain), out.refs) : undefined;
      walkLine(out, chain, options, ++this.line, buf, a, b, terminated, base, fast);
      a = b + 1;
    }
  }

  finish(): ChunkSummary {
    const { out, chain } = this;
    out.lines = this.line;
    if (out.rows > 0) out.last = { seq: chain.expectedSeq - 1, step_hash: chain.prevHash };
    return out;
  }
}

/** The link fastRow may take on trust (it needs no hex check when it matches). */
function expectedPrev(out: ChunkSummary, chain: ChainChecker): string | undefined {
  return out.first === undefined ? undefined : chain.prevHash;
}

/** fastRow on one line the WebAssembly scanner left to JS. */
function lineFastRow(out: ChunkSummary, chain: ChainChecker, buf: Buffer, a: number, b: number): FastRow | undefined {
  if (b <= a) return undefined;
  let text: string;
  try {
    text = buf.toString('latin1', a, b);
  } catch {
    return undefined; // a line too long for one string: the slow path reports it
  }
  return fastRow(text, 0, b - a, expectedPrev(out, chain), out.refs);
}

function walkLine(
  out: ChunkSummary,
  chain: ChainChecker,
  options: ChunkOptions,
  line: number,
  buf: Buffer,
  a: number,
  b: number,
  terminated: boolean,
  base: number,
  fast: FastRow | undefined,
): void {
  let row: { seq: number; prev_hash: string; step_hash: string } | undefined;
  let computed = '';
  let canonical = true;
  if (fast !== undefined) {
    row = fast;
    computed = fast.computedHash;
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
