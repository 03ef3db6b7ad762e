import { readSync } from 'node:fs';
import { MAX_LINE_BYTES } from '../canonical';
import { BLOCK, ChunkWalker, WASM_BLOCK, withJsFallback } from './chunk';
import type { ChunkOptions, ChunkSummary, SliceSeed } from './chunk-types';
import type { RefSink } from '../util/digest-order';
import { closeRef, lineEndInFile, openRef, pathOf, readFileRange, readInto, type FileRef } from './file-ref';
import { wasmScanner, WASM_BLOCK_CAP, type WasmScanner } from './wasm/scanner';

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
  let pos = from;
  while (pos < to) {
    wasm.ensure(WASM_BLOCK);
    let got = Math.min(WASM_BLOCK, to - pos);
    readInto(path, fd, wasm.mem, wasm.data, got, pos);
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
          readInto(path, fd, wasm.mem, wasm.data + got, want, pos + got);
          const k = wasm.mem.subarray(wasm.data + got, wasm.data + got + want).indexOf(0x0a);
          if (k >= 0) nlAt = got + k;
          got += want;
        }
        if (nlAt >= 0) len = nlAt + 1;
        else if (pos + got >= to || got < WASM_BLOCK_CAP) len = got;
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
  const buf = Buffer.allocUnsafe(Math.min(BLOCK, to - from));
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
 * The line at `pos` of a file walk, longer than a block (no newline before `scanned`): read whole and walked, or,
 * longer than MAX_LINE_BYTES, taken as one malformed line without holding it. Returns where the next line starts.
 */
function longLine(walker: ChunkWalker, file: FileRef, fd: number, pos: number, scanned: number, to: number): number {
  const end = lineEndInFile(fd, scanned, to);
  const terminated = end > pos && byteAt(fd, end - 1) === 0x0a;
  const length = end - pos - (terminated ? 1 : 0);
  if (length > (walker.maxLineBytes ?? MAX_LINE_BYTES)) {
    walker.unreadLine(length, pos, terminated ? 'lf' : 'eof');
    return end;
  }
  const buf = readFileRange(file, pos, end - pos);
  walker.jsBlock(buf, 0, buf.length, pos);
  return end;
}

function byteAt(fd: number, at: number): number {
  const one = Buffer.alloc(1);
  return readSync(fd, one, 0, 1, at) === 1 ? one[0]! : -1;
}
