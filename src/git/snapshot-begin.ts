import {
  closeSync,
  fstatSync,
  futimesSync,
  linkSync,
  lstatSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  type Stats,
} from 'node:fs';
import path from 'node:path';
import { writeAll } from '../util/fs';
import { PRIVATE_FILE_MODE } from '../util/modes';
import { DEFAULT_MAX_READ_BYTES, openRegularFile, readPieces } from '../util/nofollow';
import { InputError } from '../errors';
import { hostTag, sameProcessAlive, selfIdentity, selfToken } from '../util/proc';
import { gitSync, gitSyncBytes, gitTimeoutMs, namedConfigOnce, type GitSyncOptions } from './exec';
import { nulRecords } from '../util/nul-records';
import { summarizeIndex } from './index-file';
import type { RepoInfo } from './repo-read';
import { cleanDeadStepMarkers } from './step-markers';

/**
 * A snapshot's temporary index (./snapshot.ts takes the snapshot): a directory
 * `stepchain-snap-<pid>-<start>-<host>-*` of its own inside the work tree's git
 * dir, its index seeded from the user's (a copy: the user's index, HEAD,
 * branches and files are never touched) and the flags that would make git skip
 * a file cleared (`beginSnapshot`), for the add of the work tree to run there.
 * The directories killed writers left are removed here too.
 */
/** The longest a snapshot's git commands may take (STEPCHAIN_SNAPSHOT_TIMEOUT_MS sets it), see seedSnapshotIndex. */
export const SNAPSHOT_TIMEOUT_MS = 30_000;

/** Never part of a snapshot: stepchain's own state, and the fork worktrees living inside it. */
export const SNAPSHOT_PATHSPEC = ['.', ':(exclude,glob)**/.sdd/**'];

/** A snapshot's temporary index, seeded, for takeSnapshot to add the work tree to (then dropSnapshotIndex). */
export interface SnapshotIndex {
  readonly tmp: string;
  readonly index: string;
  readonly git: GitSyncOptions & { readNamed: () => string; timeoutMs: number };
}

/**
 * The temporary index of a snapshot of the work tree `repo` holds (`options.root` inside it), seeded from the
 * user's index (or HEAD's tree, or empty). Throws as takeSnapshot would, with nothing left behind.
 */
export function seedSnapshotIndex(
  options: { root: string; env?: NodeJS.ProcessEnv; readNamed?: () => string },
  repo: RepoInfo,
): SnapshotIndex {
  const { env } = options;
  cleanDeadSnapshotDirs(repo.gitDir);
  // An agent waits for its hook, snapshot included, on every tool call: a git that cannot finish (a FIFO where it
  // reads a .gitignore) fails the snapshot, with the step kept and a warning, in SNAPSHOT_TIMEOUT_MS at most.
  const timeoutMs = gitTimeoutMs(env, 'STEPCHAIN_SNAPSHOT_TIMEOUT_MS', SNAPSHOT_TIMEOUT_MS);
  const tmp = mkdtempSync(path.join(repo.gitDir, `${SNAP_DIR}${selfToken()}-`));
  try {
    const index = path.join(tmp, 'index');
    const seeded = seedIndexFile(repo.indexFile, index);
    // One read of the configuration naming programs, for every command below that could run one.
    const git = {
      env,
      extra: { GIT_INDEX_FILE: index },
      readNamed: options.readNamed ?? namedConfigOnce(repo.top, env, () => repo),
      timeoutMs,
    };
    if (seeded === undefined && repo.head !== undefined)
      gitSync(repo.top, [...SNAPSHOT_INDEX_CONFIG, 'read-tree', repo.head], git);
    // Read from the index's bytes when they say it plainly (./index-file.ts); git is asked otherwise.
    const flags = seeded === undefined ? undefined : summarizeIndex(seeded);
    if (seeded !== undefined && (flags === undefined || flags.assumeUnchanged || flags.skipWorktree))
      clearTrustFlags(repo.top, git);
    return { tmp, index, git };
  } catch (e) {
    removeTempIndexDir(tmp);
    throw e;
  }
}

/** Removes a snapshot's temporary index and its directory. */
export function dropSnapshotIndex(s: SnapshotIndex): void {
  removeTempIndexDir(s.tmp);
}

/**
 * Removes the snapshot's temporary directory: the index git wrote there, then the directory (fs.rmSync's recursive
 * walk loads a module of its own on first use, a cost on every hook call); anything else left there, the walk.
 */
function removeTempIndexDir(dir: string): void {
  try {
    if (lstatExists(path.join(dir, 'index'))) unlinkSync(path.join(dir, 'index'));
    rmdirSync(dir);
  } catch {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Configuration the snapshot's `git add` reads from the repository that would
 * make it record less than the work tree holds (anyone who can write
 * `.git/config` can set it): `core.ignoreCase` makes a file renamed to another
 * case vanish from the snapshot (neither name is added), `core.fileMode=false`
 * keeps a mode the file no longer has, and `core.sparseCheckout` (a sparse
 * checkout, `git sparse-checkout set`) makes `git add -A` refuse, exit 1, when
 * the work tree holds a file outside the sparse patterns (an untracked file
 * there, or one written back): no snapshot at all. Off for the add, the files
 * outside the patterns are added like any other and the entries whose files the
 * checkout left out (skip-worktree, absent) keep their recorded content, sparse
 * index or not (measured with git 2.39; `git add --sparse` does the same from
 * git 2.35, this on any version).
 *
 * And `core.splitIndex` off for every command that writes the snapshot's index (add, update-index, read-tree,
 * write-tree): with it on, git writing that index may write a new shared index `sharedindex.<id>` beside the user's
 * and then delete the shared indexes older than `splitIndex.sharedIndexExpire`, the one the user's split index
 * names included (`now`: the user's every git command then failed, "index file open failed"). Off, git reads the
 * user's split index (base included) and writes the snapshot's whole, in its own directory only.
 */
export const SNAPSHOT_INDEX_CONFIG = [
  '-c',
  'core.ignoreCase=false',
  '-c',
  'core.fileMode=true',
  '-c',
  'core.sparseCheckout=false',
  '-c',
  'core.splitIndex=false',
];

/**
 * Clears, in the copied index, the per-entry flags that tell `git add` not to
 * look at a file: "assume unchanged" (`git update-index --assume-unchanged`,
 * honoured whatever `core.ignoreStat` says) on every entry, and "skip worktree"
 * on entries whose file is in the work tree (an absent one is a sparse
 * checkout's: its recorded content stays). Anyone who can run git in the work
 * tree can set either flag, and the snapshot then held the file's old content.
 */
function clearTrustFlags(top: string, git: GitSyncOptions): void {
  const assumed: Buffer[] = [];
  const skipped: Buffer[] = [];
  // Sparse checkout off, as for the add: on, git clears skip-worktree in memory where the file is present (written
  // back outside the patterns), ls-files hid it, and the add (which clears none) kept the entry's old content.
  // Paths as bytes, given back as they came: one that is not UTF-8, read as text, was refused by update-index (the
  // whole snapshot failed) or could be taken for a file really named with U+FFFD.
  const listing = gitSyncBytes(top, [...SNAPSHOT_INDEX_CONFIG, 'ls-files', '-v', '-z'], git);
  const topBytes = Buffer.from(top + path.sep);
  for (const rec of nulRecords(listing)) {
    if (rec.length < 3) continue;
    const tag = String.fromCharCode(rec[0]!);
    const file = rec.subarray(2);
    if (tag !== tag.toUpperCase()) assumed.push(file);
    if (tag.toUpperCase() === 'S' && lstatExists(Buffer.concat([topBytes, file]))) skipped.push(file);
  }
  const unset = (flag: string, files: Buffer[]): void => {
    if (files.length > 0)
      gitSync(top, [...SNAPSHOT_INDEX_CONFIG, 'update-index', flag, '-z', '--stdin'], {
        ...git,
        input: Buffer.concat(files.flatMap((f) => [f, NUL])),
      });
  };
  unset('--no-assume-unchanged', assumed);
  unset('--no-skip-worktree', skipped);
}

const NUL = Buffer.from([0]);

function lstatExists(p: string | Buffer): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

/**
 * Seeds the snapshot's index at `to` from the user's index: the user's own file, linked (`linkIndex`), or else a
 * copy of it (`copyIndexBytes`). Returns the bytes read, or undefined when there is no index yet. The stat is taken
 * of the very file read (the user's git may replace the index meanwhile, by rename).
 */
function seedIndexFile(from: string, to: string): Buffer | undefined {
  // Never through a link and never blocking: an index that is a link (to /dev/zero: read until memory runs out), a
  // FIFO (open waits for a writer forever) or a device is refused, naming it; the step is still recorded.
  const opened = openRegularFile(from);
  if (opened === undefined) return undefined; // no index yet (fresh repository)
  const src = opened.fd;
  try {
    const st = fstatSync(src);
    // git holds its index whole too, but one past the longest string is not one it wrote: refused naming it (the step
    // is recorded, the snapshot not), never Node's own "File size is greater than 2 GiB" without a name.
    if (st.size > DEFAULT_MAX_READ_BYTES)
      throw new InputError(
        `${from}: cannot read: it holds ${st.size} bytes, more than the ${DEFAULT_MAX_READ_BYTES} allowed`,
      );
    const bytes = readPieces(src, st.size);
    if (!linkIndex(from, to, st)) copyIndexBytes(to, bytes, st);
    return bytes;
  } finally {
    closeSync(src);
  }
}

/**
 * The user's index file itself at `to` (a second name for it, in the snapshot's private directory), when the file
 * system allows and the name still names the file read (`read`: its stat): true then. git never writes into an
 * index: it writes `<index>.lock` beside it and renames that over it (so does every command here that changes the
 * snapshot's index), which replaces the snapshot's name and leaves the user's file as it was. Linked, the user's
 * index is not written again on every step: a copy was written whole, 4.4 MB for a 50,000-file work tree, 12-25 ms
 * of a hook call on this VM's disk (1 ms for the link), before git could start. And git reads the index with its own
 * mtime, so it takes exactly the entries it would take from the user's index as cached ("racily clean" ones are
 * compared, see copyIndexBytes).
 */
function linkIndex(from: string, to: string, read: Stats): boolean {
  // Windows: a file open under one name cannot be replaced under another, so the user's git could not rename its new
  // index over `.git/index` while the snapshot's git reads the link (git for Windows then retries, and asks).
  if (process.platform === 'win32') return false;
  try {
    linkSync(from, to);
  } catch {
    return false; // a file system without hard links, one the index is not on, a file not ours to link: a copy
  }
  try {
    // A link made of what the name holds now: the user's git may have renamed a new index over it since it was read,
    // and a symbolic link is linked as a link. Only the file read is kept.
    const made = lstatSync(to);
    if (made.isFile() && made.ino === read.ino && made.dev === read.dev) return true;
  } catch {
    /* removed meanwhile: a copy */
  }
  rmSync(to, { force: true });
  return false;
}

/**
 * Writes the index's bytes at `to` with the index file's mtime (in whole seconds, rounded down).
 *
 * Why the mtime: git takes a cached entry whose size and mtime match the file as unchanged only when the entry is
 * older than the index file itself; an entry as new as the index ("racily clean": the file may have been edited in
 * the second the index was written, keeping its size) has its content compared. A copy with a new mtime made every
 * such entry look old, so an edit that kept size and second was missed and the snapshot held the old file. An mtime
 * no later than the original's can only make more entries racy (more hashing, never less): rounded down to the
 * second, it holds whether git compares seconds or nanoseconds.
 */
function copyIndexBytes(to: string, bytes: Buffer, st: Stats): void {
  const dst = openSync(to, 'wx', PRIVATE_FILE_MODE);
  try {
    writeAll(dst, bytes);
    const mtime = Math.floor(st.mtimeMs / 1000);
    futimesSync(dst, mtime, mtime);
  } finally {
    closeSync(dst);
  }
}

const SNAP_DIR = 'stepchain-snap-';
const SNAP_DIR_NAME = /^stepchain-snap-([0-9]+)-([0-9]+|x)-([0-9a-f]{8})-/;

/**
 * Removes the temporary index directories that killed snapshot writers left in `gitDir`, and from the same listing
 * their steps' markers (./step-markers.ts: no later step may look for them).
 */
export function cleanDeadSnapshotDirs(gitDir: string): string[] {
  let all: string[];
  try {
    all = readdirSync(gitDir);
  } catch {
    return [];
  }
  const names = all.filter((n) => n.startsWith(SNAP_DIR));
  const removed = cleanDeadStepMarkers(gitDir, all);
  const mine = hostTag(selfIdentity().host);
  for (const name of names) {
    const m = SNAP_DIR_NAME.exec(name);
    const dir = path.join(gitDir, name);
    try {
      const st = lstatSync(dir);
      if (!st.isDirectory()) continue;
      const dead =
        m === null || m[3] !== mine
          ? Date.now() - st.mtimeMs > 3600_000 // not judged by a pid: only once it is an hour old
          : !sameProcessAlive(Number(m[1]), m[2] === 'x' ? undefined : m[2], undefined, st.mtimeMs);
      if (!dead) continue;
      rmSync(dir, { recursive: true, force: true });
      removed.push(name);
    } catch {
      /* gone meanwhile */
    }
  }
  return removed;
}
