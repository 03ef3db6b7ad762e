import { closeSync, constants, fstatSync, openSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { readRange } from './fs';

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

/**
 * The settling of a promise whose child writes into the scratch file `fd`: the first `settle` given runs, then `fd` is
 * closed; a later call does nothing (Node emits 'close' after 'error' for a child it could not start: `fd` closed
 * twice threw EBADF out of the event and ended the process, or closed a file opened meanwhile). What `settle` throws
 * (the read, a caller's callback) rejects instead of leaving the event.
 */
export function settleOnce(fd: number, reject: (e: Error) => void): (settle: () => void) => void {
  let settled = false;
  return (settle) => {
    if (settled) return;
    settled = true;
    try {
      settle();
    } catch (e) {
      reject(e instanceof Error ? e : new Error(String(e)));
    } finally {
      closeSync(fd);
    }
  };
}

/**
 * What a child wrote into the scratch file `fd`: its first `maxBytes`, as text. With `keepAfter`, a longer output is
 * cut at the last line end of those bytes instead, and the lines after it that `keepAfter` accepts follow (up to
 * `maxBytes` of them): git writes its errors after its warnings, and a command that warned of a MiB of directories
 * still says why it failed (a file, unlike a pipe, can be read past what is kept).
 */
export function readScratch(fd: number, maxBytes: number, keepAfter?: (line: string) => boolean): string {
  const size = fstatSync(fd).size;
  const head = readRange(fd, 0, Math.min(size, maxBytes));
  if (keepAfter === undefined || size <= maxBytes) return head.toString('utf8');
  const cut = head.lastIndexOf(0x0a) + 1;
  const kept: string[] = [head.toString('utf8', 0, cut)];
  let keptBytes = 0;
  let carry = Buffer.alloc(0);
  // In a line too long to keep: its end is skipped, not gathered (nor taken for a line of its own).
  let skipping = false;
  const take = (line: Buffer): void => {
    if (skipping) {
      skipping = false;
      return;
    }
    const text = line.toString('utf8');
    if (keptBytes + line.length + 1 > maxBytes || !keepAfter(text)) return;
    kept.push(`${text}\n`);
    keptBytes += line.length + 1;
  };
  for (let at = cut; at < size;) {
    const chunk = readRange(fd, at, Math.min(size - at, 1 << 16));
    if (chunk.length === 0) break;
    at += chunk.length;
    let data = carry.length === 0 ? chunk : Buffer.concat([carry, chunk]);
    for (let nl = data.indexOf(0x0a); nl !== -1; nl = data.indexOf(0x0a)) {
      take(data.subarray(0, nl));
      data = data.subarray(nl + 1);
    }
    if (data.length > maxBytes) skipping = true;
    carry = skipping ? Buffer.alloc(0) : Buffer.from(data);
  }
  if (carry.length > 0) take(carry);
  return kept.join('');
}
