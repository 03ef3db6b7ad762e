import { createHash } from 'node:crypto';
import { writeLooseObject, type LooseRepo } from './loose';
import { ObjectStore } from './object-store';

/**
 * `git write-tree` for a snapshot's index, without starting git: the tree of every entry, built as git's
 * cache-tree code builds it (cache-tree.c, `update_one`): a subtree the index's cache-tree extension (`TREE`)
 * names as valid, whose object the repository holds and which covers exactly the entries under it, is taken as
 * it is; any other tree is made from its entries, every entry's object must be there (gitlinks excepted), and a
 * tree the repository does not hold is written as a loose object (./loose.ts). A snapshot's `git add` leaves the
 * cache-tree valid for every directory it did not change, so a step that edited one file builds the few trees on
 * that file's path and checks only their entries.
 *
 * Only for an index it understands completely (SHA-1, version 2 to 4, its checksum holding, entries sorted and
 * at stage 0, no intent-to-add entry, no split or sparse index, regular modes, plain path components) and
 * objects it finds (./object-store.ts); anything else is `undefined`, having written nothing, and the snapshot
 * runs `git write-tree` as it always did. The format: git's Documentation/gitformat-index.txt.
 */

interface Entry {
  /** The path's bytes, as latin1 text (one character per byte, so any byte survives). */
  name: string;
  mode: number;
  oid: Buffer;
}

interface ParsedIndex {
  entries: Entry[];
  /** The cache-tree's valid subtrees: directory path ('' for the top) to its entry count and tree id. */
  valid: Map<string, { count: number; oid: string }>;
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
/** Beyond this many entries to check one by one, git is faster than looking each object up from here. */
const MAX_CHECKED = 5000;

function varint(bytes: Buffer, at: number, end: number): { value: number; next: number } | undefined {
  let i = at;
  if (i >= end) return undefined;
  let c = bytes[i++]!;
  let value = c & 0x7f;
  while (c & 0x80) {
    if (i >= end || value > 0xffffff) return undefined;
    c = bytes[i++]!;
    value = ((value + 1) << 7) | (c & 0x7f);
  }
  return { value, next: i };
}

/** The index's entries and cache-tree, or undefined when it is not an index this reads completely. */
export function parseIndex(bytes: Buffer): ParsedIndex | undefined {
  if (bytes.length < 12 + OID_LEN || bytes.toString('latin1', 0, 4) !== 'DIRC') return undefined;
  const version = bytes.readUInt32BE(4);
  if (version < 2 || version > 4) return undefined;
  const end = bytes.length - OID_LEN;
  const sum = createHash('sha1').update(bytes.subarray(0, end)).digest();
  if (!sum.equals(bytes.subarray(end))) return undefined;
  const count = bytes.readUInt32BE(8);
  const entries: Entry[] = [];
  let at = 12;
  let previous = '';
  for (let n = 0; n < count; n++) {
    const start = at;
    if (at + STAT_BYTES + OID_LEN + 2 > end) return undefined;
    const mode = bytes.readUInt32BE(at + 24);
    const oid = bytes.subarray(at + STAT_BYTES, at + STAT_BYTES + OID_LEN);
    const flags = bytes.readUInt16BE(at + STAT_BYTES + OID_LEN);
    at += STAT_BYTES + OID_LEN + 2;
    if (flags & STAGE_MASK) return undefined; // unmerged: git refuses to write a tree
    if (flags & EXTENDED) {
      if (version < 3 || at + 2 > end) return undefined;
      if (bytes.readUInt16BE(at) & ~SKIP_WORKTREE) return undefined; // intent-to-add, or a flag not known here
      at += 2;
    }
    let name: string;
    if (version === 4) {
      const strip = varint(bytes, at, end);
      if (strip === undefined || strip.value > previous.length) return undefined;
      const nul = bytes.indexOf(0, strip.next);
      if (nul < 0 || nul >= end) return undefined;
      name = previous.slice(0, previous.length - strip.value) + bytes.toString('latin1', strip.next, nul);
      at = nul + 1;
    } else {
      const stated = flags & NAME_MASK;
      const nul = stated < NAME_MASK ? at + stated : bytes.indexOf(0, at);
      if (nul < 0 || nul >= end || bytes[nul] !== 0) return undefined;
      name = bytes.toString('latin1', at, nul);
      at = start + ((nul - start + 8) & ~7);
      if (at > end) return undefined;
    }
    if (!MODES.has(mode) || !plainPath(name) || (entries.length > 0 && !(previous < name))) return undefined;
    entries.push({ name, mode, oid });
    previous = name;
  }
  const valid = new Map<string, { count: number; oid: string }>();
  while (at < end) {
    if (at + 8 > end) return undefined;
    const signature = bytes.toString('latin1', at, at + 4);
    const size = bytes.readUInt32BE(at + 4);
    if (at + 8 + size > end || !/^[A-Z]/.test(signature)) return undefined; // `link`, `sdir`: not read here
    if (signature === 'TREE' && !readCacheTree(bytes.subarray(at + 8, at + 8 + size), valid)) return undefined;
    at += 8 + size;
  }
  return { entries, valid };
}

/** A path git's write-tree takes as it is: components neither empty, `.`, `..` nor `.git`, no NUL. */
function plainPath(name: string): boolean {
  if (name === '' || name.includes('\0')) return false;
  for (const c of name.split('/')) if (c === '' || c === '.' || c === '..' || c.toLowerCase() === '.git') return false;
  return true;
}

/**
 * The cache-tree extension: for each tree, depth first, `<path>\0<entry count> <subtree count>\n` and the tree's
 * id when the count is not negative (invalidated). Fills `valid` with the valid trees by full path.
 */
function readCacheTree(ext: Buffer, valid: Map<string, { count: number; oid: string }>): boolean {
  let at = 0;
  const one = (prefix: string): boolean => {
    const nul = ext.indexOf(0, at);
    if (nul < 0) return false;
    const name = ext.toString('latin1', at, nul);
    const nl = ext.indexOf(0x0a, nul);
    if (nl < 0) return false;
    const m = /^(-?[0-9]+) ([0-9]+)$/.exec(ext.toString('latin1', nul + 1, nl));
    if (m === null) return false;
    at = nl + 1;
    const count = Number(m[1]);
    const path = prefix === '' ? name : `${prefix}/${name}`;
    if (count >= 0) {
      if (at + OID_LEN > ext.length) return false;
      valid.set(path, { count, oid: ext.toString('hex', at, at + OID_LEN) });
      at += OID_LEN;
    }
    for (let i = Number(m[2]); i > 0; i--) if (!one(path)) return false;
    return true;
  };
  return one('') && at === ext.length;
}

/**
 * The tree of the index at `bytes`, writing the trees the repository lacks as loose objects; undefined (git
 * decides) for an index or an object this does not read plainly.
 */
export function writeTreeFromIndex(bytes: Buffer, repo: LooseRepo): string | undefined {
  const parsed = parseIndex(bytes);
  if (parsed === undefined) return undefined;
  const store = new ObjectStore(repo.commonDir);
  const { entries, valid } = parsed;
  const toWrite: Buffer[] = [];
  let checked = 0;
  /** The tree of entries [lo, hi), every one under `dir` (`''` or `a/b/`). */
  const build = (lo: number, hi: number, dir: string): Buffer | undefined => {
    const cached = valid.get(dir.slice(0, -1));
    if (cached !== undefined) {
      // git skips as many entries as the cache-tree counts: a count that is not the entries under it is git's.
      if (cached.count !== hi - lo) return undefined;
      if (store.has(cached.oid)) return Buffer.from(cached.oid, 'hex');
    }
    const parts: Buffer[] = [];
    const seen = new Set<string>();
    for (let i = lo; i < hi;) {
      const rest = entries[i]!.name.slice(dir.length);
      const slash = rest.indexOf('/');
      const component = slash < 0 ? rest : rest.slice(0, slash);
      if (seen.has(component)) return undefined; // a file and a directory of one name
      seen.add(component);
      if (slash < 0) {
        const e = entries[i]!;
        if (e.oid.every((b) => b === 0)) return undefined; // git refuses a null id
        if (e.mode !== GITLINK && (++checked > MAX_CHECKED || !store.has(e.oid.toString('hex')))) return undefined;
        parts.push(Buffer.from(`${MODES.get(e.mode)!} ${component}\0`, 'latin1'), e.oid);
        i++;
        continue;
      }
      const sub = `${dir}${component}/`;
      let j = i + 1;
      while (j < hi && entries[j]!.name.startsWith(sub)) j++;
      const oid = build(i, j, sub);
      if (oid === undefined) return undefined;
      parts.push(Buffer.from(`40000 ${component}\0`, 'latin1'), oid);
      i = j;
    }
    const body = Buffer.concat(parts);
    const oid = createHash('sha1').update(`tree ${body.length}\0`).update(body).digest();
    if (!store.has(oid.toString('hex'))) toWrite.push(body);
    return oid;
  };
  const root = build(0, entries.length, '');
  if (root === undefined) return undefined;
  for (const body of toWrite) if (writeLooseObject(repo, 'tree', body) === undefined) return undefined;
  return root.toString('hex');
}
