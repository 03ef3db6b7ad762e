import { closeSync, constants, fsyncSync, openSync } from 'node:fs';
import { InputError, isOsError, osError } from '../errors';

// A directory synced after an entry is created or renamed in it: one rule for every such sync (the journal's first
// row, staged whole files, the blob store, keys, a fork's files), in ./fs.ts's writers and the blob store's batches.

/**
 * Opening a directory to sync it: never blocking (a FIFO put in its place is refused, not waited on: O_DIRECTORY
 * where the platform has it, O_NONBLOCK besides).
 */
export const DIR_SYNC_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * The errors with which a platform or file system says it cannot sync a directory at all (Windows opens none, some
 * file systems have no directory sync, a directory this user may write but not read): the entries' data were synced,
 * and there is nothing more to do. Any other failure (EIO, ENOSPC, the directory gone or replaced) is one: a created
 * or renamed entry may not survive a crash, and that is said, not passed over.
 */
const DIR_SYNC_UNSUPPORTED = new Set(['EINVAL', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EISDIR', 'EPERM', 'EACCES']);

/** Whether `e`, from opening or syncing a directory, only says this directory cannot be synced here. */
export function dirSyncUnsupported(e: unknown): boolean {
  return isOsError(e) && DIR_SYNC_UNSUPPORTED.has(e.code);
}

/** The one-line error for a directory sync that failed (not one the file system cannot do: dirSyncUnsupported). */
export function dirSyncFailed(e: NodeJS.ErrnoException, dir: string): InputError {
  return osError(e, dir, 'cannot sync the directory (what was just put in it may not survive a crash)');
}

/** fsync a directory so a created or renamed entry survives a crash (throws as dirSyncFailed says). */
export function fsyncDir(dir: string): void {
  const e = dirSyncError(dir);
  if (e !== undefined) throw dirSyncFailed(e, dir);
}

/** fsyncs a directory; the OS error that failed it (undefined: synced, or one it cannot sync: dirSyncUnsupported). */
export function dirSyncError(dir: string): NodeJS.ErrnoException | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(dir, DIR_SYNC_FLAGS);
    fsyncSync(fd);
  } catch (e) {
    if (!isOsError(e)) throw e;
    if (!dirSyncUnsupported(e)) return e;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return undefined;
}
