import { readSync } from 'node:fs';
import { MAX_LINE_BYTES } from '../canonical/limits';
import { InputError } from '../errors';

/**
 * `\n`-framed lines a block at a time: the first `length` bytes of an open file (or bytes already in memory) handed
 * over as blocks of whole lines, read into one buffer used again for every block, so a walk holds a block (and one
 * line longer than a block, up to MAX_LINE_BYTES) whatever the file's size. A line longer than MAX_LINE_BYTES is no
 * text Node.js can hold: it is passed by unread (`unread`), never gathered. The journal's walks (src/journal) read
 * with the same exact read and line-end search; the audit log's query walks its segments with this.
 */
export type LineBlock =
  /**
   * buf[from..to): whole lines, each ended by `\n`, but in the last block, whose last line may have none; `at` is
   * where buf[from] lies in the source.
   */
  | { kind: 'lines'; buf: Buffer; from: number; to: number; at: number }
  /** One line of `length` bytes (its newline not counted) longer than the longest read: not read. */
  | { kind: 'unread'; length: number; terminated: boolean };

/** An open file's first `length` bytes (the size the walk plans on; `path` names it in errors), or bytes in memory. */
export type LineSource = { path: string; fd: number; length: number } | Buffer;

/**
 * Bytes read at a time: a block's text (the audit query's latin1 view) is then a string the collector takes young;
 * megabyte blocks went to the large-object space, freed only by a full collection (a query of a million events
 * peaked ~60 MB higher with them, no faster).
 */
export const LINE_BLOCK_BYTES = 1 << 16;

export interface LineBlockOptions {
  /** Bytes read at a time (tests make it small, to put block ends everywhere). */
  blockBytes?: number;
  /** The longest line read (default MAX_LINE_BYTES); a longer one is `unread`. */
  maxLineBytes?: number;
}

/**
 * The blocks of `source` in order (see LineBlock). The buffer a block is in is used again for the next: a caller
 * is done with a block (or has copied what it keeps) before it asks for the next. A file that ends before `length`
 * (cut or rewritten while it is read) is an InputError naming it (readInto).
 */
export function* lineBlocks(source: LineSource, options: LineBlockOptions = {}): Generator<LineBlock, void, undefined> {
  const max = options.maxLineBytes ?? MAX_LINE_BYTES;
  // No block longer than the longest read: a line inside a block is one the caller can read.
  const block = Math.max(1, Math.min(options.blockBytes ?? LINE_BLOCK_BYTES, max));
  if (Buffer.isBuffer(source)) {
    yield* memoryBlocks(source, block, max);
    return;
  }
  const { path, fd, length } = source;
  const buf = Buffer.allocUnsafe(Math.max(1, Math.min(block, length)));
  for (let pos = 0; pos < length;) {
    const got = Math.min(buf.length, length - pos);
    readInto(path, fd, buf, 0, got, pos);
    if (pos + got === length) {
      yield { kind: 'lines', buf, from: 0, to: got, at: pos };
      return;
    }
    const nl = buf.lastIndexOf(0x0a, got - 1);
    if (nl >= 0) {
      yield { kind: 'lines', buf, from: 0, to: nl + 1, at: pos };
      pos += nl + 1;
      continue;
    }
    // One line longer than a block: read whole into a buffer of its own (let go after it), or passed by.
    const end = lineEndInFile(fd, pos + got, length);
    const terminated = end > pos && byteAt(fd, end - 1) === 0x0a;
    const content = end - pos - (terminated ? 1 : 0);
    if (content > max) yield { kind: 'unread', length: content, terminated };
    else {
      const line = Buffer.allocUnsafe(end - pos);
      readInto(path, fd, line, 0, end - pos, pos);
      yield { kind: 'lines', buf: line, from: 0, to: line.length, at: pos };
    }
    pos = end;
  }
}

/** lineBlocks of bytes in memory: views of them, none copied. */
function* memoryBlocks(bytes: Buffer, block: number, max: number): Generator<LineBlock, void, undefined> {
  for (let pos = 0; pos < bytes.length;) {
    let to = Math.min(pos + block, bytes.length);
    if (to < bytes.length) {
      // Searched within the block only (lastIndexOf has no lower bound: it would look back through what was walked).
      const nl = bytes.subarray(pos, to).lastIndexOf(0x0a);
      if (nl >= 0) to = pos + nl + 1;
      else {
        const next = bytes.indexOf(0x0a, to);
        const end = next < 0 ? bytes.length : next + 1;
        if (end - pos - (next < 0 ? 0 : 1) > max) {
          yield { kind: 'unread', length: end - pos - (next < 0 ? 0 : 1), terminated: next >= 0 };
          pos = end;
          continue;
        }
        to = end;
      }
    }
    yield { kind: 'lines', buf: bytes, from: pos, to, at: pos };
    pos = to;
  }
}

function byteAt(fd: number, at: number): number {
  const one = Buffer.alloc(1);
  return readSync(fd, one, 0, 1, at) === 1 ? one[0]! : -1;
}

/**
 * Reads exactly `length` bytes of `path` (open as `fd`) at `position` into `into` at `at`. A walk plans on the
 * file's size when it begins and an append only lengthens a log, so fewer bytes mean the file was cut or rewritten
 * while it was read: nothing is concluded from what was walked (a shorter walk would say OK for rows it never saw).
 */
export function readInto(path: string, fd: number, into: Buffer, at: number, length: number, position: number): void {
  let off = 0;
  while (off < length) {
    const n = readSync(fd, into, at + off, length - off, position + off);
    if (n === 0)
      throw new InputError(
        `${path}: it changed while it was read (it now ends at byte ${position + off}, short of the ${position + length} bytes the read began with: cut or rewritten meanwhile); nothing is concluded from it, read it again`,
      );
    off += n;
  }
}

/**
 * The offset just after the first newline at or after `at` (or `end`; where the file now ends, when it was cut).
 * Read 64 KB first (a line is a few KB), then 1 MB at a time: a line of gigabytes is looked through in thousands of
 * reads, not in millions.
 */
export function lineEndInFile(fd: number, at: number, end: number): number {
  let window = Buffer.allocUnsafe(64 * 1024);
  for (let pos = at; pos < end;) {
    const n = readSync(fd, window, 0, Math.min(window.length, end - pos), pos);
    if (n === 0) return pos;
    const nl = window.subarray(0, n).indexOf(0x0a);
    if (nl >= 0) return pos + nl + 1;
    pos += n;
    if (window.length < LONG_LINE_WINDOW) window = Buffer.allocUnsafe(LONG_LINE_WINDOW);
  }
  return end;
}
const LONG_LINE_WINDOW = 1024 * 1024;
