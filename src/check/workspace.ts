import { createHash } from 'node:crypto';
import path from 'node:path';
import { verifyJournalBytes } from '../journal';
import { DEFAULT_MAX_RECEIPT_BYTES, inspectReceipt, signatureVerdict } from '../receipt';
import { readRunJournalBytes } from '../runs/verify';
import { isSafeId } from '../util/ids';
import { readUnder, type CheckedDirs } from '../util/nofollow';
import type { AppendOnlyKind } from './append-only';
import { ensureCommit, headCommit, listBlobsAtCommit, prefetchBlobs, readBlobs } from '../git';
import { globSet, matchesGlob, scanFiles, type DirCache, type GlobSet } from './glob';
import { compareHistory, receiptNameOf } from './history';
import { addProvenance } from './provenance';
import type { CheckFault, CheckOptions, CheckReport, CheckedItem, ItemKind } from './types';

/**
 * Checks a repository's committed stepchain files, as a PR check does: every
 * per-step journal, run journal and receipt found by the globs is verified, and
 * with a base commit every journal that existed there must still hold its base
 * rows, as the verifier reads them, at their places (append-only, append-only.ts),
 * and every receipt there must still be there, its chain extended or unchanged
 * (receipt-history.ts). Faults carry repository-relative
 * paths and 1-based lines so they can be annotated where they are.
 *
 * Everything is read without following a symbolic link below the root (a link
 * is a fault naming it), and nothing in the checkout is its own trust anchor:
 * keys and pinned heads come from the caller.
 */
export const DEFAULT_JOURNALS = '.sdd/runtime/journal/*/000000.jsonl';
export const DEFAULT_RUNS = '.sdd/runs/*/journal.jsonl';
export const DEFAULT_RECEIPTS = '**/*.receipt.tar, **/*.receipt.tar.gz, **/*.receipt.tgz';

export type { CheckedItem, CheckFault, CheckOptions, CheckReport, ItemKind, Shard, TrustedKeySource } from './types';

function runOfFaults(f: { line: number | null; last_line?: number; count?: number }): string {
  if (f.line === null || f.last_line === undefined || f.count === undefined) return '';
  return `${f.count.toLocaleString('en-US')} faults on lines ${f.line}-${f.last_line}, the first: `;
}

export function idOfPath(rel: string): string {
  const parts = rel.split('/');
  return parts.length >= 2 ? parts[parts.length - 2]! : rel;
}

/** The shard a path belongs to: the first 32 bits of SHA-256 of its `/`-separated path, modulo the count. */
export function shardOf(rel: string, count: number): number {
  if (count <= 1) return 0;
  return createHash('sha256').update(rel, 'utf8').digest().readUInt32BE(0) % count;
}

const APPEND_FAULT: Record<Exclude<AppendOnlyKind, 'appended' | 'unchanged'>, string> = {
  deleted: 'history_deleted',
  truncated: 'history_truncated',
  rewritten: 'history_rewritten',
};

/** The 1-based line of the first CRLF, or 0. Canonical rows never hold a raw CR, so one means a converted checkout. */
function crlfLine(bytes: Buffer): number {
  const i = bytes.indexOf('\r\n');
  if (i < 0) return 0;
  let line = 1;
  for (let j = bytes.indexOf(0x0a); j >= 0 && j < i; j = bytes.indexOf(0x0a, j + 1)) line++;
  return line;
}

export const CRLF_REMEDY =
  'git converted the line endings on checkout (core.autocrlf=true?), so every row differs from what was hashed; ' +
  'add `.sdd/** -text` (and your journal paths) to .gitattributes, or run `git config core.autocrlf false` before the checkout';

export async function checkWorkspace(options: CheckOptions): Promise<CheckReport> {
  const root = path.resolve(options.root);
  const shard = options.shard !== undefined && options.shard.count > 1 ? options.shard : null;
  const mine = (rel: string): boolean => shard === null || shardOf(rel, shard.count) === shard.index;
  const report: CheckReport = {
    ok: true,
    root,
    base: options.base ?? null,
    commit: (await headCommit(root)) ?? null,
    fetchedBase: false,
    fetchedBlobs: 0,
    verified: 0,
    failed: 0,
    heads: {},
    items: [],
    faults: [],
    matched: { journal: 0, run: 0, receipt: 0 },
    shard,
    trustedKeys: options.keySources ?? [],
  };
  const fault = (f: CheckFault): void => {
    report.faults.push(f);
  };
  // A file's faults come collapsed into runs and capped (docs/journal.md, "Fault output"): say what was left out.
  const omittedFaults = (
    item: ItemKind,
    rel: string,
    id: string,
    n: number,
    severity: CheckFault['severity'],
  ): void => {
    if (n > 0)
      fault({
        item,
        path: rel,
        line: null,
        kind: 'faults_not_listed',
        message: `${n.toLocaleString('en-US')} more fault${n === 1 ? '' : 's'} not listed (run \`stepchain ${item === 'run' ? 'run verify' : 'verify'}\` on ${rel})`,
        severity,
        id,
      });
  };
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

  // The checkout: files per kind (all shards, for renames and pins), and the links never followed.
  const found: Record<ItemKind, string[]> = { journal: [], run: [], receipt: [] };
  const linked = new Set<string>();
  const cache: DirCache = options.dirCache ?? new Map();
  const checked: CheckedDirs = new Set();
  for (const kind of ['journal', 'run', 'receipt'] as const) {
    if (!on[kind]) continue;
    const scan = scanFiles(root, sets[kind], cache);
    found[kind] = scan.files;
    report.matched[kind] = scan.files.length;
    for (const l of scan.links) {
      if (linked.has(l.path) || !mine(l.path)) continue;
      linked.add(l.path);
      fault({
        item: kind,
        path: l.path,
        line: null,
        kind: 'symlink',
        message:
          l.severity === 'error'
            ? `${l.path} is a symbolic link: stepchain never follows a link in the checkout (it could point at .git/config or /proc/self/environ)`
            : `${l.path} is a symbolic link to a directory: not searched (links in the checkout are never followed)`,
        severity: l.severity,
      });
    }
  }

  // The base: its journals, run journals and receipts (this shard's), read in one batch.
  const baseFiles = new Map<string, { kind: ItemKind; bytes: Buffer }>();
  const basePaths = new Set<string>();
  // Receipts alone in a directory that is no git checkout (an artifact's files): nothing committed to compare.
  if (options.base !== undefined && !on.journal && !on.run && report.commit === null) report.base = null;
  const base = report.base;
  if (base !== null && (on.journal || on.run || on.receipt)) {
    report.fetchedBase = await ensureCommit(root, base, options.remote);
    const kindOf = (p: string): ItemKind | undefined =>
      (['journal', 'run', 'receipt'] as const).find((k) => on[k] && matchesGlob(sets[k], p));
    const listed = await listBlobsAtCommit(root, base, (p) => kindOf(p) !== undefined);
    for (const b of listed) basePaths.add(b.path);
    const wanted = listed.filter((b) => mine(b.path));
    report.fetchedBlobs = await prefetchBlobs(
      root,
      base,
      wanted.map((b) => b.oid),
    );
    const contents = await readBlobs(
      root,
      wanted.map((b) => b.oid),
    );
    for (const b of wanted) {
      const bytes = contents.get(b.oid);
      if (bytes !== undefined) baseFiles.set(b.path, { kind: kindOf(b.path)!, bytes });
    }
  }

  /** Reads a checkout file, never through a link; a fault (and undefined) when it cannot be. */
  const readItem = (kind: ItemKind, rel: string, id: string, max?: number): Buffer | undefined => {
    const r = readUnder(root, rel, max, checked);
    if (r.kind === 'file') return r.bytes;
    const why =
      r.kind === 'symlink'
        ? `${r.at} is a symbolic link: never followed`
        : r.kind === 'too_large'
          ? `${r.size} bytes, over the ${max ?? 0}-byte limit`
          : r.kind === 'missing'
            ? 'vanished while being checked'
            : 'not a regular file';
    fault({
      item: kind,
      path: rel,
      line: null,
      kind: r.kind === 'symlink' ? 'symlink' : r.kind === 'too_large' ? 'too_large' : 'unreadable',
      message: `${kind === 'run' ? 'run' : kind === 'receipt' ? 'receipt' : 'agent'} ${id}: ${why}`,
      severity: 'error',
      id,
    });
    return undefined;
  };

  const crlf = (kind: ItemKind, rel: string, id: string, bytes: Buffer, item: CheckedItem): void => {
    const line = crlfLine(bytes);
    if (line === 0) return;
    item.ok = false;
    fault({
      item: kind,
      path: rel,
      line,
      kind: 'crlf_line_endings',
      message: `${kind === 'run' ? 'run' : 'agent'} ${id}: lines end in CRLF from line ${line}: ${CRLF_REMEDY}`,
      severity: 'error',
      id,
    });
  };

  const checkHistory = (item: CheckedItem, head: Buffer | undefined): void => {
    const base = baseFiles.get(item.path);
    if (base === undefined) return;
    const r = compareHistory(item.kind, base.bytes, head);
    item.appendOnly = r.kind;
    if (r.ok) return;
    item.ok = false;
    item.status = r.kind;
    const who = `${item.kind === 'journal' ? 'agent' : item.kind} ${item.id}`;
    const at =
      r.firstChangedSeq === null
        ? ''
        : ` (first changed ${item.kind === 'run' ? 'index' : 'seq'} ${r.firstChangedSeq})`;
    fault({
      item: item.kind,
      path: item.path,
      line: r.line,
      kind: APPEND_FAULT[r.kind as keyof typeof APPEND_FAULT],
      message: `${who}: ${r.message}${r.kind === 'deleted' ? at : ''}; committed history must only be appended to`,
      severity: 'error',
      id: item.id,
    });
  };

  /**
   * Base files gone from their path: a rename when a file that is new in the
   * checkout holds the base's rows (identical bytes first, else as a prefix);
   * otherwise a deletion.
   */
  const newFileCache = new Map<string, Buffer | null>();
  const claimed = new Set<string>();
  const renameTarget = (kind: ItemKind, base: Buffer): string | undefined => {
    const candidates = found[kind].filter((p) => !basePaths.has(p) && !claimed.has(p));
    const bytesOf = (p: string): Buffer | null => {
      if (!newFileCache.has(p)) {
        const r = readUnder(root, p, undefined, checked);
        newFileCache.set(p, r.kind === 'file' ? r.bytes : null);
      }
      return newFileCache.get(p)!;
    };
    const exact = candidates.find((p) => bytesOf(p)?.equals(base));
    if (exact !== undefined) return exact;
    return candidates.find((p) => {
      const b = bytesOf(p);
      if (b === null) return false;
      const r = compareHistory(kind, base, b);
      return r.ok && r.baseRows > 0; // a base without rows has nothing to recognise it by
    });
  };
  const goneFromBase = (kind: ItemKind, seen: Set<string>): void => {
    for (const [rel, b] of baseFiles) {
      if (b.kind !== kind || seen.has(rel)) continue;
      const id = kind === 'receipt' ? receiptNameOf(rel) : idOfPath(rel);
      const to = linked.has(rel) ? undefined : renameTarget(kind, b.bytes);
      if (to !== undefined) {
        claimed.add(to);
        report.items.push({
          kind,
          path: rel,
          id,
          steps: 0,
          head: '',
          ok: true,
          status: `renamed to ${to}`,
          appendOnly: 'renamed',
          renamedTo: to,
        });
        continue;
      }
      const item: CheckedItem = { kind, path: rel, id, steps: 0, head: '', ok: false, status: 'deleted' };
      checkHistory(item, undefined);
      report.items.push(item);
    }
  };

  if (on.journal) {
    const seen = new Set(found.journal);
    for (const rel of found.journal.filter(mine)) {
      const id = idOfPath(rel);
      const bytes = readItem('journal', rel, id);
      if (bytes === undefined) {
        report.items.push({ kind: 'journal', path: rel, id, steps: 0, head: '', ok: false, status: 'unreadable' });
        continue;
      }
      const expectedHead = options.expectedHeads?.[id];
      const r = verifyJournalBytes(bytes, expectedHead === undefined ? {} : { expectedHead });
      const item: CheckedItem = {
        kind: 'journal',
        path: rel,
        id,
        steps: r.steps,
        head: r.head_hash,
        ok: r.ok,
        status: r.ok ? 'ok' : 'FAIL',
      };
      crlf('journal', rel, id, bytes, item);
      for (const f of r.errors) {
        fault({
          item: 'journal',
          path: rel,
          line: f.kind === 'head_mismatch' && r.steps > 0 ? r.steps : f.line,
          kind: f.kind,
          message: `agent ${id}: ${f.kind}: ${runOfFaults(f)}${f.message}`,
          severity: 'error',
          id,
        });
      }
      omittedFaults('journal', rel, id, r.errors_omitted, 'error');
      checkHistory(item, bytes);
      if (!item.ok && item.status === 'ok') item.status = 'FAIL';
      if (item.ok && isSafeId(id)) report.heads[id] = r.head_hash;
      report.items.push(item);
    }
    goneFromBase('journal', seen);
    const pins = options.expectedHeads ?? {};
    const agents = new Set(found.journal.map(idOfPath));
    for (const agent of Object.keys(pins)) {
      // Each pin is judged once, by the shard its agent id falls in.
      if (agents.has(agent) || !mine(`pin:${agent}`)) continue;
      fault({
        item: 'journal',
        path: options.expectedHeadsPath ?? '.',
        line: null,
        kind: 'head_mismatch',
        message: `agent ${agent}: a head is pinned (${pins[agent]}) but no journal for this agent was found`,
        severity: 'error',
        id: agent,
      });
    }
  }

  if (on.run) {
    const failFlagged = options.failOnFlaggedMutations !== false;
    const seen = new Set(found.run);
    for (const rel of found.run.filter(mine)) {
      const id = idOfPath(rel);
      const bytes = readItem('run', rel, id);
      if (bytes === undefined) {
        report.items.push({ kind: 'run', path: rel, id, steps: 0, head: '', ok: false, status: 'unreadable' });
        continue;
      }
      const r = readRunJournalBytes(bytes, { keepEntries: false });
      const item: CheckedItem = {
        kind: 'run',
        path: rel,
        id,
        steps: r.count,
        head: r.head_hash,
        ok: true,
        status: 'ok',
        mutations: r.mutation_count,
        flagged: r.flagged_indices.length,
      };
      crlf('run', rel, id, bytes, item);
      // A flagged mutation is a finding about the run, not the file: it may be only a warning. Judged on the
      // counts, not the listed faults: a fault past the list's cap must fail the run as much as a listed one.
      const flaggedFaults = r.flagged_indices.length;
      if (r.fault_count > flaggedFaults || (failFlagged && flaggedFaults > 0)) item.ok = false;
      for (const f of r.errors) {
        const warn = f.kind === 'flagged_mutation' && !failFlagged;
        fault({
          item: 'run',
          path: rel,
          line: f.line,
          kind: f.kind,
          message: `run ${id}: ${f.kind}${f.index === null ? '' : ` at index ${f.index}`}: ${runOfFaults(f)}${f.message}`,
          severity: warn ? 'warning' : 'error',
          id,
        });
      }
      omittedFaults('run', rel, id, r.errors_omitted, item.ok ? 'warning' : 'error');
      if (!item.ok) item.status = 'FAIL';
      else if (item.flagged) item.status = `ok (${item.flagged} flagged mutation${item.flagged === 1 ? '' : 's'})`;
      checkHistory(item, bytes);
      report.items.push(item);
    }
    goneFromBase('run', seen);
  }

  if (on.receipt) {
    const keys = options.publicKeys ?? [];
    for (const rel of found.receipt.filter(mine)) {
      let id = receiptNameOf(rel);
      const bytes = readItem('receipt', rel, id, DEFAULT_MAX_RECEIPT_BYTES);
      if (bytes === undefined) {
        report.items.push({ kind: 'receipt', path: rel, id, steps: 0, head: '', ok: false, status: 'unreadable' });
        continue;
      }
      const { verdict: r, receipt } = inspectReceipt(bytes, keys.length > 0 ? { publicKeys: keys } : {});
      // A receipt that does not load keeps its file name; the verdict says why.
      if (receipt !== undefined) id = receipt.manifest.agent_id;
      const item: CheckedItem = {
        kind: 'receipt',
        path: rel,
        id,
        steps: r.steps,
        head: r.head_hash,
        ok: true,
        status: 'ok',
        signed: r.signed,
        keyId: r.key_id,
      };
      for (const f of r.errors) {
        // One meaning of "signed" (signatureVerdict): a signature nobody checked fails, named as such.
        const untrusted = f.kind === 'no_trusted_key' && keys.length === 0;
        item.ok = false;
        const where = f.member === undefined ? '' : ` (${f.member}${f.line === undefined ? '' : `:${f.line}`})`;
        fault({
          item: 'receipt',
          path: rel,
          line: null,
          kind: untrusted ? 'signature_not_checked' : f.kind,
          message: untrusted
            ? `receipt ${id}: ${signatureVerdict(r, keys.length).text.replace('--public-key FILE', options.keyHint ?? 'public-keys')}`
            : `receipt ${id}: ${f.kind}: ${f.message}${where}`,
          severity: 'error',
          id,
        });
      }
      const onlyUnchecked =
        r.errors.length > 0 && r.errors.every((f) => f.kind === 'no_trusted_key') && keys.length === 0;
      if (!item.ok) item.status = onlyUnchecked ? 'signature NOT checked' : 'FAIL';
      else if (r.signed) item.status = `signed (${r.key_id})`;
      else item.status = 'ok (unsigned)';
      checkHistory(item, bytes);
      report.items.push(item);
    }
    goneFromBase('receipt', new Set(found.receipt));
  }

  await addProvenance(report, { root, base: report.base, runs: found.run, policy: options.provenance ?? 'off' });
  for (const i of report.items) {
    if (i.ok) report.verified++;
    else report.failed++;
  }
  report.ok = report.failed === 0 && !report.faults.some((f) => f.severity === 'error');
  return report;
}
