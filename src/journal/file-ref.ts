import { closeSync, openSync } from 'node:fs';
import { readInto } from '../util/line-blocks';
import { READ_FLAGS } from '../util/nofollow';

// The exact read and the line-end search are the line-block reader's (src/util/line-blocks.ts), which the audit log's
// query shares; a journal's walks name them here.
export { lineEndInFile, readInto } from '../util/line-blocks';

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
