import { closeSync, lstatSync, openSync, readdirSync, readSync } from 'node:fs';
import path from 'node:path';
import { READ_FLAGS } from '../util/nofollow';

/**
 * Whether the repository holds an object, read from its files as `git write-tree` asks it (git's
 * `has_object_file`): a loose object file, or an entry in a pack's index (version 2) whose pack git would open. One
 * `ObjectStore` serves the lookups of one operation (the pack list is read once). It only ever says `true` for an
 * object git would find; `false` means "not found here", which the caller takes as "git decides" (an alternate
 * object store, a pack index of another version, a multi-pack index, a link where a file or directory should be:
 * git reads those). A pack counts only as git opens it (packfile.c): its index of the size its count makes, its
 * fan-out never decreasing, the pack's header naming as many objects and its trailing checksum the one its index
 * records; else git ignores the pack and its objects are missing to it. Nothing is read through a link, and a pack
 * index is read a few bytes at a time (its fan-out, then a binary search), never whole.
 */
export class ObjectStore {
  private packs: Pack[] | undefined;
  /** The fan-out directories (`objects/ab`) found to be real directories, or not. */
  private readonly dirs = new Map<string, boolean>();
  private readonly objects: string;

  constructor(commonDir: string) {
    this.objects = path.join(commonDir, 'objects');
  }

  has(oid: string): boolean {
    return this.realDir(this.objects) && (this.loose(oid) || this.packed(oid));
  }

  private realDir(dir: string): boolean {
    let real = this.dirs.get(dir);
    if (real === undefined) {
      try {
        real = lstatSync(dir).isDirectory();
      } catch {
        real = false;
      }
      this.dirs.set(dir, real);
    }
    return real;
  }

  private loose(oid: string): boolean {
    const dir = path.join(this.objects, oid.slice(0, 2));
    return this.realDir(dir) && isFile(path.join(dir, oid.slice(2)));
  }

  private packed(oid: string): boolean {
    const want = Buffer.from(oid, 'hex');
    for (const p of this.packList()) if (findInIndex(p, want)) return true;
    return false;
  }

  /** The version-2 pack indexes whose pack git would open (each index's fan-out read once). */
  private packList(): Pack[] {
    if (this.packs !== undefined) return this.packs;
    this.packs = [];
    const dir = path.join(this.objects, 'pack');
    // A multi-pack index answers for the packs it lists, in git, instead of their own indexes: git decides.
    if (!this.realDir(dir) || exists(path.join(dir, 'multi-pack-index'))) return this.packs;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return this.packs;
    }
    for (const name of names.sort()) {
      if (!name.endsWith('.idx')) continue;
      const pack = openPack(path.join(dir, name), path.join(dir, `${name.slice(0, -4)}.pack`));
      if (pack !== undefined) this.packs.push(pack);
    }
    return this.packs;
  }
}

/** A pack git would open: its index's path, object count and fan-out. */
interface Pack {
  idx: string;
  count: number;
  fanout: Buffer;
}

const IDX_HEADER = 8 + 1024;
const HASH = 20;

/** The pack of this index as git opens it (`check_packed_git_idx`, `open_packed_git_1`), or undefined. */
function openPack(idx: string, pack: string): Pack | undefined {
  const idxSize = regularSize(idx);
  const packSize = regularSize(pack);
  if (idxSize === undefined || packSize === undefined) return undefined;
  const head = readAt(idx, 0, IDX_HEADER);
  if (head === undefined || head.length !== IDX_HEADER) return undefined;
  if (head.readUInt32BE(0) !== 0xff744f63 || head.readUInt32BE(4) !== 2) return undefined;
  const fanout = head.subarray(8);
  let count = 0;
  for (let i = 0; i < 256; i++) {
    const c = fanout.readUInt32BE(4 * i);
    if (c < count) return undefined; // "non-monotonic index"
    count = c;
  }
  // Names, CRCs and offsets for each object, the pack's checksum and its own; then at most a large offset for each.
  const min = IDX_HEADER + count * (HASH + 8) + 2 * HASH;
  if (idxSize < min || idxSize > min + Math.max(0, count - 1) * 8) return undefined;
  const packSum = readAt(idx, idxSize - 2 * HASH, HASH);
  const header = readAt(pack, 0, 12);
  const trailer = packSize < 12 + HASH ? undefined : readAt(pack, packSize - HASH, HASH);
  if (packSum === undefined || header === undefined || header.length !== 12 || trailer === undefined) return undefined;
  if (header.toString('latin1', 0, 4) !== 'PACK') return undefined;
  const version = header.readUInt32BE(4);
  if ((version !== 2 && version !== 3) || header.readUInt32BE(8) !== count) return undefined;
  if (!trailer.equals(packSum)) return undefined; // "packfile does not match index"
  return { idx, count, fanout };
}

/** The size of a regular file (never a link's target), or undefined. */
function regularSize(file: string): number | undefined {
  try {
    const st = lstatSync(file);
    return st.isFile() ? st.size : undefined;
  } catch {
    return undefined;
  }
}

function exists(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
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

/**
 * Whether a version-2 pack index lists `want` (20 bytes) at an offset git takes as found: a binary search over its
 * sorted names, read in place, as git's `bsearch_hash`. An offset of 0 git takes as not found, and a large one (its
 * top bit set) is looked up in a table git checks: both are left to git.
 */
function findInIndex(pack: Pack, want: Buffer): boolean {
  const { idx, fanout, count } = pack;
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
    const name = Buffer.alloc(HASH);
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (readSync(fd, name, 0, HASH, IDX_HEADER + mid * HASH) !== HASH) return false;
      const c = want.compare(name);
      if (c === 0) {
        const offset = Buffer.alloc(4);
        if (readSync(fd, offset, 0, 4, IDX_HEADER + count * (HASH + 4) + mid * 4) !== 4) return false;
        const at = offset.readUInt32BE(0);
        return at >= 12 && (at & 0x80000000) === 0;
      }
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
