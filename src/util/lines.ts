import { MAX_LINE_BYTES } from '../canonical/limits';
import { bufferView } from './buffer-view';
import { TooLongError } from './read-to-end';

/** A line longer than the longest read (its 1-based number): refused the moment it passes the bound, never held. */
export class LineTooLongError extends TooLongError {
  override name = 'LineTooLongError';
  constructor(
    readonly line: number,
    maxBytes: number,
  ) {
    super(maxBytes);
  }
}

/** One line: its 1-based number and its bytes, without the `\n` (a view, good until the next line is asked for). */
export interface Line {
  n: number;
  bytes: Buffer;
}

/**
 * The lines of bytes that arrive in blocks (a file or a pipe read a block at a time), as splitting the bytes whole
 * at each `\n` makes them: every line, blank ones too, and the last, which is empty when the bytes end with a
 * newline or are none. Memory holds one line: a line inside one block is handed over where it is, one that spans
 * blocks is copied into a buffer of its own as it comes (a block may be a view of a buffer its source reuses; one
 * buffer grown, not pieces joined at the end, which held the line twice). A line longer than `maxLineBytes` (its
 * terminator not counted) is a LineTooLongError once that many bytes of it came, the rest never read.
 */
export function* linesOf(
  blocks: Iterable<Uint8Array>,
  maxLineBytes = MAX_LINE_BYTES,
): Generator<Line, void, undefined> {
  let n = 0;
  const held = new HeldLine(maxLineBytes);
  for (const block of blocks) {
    const b = bufferView(block);
    let start = 0;
    for (let nl = b.indexOf(0x0a); nl >= 0; nl = b.indexOf(0x0a, start)) {
      n++;
      if (held.bytes + nl - start > maxLineBytes) throw new LineTooLongError(n, maxLineBytes);
      yield { n, bytes: held.bytes === 0 ? b.subarray(start, nl) : held.take(b.subarray(start, nl)) };
      start = nl + 1;
    }
    if (start < b.length) {
      if (held.bytes + b.length - start > maxLineBytes) throw new LineTooLongError(n + 1, maxLineBytes);
      held.add(b.subarray(start));
    }
  }
  yield { n: n + 1, bytes: held.take(Buffer.alloc(0)) };
}

/**
 * Past this, a held line's buffer is made the bound's size at once (its pages are taken only as the line fills them):
 * doubling past it left the outgrown buffer for the collector while the line was decoded, three times the line.
 * Below it, a buffer is kept for the next line.
 */
const SMALL_BYTES = 1024 * 1024;

/** The line in progress, from earlier blocks: one buffer, doubled as it fills, then the bound's size. */
class HeldLine {
  private buf = Buffer.alloc(0);
  bytes = 0;
  constructor(private readonly maxBytes: number) {}

  add(piece: Buffer): void {
    const need = this.bytes + piece.length;
    if (need > this.buf.length) {
      const grown = Math.max(need, 2 * this.buf.length, 64 * 1024);
      const bigger = Buffer.allocUnsafe(Math.min(grown > SMALL_BYTES ? this.maxBytes : grown, this.maxBytes));
      this.buf.copy(bigger, 0, 0, this.bytes);
      this.buf = bigger;
    }
    piece.copy(this.buf, this.bytes);
    this.bytes = need;
  }

  /** The line, `last` its end (a view, good until the next add). */
  take(last: Buffer): Buffer {
    this.add(last);
    const line = this.buf.subarray(0, this.bytes);
    this.bytes = 0;
    if (this.buf.length > SMALL_BYTES) this.buf = Buffer.alloc(0);
    return line;
  }
}
