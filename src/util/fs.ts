import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';

/**
 * Writes every byte (a single write(2) may be short on some file systems), at
 * `position` when given, else at the file offset (the end, for O_APPEND).
 */
export function writeAll(fd: number, bytes: Uint8Array, position?: number): void {
  let off = 0;
  while (off < bytes.length) {
    off += writeSync(fd, bytes, off, bytes.length - off, position === undefined ? null : position + off);
  }
}

/** fsync a directory so a created or renamed entry survives a crash. */
export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    /* some file systems refuse to fsync directories; the data itself was synced */
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
