import { closeSync, constants, fsyncSync, ftruncateSync, fstatSync, openSync } from 'node:fs';
import path from 'node:path';
import { isOsError, osError } from '../errors';
import { NOFOLLOW, openError, readRange, refuseHardLinked, writeAll, writeFileWhole } from './fs';
import { PRIVATE_FILE_MODE } from './modes';
import { refuseLinkedStoreDirs } from './nofollow';

/**
 * The two repairs a chain file's reader may make in place before an append (docs/format.md §2): a torn tail moved
 * aside, a lost newline written. Each changes the file where it lies, so each refuses a link of either kind first.
 */

/**
 * The chain file opened to be changed where it lies: never through a link of either kind (a symbolic link in its
 * place or in a directory above, a second name), so a repair cannot cut or write a file of the user's.
 */
function openToRepair(file: string, action: string): number {
  refuseLinkedStoreDirs(path.dirname(file));
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDWR | NOFOLLOW);
  } catch (e) {
    throw openError(e, file, `cannot open to ${action}`);
  }
  try {
    refuseHardLinked(fd, file, `cannot ${action}`);
  } catch (e) {
    closeSync(fd);
    throw e;
  }
  return fd;
}

/**
 * Recovery of a torn tail (docs/format.md §2): copies the bytes from `from` to
 * the end of the file to `<file>.torn-<unix ms>` beside it (written whole under
 * a fresh name, owner-only as the chain it was cut from, fsync'ed when `durable`), then truncates the file at `from`.
 * If the copy cannot be written (a full disk) nothing is created and the file
 * is left as it was. Returns the side file's path.
 */
export function moveTornTailAside(file: string, from: number, durable: boolean): string {
  const fd = openToRepair(file, 'repair a torn tail');
  try {
    const size = fstatSync(fd).size;
    const torn = readRange(fd, from, size - from);
    const base = `${file}.torn-${Date.now()}`;
    for (let n = 0; ; n++) {
      const side = n === 0 ? base : `${base}-${n}`;
      try {
        writeFileWhole(side, torn, { durable, mode: PRIVATE_FILE_MODE, exclusive: true });
      } catch (e) {
        if (isOsError(e) && e.code === 'EEXIST') continue;
        throw e;
      }
      try {
        ftruncateSync(fd, from);
        if (durable) fsyncSync(fd);
      } catch (e) {
        if (isOsError(e)) throw osError(e, file, 'cannot cut off a torn tail');
        throw e;
      }
      return side;
    }
  } finally {
    closeSync(fd);
  }
}

/** Writes the newline a complete last line lost (its writer died between the two). */
export function finishLastLine(file: string, at: number, durable: boolean): void {
  const fd = openToRepair(file, 'finish the last line');
  try {
    writeAll(fd, Buffer.from('\n'), at);
    if (durable) fsyncSync(fd);
  } catch (e) {
    try {
      ftruncateSync(fd, at);
    } catch {
      /* the line stays unterminated: the next open finishes it */
    }
    if (isOsError(e)) throw osError(e, file, 'cannot finish the last line');
    throw e;
  } finally {
    closeSync(fd);
  }
}
