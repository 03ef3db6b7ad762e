import { ensureCommit, forkPoints, headCommit, listBlobsAtCommit, prefetchBlobs, readBlobs } from '../git';
import type { TreeBlob } from '../git';
import type { AppendOnlyKind } from './append-only';
import type { CheckOwnFaultKind } from './fault-kinds';
import { NOT_UTF8_NAME } from './glob';
import { compareHistory, receiptNameOf } from './history';
import { bareItem, whoOf } from './items/common';
import { idOfPath, ITEM_KINDS, type Scan } from './scan';
import type { CheckedItem, CheckFault, CheckOptions, ItemKind } from './types';

/**
 * The base commit a check compares history with (a PR's base): its files of
 * every kind switched on, this shard's read in one batch, and the rules that
 * hold between it and the checkout: a file there must still hold its base rows
 * (append-only.ts) or chain (receipt-history.ts) at the same path, or have been
 * renamed (a new file holds its rows); otherwise it was deleted.
 */
export interface BaseFiles {
  commit: string;
  /**
   * This shard's base files of the kinds switched on, by path, and every other shard's that is gone from its path in
   * the checkout (`mine` false): a rename's target is claimed across all shards in one order, as one check claims it.
   */
  files: Map<string, { kind: ItemKind; bytes: Buffer; mine: boolean }>;
  /** Every base path of those kinds (all shards): a checkout file at one is not new. */
  paths: Set<string>;
  /**
   * The base files of those kinds whose paths are not UTF-8 (every shard's: each is gone from its path; `mine` says
   * whose), as git's listing spells them (U+FFFD): kept apart, never looked up by that spelling (a file really named
   * so would be compared with another's rows).
   */
  unnamed: { path: string; kind: ItemKind; bytes: Buffer; mine: boolean }[];
  /** Whether the base commit had to be fetched. */
  fetched: boolean;
  /** Base blobs fetched in one batch (a partial clone). */
  fetchedBlobs: number;
}

/** Reads the base's files for `scan` (fetching the commit, and its blobs in one batch, when missing). */
export async function readBase(scan: Scan, commit: string, remote?: string): Promise<BaseFiles> {
  const fetched = await ensureCommit(scan.root, commit, remote);
  const listed = await listBlobsAtCommit(scan.root, commit, (p) => scan.kindOf(p) !== undefined);
  // This shard's files, and every shard's gone from its path: which new file each of those was renamed to is decided
  // in one order by every shard (a shard that claimed only among its own gave one new file to two base files).
  const found = Object.fromEntries(ITEM_KINDS.map((k) => [k, new Set(scan.found[k])])) as Record<ItemKind, Set<string>>;
  const gone = (b: TreeBlob): boolean => b.notUtf8 === true || !found[scan.kindOf(b.path)!].has(b.path);
  const wanted = listed.filter((b) => scan.mine(b.path) || gone(b));
  const oids = [...new Set(wanted.map((b) => b.oid))];
  const fetchedBlobs = await prefetchBlobs(scan.root, commit, oids);
  const contents = await readBlobs(scan.root, oids);
  const files = new Map<string, { kind: ItemKind; bytes: Buffer; mine: boolean }>();
  const unnamed: BaseFiles['unnamed'] = [];
  for (const b of wanted) {
    const bytes = contents.get(b.oid);
    if (bytes === undefined) continue;
    const entry = { kind: scan.kindOf(b.path)!, bytes, mine: scan.mine(b.path) };
    if (b.notUtf8) unnamed.push({ path: b.path, ...entry });
    else files.set(b.path, entry);
  }
  const paths = new Set(listed.filter((b) => b.notUtf8 === undefined).map((b) => b.path));
  return { commit, files, paths, unnamed, fetched, fetchedBlobs };
}

const APPEND_FAULT: Record<Exclude<AppendOnlyKind, 'appended' | 'unchanged'>, CheckOwnFaultKind> = {
  deleted: 'history_deleted',
  truncated: 'history_truncated',
  rewritten: 'history_rewritten',
};

/**
 * Compares an item with its base version (none: nothing to compare), recording
 * the outcome on the item; a fault when committed history was not only appended to.
 * `others` are further merge bases (a criss-cross history, `PullRequestBase.others`):
 * the item must only have been appended to against each; the outcome recorded is the
 * base's unless another's is a fault.
 */
export function historyFault(
  item: CheckedItem,
  base: BaseFiles | null,
  head: Buffer | undefined,
  others: readonly BaseFiles[] = [],
): CheckFault | undefined {
  let r: ReturnType<typeof compareHistory> | undefined;
  let against: BaseFiles | null = null;
  for (const b of [base, ...others]) {
    const was = b?.files.get(item.path);
    if (was === undefined || !was.mine) continue;
    const now = compareHistory(item.kind, was.bytes, head);
    if (r === undefined || !now.ok) [r, against] = [now, b];
    if (!now.ok) break;
  }
  if (r === undefined) return undefined;
  item.appendOnly = r.kind;
  if (r.ok) return undefined;
  item.ok = false;
  item.status = r.kind;
  const at =
    r.firstChangedSeq === null ? '' : ` (first changed ${item.kind === 'run' ? 'index' : 'seq'} ${r.firstChangedSeq})`;
  return {
    item: item.kind,
    path: item.path,
    line: r.line,
    kind: APPEND_FAULT[r.kind as keyof typeof APPEND_FAULT],
    message:
      `${whoOf(item.kind, item.id)}: ${r.message}${r.kind === 'deleted' ? at : ''}; committed history must only be appended to` +
      (against !== base && against !== null ? ` (against the merge base ${against.commit.slice(0, 12)})` : ''),
    severity: 'error',
    id: item.id,
  };
}

/**
 * Base files of one kind gone from their path (not in `seen`): a rename when a
 * file that is new in the checkout holds the base's rows (identical bytes
 * first, else as a prefix), otherwise a deletion. `claimed` (shared across
 * kinds) keeps one new file from being the target of two renames.
 */
export function goneFromBase(
  scan: Scan,
  base: BaseFiles,
  kind: ItemKind,
  seen: Set<string>,
  claimed: Set<string>,
): { items: CheckedItem[]; faults: CheckFault[] } {
  const items: CheckedItem[] = [];
  const faults: CheckFault[] = [];
  const newFiles = new Map<string, Buffer | null>();
  const bytesOf = (p: string): Buffer | null => {
    if (!newFiles.has(p)) {
      const r = scan.read(p);
      newFiles.set(p, r.kind === 'file' ? r.bytes : null);
    }
    return newFiles.get(p)!;
  };
  const renameTarget = (was: Buffer): string | undefined => {
    const candidates = scan.found[kind].filter((p) => !base.paths.has(p) && !claimed.has(p));
    const exact = candidates.find((p) => bytesOf(p)?.equals(was));
    if (exact !== undefined) return exact;
    return candidates.find((p) => {
      const b = bytesOf(p);
      if (b === null) return false;
      const r = compareHistory(kind, was, b);
      return r.ok && r.baseRows > 0; // a base without rows has nothing to recognise it by
    });
  };
  // The base files of this kind gone from their paths, then those whose names are not UTF-8 (no path to be compared
  // at: the checkout's is as unreadable by name), in the same order in every shard: each passes only as renamed to a
  // new file holding its rows, else it was deleted (or, unnamed, its history is unaccounted for).
  const gone = [
    ...[...base.files]
      .filter(([rel, b]) => b.kind === kind && !seen.has(rel))
      .map(([path, b]) => ({ path, ...b, unnamed: false })),
    ...base.unnamed.filter((u) => u.kind === kind).map((u) => ({ ...u, unnamed: true })),
  ];
  for (const g of gone) {
    const id = kind === 'receipt' ? receiptNameOf(g.path) : idOfPath(g.path);
    const to = scan.linked.has(g.path) && !g.unnamed ? undefined : renameTarget(g.bytes);
    if (to !== undefined) claimed.add(to);
    if (!g.mine) continue; // another shard's to report; its claim stands here too
    if (to !== undefined) {
      items.push({ ...bareItem(kind, g.path, id, true, `renamed to ${to}`), appendOnly: 'renamed', renamedTo: to });
    } else if (g.unnamed) {
      items.push(bareItem(kind, g.path, id, false, 'unreadable'));
      faults.push({
        item: kind,
        path: g.path,
        line: null,
        kind: 'unreadable',
        message: `in the base commit ${NOT_UTF8_NAME}, so its history cannot be compared, and no file of the checkout holds its rows; rename it`,
        severity: 'error',
      });
    } else {
      const item = bareItem(kind, g.path, id, false, 'deleted');
      const f = historyFault(item, base, undefined);
      if (f !== undefined) faults.push(f);
      items.push(item);
    }
  }
  return { items, faults };
}

/**
 * Where a pull request's history is compared from. A checkout of the PR's own
 * head (not the merge commit GitHub builds on the base) lacks what the base
 * branch appended since the PR branched: compared with the base itself, those
 * rows would show as truncated. So history is compared with the fork point,
 * the commit the PR branched from (the base when the checkout is built on it).
 *
 * - `on_base`: the checkout is built on the base; `commit` is the base;
 * - `branched`: the checkout is the PR's own head; `commit` is where it branched (and `others` the further merge
 *   bases of a criss-cross history: each is compared too, `CheckOptions.alsoBases`);
 * - `unknown`: the history is too shallow to find where it branched; `commit` is the base;
 * - `not_compared`: nothing whose history is compared (receipts alone outside a git checkout).
 */
export interface PullRequestBase {
  /** The base as given. */
  base: string;
  /** The commit history is compared with. */
  commit: string;
  /**
   * The further merge bases when the checkout merged base commits that are not ancestors of each other: history must
   * only have been appended to against each of them as well (give them as `CheckOptions.alsoBases`). Mostly empty.
   */
  others: string[];
  forkPoint: 'on_base' | 'branched' | 'unknown' | 'not_compared';
  /** Whether the base commit had to be fetched. */
  fetched: boolean;
}

/**
 * The fork-point rule, for both doors: the Action on a pull request event,
 * `stepchain check --base REF` always (what the PR check will say). `options`
 * says which kinds are checked, as `checkWorkspace` takes them.
 */
export async function pullRequestBase(
  options: Pick<CheckOptions, 'root' | 'remote' | 'verifyJournals' | 'verifyRuns' | 'verifyReceipts'>,
  base: string,
): Promise<PullRequestBase> {
  // Receipts have a history too, once committed (outside a git checkout the check compares none).
  const histories =
    options.verifyJournals !== false ||
    options.verifyRuns !== false ||
    (options.verifyReceipts !== false && (await headCommit(options.root)) !== undefined);
  if (!histories) return { base, commit: base, others: [], forkPoint: 'not_compared', fetched: false };
  const fetched = await ensureCommit(options.root, base, options.remote);
  const from = await forkPoints(options.root, base);
  if (from === undefined) return { base, commit: base, others: [], forkPoint: 'unknown', fetched };
  const [commit, ...others] = from as [string, ...string[]];
  return { base, commit, others, forkPoint: commit === base ? 'on_base' : 'branched', fetched };
}
