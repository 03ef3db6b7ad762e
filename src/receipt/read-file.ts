import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { InputError } from '../errors';
import { walkableBuffer } from '../journal/parallel';
import { bufferView } from '../util/buffer-view';
import { SIZELESS, sizeIsNotLength } from '../util/nofollow';
import { pausePoint } from '../util/pause';
import { maybeGunzip } from './gzip';
import { DEFAULT_MAX_RECEIPT_BYTES, ReceiptFormatError } from './tar';
import { checkLimit } from '../util/limits';

/**
 * A receipt's bytes, read once (a file name or the bytes themselves), gunzipped
 * with a cap. Everything after works on these bytes: what is verified is what
 * is displayed, whatever happens to the file meanwhile.
 */
export function readReceiptBytes(input: Uint8Array | string, maxBytes = DEFAULT_MAX_RECEIPT_BYTES): Buffer {
  checkLimit(maxBytes, 'maxBytes');
  const bytes = typeof input === 'string' ? readCapped(input, maxBytes) : bufferView(input);
  if (bytes.length > maxBytes)
    throw new ReceiptFormatError('too_large', `receipt is ${bytes.length} bytes, over the ${maxBytes}-byte limit`);
  return maybeGunzip(bytes, maxBytes);
}

/**
 * A receipt file's bytes as they are on disk (not gunzipped), read once with the
 * cap: what a keyless signature's subject digest is computed over.
 */
export function readReceiptFile(file: string, maxBytes = DEFAULT_MAX_RECEIPT_BYTES): Buffer {
  return readCapped(file, maxBytes);
}

/**
 * One read of a file: opened without blocking (a FIFO is refused, not waited
 * on), checked to be a regular file on the open descriptor, and read up to one
 * byte past the cap, so a file that grows after it was measured is still refused.
 */
function readCapped(file: string, maxBytes: number): Buffer {
  const { fd, size } = openReceiptFile(file, maxBytes);
  try {
    // Tests grow or cut the file here, between its size and its read (docs/journal.md, "Testing crashes").
    pausePoint('receipt:measured');
    // An uncompressed receipt's journal member is walked where it lies in these bytes: memory the verification
    // threads share when it is large (walkableBuffer), so the walk copies nothing.
    let buf = walkableBuffer(Math.min(maxBytes + 1, size + 1));
    let n = 0;
    for (;;) {
      if (n === buf.length) {
        // The file grew since fstat: read on, still bounded by the cap, into memory of the same kind (a grown
        // receipt's journal is walked where it lies too, not copied once more).
        if (n > maxBytes) throw grewPast(maxBytes);
        const bigger = walkableBuffer(Math.min(maxBytes + 1, buf.length * 2));
        buf.copy(bigger, 0, 0, n);
        buf = bigger;
      }
      const got = readOrSay(file, fd, buf, n, buf.length - n);
      if (got === 0) return buf.subarray(0, n);
      n += got;
    }
  } finally {
    closeSync(fd);
  }
}

export const grewPast = (maxBytes: number): ReceiptFormatError =>
  new ReceiptFormatError('too_large', `receipt grew past the ${maxBytes}-byte limit while it was read`);

const why = (e: unknown): string => (e as NodeJS.ErrnoException).code ?? (e as Error).message;

/** An OS error reading a receipt file, as one line naming it. */
export const cannotRead = (file: string, e: unknown): InputError =>
  new InputError(`${file}: cannot read receipt: ${why(e)}`);

/**
 * A receipt file opened without blocking (a FIFO is refused, not waited on),
 * checked to be a regular file no larger than the cap on the open descriptor.
 */
export function openReceiptFile(file: string, maxBytes: number): { fd: number; size: number } {
  checkLimit(maxBytes, 'maxBytes');
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new InputError(`${file}: no such receipt file`);
    throw cannotRead(file, e);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new InputError(`${file}: not a regular file`);
    let sizeless: boolean;
    try {
      sizeless = sizeIsNotLength(fd, st);
    } catch (e) {
      throw cannotRead(file, e);
    }
    if (sizeless) throw new InputError(`${file}: not a regular file: it is ${SIZELESS}`);
    if (st.size > maxBytes)
      throw new ReceiptFormatError('too_large', `receipt is ${st.size} bytes, over the ${maxBytes}-byte limit`);
    return { fd, size: st.size };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

export function readOrSay(
  file: string,
  fd: number,
  buf: Buffer,
  at: number,
  length: number,
  position: number | null = null,
): number {
  try {
    return readSync(fd, buf, at, length, position);
  } catch (e) {
    throw cannotRead(file, e);
  }
}
