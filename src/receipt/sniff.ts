import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { FOLLOW_READ_FLAGS } from '../util/nofollow';

const NAME = /\.(tar|tar\.gz|tgz)$/i;
const GZIP = (b: Buffer): boolean => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;
const USTAR = (b: Buffer): boolean => b.length >= 262 && b.toString('latin1', 257, 262) === 'ustar';

function headOf(file: string): Buffer {
  const fd = openSync(file, FOLLOW_READ_FLAGS);
  try {
    const buf = Buffer.alloc(512);
    const n = readSync(fd, buf, 0, 512, 0);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether a command-line target names a receipt rather than a journal: a
 * `.tar`/`.tar.gz`/`.tgz` name, or an existing file that starts as a gzip or
 * ustar archive (a journal is JSON lines).
 */
export function looksLikeReceipt(file: string): boolean {
  if (NAME.test(file)) return true;
  try {
    if (!statSync(file).isFile()) return false;
    const head = headOf(file);
    return GZIP(head) || USTAR(head);
  } catch {
    return false;
  }
}
