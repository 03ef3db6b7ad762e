import { closeSync, openSync, readSync } from 'node:fs';
import { InputError } from '../errors';
import { READ_FLAGS } from '../util/nofollow';

/**
 * A journal file: its path (opened for each walk, never through a link), or a descriptor its caller holds open on
 * it (read where it is: a receipt's journal member, walked in the file the rest of the receipt is read from) with
 * the path its messages name.
 */
export type FileRef = string | { fd: number; path: string };

export const pathOf = (file: FileRef): string => (typeof file === 'string' ? file : file.path);
export const openRef = (file: FileRef): number => (typeof file === 'string' ? openSync(file, READ_FLAGS) : file.fd);
/** Closes what openRef opened (a caller's descriptor stays open). */
export const closeRef = (file: FileRef, fd: number): void => {
  if (typeof file === 'string') closeSync(fd);
};

/**
 * Reads exactly `length` bytes of `path` (open as `fd`) at `position` into `into` at `at`. A slice is planned on the
 * file's size when the walk begins and an append only lengthens a journal, so fewer bytes mean the file was cut or
 * rewritten while it was read: no verdict is given on what was walked (a shorter walk would say OK for rows it never
 * saw).
 */
export function readInto(path: string, fd: number, into: Buffer, at: number, length: number, position: number): void {
  let off = 0;
  while (off < length) {
    const n = readSync(fd, into, at + off, length - off, position + off);
    if (n === 0)
      throw new InputError(
        `${path}: it changed while it was read (it now ends at byte ${position + off}, short of the ${position + length} bytes the read began with: cut or rewritten meanwhile); nothing is concluded from it, read it again`,
      );
    off += n;
  }
}

export function readFileRange(file: FileRef, position: number, length: number): Buffer {
  const fd = openRef(file);
  try {
    const buf = Buffer.allocUnsafe(length);
    readInto(pathOf(file), fd, buf, 0, length, position);
    return buf;
  } finally {
    closeRef(file, fd);
  }
}

/**
 * The offset just after the first newline at or after `at` (or `end`; where the file now ends, when it was cut).
 * Read 64 KB first (a line is a few KB), then 1 MB at a time: a line of gigabytes is looked through in thousands of
 * reads, not in millions.
 */
export function lineEndInFile(fd: number, at: number, end: number): number {
  let window = Buffer.allocUnsafe(64 * 1024);
  for (let pos = at; pos < end;) {
    const n = readSync(fd, window, 0, Math.min(window.length, end - pos), pos);
    if (n === 0) return pos;
    const nl = window.subarray(0, n).indexOf(0x0a);
    if (nl >= 0) return pos + nl + 1;
    pos += n;
    if (window.length < LONG_LINE_WINDOW) window = Buffer.allocUnsafe(LONG_LINE_WINDOW);
  }
  return end;
}
const LONG_LINE_WINDOW = 1024 * 1024;
