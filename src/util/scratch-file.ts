import { closeSync, constants, fstatSync, openSync, readSync, unlinkSync } from 'node:fs';
import path from 'node:path';

// A child process's output kept in a file instead of a pipe (../git/exec.ts, gitRunQuiet): the file is made new in a
// directory only this user can write, unlinked at once (nothing to clean up, whatever ends the process), and read
// back through the descriptor once the child has exited.

/** A new file in `dir` (never through a link, never one that was there), open for reading and writing, unlinked. */
export function scratchFile(dir: string): number {
  const file = path.join(dir, `stderr-${process.pid}`);
  const fd = openSync(file, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    unlinkSync(file);
  } catch (e) {
    closeSync(fd);
    throw e;
  }
  return fd;
}

/** What a child wrote into the scratch file `fd`: its first `maxBytes`, as text. */
export function readScratch(fd: number, maxBytes: number): string {
  const buf = Buffer.alloc(Math.min(fstatSync(fd).size, maxBytes));
  let n = 0;
  while (n < buf.length) {
    const k = readSync(fd, buf, n, buf.length - n, n);
    if (k === 0) break;
    n += k;
  }
  return buf.toString('utf8', 0, n);
}
