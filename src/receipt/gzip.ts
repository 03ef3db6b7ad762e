import { gunzipSync } from 'node:zlib';
import { BLOCK, DEFAULT_MAX_RECEIPT_BYTES, readsAsTarHeader, ReceiptFormatError } from './tar';
import { isZero } from './tar-header';

/**
 * Decompresses a gzip receipt (magic 1f 8b) with a size cap; other bytes are
 * returned as they are. Concatenated gzip members and trailing zero bytes read
 * the same everywhere (gzip, Python, node); anything else after the stream is
 * corrupt (checkGzipTail).
 */
export function maybeGunzip(bytes: Buffer, maxBytes = DEFAULT_MAX_RECEIPT_BYTES): Buffer {
  if (!isGzip(bytes)) return bytes;
  checkGzipHead(bytes);
  let inflated: { buffer: Buffer; engine: { bytesWritten: number } };
  try {
    // `info: true` returns the engine too (node's typings know only the buffer): how many bytes it read.
    inflated = gunzipSync(bytes, { maxOutputLength: maxBytes, info: true }) as unknown as typeof inflated;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError) throw gzipTooLarge(maxBytes);
    throw gzipCorrupt(e);
  }
  checkGzipTail(bytes.subarray(inflated.engine.bytesWritten));
  return inflated.buffer;
}

/**
 * What follows a gzip stream's last member, as far as node's inflater left it unread: it stops at a zero byte after
 * a member (padding, for it) and takes any other byte for the next member's start. Zero bytes are padding to every
 * reader; anything after them (`gzip -t`: "trailing garbage ignored") is no part of a receipt: corrupt, as bytes
 * right after a member are. One rule for the whole read and the streamed one, wherever its pieces fall.
 */
export function checkGzipTail(rest: Buffer): void {
  if (!isZero(rest, 0, rest.length))
    throw new ReceiptFormatError(
      'not_a_receipt',
      'gzip data is corrupt: non-zero bytes after its last member and the zero bytes that pad it',
    );
}

/** Whether a receipt's first bytes are gzip's magic (1f 8b). */
export function isGzip(head: Buffer): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/**
 * A gzip header can carry 64 KiB of anything (FEXTRA): a whole tar archive whose first header starts with the
 * gzip magic. GNU tar (and file(1)) read such bytes as that plain tar, gzip readers as the compressed one.
 * `head` is the file's first bytes (at least 512 when the file has them).
 */
export function checkGzipHead(head: Buffer): void {
  if (head.length >= BLOCK && readsAsTarHeader(head.subarray(0, BLOCK)))
    throw new ReceiptFormatError(
      'corrupt_archive',
      'gzip data whose first 512 bytes also read as a tar header: GNU tar would read another archive from the same bytes',
    );
}

export const gzipTooLarge = (maxBytes: number): ReceiptFormatError =>
  new ReceiptFormatError('too_large', `gzip receipt decompresses to more than ${maxBytes} bytes`);

export const gzipCorrupt = (e: unknown): ReceiptFormatError =>
  new ReceiptFormatError('not_a_receipt', `gzip data is corrupt: ${(e as Error).message}`);
