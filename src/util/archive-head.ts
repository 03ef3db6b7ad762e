import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { FOLLOW_READ_FLAGS } from './nofollow';

/**
 * Whether a file an operator named starts as a gzip or ustar archive (a receipt is one; a journal, JSON lines, never
 * is): its first 512 bytes looked at, nothing more. False for what is not a regular file or cannot be read.
 */
export function startsAsArchive(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    const fd = openSync(file, FOLLOW_READ_FLAGS);
    let head: Buffer;
    try {
      const buf = Buffer.alloc(512);
      head = buf.subarray(0, readSync(fd, buf, 0, 512, 0));
    } finally {
      closeSync(fd);
    }
    const gzip = head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
    const ustar = head.length >= 262 && head.toString('latin1', 257, 262) === 'ustar';
    return gzip || ustar;
  } catch {
    return false;
  }
}
