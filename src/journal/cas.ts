import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../errors';
import { isSha256Hex, sha256Hex } from '../util/hash';
import { fsyncDir, writeAll } from '../util/fs';

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

  has(digest: string): boolean {
    try {
      return statSync(this.pathOf(digest)).isFile();
    } catch {
      return false;
    }
  }

  /** The blob's bytes, or undefined when it is not stored. */
  get(digest: string): Buffer | undefined {
    try {
      return readFileSync(this.pathOf(digest));
    } catch {
      return undefined;
    }
  }

  /** Stores bytes (write to a temporary name, fsync, rename) and returns their digest. */
  put(bytes: Uint8Array): string {
    const digest = sha256Hex(bytes);
    const file = this.pathOf(digest);
    try {
      if (statSync(file).size === bytes.length) return digest;
    } catch {
      /* not stored yet */
    }
    const dir = path.dirname(file);
    mkdirSync(dir, { recursive: true, mode: 0o700 }); // blobs are agent inputs: owner-only, like the journal
    const tmp = path.join(dir, `.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`);
    const fd = openSync(tmp, 'wx', 0o600);
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
