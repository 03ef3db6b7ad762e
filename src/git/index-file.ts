import { createHash } from 'node:crypto';

/**
 * What a git index file says about its entries' flags and modes, read from its
 * bytes without starting git: the snapshot (./snapshot.ts) asks it on every step
 * whether the copied index holds an entry git would not look at (assume
 * unchanged, skip worktree) and whether the snapshot's index holds a gitlink (a
 * repository of its own). When the answer is no, the `git ls-files` that would
 * list those entries is not started (two processes per step).
 *
 * The reader only ever answers for an index it understands completely: its
 * trailing checksum holds (SHA-1 or SHA-256, so a torn or foreign file is not
 * read), its version is 2, 3 or 4, every entry parses and fills the file up to
 * the extensions, and every extension is an optional one (not a split index's
 * `link`, whose entries are in a shared index, nor a sparse index's `sdir`).
 * Anything else is `undefined`, and the caller asks git, as it always did.
 * The format: git's Documentation/gitformat-index.txt.
 */
export interface IndexSummary {
  entries: number;
  /** Some entry has the "assume unchanged" (assume-valid) flag. */
  assumeUnchanged: boolean;
  /** Some entry has the "skip worktree" flag. */
  skipWorktree: boolean;
  /** Some entry is a gitlink (mode 160000). */
  gitlink: boolean;
}

/** The fixed part of an entry before the object id: ctime, mtime, dev, ino, mode, uid, gid, size. */
const STAT_BYTES = 40;
const ASSUME_VALID = 0x8000;
const EXTENDED = 0x4000;
const NAME_MASK = 0x0fff;
const SKIP_WORKTREE = 0x4000;
const GITLINK_MODE = 0o160000;
/**
 * An extension whose signature starts with an upper-case letter is optional (a cache: TREE, REUC, UNTR, FSMN, EOIE,
 * IEOT); any other is one the entries cannot be understood without (a split index's `link`, a sparse index's
 * `sdir`, or one this reader does not know).
 */
const OPTIONAL_EXTENSION = /^[A-Z]/;

/** The object id length the trailing checksum names (20: SHA-1, 32: SHA-256), or undefined when neither holds. */
function hashLength(bytes: Buffer): 20 | 32 | undefined {
  for (const [len, algorithm] of [
    [20, 'sha1'],
    [32, 'sha256'],
  ] as const) {
    if (bytes.length < 12 + len) continue;
    const body = bytes.subarray(0, bytes.length - len);
    if (
      createHash(algorithm)
        .update(body)
        .digest()
        .equals(bytes.subarray(bytes.length - len))
    )
      return len;
  }
  return undefined;
}

/** Reads git's varint (offset encoding) at `at`; undefined past the end or when too long. */
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

/** The first NUL at or after `at` and before `end`, or -1 (a loop: names are short, and Buffer#indexOf's call costs
 * more than the scan, thousands of times per step). */
function nulAt(bytes: Buffer, at: number, end: number): number {
  for (let i = at; i < end; i++) if (bytes[i] === 0) return i;
  return -1;
}

/** The summary of an index file's bytes, or undefined when it is not an index this reader fully understands. */
export function summarizeIndex(bytes: Buffer): IndexSummary | undefined {
  if (bytes.length < 12 || bytes.toString('latin1', 0, 4) !== 'DIRC') return undefined;
  const version = bytes.readUInt32BE(4);
  if (version < 2 || version > 4) return undefined;
  const oidLen = hashLength(bytes);
  if (oidLen === undefined) return undefined;
  const end = bytes.length - oidLen;
  const count = bytes.readUInt32BE(8);
  const out: IndexSummary = { entries: count, assumeUnchanged: false, skipWorktree: false, gitlink: false };
  let at = 12;
  let previousName = 0; // v4 names are stored as a strip count and a suffix of the previous name
  for (let n = 0; n < count; n++) {
    const start = at;
    const fixed = STAT_BYTES + oidLen + 2;
    if (at + fixed > end) return undefined;
    // Bytes read directly (this runs cold on every step, where each Buffer#readUInt call is a function call): the
    // mode's type bits are its third and fourth bytes, the flags the two bytes after the object id.
    const modeType = ((bytes[at + 26]! << 8) | bytes[at + 27]!) & 0o170000;
    const flags = (bytes[at + STAT_BYTES + oidLen]! << 8) | bytes[at + STAT_BYTES + oidLen + 1]!;
    at += fixed;
    if (flags & ASSUME_VALID) out.assumeUnchanged = true;
    if (modeType === GITLINK_MODE) out.gitlink = true;
    if (flags & EXTENDED) {
      if (version < 3 || at + 2 > end) return undefined;
      if (((bytes[at]! << 8) | bytes[at + 1]!) & SKIP_WORKTREE) out.skipWorktree = true;
      at += 2;
    }
    if (version === 4) {
      const strip = varint(bytes, at, end);
      if (strip === undefined || strip.value > previousName) return undefined;
      const nul = nulAt(bytes, strip.next, end);
      if (nul < 0) return undefined;
      previousName = previousName - strip.value + (nul - strip.next);
      at = nul + 1;
    } else {
      // The name's length is in the flags (as git reads it) unless it is 0xFFF or more: then its NUL ends it.
      const stated = flags & NAME_MASK;
      const nul = stated < NAME_MASK ? at + stated : nulAt(bytes, at, end);
      if (nul < 0 || nul >= end || bytes[nul] !== 0) return undefined;
      // 1 to 8 NULs end the name, padding the entry to a multiple of 8 bytes.
      at = start + ((nul - start + 8) & ~7);
      if (at > end) return undefined;
    }
  }
  // The extensions: each a 4-byte signature and a 4-byte size, up to the checksum.
  while (at < end) {
    if (at + 8 > end) return undefined;
    const signature = bytes.toString('latin1', at, at + 4);
    const size = bytes.readUInt32BE(at + 4);
    if (!OPTIONAL_EXTENSION.test(signature) || at + 8 + size > end) return undefined;
    at += 8 + size;
  }
  return out;
}
