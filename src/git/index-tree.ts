import { createHash } from 'node:crypto';
import { writeLooseObject, type LooseRepo } from './loose';
import { ObjectStore, type ReadLimits } from './object-store';

/**
 * `git write-tree` for a snapshot's index, without starting git: the tree of every entry, built as git's
 * cache-tree code builds it (cache-tree.c, `update_one`): a subtree the index's cache-tree extension (`TREE`)
 * names as valid and which covers exactly the entries under it is taken as it is when the repository holds its
 * object (when this does not find it, git decides: git may find it elsewhere); any other tree is made from its
 * entries, every entry's object must be there (gitlinks excepted), and a
 * tree the repository does not hold is written as a loose object (./loose.ts). A snapshot's `git add` leaves the
 * cache-tree valid for every directory it did not change, so a step that edited one file builds the few trees on
 * that file's path and checks only their entries.
 *
 * Only for an index it understands completely (SHA-1, version 2 or 3 (version 4 compresses each name against the
 * one before: git reads it), its checksum holding, entries at stage 0, no intent-to-add entry, no split or sparse
 * index, modes git writes) and objects it finds (./object-store.ts). Every tree built here must come out of entries
 * in git's tree order with plain names (git itself checks the order only in fsck; a tree its cache-tree vouches
 * for it takes by count, unread, and so does this). Anything else is `undefined`, having written no tree it would
 * name (at most whole, valid objects nothing points to), and the snapshot runs `git write-tree` as it always did.
 * The format: git's Documentation/gitformat-index.txt.
 */

/**
 * The entries, as offsets into the index's bytes (this runs cold on every step: no string or buffer per entry).
 * `at[i]`: where entry i starts (its mode at +24, its object id at +40); its name is `nameLen[i]` bytes at +62 (+64
 * with extended flags).
 */
export interface ParsedIndex {
  bytes: Buffer;
  count: number;
  at: Int32Array;
  nameAt: Int32Array;
  nameLen: Int32Array;
  /** The cache-tree's valid subtrees: directory path ('' for the top, latin1) to its entry count and tree id. */
  valid: Map<string, { count: number; oid: string }>;
  /** Some entry is a gitlink (mode 160000: a repository of its own, whose files git does not add). */
  gitlink: boolean;
}

const OID_LEN = 20;
const STAT_BYTES = 40;
const EXTENDED = 0x4000;
const STAGE_MASK = 0x3000;
const NAME_MASK = 0x0fff;
/** The extended flags git writes: skip-worktree and intent-to-add; only the first is read here. */
const SKIP_WORKTREE = 0x4000;
const MODES = new Map([
  [0o100644, '100644'],
  [0o100755, '100755'],
  [0o120000, '120000'],
  [0o160000, '160000'],
]);
const GITLINK = 0o160000;
/** Each mode's text in a tree entry (`100644 name\0id`). */
const MODE_TEXT = new Map([...MODES].map(([m, text]) => [m, Buffer.from(text, 'latin1')]));
const TREE_MODE = Buffer.from('40000', 'latin1');
const SLASH = 0x2f;
/**
 * Directories deeper than this are git's to write (and to compare, ./tree-diff.ts): the walks here recurse once per
 * level, and an index can name a path thousands of directories deep (an entry kept by skip-worktree has no file
 * to bound it), which would exhaust the stack where git answers. No project nests this deep.
 */
export const MAX_TREE_DEPTH = 256;
/** Beyond this many objects to look up (./object-store.ts), git (which maps the pack indexes) writes the tree. */
const MAX_CHECKED = 5000;

/**
 * The index's entries and cache-tree, or undefined when it is not an index this reads completely (version 4, whose
 * names are compressed against each other, is left to git).
 */
export function parseIndex(bytes: Buffer): ParsedIndex | undefined {
  if (bytes.length < 12 + OID_LEN || bytes.toString('latin1', 0, 4) !== 'DIRC') return undefined;
  const version = bytes.readUInt32BE(4);
  if (version !== 2 && version !== 3) return undefined;
  const end = bytes.length - OID_LEN;
  const sum = createHash('sha1').update(bytes.subarray(0, end)).digest();
  if (!sum.equals(bytes.subarray(end))) return undefined;
  const count = bytes.readUInt32BE(8);
  if (count > (end - 12) / (STAT_BYTES + OID_LEN + 4)) return undefined;
  const at = new Int32Array(count);
  const nameAt = new Int32Array(count);
  const nameLen = new Int32Array(count);
  let gitlink = false;
  let p = 12;
  for (let n = 0; n < count; n++) {
    const start = p;
    if (p + STAT_BYTES + OID_LEN + 2 > end) return undefined;
    const mode = ((bytes[p + 24]! << 24) | (bytes[p + 25]! << 16) | (bytes[p + 26]! << 8) | bytes[p + 27]!) >>> 0;
    const flags = (bytes[p + STAT_BYTES + OID_LEN]! << 8) | bytes[p + STAT_BYTES + OID_LEN + 1]!;
    p += STAT_BYTES + OID_LEN + 2;
    if (flags & STAGE_MASK) return undefined; // unmerged: git refuses to write a tree
    if (flags & EXTENDED) {
      if (version < 3 || p + 2 > end) return undefined;
      if (((bytes[p]! << 8) | bytes[p + 1]!) & ~SKIP_WORKTREE) return undefined; // intent-to-add, or unknown
      p += 2;
    }
    const stated = flags & NAME_MASK;
    let nul = p + stated;
    if (stated === NAME_MASK) while (nul < end && bytes[nul] !== 0) nul++;
    if (nul >= end || bytes[nul] !== 0) return undefined;
    if (!MODES.has(mode)) return undefined;
    if (mode === GITLINK) gitlink = true;
    at[n] = start;
    nameAt[n] = p;
    nameLen[n] = nul - p;
    p = start + ((nul - start + 8) & ~7);
    if (p > end) return undefined;
  }
  const valid = new Map<string, { count: number; oid: string }>();
  let trees = 0;
  while (p < end) {
    if (p + 8 > end) return undefined;
    const signature = bytes.toString('latin1', p, p + 4);
    const size = bytes.readUInt32BE(p + 4);
    if (p + 8 + size > end || !/^[A-Z]/.test(signature)) return undefined; // `link`, `sdir`: not read here
    if (signature === 'TREE') {
      // A second cache-tree replaces the first in git (not merged with it): an index git never writes.
      if (trees++ > 0 || !readCacheTree(bytes.subarray(p + 8, p + 8 + size), valid)) return undefined;
    }
    p += 8 + size;
  }
  return { bytes, count, at, nameAt, nameLen, valid, gitlink };
}

const DOT = 0x2e;

/** A path component git's add writes, `bytes` [s, e): neither empty, `.`, `..` nor `.git` (any case), no NUL. */
function plainName(bytes: Buffer, s: number, e: number): boolean {
  const len = e - s;
  if (len === 0) return false;
  for (let k = s; k < e; k++) if (bytes[k] === 0) return false;
  if (bytes[s] !== DOT || len > 4) return true;
  if (len === 1 || (len === 2 && bytes[s + 1] === DOT)) return false;
  // `.git` in any case (latin1 has no other letter whose lower case is g, i or t)
  return !(
    len === 4 &&
    (bytes[s + 1]! | 0x20) === 0x67 &&
    (bytes[s + 2]! | 0x20) === 0x69 &&
    (bytes[s + 3]! | 0x20) === 0x74
  );
}

/**
 * How two names of one tree sort in git's tree order: bytes, a directory's name as if it ended in `/`. Names are
 * `bytes` [as, ae) and [bs, be), neither holding a `/`.
 */
function compareNames(
  bytes: Buffer,
  as: number,
  ae: number,
  aDir: boolean,
  bs: number,
  be: number,
  bDir: boolean,
): number {
  const n = Math.min(ae - as, be - bs);
  for (let k = 0; k < n; k++) {
    const d = bytes[as + k]! - bytes[bs + k]!;
    if (d !== 0) return d;
  }
  const a = ae - as > n ? bytes[as + n]! : aDir ? SLASH : -1;
  const b = be - bs > n ? bytes[bs + n]! : bDir ? SLASH : -1;
  return a - b;
}

/**
 * Whether a file of the tree's entries so far is named as the directory `bytes` [s, e): sorted, the names that
 * start with it are the last ones, back to the file of that name if there is one.
 */
function fileNamed(bytes: Buffer, starts: number[], ends: number[], sources: number[], s: number, e: number): boolean {
  const len = e - s;
  for (let k = starts.length - 1; k >= 0; k--) {
    if (ends[k]! - starts[k]! < len || bytes.compare(bytes, s, e, starts[k]!, starts[k]! + len) !== 0) return false;
    if (ends[k]! - starts[k]! === len && sources[k]! >= 0) return true;
  }
  return false;
}

/** A tree's body from its entries as `build` gathered them (`size` bytes). */
function treeBody(
  bytes: Buffer,
  size: number,
  starts: number[],
  ends: number[],
  sources: number[],
  trees: Buffer[],
): Buffer {
  const body = Buffer.allocUnsafe(size);
  let w = 0;
  for (let k = 0; k < starts.length; k++) {
    const src = sources[k]!;
    const mode = src >= 0 ? MODE_TEXT.get(bytes.readUInt32BE(src + 24))! : TREE_MODE;
    w += mode.copy(body, w);
    body[w++] = 0x20;
    w += bytes.copy(body, w, starts[k]!, ends[k]!);
    body[w++] = 0;
    w += src >= 0 ? bytes.copy(body, w, src + STAT_BYTES, src + STAT_BYTES + OID_LEN) : trees[-1 - src]!.copy(body, w);
  }
  if (w !== size) throw new Error(`index-tree: a tree of ${w} bytes, not ${size}`);
  return body;
}

/**
 * The cache-tree extension: for each tree, depth first, `<name>\0<entry count> <subtree count>\n` and the tree's
 * id when the count is not negative (invalidated). Fills `valid` with the valid trees by full path. git reads it
 * (cache-tree.c, `read_one`) skipping the top record's name and finding a subtree by its one component, the later
 * of two records of one name replacing the earlier with all below it: a record git could not be looking up (a
 * named top, a name that is empty or holds a slash, a name twice) is an index git did not write, so git decides.
 */
function readCacheTree(ext: Buffer, valid: Map<string, { count: number; oid: string }>): boolean {
  let at = 0;
  const one = (path: string | undefined, depth: number): boolean => {
    const nul = ext.indexOf(0, at);
    if (nul < 0 || depth > MAX_TREE_DEPTH) return false;
    const name = ext.toString('latin1', at, nul);
    if (path === undefined ? name !== '' : name === '' || name.includes('/')) return false;
    const nl = ext.indexOf(0x0a, nul);
    if (nl < 0) return false;
    const m = /^(-?[0-9]+) ([0-9]+)$/.exec(ext.toString('latin1', nul + 1, nl));
    if (m === null) return false;
    at = nl + 1;
    const count = Number(m[1]);
    const full = path === undefined ? '' : path === '' ? name : `${path}/${name}`;
    if (count >= 0) {
      if (at + OID_LEN > ext.length) return false;
      valid.set(full, { count, oid: ext.toString('hex', at, at + OID_LEN) });
      at += OID_LEN;
    }
    const names = new Set<string>();
    for (let i = Number(m[2]); i > 0; i--) {
      const before = at;
      if (!one(full, depth + 1)) return false;
      const sub = ext.toString('latin1', before, ext.indexOf(0, before));
      if (names.has(sub)) return false;
      names.add(sub);
    }
    return true;
  };
  return one(undefined, 0) && at === ext.length;
}

/**
 * The tree of a parsed index (`parseIndex`), writing the trees the repository lacks as loose objects; undefined (git
 * decides) for an index or an object this does not read plainly. `limits`: how the objects are looked up (tests).
 */
export function writeTreeFromIndex(
  parsed: ParsedIndex,
  repo: LooseRepo,
  limits: Partial<ReadLimits> = {},
): string | undefined {
  const store = new ObjectStore(repo.commonDir, limits);
  try {
    return buildAndWrite(parsed, repo, store);
  } finally {
    store.close();
  }
}

function buildAndWrite(parsed: ParsedIndex, repo: LooseRepo, store: ObjectStore): string | undefined {
  const { bytes, at, nameAt, nameLen, valid } = parsed;
  const toWrite: Buffer[] = [];
  /** The objects of the entries of the trees built here (gitlinks excepted), looked up together once all are built. */
  const need: string[] = [];
  /** Whether entry k's name starts with the `len` bytes at `from` (a directory's path and its `/`). */
  const under = (k: number, from: number, len: number): boolean => {
    if (nameLen[k]! <= len) return false;
    const s = nameAt[k]!;
    for (let i = 0; i < len; i++) if (bytes[s + i] !== bytes[from + i]) return false;
    return true;
  };
  /** The tree of entries [lo, hi), every one under the directory whose path (with its `/`) is `prefix` bytes long. */
  const build = (lo: number, hi: number, prefix: number, key: string, depth: number): Buffer | undefined => {
    if (depth > MAX_TREE_DEPTH) return undefined;
    const cached = valid.get(key);
    if (cached !== undefined) {
      // git skips as many entries as the cache-tree counts: a count that is not the entries under it is git's.
      if (cached.count !== hi - lo) return undefined;
      // git takes the tree whenever it finds it, and it looks where this does not (an alternate, a multi-pack
      // index): a tree not found here is git's to take or rebuild, never rebuilt here into another id.
      if (!store.has(cached.oid)) return undefined;
      return Buffer.from(cached.oid, 'hex');
    }
    // The tree's entries, read in place (no string or buffer per entry): each one's name is `bytes` [starts, ends),
    // its mode and id an index entry's (`sources`: where the entry starts) or a subtree's (`trees`, mode 40000).
    const starts: number[] = [];
    const ends: number[] = [];
    const sources: number[] = [];
    const trees: Buffer[] = [];
    let size = 0;
    for (let i = lo; i < hi;) {
      const s = nameAt[i]! + prefix;
      const e = nameAt[i]! + nameLen[i]!;
      let slash = s;
      while (slash < e && bytes[slash] !== SLASH) slash++;
      const isDir = slash !== e;
      // A name git's add never writes, entries out of git's tree order (a directory sorting as if its name ended in
      // `/`), a file and a directory of one name: an index git did not write, so git decides.
      const n = starts.length;
      if (!plainName(bytes, s, slash)) return undefined;
      if (n > 0 && compareNames(bytes, starts[n - 1]!, ends[n - 1]!, sources[n - 1]! < 0, s, slash, isDir) >= 0)
        return undefined;
      if (isDir && fileNamed(bytes, starts, ends, sources, s, slash)) return undefined;
      starts.push(s);
      ends.push(slash);
      if (!isDir) {
        const o = at[i]! + STAT_BYTES;
        const mode = (bytes[at[i]! + 26]! << 8) | bytes[at[i]! + 27]!; // its two high bytes are 0 (MODES)
        let zero = true;
        for (let k = 0; k < OID_LEN && zero; k++) zero = bytes[o + k] === 0;
        if (zero) return undefined; // git refuses a null id
        if (mode !== GITLINK) {
          if (need.length >= MAX_CHECKED) return undefined;
          need.push(bytes.toString('hex', o, o + OID_LEN));
        }
        sources.push(at[i]!);
        size += 6 + 1 + (slash - s) + 1 + OID_LEN; // every file mode git writes has six digits
        i++;
        continue;
      }
      // The directory's entries: the cache-tree's count says where they end when it holds, else they are scanned.
      const dir = slash + 1 - nameAt[i]!;
      const subKey = bytes.toString('latin1', nameAt[i]!, slash);
      const counted = valid.get(subKey)?.count ?? 0;
      let j = i + counted;
      if (!(counted > 0 && j <= hi && under(j - 1, nameAt[i]!, dir) && (j === hi || !under(j, nameAt[i]!, dir)))) {
        j = i + 1;
        while (j < hi && under(j, nameAt[i]!, dir)) j++;
      }
      const oid = build(i, j, dir, subKey, depth + 1);
      if (oid === undefined) return undefined;
      sources.push(-1 - trees.length);
      trees.push(oid);
      size += 5 + 1 + (slash - s) + 1 + OID_LEN;
      i = j;
    }
    const body = treeBody(bytes, size, starts, ends, sources, trees);
    const oid = createHash('sha1').update(`tree ${body.length}\0`).update(body).digest();
    if (!store.has(oid.toString('hex'))) toWrite.push(body);
    return oid;
  };
  const root = build(0, parsed.count, 0, '', 0);
  if (root === undefined || !store.hasAll(need)) return undefined;
  for (const body of toWrite) {
    try {
      if (writeLooseObject(repo, 'tree', body) === undefined) return undefined;
    } catch {
      return undefined; // a link or a FIFO where the object's file would be: git decides
    }
  }
  return root.toString('hex');
}
