import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { InputError } from '../../errors';

/** A bundle or a trusted root is small: anything larger is refused before it is read. */
export const MAX_KEYLESS_FILE_BYTES = 16 << 20;

/**
 * A small input file (a Sigstore bundle, a trusted root), read once: opened
 * without blocking (a FIFO is refused, not waited on), a regular file on the
 * open descriptor, at most MAX_KEYLESS_FILE_BYTES. Every failure is an input
 * error naming the file.
 */
export function readSmallFile(file: string, what: string): string {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputError(
      `${file}: ${code === 'ENOENT' ? `no such ${what}` : `cannot read ${what}: ${code ?? (e as Error).message}`}`,
    );
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new InputError(`${file}: the ${what} is not a regular file`);
    const buf = Buffer.allocUnsafe(MAX_KEYLESS_FILE_BYTES + 1);
    let n = 0;
    for (;;) {
      const got = readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) break;
      n += got;
      if (n > MAX_KEYLESS_FILE_BYTES)
        throw new InputError(`${file}: the ${what} is over ${MAX_KEYLESS_FILE_BYTES} bytes`);
    }
    return buf.subarray(0, n).toString('utf8');
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new InputError(`${file}: cannot read ${what}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  } finally {
    closeSync(fd);
  }
}
