import { readFileSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../errors';
import { verifyJournalBytes } from '../journal';
import { loadReceipt, signatureVerdict, verifyReceipt, type PublicKey } from '../receipt';
import { readRunJournalBytes } from '../runs/verify';
import { isSafeId } from '../util/ids';
import { checkAppendOnly, type AppendOnlyKind } from './append-only';
import { ensureCommit, listFilesAtCommit, readFilesAtCommit } from './git';
import { findFiles, globSet, type GlobSet } from './glob';

/**
 * Checks a repository's committed stepchain files, as a PR check does: every
 * per-step journal, run journal and receipt found by the globs is verified, and
 * with a base commit every journal that existed there must still hold its base
 * rows as an exact byte prefix (append-only). Faults carry repository-relative
 * paths and 1-based lines so they can be annotated where they are.
 */
export const DEFAULT_JOURNALS = '.sdd/runtime/journal/*/000000.jsonl';
export const DEFAULT_RUNS = '.sdd/runs/*/journal.jsonl';
export const DEFAULT_RECEIPTS = '**/*.receipt.tar, **/*.receipt.tar.gz, **/*.receipt.tgz';

export type ItemKind = 'journal' | 'run' | 'receipt';

export interface CheckedItem {
  kind: ItemKind;
  /** Repository-relative, `/`-separated. */
  path: string;
  /** Agent id (journal, receipt) or run id. */
  id: string;
  steps: number;
  head: string;
  ok: boolean;
  /** Short status for a table: `ok`, `FAIL`, `deleted`, ... */
  status: string;
  /** Append-only outcome against the base, when checked. */
  appendOnly?: AppendOnlyKind;
  /** Receipts: signed, and the trusted key that verified it. */
  signed?: boolean;
  keyId?: string | null;
  /** Runs: provider-state mutations recorded, and how many are flagged. */
  mutations?: number;
  flagged?: number;
}

export interface CheckFault {
  item: ItemKind;
  path: string;
  /** 1-based line in `path`, when the fault is at one. */
  line: number | null;
  /** The fault kind (`step_hash_mismatch`, `history_rewritten`, `signature_invalid`, ...). */
  kind: string;
  message: string;
  severity: 'error' | 'warning';
  id?: string;
}

export interface CheckOptions {
  /** The repository root (the workspace). */
  root: string;
  journals?: string | string[];
  runs?: string | string[];
  receipts?: string | string[];
  /** A commit to check append-only history against (a PR's base). */
  base?: string;
  /** Fetch the base from this remote when it is missing (a shallow checkout); default `origin`. */
  remote?: string;
  /** Pinned heads `{agent_id: head}` for per-step journals. */
  expectedHeads?: Record<string, string>;
  /** Where the pins came from (a repository-relative path), for fault locations. */
  expectedHeadsPath?: string;
  /** Trusted keys: every receipt must be signed by one of them. */
  publicKeys?: PublicKey[];
  /** A flagged provider-state mutation is an error (default) or a warning. */
  failOnFlaggedMutations?: boolean;
  verifyJournals?: boolean;
  verifyRuns?: boolean;
  verifyReceipts?: boolean;
}

export interface CheckReport {
  ok: boolean;
  root: string;
  base: string | null;
  /** Whether the base commit had to be fetched. */
  fetchedBase: boolean;
  /** Files checked that hold / do not hold (deleted journals count as failed). */
  verified: number;
  failed: number;
  /** agent id -> head of every per-step journal that verified. */
  heads: Record<string, string>;
  items: CheckedItem[];
  faults: CheckFault[];
}

/** The id of a journal from its path: `<id>/000000.jsonl` or `<id>/journal.jsonl`. */
export function idOfPath(rel: string): string {
  const parts = rel.split('/');
  return parts.length >= 2 ? parts[parts.length - 2]! : rel;
}

function readWorkspaceFile(root: string, rel: string): Buffer | undefined {
  try {
    return readFileSync(path.join(root, rel));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new InputError(`${rel}: cannot read: ${code ?? (e as Error).message}`);
  }
}

const APPEND_FAULT: Record<Exclude<AppendOnlyKind, 'appended' | 'unchanged'>, string> = {
  deleted: 'history_deleted',
  truncated: 'history_truncated',
  rewritten: 'history_rewritten',
};

export async function checkWorkspace(options: CheckOptions): Promise<CheckReport> {
  const root = path.resolve(options.root);
  const report: CheckReport = {
    ok: true,
    root,
    base: options.base ?? null,
    fetchedBase: false,
    verified: 0,
    failed: 0,
    heads: {},
    items: [],
    faults: [],
  };
  const fault = (f: CheckFault): void => {
    report.faults.push(f);
  };
  const journalSet = globSet(options.journals ?? DEFAULT_JOURNALS);
  const runSet = globSet(options.runs ?? DEFAULT_RUNS);
  const receiptSet = globSet(options.receipts ?? DEFAULT_RECEIPTS);

  // Append-only: the base's journals (both kinds), read in one git process.
  const baseFiles = new Map<string, { kind: ItemKind; bytes: Buffer }>();
  if (options.base !== undefined) {
    report.fetchedBase = await ensureCommit(root, options.base, options.remote);
    const sets: [ItemKind, GlobSet, boolean][] = [
      ['journal', journalSet, options.verifyJournals !== false],
      ['run', runSet, options.verifyRuns !== false],
    ];
    for (const [kind, set, on] of sets) {
      if (!on) continue;
      const paths = await listFilesAtCommit(root, options.base, set);
      const contents = await readFilesAtCommit(root, options.base, paths);
      for (const [p, bytes] of contents)
        if (bytes !== undefined && !baseFiles.has(p)) baseFiles.set(p, { kind, bytes });
    }
  }

  const checkHistory = (item: CheckedItem, head: Buffer | undefined): void => {
    const base = baseFiles.get(item.path);
    if (base === undefined) return;
    const r = checkAppendOnly(base.bytes, head, item.kind === 'run' ? 'index' : 'seq');
    item.appendOnly = r.kind;
    if (r.ok) return;
    item.ok = false;
    item.status = r.kind;
    const who = item.kind === 'run' ? `run ${item.id}` : `agent ${item.id}`;
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

  if (options.verifyJournals !== false) {
    const found = findFiles(root, journalSet);
    const seen = new Set(found);
    for (const rel of found) {
      const bytes = readWorkspaceFile(root, rel) ?? Buffer.alloc(0);
      const id = idOfPath(rel);
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
      for (const f of r.errors) {
        fault({
          item: 'journal',
          path: rel,
          line: f.kind === 'head_mismatch' && r.steps > 0 ? r.steps : f.line,
          kind: f.kind,
          message: `agent ${id}: ${f.kind}: ${f.message}`,
          severity: 'error',
          id,
        });
      }
      checkHistory(item, bytes);
      if (item.ok && isSafeId(id)) report.heads[id] = r.head_hash;
      report.items.push(item);
    }
    for (const [rel, b] of baseFiles) {
      if (b.kind !== 'journal' || seen.has(rel)) continue;
      const id = idOfPath(rel);
      const item: CheckedItem = { kind: 'journal', path: rel, id, steps: 0, head: '', ok: false, status: 'deleted' };
      checkHistory(item, undefined);
      report.items.push(item);
    }
    const pins = options.expectedHeads ?? {};
    for (const agent of Object.keys(pins)) {
      if (!report.items.some((i) => i.kind === 'journal' && i.id === agent)) {
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
  }

  if (options.verifyRuns !== false) {
    const failFlagged = options.failOnFlaggedMutations !== false;
    const found = findFiles(root, runSet);
    const seen = new Set(found);
    for (const rel of found) {
      const bytes = readWorkspaceFile(root, rel) ?? Buffer.alloc(0);
      const id = idOfPath(rel);
      const r = readRunJournalBytes(bytes);
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
      for (const f of r.errors) {
        // A flagged mutation is a finding about the run, not the file: it may be only a warning.
        const warn = f.kind === 'flagged_mutation' && !failFlagged;
        if (!warn) item.ok = false;
        fault({
          item: 'run',
          path: rel,
          line: f.line,
          kind: f.kind,
          message: `run ${id}: ${f.kind}${f.index === null ? '' : ` at index ${f.index}`}: ${f.message}`,
          severity: warn ? 'warning' : 'error',
          id,
        });
      }
      if (!item.ok) item.status = 'FAIL';
      else if (item.flagged) item.status = `ok (${item.flagged} flagged mutation${item.flagged === 1 ? '' : 's'})`;
      checkHistory(item, bytes);
      report.items.push(item);
    }
    for (const [rel, b] of baseFiles) {
      if (b.kind !== 'run' || seen.has(rel)) continue;
      const item: CheckedItem = {
        kind: 'run',
        path: rel,
        id: idOfPath(rel),
        steps: 0,
        head: '',
        ok: false,
        status: 'deleted',
      };
      checkHistory(item, undefined);
      report.items.push(item);
    }
  }

  if (options.verifyReceipts !== false) {
    for (const rel of findFiles(root, receiptSet)) {
      const file = path.join(root, rel);
      const r = verifyReceipt(
        file,
        options.publicKeys && options.publicKeys.length > 0 ? { publicKeys: options.publicKeys } : {},
      );
      let id = path.basename(rel).replace(/\.receipt\.(tar|tar\.gz|tgz)$/, '');
      try {
        id = loadReceipt(file).manifest.agent_id;
      } catch {
        /* a receipt that does not load keeps its file name; verifyReceipt reported why */
      }
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
      const keyCount = options.publicKeys?.length ?? 0;
      for (const f of r.errors) {
        // One meaning of "signed" (signatureVerdict): a signature nobody checked fails, named as such.
        const untrusted = f.kind === 'no_trusted_key' && keyCount === 0;
        item.ok = false;
        const where = f.member === undefined ? '' : ` (${f.member}${f.line === undefined ? '' : `:${f.line}`})`;
        fault({
          item: 'receipt',
          path: rel,
          line: null,
          kind: untrusted ? 'signature_not_checked' : f.kind,
          message: untrusted
            ? `receipt ${id}: ${signatureVerdict(r, keyCount).text.replace('--public-key FILE', 'public-keys')}`
            : `receipt ${id}: ${f.kind}: ${f.message}${where}`,
          severity: 'error',
          id,
        });
      }
      const onlyUnchecked = r.errors.length > 0 && r.errors.every((f) => f.kind === 'no_trusted_key') && keyCount === 0;
      if (!item.ok) item.status = onlyUnchecked ? 'signature NOT checked' : 'FAIL';
      else if (r.signed) item.status = `signed (${r.key_id})`;
      else item.status = 'ok (unsigned)';
      report.items.push(item);
    }
  }

  for (const i of report.items) {
    if (i.ok) report.verified++;
    else report.failed++;
  }
  report.ok = report.failed === 0 && !report.faults.some((f) => f.severity === 'error');
  return report;
}
