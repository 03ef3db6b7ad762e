import { createHash } from 'node:crypto';
import { listBlobsAtCommit } from '../git/commits';
import { readUnder, type CheckedDirs, type UnderRead } from '../util/nofollow';
import { globSet, matchesGlob, NOT_UTF8_NAME, scanFiles, type DirCache, type GlobSet } from './glob';
import type { CommittedTest } from './committed';
import type { CheckFault, CheckOptions, ItemKind, Shard } from './types';

/**
 * The checkout as the repository check sees it (workspace.ts): the files each
 * kind's globs match (all shards: renames and pins look across them), the
 * symbolic links met on the way (faults, never followed), which files are this
 * shard's, and one reader that never follows a link below the root.
 */
export const DEFAULT_JOURNALS = '.sdd/runtime/journal/*/000000.jsonl';
export const DEFAULT_RUNS = '.sdd/runs/*/journal.jsonl';
export const DEFAULT_RECEIPTS = '**/*.receipt.tar, **/*.receipt.tar.gz, **/*.receipt.tgz';

export const ITEM_KINDS: readonly ItemKind[] = ['journal', 'run', 'receipt'];

/**
 * Paths (relative, `/`-separated) of the files in `commit` that match the set, sorted. A path that is not UTF-8 is
 * left out: no string names it (its U+FFFD spelling may be another file's name).
 */
export async function listFilesAtCommit(cwd: string, commit: string, set: GlobSet): Promise<string[]> {
  return (await listBlobsAtCommit(cwd, commit, (p) => matchesGlob(set, p)))
    .filter((b) => b.notUtf8 === undefined)
    .map((b) => b.path);
}

/** The id of a journal from its path: `<id>/000000.jsonl` or `<id>/journal.jsonl`. */
export function idOfPath(rel: string): string {
  const parts = rel.split('/');
  return parts.length >= 2 ? parts[parts.length - 2]! : rel;
}

/** The shard a path belongs to: the first 32 bits of SHA-256 of its `/`-separated path, modulo the count. */
export function shardOf(rel: string, count: number): number {
  if (count <= 1) return 0;
  return createHash('sha256').update(rel, 'utf8').digest().readUInt32BE(0) % count;
}

/** A checkout file as the check reads it: or, with a commit to hold it to, not the blob the commit has there. */
export type ScanRead = UnderRead | { kind: 'not_committed'; why: string };

export interface Scan {
  root: string;
  /** The kinds switched on. */
  on: Record<ItemKind, boolean>;
  sets: Record<ItemKind, GlobSet>;
  /** The checkout's files per kind, sorted, all shards. */
  found: Record<ItemKind, string[]>;
  /** Links met where a pattern could match (never read, not even as a rename's target). */
  linked: Set<string>;
  /** One fault per link of this shard. */
  linkFaults: CheckFault[];
  shard: Shard | null;
  /** Whether a path (or a `pin:<agent>` key) is this shard's to judge. */
  mine(rel: string): boolean;
  /** The kind whose patterns match a path (the first switched on), if any. */
  kindOf(rel: string): ItemKind | undefined;
  /**
   * Reads a checkout file, never through a link (directories checked once per scan), into `memory` when given; with
   * `committed` set, a file that is not what the commit holds at its path is `not_committed` (./committed.ts).
   */
  read(rel: string, max?: number, memory?: (size: number) => Buffer): ScanRead;
  /** The commit every file read is held to (`CheckOptions.committed`), set once HEAD is known. */
  committed?: CommittedTest;
}

function linkFault(kind: ItemKind, rel: string, severity: CheckFault['severity']): CheckFault {
  return {
    item: kind,
    path: rel,
    line: null,
    kind: 'symlink',
    message:
      severity === 'error'
        ? `${rel} is a symbolic link: stepchain never follows a link in the checkout (it could point at .git/config or /proc/self/environ)`
        : `${rel} is a symbolic link to a directory: not searched (links in the checkout are never followed)`,
    severity,
  };
}

/** Scans the checkout at `root` for every kind switched on. */
export function scanCheckout(root: string, options: CheckOptions): Scan {
  const shard = options.shard !== undefined && options.shard.count > 1 ? options.shard : null;
  const mine = (rel: string): boolean => shard === null || shardOf(rel, shard.count) === shard.index;
  const on: Record<ItemKind, boolean> = {
    journal: options.verifyJournals !== false,
    run: options.verifyRuns !== false,
    receipt: options.verifyReceipts !== false,
  };
  const sets: Record<ItemKind, GlobSet> = {
    journal: globSet(options.journals ?? DEFAULT_JOURNALS),
    run: globSet(options.runs ?? DEFAULT_RUNS),
    receipt: globSet(options.receipts ?? DEFAULT_RECEIPTS),
  };
  const found: Record<ItemKind, string[]> = { journal: [], run: [], receipt: [] };
  const linked = new Set<string>();
  const linkFaults: CheckFault[] = [];
  const cache: DirCache = options.dirCache ?? new Map();
  for (const kind of ITEM_KINDS) {
    if (!on[kind]) continue;
    const scan = scanFiles(root, sets[kind], cache);
    found[kind] = scan.files;
    for (const l of scan.links) {
      if (linked.has(l.path) || !mine(l.path)) continue;
      linked.add(l.path);
      linkFaults.push(linkFault(kind, l.path, l.severity));
    }
    for (const u of scan.unnamed) {
      if (linked.has(u) || !mine(u)) continue;
      linked.add(u);
      linkFaults.push({
        item: kind,
        path: u,
        line: null,
        kind: 'unreadable',
        message: `${NOT_UTF8_NAME}, so stepchain cannot open it by name and it is not checked; rename it`,
        severity: 'error',
      });
    }
  }
  const checked: CheckedDirs = new Set();
  const scan: Scan = {
    root,
    on,
    sets,
    found,
    linked,
    linkFaults,
    shard,
    mine,
    kindOf: (p) => ITEM_KINDS.find((k) => on[k] && matchesGlob(sets[k], p)),
    read: (rel, max, memory) => {
      const r = readUnder(root, rel, max, checked, memory);
      const why = r.kind === 'file' ? scan.committed?.(rel, r.bytes) : undefined;
      return why === undefined ? r : { kind: 'not_committed', why };
    },
  };
  return scan;
}
