import { closeSync, fsyncSync, lstatSync, openSync, renameSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../errors';
import { isSha256Hex, sha256Hex } from '../util/hash';
import { ensureDir, fsyncDir, writeAll } from '../util/fs';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../util/modes';
import { readRegularFile, storeDirMissing } from '../util/nofollow';

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

  /** Stores bytes (write to a temporary name, fsync, rename) and returns their digest. */
  put(bytes: Uint8Array): string {
    const digest = sha256Hex(bytes);
    const file = this.pathOf(digest);
    const dir = path.dirname(file);
    ensureDir(dir, PRIVATE_DIR_MODE); // blobs are agent inputs: owner-only, like the journal; never through a link
    try {
      // Already stored (as a regular file, of its size: a link or a FIFO in its place is replaced below).
      const st = lstatSync(file, { throwIfNoEntry: false });
      if (st?.isFile() && st.size === bytes.length) return digest;
    } catch {
      /* not stored yet */
    }
    const tmp = path.join(dir, `.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`);
    const fd = openSync(tmp, 'wx', PRIVATE_FILE_MODE);
    try {
      writeAll(fd, bytes);
      if (this.durable) fsyncSync(fd);
    } catch (e) {
      closeSync(fd);
      unlinkSync(tmp);
      throw e;
    }
    closeSync(fd);
    renameSync(tmp, file);
    if (this.durable) fsyncDir(dir);
    return digest;
  }
}
