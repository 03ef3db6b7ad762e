import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, readSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';

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

/** `length` bytes from `position` of an open file (fewer at end of file). */
export function readRange(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let off = 0;
  while (off < length) {
    const n = readSync(fd, buf, off, length - off, position + off);
    if (n === 0) break;
    off += n;
  }
  return buf.subarray(0, off);
}

/** Whether a path is a directory, a regular file, or neither (missing, or something else). */
export function pathKind(p: string): 'file' | 'dir' | undefined {
  try {
    const st = statSync(p);
    return st.isDirectory() ? 'dir' : st.isFile() ? 'file' : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Appends whole lines with one write(2) to a file opened O_APPEND; when
 * `durable`, fsyncs the file, and its directory when the file was created.
 */
export function appendDurably(file: string, data: Uint8Array, durable: boolean): void {
  const fd = openSync(file, 'a', 0o644);
  let created: boolean;
  try {
    created = fstatSync(fd).size === 0;
    writeAll(fd, data);
    if (durable) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  if (created && durable) fsyncDir(path.dirname(file));
}

/**
 * Recovery of a torn tail (docs/format.md §2): copies the bytes from `from` to the end of
 * the file to `<file>.torn-<unix ms>` beside it (a fresh name, fsync'ed when
 * `durable`), then truncates the file at `from`. Returns the side file's path.
 */
export function moveTornTailAside(file: string, from: number, durable: boolean, mode = 0o644): string {
  const fd = openSync(file, 'r+');
  try {
    const size = fstatSync(fd).size;
    const torn = readRange(fd, from, size - from);
    const base = `${file}.torn-${Date.now()}`;
    for (let n = 0; ; n++) {
      const side = n === 0 ? base : `${base}-${n}`;
      let sfd: number;
      try {
        sfd = openSync(side, 'wx', mode);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EEXIST') continue;
        throw e;
      }
      try {
        writeAll(sfd, torn);
        if (durable) fsyncSync(sfd);
      } finally {
        closeSync(sfd);
      }
      ftruncateSync(fd, from);
      if (durable) {
        fsyncSync(fd);
        fsyncDir(path.dirname(file));
      }
      return side;
    }
  } finally {
    closeSync(fd);
  }
}

/** Writes the newline a complete last line lost (its writer died between the two). */
export function finishLastLine(file: string, at: number, durable: boolean): void {
  const fd = openSync(file, 'r+');
  try {
    writeAll(fd, Buffer.from('\n'), at);
    if (durable) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
