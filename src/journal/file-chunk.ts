import { readSync } from 'node:fs';
import { MAX_LINE_BYTES } from '../canonical';
import { BLOCK, ChunkWalker, WASM_BLOCK, withJsFallback } from './chunk';
import type { ChunkOptions, ChunkSummary, SliceSeed } from './chunk-types';
import type { RefSink } from '../util/digest-order';
import { closeRef, lineEndInFile, openRef, pathOf, readFileRange, readInto, type FileRef } from './file-ref';
import { wasmScanner, WASM_BLOCK_CAP, type WasmScanner } from './wasm/scanner';
import type { LongRowCheck } from './long-row';

/**
 * Walks bytes [from, to) of a journal file (line-aligned), read block by block
 * straight into the WebAssembly scanner's memory (no copy of the whole slice).
 */
export function scanFileChunk(
  file: FileRef,
  from: number,
  to: number,
  options: ChunkOptions,
  seed?: SliceSeed,
  refSink?: RefSink,
): ChunkSummary {
  return withJsFallback(options, (o) => {
    const wasm = o.wasm === false || o.fast === false ? undefined : wasmScanner();
    const walker = new ChunkWalker(from, to, o, seed, undefined, refSink);
    const fd = openRef(file);
    try {
      if (wasm === undefined) jsFileWalk(walker, file, fd, from, to);
      else wasmFileWalk(walker, wasm, file, fd, from, to);
    } finally {
      closeRef(file, fd);
    }
    return walker.finish();
  });
}

/** The file walk in the scanner's memory: blocks of whole lines, a line longer than a block read on to its end. */
function wasmFileWalk(
  walker: ChunkWalker,
  wasm: WasmScanner,
  file: FileRef,
  fd: number,
  from: number,
  to: number,
): void {
  const path = pathOf(file);
  // A line is read into the scanner's memory while it fits, and is no longer than a long line (longLine then).
  const cap = Math.min(WASM_BLOCK_CAP, walker.longLineBytes ?? WASM_BLOCK_CAP);
  const block = Math.min(WASM_BLOCK, cap);
  let pos = from;
  while (pos < to) {
    wasm.ensure(block);
    let got = Math.min(block, to - pos);
    readInto(path, fd, wasm.mem, wasm.data, got, pos);
    let len = got;
    if (pos + got < to) {
      const nl = wasm.mem.lastIndexOf(0x0a, wasm.data + got - 1);
      if (nl >= wasm.data) len = nl + 1 - wasm.data;
      else {
        // One line longer than a block: read on to its end, in the scanner's memory while it fits.
        let nlAt = -1;
        while (nlAt < 0 && pos + got < to && got < cap) {
          const want = Math.min(WASM_BLOCK, to - pos - got, cap - got);
          wasm.ensure(got + want);
          readInto(path, fd, wasm.mem, wasm.data + got, want, pos + got);
          const k = wasm.mem.subarray(wasm.data + got, wasm.data + got + want).indexOf(0x0a);
          if (k >= 0) nlAt = got + k;
          got += want;
        }
        if (nlAt >= 0) len = nlAt + 1;
        else if (pos + got >= to) len = got;
        else {
          pos = longLine(walker, file, fd, pos, pos + got, to);
          continue;
        }
      }
    }
    walker.wasmBlock(wasm, len, pos);
    pos += len;
  }
}

/** The file walk without the scanner: blocks of whole lines read into one buffer (never the whole slice at once). */
function jsFileWalk(walker: ChunkWalker, file: FileRef, fd: number, from: number, to: number): void {
  const path = pathOf(file);
  // Blocks of lines no longer than a long line (a longer one: longLine).
  const buf = Buffer.allocUnsafe(Math.min(BLOCK, walker.longLineBytes ?? BLOCK, to - from));
  let pos = from;
  while (pos < to) {
    const got = Math.min(buf.length, to - pos);
    readInto(path, fd, buf, 0, got, pos);
    let len = got;
    if (pos + got < to) {
      const nl = buf.lastIndexOf(0x0a, got - 1);
      if (nl < 0) {
        pos = longLine(walker, file, fd, pos, pos + got, to);
        continue;
      }
      len = nl + 1;
    }
    walker.jsBlock(buf, 0, len, pos);
    pos += len;
  }
}

/**
 * The line at `pos` of a file walk, longer than a block (no newline before `scanned`): read whole and walked; or,
 * longer than MAX_LINE_BYTES, taken as one malformed line without holding it; or, longer than the walk's
 * `longLineBytes`, checked as it is read (checkedLine). Returns where the next line starts.
 */
function longLine(walker: ChunkWalker, file: FileRef, fd: number, pos: number, scanned: number, to: number): number {
  const end = lineEndInFile(fd, scanned, to);
  const terminated = end > pos && byteAt(fd, end - 1) === 0x0a;
  const length = end - pos - (terminated ? 1 : 0);
  if (length > (walker.maxLineBytes ?? MAX_LINE_BYTES)) {
    walker.unreadLine(length, pos, terminated ? 'lf' : 'eof');
    return end;
  }
  if (length > (walker.longLineBytes ?? MAX_LINE_BYTES)) {
    walker.longLine(checkedLine(walker, file, fd, pos, length), pos, terminated ? 'lf' : 'eof');
    return end;
  }
  const buf = readFileRange(file, pos, end - pos);
  walker.jsBlock(buf, 0, buf.length, pos);
  return end;
}

/** A long line's bytes [pos, pos + length) read a piece at a time into its check (ChunkWalker.longCheck). */
function checkedLine(walker: ChunkWalker, file: FileRef, fd: number, pos: number, length: number): LongRowCheck {
  const check = walker.longCheck();
  const buf = Buffer.allocUnsafe(Math.min(LONG_PIECE, length));
  for (let at = pos; at < pos + length;) {
    const n = Math.min(buf.length, pos + length - at);
    readInto(pathOf(file), fd, buf, 0, n, at);
    check.push(buf, 0, n);
    at += n;
  }
  return check;
}

/** What a long line is read in at a time. */
const LONG_PIECE = 1024 * 1024;

function byteAt(fd: number, at: number): number {
  const one = Buffer.alloc(1);
  return readSync(fd, one, 0, 1, at) === 1 ? one[0]! : -1;
}
