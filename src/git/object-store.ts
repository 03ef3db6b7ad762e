import { closeSync, lstatSync, openSync, readdirSync, readSync } from 'node:fs';
import path from 'node:path';
import { noteBranch } from '../util/code-branches';
import { READ_FLAGS } from '../util/nofollow';

/** How a store reads what it is asked at once (tests set them to take every path). */
export interface ReadLimits {
  /** A pack index whose ids take at most this many bytes is read whole (its ids and offsets) at its first lookup. */
  wholeBytes: number;
  /** Else a fan-out bucket (the ids sharing a first byte) of at most this many bytes is read whole. */
  bucketBytes: number;
  /** From how many loose objects of one fan-out directory it is listed rather than each file looked at. */
  listFrom: number;
  /** From how many fan-out directories `objects` itself is listed rather than each directory looked at. */
  listDirsFrom: number;
}

/**
 * A pack of up to ~3,000 objects (64 KiB of ids) is read in two reads, its ids and their offsets; a larger one a
 * fan-out bucket at a time up to 8 KiB of ids (~400, a pack of ~100,000 objects), two reads per bucket however many
 * lookups fall in it; beyond that a lookup reads its way through a binary search (never the whole index of a huge
 * repository for one lookup). A listing of a few dozen names costs about three looks at a file (19 us against 6-7
 * us each, Node 20, warm); `objects` (up to ~260 names) about eight.
 */
const READ_LIMITS: ReadLimits = { wholeBytes: 65536, bucketBytes: 8192, listFrom: 3, listDirsFrom: 8 };

/**
 * Whether the repository holds an object, read from its files as `git write-tree` asks it (git's
 * `has_object_file`): an entry in a pack's index (version 2) whose pack git would open, or a loose object file. One
 * `ObjectStore` serves the lookups of one operation (the pack list is read once; `close` ends it). It only ever says
 * `true` for an object git would find; `false` means "not found here", which the caller takes as "git decides" (an
 * alternate object store, a pack index of another version, a multi-pack index, a link where a file or directory
 * should be: git reads those). A pack counts only as git opens it (packfile.c): its index of the size its count
 * makes, its fan-out never decreasing, the pack's header naming as many objects and its trailing checksum the one
 * its index records; else git ignores the pack and its objects are missing to it. Nothing is read through a link.
 *
 * Why it is built this way: a snapshot whose step changed files in every directory rebuilds every tree, and every
 * entry's object is looked up (git does the same). Asked one at a time as files (a pack index opened, searched and
 * closed per object; a loose look throwing for every packed object) that was ~10,700 system calls in a 2,000-file
 * tree after gc. Here a pack index is opened once and held (a small one read whole, a larger one a fan-out bucket
 * at a time, a huge one searched in place, never read whole), packs are asked first as git asks them, the loose
 * objects of a tree are asked together (`hasAll`: a fan-out directory asked for several is listed once), and a
 * missing file is an answer, not an exception.
 */
export class ObjectStore {
  private packs: Pack[] | undefined;
  /** The fan-out directories (`objects/ab`) found to be real directories, or not. */
  private readonly dirs = new Map<string, boolean>();
  /** Objects found already (a tree names one blob under many names: an empty file, a licence). */
  private readonly found = new Set<string>();
  private readonly objects: string;
  private readonly limits: ReadLimits;

  constructor(commonDir: string, limits: Partial<ReadLimits> = {}) {
    this.objects = path.join(commonDir, 'objects');
    this.limits = { ...READ_LIMITS, ...limits };
  }

  /** Whether git would find `oid` (40 hex digits) here. */
  has(oid: string): boolean {
    if (this.found.has(oid)) return true;
    if (!this.realDir(this.objects)) return false;
    if (!this.packed(oid) && !this.loose(oid)) return false;
    this.found.add(oid);
    return true;
  }

  /**
   * Whether git would find every one of `oids` (40 hex digits each, repeats allowed): the packs first, then the
   * loose files, a fan-out directory asked for `listFrom` or more listed once instead of a look at each file.
   */
  hasAll(oids: readonly string[]): boolean {
    if (!this.realDir(this.objects)) return false;
    const byDir = new Map<string, string[]>();
    for (const oid of oids) {
      if (this.found.has(oid) || this.packed(oid)) continue;
      const rest = byDir.get(oid.slice(0, 2));
      if (rest === undefined) byDir.set(oid.slice(0, 2), [oid.slice(2)]);
      else rest.push(oid.slice(2));
    }
    // Many fan-out directories: which are real ones is read from one listing of `objects` (its entries' types).
    if (byDir.size >= this.limits.listDirsFrom) {
      const kinds = entriesIn(this.objects);
      if (kinds === undefined) return false;
      for (const fan of byDir.keys()) this.dirs.set(path.join(this.objects, fan), kinds.get(fan) === 'dir');
    }
    for (const [fan, rest] of byDir) {
      const dir = path.join(this.objects, fan);
      if (!this.realDir(dir)) return false;
      if (rest.length < this.limits.listFrom) {
        for (const r of rest) if (lstatKind(path.join(dir, r)) !== 'file') return false;
        continue;
      }
      const files = entriesIn(dir);
      if (files === undefined || !rest.every((r) => files.get(r) === 'file')) return false;
    }
    for (const oid of oids) this.found.add(oid);
    return true;
  }

  /**
   * The packs git would open that list `oid` (40 hex digits) at an offset it takes, each with that offset: where a
   * reader of the object's own bytes finds it (readRepoInfo reads HEAD's commit there: ./repo-read.ts). Empty when
   * no pack read here lists it (loose, or git's to find).
   */
  packedCopies(oid: string): { pack: string; offset: number }[] {
    if (!this.realDir(this.objects)) return [];
    const want = Buffer.from(oid, 'hex');
    const copies: { pack: string; offset: number }[] = [];
    for (const p of this.packList()) {
      const offset = findInPack(p, want, this.limits);
      if (offset >= 0) copies.push({ pack: `${p.idx.slice(0, -'.idx'.length)}.pack`, offset });
    }
    return copies;
  }

  /** Closes the pack indexes held open (no packed object is found after: git decides). */
  close(): void {
    for (const p of this.packs ?? []) {
      if (typeof p.fd === 'number') {
        try {
          closeSync(p.fd);
        } catch {
          /* closed */
        }
      }
      p.fd = null;
    }
    this.packs = [];
  }

  private realDir(dir: string): boolean {
    let real = this.dirs.get(dir);
    if (real === undefined) {
      real = lstatKind(dir) === 'dir';
      this.dirs.set(dir, real);
    }
    return real;
  }

  private loose(oid: string): boolean {
    const dir = path.join(this.objects, oid.slice(0, 2));
    return this.realDir(dir) && lstatKind(path.join(dir, oid.slice(2))) === 'file';
  }

  private packed(oid: string): boolean {
    const packs = this.packList();
    if (packs.length === 0) return false;
    const want = Buffer.from(oid, 'hex');
    for (const p of packs) if (findInPack(p, want, this.limits) >= 0) return true;
    return false;
  }

  /** The version-2 pack indexes whose pack git would open (each index's fan-out read once). */
  private packList(): Pack[] {
    if (this.packs !== undefined) return this.packs;
    this.packs = [];
    const dir = path.join(this.objects, 'pack');
    // A multi-pack index answers for the packs it lists, in git, instead of their own indexes: git decides.
    if (!this.realDir(dir) || lstatKind(path.join(dir, 'multi-pack-index')) !== 'none') return this.packs;
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
    if (this.packs.length > 0) noteBranch('packed');
    return this.packs;
  }
}

/**
 * A pack git would open: its index's path, object count and fan-out; the index held open once searched (`fd`), and
 * what of it is held in memory: the buckets read so far by first byte, or the whole index (key -1).
 */
interface Pack {
  idx: string;
  count: number;
  fanout: Buffer;
  /** The index, opened at its first lookup (undefined: not yet); null: it could not be opened, or was closed. */
  fd: number | null | undefined;
  buckets: Map<number, Bucket>;
}

/** Ids of a pack index (20 bytes each) and their offsets (4 bytes each), from position `from` on. */
interface Bucket {
  from: number;
  names: Buffer;
  offsets: Buffer;
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
  return { idx, count, fanout, fd: undefined, buckets: new Map() };
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

/**
 * What is at `p`, never following a link: a regular file, a directory, nothing, or something else (a link, a FIFO,
 * a path that cannot be looked at). A missing path is an answer, not a thrown error (most lookups of a loose object
 * whose object is packed miss).
 */
function lstatKind(p: string): 'file' | 'dir' | 'none' | 'other' {
  try {
    const st = lstatSync(p, { throwIfNoEntry: false });
    if (st === undefined) return 'none';
    return st.isFile() ? 'file' : st.isDirectory() ? 'dir' : 'other';
  } catch {
    return 'other';
  }
}

/**
 * The entries of `dir` and what each is (a regular file, a directory or something else, a link included), from the
 * listing's types (Node asks lstat where the file system does not say); undefined when it cannot be listed.
 */
function entriesIn(dir: string): Map<string, 'file' | 'dir' | 'other'> | undefined {
  try {
    const out = new Map<string, 'file' | 'dir' | 'other'>();
    for (const e of readdirSync(dir, { withFileTypes: true }))
      out.set(e.name, e.isFile() ? 'file' : e.isDirectory() ? 'dir' : 'other');
    return out;
  } catch {
    return undefined;
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
 * The offset in its pack at which a version-2 pack index lists `want` (20 bytes), when git takes it as found, else
 * -1: a binary search over its sorted names, as git's `bsearch_hash`, within the fan-out bucket of `want`'s first
 * byte (held in memory when the limits allow, else read a name at a time). An offset of 0 git takes as not found,
 * and a large one (its top bit set) is looked up in a table git checks: both are left to git. A read that fails or
 * comes short: not found.
 */
function findInPack(pack: Pack, want: Buffer, limits: ReadLimits): number {
  const { fanout, count } = pack;
  const first = want[0]!;
  const lo = first === 0 ? 0 : fanout.readUInt32BE(4 * (first - 1));
  const hi = fanout.readUInt32BE(4 * first);
  if (lo >= hi || hi > count) return -1;
  if (pack.fd === undefined) {
    try {
      pack.fd = openSync(pack.idx, READ_FLAGS);
    } catch {
      pack.fd = null;
    }
  }
  const fd = pack.fd;
  if (fd === null) return -1;
  const offsetsAt = IDX_HEADER + count * (HASH + 4);
  try {
    let at: number;
    if (count * HASH <= limits.wholeBytes || (hi - lo) * HASH <= limits.bucketBytes) {
      const whole = count * HASH <= limits.wholeBytes;
      const key = whole ? -1 : first;
      let bucket = pack.buckets.get(key);
      if (bucket === undefined) {
        const [from, to] = whole ? [0, count] : [lo, hi];
        const names = readExactly(fd, (to - from) * HASH, IDX_HEADER + from * HASH);
        const offsets = names && readExactly(fd, (to - from) * 4, offsetsAt + from * 4);
        if (names === undefined || offsets === undefined) return -1;
        bucket = { from, names, offsets };
        pack.buckets.set(key, bucket);
      }
      const i = searchNames(bucket.names, want, lo - bucket.from, hi - bucket.from);
      if (i < 0) return -1;
      at = bucket.offsets.readUInt32BE(i * 4);
    } else {
      const i = searchInPlace(fd, want, lo, hi);
      if (i < 0) return -1;
      const offset = readExactly(fd, 4, offsetsAt + i * 4);
      if (offset === undefined) return -1;
      at = offset.readUInt32BE(0);
    }
    return at >= 12 && (at & 0x80000000) === 0 ? at : -1;
  } catch {
    return -1;
  }
}

/** Where `want` is among the sorted ids of `names` (20 bytes each) at positions [lo, hi), or -1. */
function searchNames(names: Buffer, want: Buffer, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = want.compare(names, mid * HASH, mid * HASH + HASH);
    if (c === 0) return mid;
    if (c < 0) hi = mid;
    else lo = mid + 1;
  }
  return -1;
}

/** Where `want` is among the index's ids at positions [lo, hi), read one id at a time, or -1. */
function searchInPlace(fd: number, want: Buffer, lo: number, hi: number): number {
  const name = Buffer.alloc(HASH);
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (readSync(fd, name, 0, HASH, IDX_HEADER + mid * HASH) !== HASH) return -1;
    const c = want.compare(name);
    if (c === 0) return mid;
    if (c < 0) hi = mid;
    else lo = mid + 1;
  }
  return -1;
}

/** `length` bytes of an open file at `offset`, or undefined when fewer are there. */
function readExactly(fd: number, length: number, offset: number): Buffer | undefined {
  const out = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, out, got, length - got, offset + got);
    if (n === 0) return undefined;
    got += n;
  }
  return out;
}
