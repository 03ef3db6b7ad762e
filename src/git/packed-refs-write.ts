import { closeSync, fsyncSync, lstatSync, openSync, readdirSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { readRegularFile } from '../util/nofollow';
import { isRefComponent, refDirectories } from './ref-name';
import { headerSaysSorted, orderedRecords, type PackedRecord, refBytes } from './packed-refs';

/**
 * Many refs created, or removed, at once by rewriting `packed-refs` as `git pack-refs` does: under git's own lock
 * (`packed-refs.lock`, created exclusively), written whole, synced, renamed over the file. `git update-ref --stdin`
 * writes one loose file (and a lock, and some twenty stats) per ref: a fork at step 99,990 copied its 99,991
 * snapshot refs in 13.7 s, and removing them took 13-16 s. A file of sorted refs is what git's gc makes of them
 * anyway, and what stepchain looks refs up in without reading it whole (./packed-refs.ts).
 *
 * Only for the plain case, and otherwise `false` having changed nothing (the caller then runs git, which writes,
 * refuses or explains): a repository whose refs are files as git 2.x keeps them (loose.ts `filesAsGitWrites`, the
 * caller's check); an existing `packed-refs` with git's header and `sorted` trait, every line a record or the peel
 * line after one, in strictly increasing order; the lock free. A ref created must be new everywhere: not packed, no
 * loose file (or lock) of it, no ref named like one of its directories, none below it (git refuses those). A ref
 * removed must be packed with the value the caller read; its loose file, if any, is the caller's to remove (git).
 * The records kept are copied byte for byte. Nothing is read or written through a link.
 */

export interface RefValue {
  ref: string;
  oid: string;
}

const OID = /^[0-9a-f]{40}$/;
/** What git writes as the first line of a `packed-refs` it makes. */
const GIT_HEADER = '# pack-refs with: peeled fully-peeled sorted \n';
const MAX_PACKED_BYTES = 1 << 30;
/** Refs git keeps in each worktree's own directory (git's REF_TYPE_PER_WORKTREE), never in the common store. */
const PER_WORKTREE = /^refs\/(bisect|worktree|rewritten)\//;
/** Refs git logs from their creation under core.logAllRefUpdates=true (its should_autocreate_reflog). */
const AUTO_REFLOG = /^refs\/(heads|remotes|notes)\//;

/** The file's header and records, or undefined when it is not exactly git's sorted layout. */
function readPacked(file: string): { header: string; records: PackedRecord[] } | undefined {
  const bytes = readRegularFile(file, { maxBytes: MAX_PACKED_BYTES });
  if (bytes === undefined) return { header: GIT_HEADER, records: [] };
  const text = bytes.toString('latin1');
  if (text === '') return { header: GIT_HEADER, records: [] };
  const first = text.indexOf('\n');
  if (first < 0 || !headerSaysSorted(text.slice(0, first))) return undefined;
  const records = orderedRecords(text.slice(first + 1));
  return records === undefined ? undefined : { header: text.slice(0, first + 1), records };
}

/**
 * Runs `change` on the records under git's lock and writes the records it returns; `unchanged` writes nothing.
 * False: not done (undefined from `change`, the lock held, the file not git's sorted layout, a write failed).
 */
function rewrite(
  commonDir: string,
  change: (records: PackedRecord[]) => PackedRecord[] | 'unchanged' | undefined,
): boolean {
  const file = path.join(commonDir, 'packed-refs');
  const lock = `${file}.lock`;
  let fd: number;
  try {
    fd = openSync(lock, 'wx', 0o666); // held by git (or a link there): git decides
  } catch {
    return false;
  }
  let renamed = false;
  try {
    const packed = readPacked(file);
    const records = packed === undefined ? undefined : change(packed.records);
    if (packed === undefined || records === undefined) return false;
    if (records === 'unchanged') return true;
    const body = Buffer.from(packed.header + records.map((r) => r.lines).join(''), 'latin1');
    for (let at = 0; at < body.length;) at += writeSync(fd, body, at, body.length - at);
    fsyncSync(fd);
    closeSync(fd);
    fd = -1;
    renameSync(lock, file);
    renamed = true;
    return true;
  } catch {
    return false;
  } finally {
    if (fd >= 0) closeSync(fd);
    if (!renamed) {
      try {
        unlinkSync(lock);
      } catch {
        /* gone */
      }
    }
  }
}

/** The index of the first record whose name is not below `name` (binary search). */
function lowerBound(records: readonly PackedRecord[], name: string): number {
  let lo = 0;
  let hi = records.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (records[mid]!.name < name) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Whether nothing loose is in the way of creating `names` (all in directory `dir` of the refs store, a ref each)
 * under `commonDir`; with `commonDir/logs`, whether none of them has a reflog (git appends to a reflog it finds
 * when it creates the ref, and removes it with the ref).
 */
function looseRoomFor(commonDir: string, dir: string, names: readonly string[]): boolean {
  // Each directory on the way is one (never a link) or absent; a file there is a ref named like a directory.
  const parts = dir.split('/');
  for (let i = 1; i <= parts.length; i++) {
    let st;
    try {
      st = lstatSync(path.join(commonDir, ...parts.slice(0, i)));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return true; // nothing below an absent directory
      return false;
    }
    if (!st.isDirectory()) return false;
  }
  let present: Set<string>;
  try {
    present = new Set(readdirSync(path.join(commonDir, ...parts)));
  } catch {
    return false;
  }
  return names.every((n) => !present.has(n) && !present.has(`${n}.lock`));
}

/**
 * Creates `refs` (each `refs/...`, new, naming a commit the caller found in the repository: see ref-batch.ts
 * allCommits) in `packed-refs`, all or none. False having changed nothing when it is not
 * the plain case (see above).
 */
export function addPackedRefs(commonDir: string, refs: readonly RefValue[]): boolean {
  // Git's, not this plain case: a ref git keeps per worktree (it belongs in the worktree's own directory, not the
  // common packed-refs), and one git gives a reflog as it creates it (core.logAllRefUpdates=true, the default of a
  // non-bare repository: refs/heads/, refs/remotes/, refs/notes/), which no record here writes.
  const valid = (r: RefValue): boolean =>
    OID.test(r.oid) &&
    r.ref.startsWith('refs/') &&
    !PER_WORKTREE.test(r.ref) &&
    !AUTO_REFLOG.test(r.ref) &&
    r.ref.split('/').slice(1).every(isRefComponent);
  if (!refs.every(valid)) return false;
  const added = refs
    .map((r) => ({ name: refBytes(r.ref), lines: `${r.oid} ${refBytes(r.ref)}\n`, ref: r.ref }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  // Among themselves: no two alike, none named like another's directory (not always neighbours in order:
  // `refs/a` < `refs/a.b` < `refs/a/a`).
  const names = new Set(added.map((a) => a.name));
  if (names.size !== added.length) return false;
  for (const a of added) if (refDirectories(a.name).some((d) => names.has(d))) return false;
  const byDir = new Map<string, string[]>();
  for (const a of added) {
    const dir = path.posix.dirname(a.ref);
    const names = byDir.get(dir) ?? [];
    if (names.length === 0) byDir.set(dir, names);
    names.push(path.posix.basename(a.ref));
  }
  const logs = path.join(commonDir, 'logs');
  for (const [dir, names] of byDir)
    if (!looseRoomFor(commonDir, dir, names) || !looseRoomFor(logs, dir, names)) return false;
  return rewrite(commonDir, (records) => {
    const packed = new Set(records.map((r) => r.name));
    for (const a of added) {
      if (packed.has(a.name) || refDirectories(a.name).some((d) => packed.has(d))) return undefined;
      const below = records[lowerBound(records, `${a.name}/`)];
      if (below !== undefined && below.name.startsWith(`${a.name}/`)) return undefined;
    }
    // Merged in order, the records kept as they are.
    const out: PackedRecord[] = [];
    let i = 0;
    for (const a of added) {
      while (i < records.length && records[i]!.name < a.name) out.push(records[i++]!);
      out.push(a);
    }
    while (i < records.length) out.push(records[i++]!);
    return out;
  });
}

/**
 * Removes from `packed-refs` the records of `refs` that are packed with the value given; the others (not packed,
 * or loose too) are left for the caller to remove with git. Returns the refs whose records were removed, or false
 * having changed nothing (not the plain case, or a ref packed with another value than the caller read).
 */
export function removePackedRefs(commonDir: string, refs: readonly RefValue[]): string[] | false {
  // A ref with a reflog is left for git, which removes the reflog with the ref (a reflog left behind would outlive
  // its ref, and a ref created again of that name would take up its old history).
  const logged = withReflog(commonDir, refs);
  if (logged === undefined) return false;
  const wanted = new Map(refs.filter((r) => !logged.has(r.ref)).map((r) => [refBytes(r.ref), r]));
  const removed: string[] = [];
  const done = rewrite(commonDir, (records) => {
    const kept: PackedRecord[] = [];
    for (const r of records) {
      const want = wanted.get(r.name);
      if (want === undefined) kept.push(r);
      else if (r.lines.startsWith(`${want.oid} `)) removed.push(want.ref);
      else return undefined;
    }
    return removed.length === 0 ? 'unchanged' : kept;
  });
  return done ? removed : false;
}

/** The refs of `refs` that have a reflog (`logs/<ref>`, anything there), or undefined when that cannot be told. */
function withReflog(commonDir: string, refs: readonly RefValue[]): Set<string> | undefined {
  const logged = new Set<string>();
  const byDir = new Map<string, RefValue[]>();
  for (const r of refs) {
    const dir = path.posix.dirname(r.ref);
    const list = byDir.get(dir) ?? [];
    if (list.length === 0) byDir.set(dir, list);
    list.push(r);
  }
  for (const [dir, list] of byDir) {
    let present: Set<string>;
    try {
      present = new Set(readdirSync(path.join(commonDir, 'logs', ...dir.split('/'))));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') continue; // no reflog below
      return undefined;
    }
    for (const r of list) if (present.has(path.posix.basename(r.ref))) logged.add(r.ref);
  }
  return logged;
}
