import path from 'node:path';
import { headCommit } from '../git';
import { DEFAULT_MAX_RECEIPT_BYTES } from '../receipt';
import { isSafeId } from '../util/ids';
import { verifiedOr, VerifiedSteps, type StepList } from '../journal';
import { walkableBuffer } from '../journal/parallel';
import { isLinkProblem, type LinkedJournalProblem, type LinkSources } from '../runs/exchange-links';
import { goneFromBase, historyFault, readBase, type BaseFiles } from './base';
import { receiptNameOf } from './history';
import { unreadable, type ItemCheck } from './items/common';
import { checkJournal, orphanPinFaults } from './items/journal';
import { checkReceipt } from './items/receipt';
import { checkRun } from './items/run';
import { committedTest } from './committed';
import { keylessPass } from './keyless';
import { provenancePass, STEP_JOURNAL } from './provenance';
import { idOfPath, ITEM_KINDS, scanCheckout, type Scan } from './scan';
import type { CheckOptions, CheckReport, ItemKind } from './types';
import { idRecord, ownValue } from '../util/records';
import { pausePoint } from '../util/pause';

/**
 * Checks a repository's committed stepchain files, as a PR check does: every
 * per-step journal, run journal and receipt found by the globs (scan.ts) is
 * verified by its kind's checker (items/), and with a base commit (base.ts)
 * every file that existed there must still hold its base rows or chain at its
 * place, or have been renamed. Faults carry repository-relative paths and
 * 1-based lines so they can be annotated where they are.
 *
 * Everything is read without following a symbolic link below the root (a link
 * is a fault naming it), and nothing in the checkout is its own trust anchor:
 * keys and pinned heads come from the caller.
 */
export type { CheckedItem, CheckFault, CheckOptions, CheckReport, ItemKind, Shard, TrustedKeySource } from './types';

/** What a pass over the check sees: the scanned checkout, the base (if any), the options and the report so far. */
export interface CheckContext {
  options: CheckOptions;
  scan: Scan;
  base: BaseFiles | null;
  /** Further merge bases history is compared with (`CheckOptions.alsoBases`), each with its own renames' targets. */
  others: { base: BaseFiles; claimed: Set<string> }[];
  report: CheckReport;
  /** New checkout files already taken as a base file's rename (one target per rename, across kinds). */
  claimed: Set<string>;
}

/** One pass of the check: adds items and faults to the report. A new concern is one more pass. */
export type CheckPass = (ctx: CheckContext) => void | Promise<void>;

const checkedJournals = new WeakMap<Scan, Map<string, StepList | LinkedJournalProblem>>();

/**
 * The per-step journals of the checkout an exchange link names, by id, read and verified once per check: a journal
 * the globs did not find (not committed, or not checked) is absent, one that does not verify is unusable.
 */
function checkoutJournal(scan: Scan, id: string): StepList | LinkedJournalProblem {
  let memo = checkedJournals.get(scan);
  if (memo === undefined) checkedJournals.set(scan, (memo = new Map()));
  let v = memo.get(id);
  if (v !== undefined) return v;
  const rel = scan.on.journal ? scan.found.journal.find((f) => idOfPath(f) === id) : undefined;
  if (rel === undefined) v = { absent: `no journal ${id} among the files checked` };
  else {
    // Read a block at a time where the bytes lie (a link names one step), not every row parsed.
    const r = scan.read(rel, undefined, walkableBuffer);
    v =
      r.kind === 'file'
        ? sameAsJudged(scan, rel, verifiedOrUnusable(r.bytes, rel))
        : { unusable: `${rel} cannot be read` };
  }
  memo.set(id, v);
  return v;
}

/** The head each journal of this shard had where the journal pass found it verified, by path. */
const judgedHeads = new WeakMap<Scan, Map<string, string>>();

/**
 * A linked journal as read for its links, when it is the one the journal pass judged (its verified head the same:
 * the chain commits to every row), else unusable. The journal pass and the links read the file apart (the journal
 * pass holds no journal's bytes for later: a check of many large journals would hold them all), and a file swapped
 * in between had the links checked against bytes other than those the report vouched for.
 */
function sameAsJudged(scan: Scan, rel: string, v: StepList | LinkedJournalProblem): StepList | LinkedJournalProblem {
  const judged = judgedHeads.get(scan)?.get(rel);
  if (judged === undefined || isLinkProblem(v)) return v;
  const head = v.length > 0 ? v.at(v.length - 1)?.row.step_hash : judged;
  return head === judged ? v : { unusable: `${rel} changed while the check read it (not the journal it judged)` };
}

/** A checkout journal's steps when its bytes verify, else why a link cannot use it. */
const verifiedOrUnusable = (bytes: Buffer, rel: string): StepList | LinkedJournalProblem =>
  verifiedOr(
    () => VerifiedSteps.fromBytes(bytes, rel),
    () => ({ unusable: `${rel} does not verify` }),
  );

/** Where a run journal's exchange links are checked: the hook journal of its id and the journals they name. */
function linkSources(ctx: CheckContext, runId: string): LinkSources {
  const hook = isSafeId(runId) ? checkoutJournal(ctx.scan, runId) : { absent: `${runId} is not a journal id` };
  return {
    hook: isLinkProblem(hook) ? hook : (seq) => hook.at(seq)?.row,
    journal: (id) => checkoutJournal(ctx.scan, id),
  };
}

/** A checkout file of one kind, read (never through a link) and judged by its kind's checker. */
function checkFile(ctx: CheckContext, kind: ItemKind, rel: string): { check: ItemCheck; bytes?: Buffer } {
  const { options, scan } = ctx;
  const name = kind === 'receipt' ? receiptNameOf(rel) : idOfPath(rel);
  const max = kind === 'receipt' ? DEFAULT_MAX_RECEIPT_BYTES : undefined;
  // A per-step journal is walked by threads when it is large: read where they can walk it, not copied there.
  const r = scan.read(rel, max, kind === 'journal' ? walkableBuffer : undefined);
  if (r.kind !== 'file') return { check: unreadable(kind, rel, name, r, max) };
  if (kind === 'journal')
    return { check: checkJournal(rel, name, r.bytes, ownValue(options.expectedHeads, name)), bytes: r.bytes };
  if (kind === 'run')
    return {
      check: checkRun(rel, name, r.bytes, options.failOnFlaggedMutations !== false, linkSources(ctx, name)),
      bytes: r.bytes,
    };
  return { check: checkReceipt(rel, name, r.bytes, options.publicKeys ?? [], options.keyHint), bytes: r.bytes };
}

/** The pass for one kind: its files of this shard, their history, its base files gone, and (journals) stray pins. */
function kindPass(kind: ItemKind): CheckPass {
  return (ctx) => {
    const { scan, base, report, options } = ctx;
    if (!scan.on[kind]) return;
    for (const rel of scan.found[kind].filter(scan.mine)) {
      const { check, bytes } = checkFile(ctx, kind, rel);
      const { item, faults } = check;
      if (kind === 'journal') {
        let heads = judgedHeads.get(scan);
        if (heads === undefined) judgedHeads.set(scan, (heads = new Map()));
        if (item.ok) heads.set(rel, item.head);
      }
      report.faults.push(...faults);
      if (bytes !== undefined) {
        const f = historyFault(
          item,
          base,
          bytes,
          ctx.others.map((o) => o.base),
        );
        if (f !== undefined) report.faults.push(f);
      }
      if (kind === 'journal' && item.ok && isSafeId(item.id)) report.heads[item.id] = item.head;
      report.items.push(item);
    }
    if (base !== null) {
      const gone = goneFromBase(scan, base, kind, new Set(scan.found[kind]), ctx.claimed);
      report.items.push(...gone.items);
      report.faults.push(...gone.faults);
    }
    // A file a further merge base holds and the checkout lost: against each base on its own (a rename the first
    // base accepts may not hold the rows another one has); an item once, failed if any base fails it; a fault once.
    for (const o of ctx.others) {
      const gone = goneFromBase(scan, o.base, kind, new Set(scan.found[kind]), o.claimed);
      for (const item of gone.items) {
        const had = report.items.find((i) => i.kind === item.kind && i.path === item.path);
        if (had === undefined) report.items.push(item);
        else if (had.ok && !item.ok)
          Object.assign(had, { ok: false, status: item.status, appendOnly: item.appendOnly });
      }
      const told = new Set(report.faults.map((f) => `${f.kind}\0${f.path}`));
      report.faults.push(...gone.faults.filter((f) => !told.has(`${f.kind}\0${f.path}`)));
    }
    if (kind === 'journal') pausePoint('check:journals-judged');
    if (kind === 'journal' && options.expectedHeads !== undefined) {
      const agents = new Set(scan.found.journal.map(idOfPath));
      report.faults.push(
        ...orphanPinFaults(options.expectedHeads, agents, options.expectedHeadsPath ?? '.', scan.mine),
      );
    }
  };
}

/**
 * The paths the check may read from the checkout (its files of every kind switched on, a receipt's Sigstore bundle,
 * the per-step journal a run journal's provenance records name), and those whose checkers name CRLF line endings.
 */
function readable(scan: Scan): [(rel: string) => boolean, (rel: string) => boolean] {
  const bundle = '.sigstore.json';
  const covers = (rel: string): boolean =>
    scan.kindOf(rel) !== undefined ||
    (rel.endsWith(bundle) && scan.kindOf(rel.slice(0, -bundle.length)) === 'receipt') ||
    STEP_JOURNAL.test(rel);
  const crlf = (rel: string): boolean => scan.kindOf(rel) === 'journal' || scan.kindOf(rel) === 'run';
  return [covers, crlf];
}

/** The passes, in report order. */
export const CHECK_PASSES: readonly CheckPass[] = [...ITEM_KINDS.map(kindPass), provenancePass, keylessPass];

export async function checkWorkspace(options: CheckOptions, passes = CHECK_PASSES): Promise<CheckReport> {
  const root = path.resolve(options.root);
  const scan = scanCheckout(root, options);
  const commit = (await headCommit(root)) ?? null;
  if (options.committed === true && commit !== null)
    scan.committed = await committedTest(root, commit, ...readable(scan));
  // Receipts alone in a directory that is no git checkout (an artifact's files): nothing committed to compare.
  const receiptsOnly = !scan.on.journal && !scan.on.run;
  const baseCommit = options.base === undefined || (receiptsOnly && commit === null) ? null : options.base;
  const base =
    baseCommit !== null && ITEM_KINDS.some((k) => scan.on[k]) ? await readBase(scan, baseCommit, options.remote) : null;
  const others: CheckContext['others'] = [];
  if (base !== null)
    for (const c of options.alsoBases ?? [])
      if (c !== base.commit) others.push({ base: await readBase(scan, c, options.remote), claimed: new Set() });
  const report: CheckReport = {
    ok: true,
    root,
    base: baseCommit,
    commit,
    fetchedBase: base?.fetched ?? false,
    fetchedBlobs: base?.fetchedBlobs ?? 0,
    verified: 0,
    failed: 0,
    heads: idRecord<string>(),
    items: [],
    faults: [...scan.linkFaults],
    matched: { journal: scan.found.journal.length, run: scan.found.run.length, receipt: scan.found.receipt.length },
    shard: scan.shard,
    trustedKeys: options.keySources ?? [],
  };
  const ctx: CheckContext = { options, scan, base, others, report, claimed: new Set() };
  for (const pass of passes) await pass(ctx);
  for (const i of report.items) {
    if (i.ok) report.verified++;
    else report.failed++;
  }
  report.ok = report.failed === 0 && !report.faults.some((f) => f.severity === 'error');
  return report;
}
