import { closeSync, lstatSync, openSync, readdirSync, readSync } from 'node:fs';
import path from 'node:path';
import { READ_FLAGS } from '../util/nofollow';

/**
 * Whether the repository holds an object, read from its files as `git write-tree` asks it (git's
 * `has_object_file`): a loose object file, or an entry in a pack's index (version 2) whose pack is there. One
 * `ObjectStore` serves the lookups of one operation (the pack list is read once). It only ever says `true` for an
 * object it found; `false` means "not found here", which the caller takes as "git decides" (an alternate object
 * store, a pack index of another version, a link where a file should be: git reads those). Nothing is read
 * through a link, and a pack index is read a few bytes at a time (its fan-out, then a binary search), never whole.
 */
export class ObjectStore {
  private packs: { idx: string; count: number; fanout: Buffer }[] | undefined;

  constructor(private readonly commonDir: string) {}

  has(oid: string): boolean {
    return this.loose(oid) || this.packed(oid);
  }

  private loose(oid: string): boolean {
    try {
      return lstatSync(path.join(this.commonDir, 'objects', oid.slice(0, 2), oid.slice(2))).isFile();
    } catch {
      return false;
    }
  }

  private packed(oid: string): boolean {
    const want = Buffer.from(oid, 'hex');
    for (const p of this.packList()) if (findInIndex(p.idx, p.fanout, p.count, want)) return true;
    return false;
  }

  /** The version-2 pack indexes whose pack file is there (each index's fan-out read once). */
  private packList(): { idx: string; count: number; fanout: Buffer }[] {
    if (this.packs !== undefined) return this.packs;
    this.packs = [];
    const dir = path.join(this.commonDir, 'objects', 'pack');
    let names: string[];
    try {
      if (!lstatSync(dir).isDirectory()) return this.packs;
      names = readdirSync(dir);
    } catch {
      return this.packs;
    }
    for (const name of names.sort()) {
      if (!name.endsWith('.idx') || !isFile(path.join(dir, `${name.slice(0, -4)}.pack`))) continue;
      const idx = path.join(dir, name);
      const head = readAt(idx, 0, 8 + 1024);
      if (head === undefined || head.length !== 8 + 1024) continue;
      if (head.readUInt32BE(0) !== 0xff744f63 || head.readUInt32BE(4) !== 2) continue;
      const fanout = head.subarray(8);
      this.packs.push({ idx, count: fanout.readUInt32BE(4 * 255), fanout });
    }
    return this.packs;
  }
}

function isFile(p: string): boolean {
  try {
    return lstatSync(p).isFile();
  } catch {
    return false;
  }
}

/** `length` bytes of `file` at `offset` (fewer at its end), never through a link; undefined when it cannot be read. */
function readAt(file: string, offset: number, length: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, READ_FLAGS);
  } catch {
    return undefined;
  }
  try {
    const out = Buffer.alloc(length);
    let got = 0;
    while (got < length) {
      const n = readSync(fd, out, got, length - got, offset + got);
      if (n === 0) break;
      got += n;
    }
    return out.subarray(0, got);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Whether a version-2 pack index lists `want` (20 bytes): a binary search over its sorted names, read in place. */
function findInIndex(idx: string, fanout: Buffer, count: number, want: Buffer): boolean {
  const first = want[0]!;
  let lo = first === 0 ? 0 : fanout.readUInt32BE(4 * (first - 1));
  let hi = fanout.readUInt32BE(4 * first);
  if (lo >= hi || hi > count) return false;
  let fd: number;
  try {
    fd = openSync(idx, READ_FLAGS);
  } catch {
    return false;
  }
  try {
    const name = Buffer.alloc(20);
    const names = 8 + 1024;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (readSync(fd, name, 0, 20, names + mid * 20) !== 20) return false;
      const c = want.compare(name);
      if (c === 0) return true;
      if (c < 0) hi = mid;
      else lo = mid + 1;
    }
    return false;
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}
