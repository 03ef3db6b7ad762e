import { closeSync, constants, fsyncSync, lstatSync, openSync, renameSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { InputError, osError } from '../errors';
import { isSha256Hex, sha256Hex } from '../util/hash';
import { dirSyncFailed, dirSyncUnsupported, DIR_SYNC_FLAGS, ensureDir, fsyncDir, writeAll } from '../util/fs';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../util/modes';
import { readRegularFile, READ_FLAGS, storeDirMissing } from '../util/nofollow';

/**
 * Blobs stored by `put(bytes, batch)`: written and renamed into place without waiting for the disk, then made
 * durable together by `sync(batch)` (each file, then each directory they went into, synced once). A fork copies
 * every blob its steps name: a sync of each file and of its directory as it was written was two waits for the disk
 * a blob (a fork of 20,000 blobs took 158 s under load); written first, the file system writes them out together
 * and most syncs after find little left to do.
 */
export interface CasBatch {
  files: string[];
  dirs: Set<string>;
}

/** Files a batch should hold at most before it is synced (its memory stays small whatever the number of blobs). */
export const CAS_BATCH_FILES = 4096;
/** Syncs in flight at once: libuv's threads (four unless UV_THREADPOOL_SIZE says otherwise). */
const SYNCS_AT_ONCE = 4;

export function newCasBatch(): CasBatch {
  return { files: [], dirs: new Set() };
}

/** The content-addressed blob store: `<dir>/<first two hex>/<sha256 hex>`. */
export class Cas {
  constructor(
    readonly dir: string,
    private readonly durable = true,
  ) {}

  pathOf(digest: string): string {
    if (!isSha256Hex(digest)) throw new InputError(`not a SHA-256 digest: ${JSON.stringify(digest)}`);
    return path.join(this.dir, digest.slice(0, 2), digest);
  }

  /** Whether the blob is stored as a regular file (a link in its place is not a blob). */
  has(digest: string): boolean {
    try {
      // Missing, the common answer of a store asked for every blob a journal names: no exception built for it.
      return lstatSync(this.pathOf(digest), { throwIfNoEntry: false })?.isFile() ?? false;
    } catch {
      return false;
    }
  }

  /**
   * Whether the store's directory is missing under `.sdd` (no blob can be in it): one look for what `get` would find
   * for each blob (a link on the way is refused the same way). Never true for a store outside `.sdd` (`--cas`).
   */
  missing(): boolean {
    return storeDirMissing(path.resolve(this.dir));
  }

  /**
   * The blob's bytes, or undefined when it is not stored. Read as every stored
   * file is (never through a link, never blocking on a FIFO, never more than
   * the file's size: src/util/nofollow.ts); anything but a regular file in its
   * place is an InputError naming it. The caller hashes what it gets.
   */
  get(digest: string): Buffer | undefined {
    return readRegularFile(this.pathOf(digest));
  }

  /**
   * Stores bytes (write to a temporary name, fsync, rename) and returns their digest. With `batch`, the syncs are
   * left to `sync(batch)` (see CasBatch).
   */
  put(bytes: Uint8Array, batch?: CasBatch): string {
    const digest = sha256Hex(bytes);
    const file = this.pathOf(digest);
    const dir = path.dirname(file);
    // Blobs are agent inputs: owner-only, like the journal; never through a link. Looked at for every blob, in a
    // batch too: a fork's store lies under the parent's .sdd/worktrees/, which the parent's agent can write while the
    // copy runs (a directory swapped for a link after the batch's first look had its later blobs written through it).
    ensureDir(dir, PRIVATE_DIR_MODE);
    try {
      // Already stored (as a regular file, of its size: a link or a FIFO in its place is replaced below).
      const st = lstatSync(file, { throwIfNoEntry: false });
      if (st?.isFile() && st.size === bytes.length) return digest;
    } catch {
      /* not stored yet */
    }
    const tmp = path.join(dir, `.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`);
    const fd = openSync(tmp, 'wx', PRIVATE_FILE_MODE);
    const now = this.durable && batch === undefined;
    try {
      writeAll(fd, bytes);
      if (now) fsyncSync(fd);
    } catch (e) {
      closeSync(fd);
      unlinkSync(tmp);
      throw e;
    }
    closeSync(fd);
    renameSync(tmp, file);
    if (now) fsyncDir(dir);
    else if (this.durable && batch !== undefined) {
      batch.files.push(file);
      batch.dirs.add(dir);
    }
    return digest;
  }

  /**
   * Makes the blobs a batch stored durable: each file synced (opened again, never through a link), several at a
   * time, then each directory. Syncs at once share the file system's journal commits: 1,000 files of 2 KB here took
   * 4.9 s synced one at a time, 0.4 s four at a time (ext4 on a virtual disk).
   */
  async sync(batch: CasBatch): Promise<void> {
    await syncEach(batch.files, READ_FLAGS, (file, e) => {
      throw osError(e, file, 'cannot sync');
    });
    // A directory is synced as fsyncDir syncs one (never through a link here: the store may lie where the parent's agent
    // writes): a file system that cannot is passed over, a failure is not.
    await syncEach([...batch.dirs], DIR_SYNC_FLAGS | (constants.O_NOFOLLOW ?? 0), (dir, e) => {
      if (!dirSyncUnsupported(e)) throw dirSyncFailed(e, dir);
    });
    batch.files.length = 0;
    batch.dirs.clear();
  }
}

/** Syncs each path (opened with `flags`), SYNCS_AT_ONCE at a time; `failed` says what a failure is. */
async function syncEach(
  paths: readonly string[],
  flags: number,
  failed: (path: string, e: NodeJS.ErrnoException) => void,
): Promise<void> {
  // Loaded here, not with the module: every hook call stores its payload through this module, and node:fs/promises
  // costs ~2 ms to load; only a fork's batched copy syncs this way.
  const { open } = process.getBuiltinModule('node:fs/promises');
  let next = 0;
  const syncing = async (): Promise<void> => {
    while (next < paths.length) {
      const p = paths[next++]!;
      try {
        const handle = await open(p, flags);
        try {
          await handle.sync();
        } finally {
          await handle.close();
        }
      } catch (e) {
        failed(p, e as NodeJS.ErrnoException);
      }
    }
  };
  await Promise.all(Array.from({ length: SYNCS_AT_ONCE }, syncing));
}
