import { readSync } from 'node:fs';
import { sleepMs } from './time';

/** Bytes of a stream that ran past what its reader holds: nothing of it is used. */
export class TooLongError extends Error {
  override name = 'TooLongError';
  constructor(readonly maxBytes: number) {
    super(`more than ${sizeText(maxBytes)}: not read further`);
  }
}

/**
 * Reads descriptor `fd` (a pipe, a terminal, a file: standard input) to its end, holding at most `maxBytes` of it:
 * one byte more is a TooLongError, and the rest is never read (a writer that sends without end, `yes |`, costs
 * `maxBytes` of memory and stops there). A descriptor left non-blocking by whoever passed it (EAGAIN) is waited on.
 */
export function readToEnd(fd: number, maxBytes = Number.POSITIVE_INFINITY): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  // One buffer read into, and each read's bytes copied out at their size: a pipe hands over what its writer wrote
  // so far (a slow writer: a few bytes a read), and a chunk kept as a view of a fresh 16 MiB buffer kept all of it
  // (300 KB in 100-byte pieces reserved 30 GB: refused under a 16 GB address-space limit). It grows only when a
  // read fills it.
  let scratch = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    const want = Math.min(scratch.length, Math.max(1, maxBytes + 1 - total));
    const n = readSome(fd, scratch, want);
    if (n === 0) break;
    total += n;
    if (total > maxBytes) throw new TooLongError(maxBytes);
    chunks.push(Buffer.from(scratch.subarray(0, n)));
    if (n === scratch.length && scratch.length < 16 * 1024 * 1024) scratch = Buffer.allocUnsafe(scratch.length * 2);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}

/** How many bytes `descriptorBlocks` reads at a time unless told: a pipe hands over 64 KiB a read, a file this. */
export const BLOCK_BYTES = 1024 * 1024;

/**
 * The bytes of descriptor `fd` (a pipe, a terminal, a file) from where it stands to its end, or to `limit` bytes (a
 * regular file's size when opened, so that one written to as it is read ends), at most `blockBytes` at a time. A
 * block is a view of one buffer that the next read reuses: a caller copies what it keeps of it. The same reads as
 * readToEnd, for a caller that uses the bytes as they come (memory: one block, not the stream).
 */
export function* descriptorBlocks(
  fd: number,
  options: { blockBytes?: number; limit?: number } = {},
): Generator<Buffer, void, undefined> {
  const scratch = Buffer.allocUnsafe(options.blockBytes ?? BLOCK_BYTES);
  let left = options.limit ?? Number.POSITIVE_INFINITY;
  while (left > 0) {
    const n = readSome(fd, scratch, Math.min(scratch.length, left));
    if (n === 0) return;
    left -= n;
    yield scratch.subarray(0, n);
  }
}

/**
 * One read of `fd` from where it stands into buf[0, want): how many bytes came, 0 at its end. A descriptor left
 * non-blocking by whoever passed it (EAGAIN) is waited on.
 */
function readSome(fd: number, buf: Buffer, want: number): number {
  for (;;) {
    try {
      return readSync(fd, buf, 0, want, null);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN') {
        sleepMs(1);
        continue;
      }
      if (code === 'EOF') return 0; // Windows: the write end closed
      throw e;
    }
  }
}

/** A byte count as a person reads it: `128 MiB`, `1,000 bytes`. */
function sizeText(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return Number.isInteger(mib) ? `${mib} MiB` : `${bytes.toLocaleString('en-US')} bytes`;
}
