import path from 'node:path';
import type { JsonValue } from '../canonical';
import type { ErrorFault } from '../errors';
import {
  readJournalBytes,
  readJournalFile,
  resolveJournal,
  verifiedOr,
  VerifiedSteps,
  type StepList,
} from '../journal';
import { describeReceiptFault, inspectReceipt, looksLikeReceipt, signatureVerdict, type PublicKey } from '../receipt';
import { keylessBundleDocument, keylessBundleOf } from './screen';
import { BrokenChainError, storedRow, targetPath } from './source';
import { fieldsChanged, type ContentField } from './step';

/**
 * One side of a diff: a journal or receipt read whether or not it verifies,
 * because "what was edited?" is exactly the question asked of a tampered copy.
 * Its verification status travels with it and is always shown.
 */
export interface DiffSide {
  /** The journal file or receipt as resolved. */
  file: string;
  kind: 'journal' | 'receipt';
  /** The chain (and, for a receipt, the whole receipt) verifies. */
  verified: boolean;
  /** Every fault found when it does not. */
  errors: ErrorFault[];
  /** A receipt's signature verdict (null for a journal). */
  signature: { status: string; holds: boolean } | null;
  /** A keyless (Sigstore) bundle beside the receipt: named, never checked here (`receipt verify` checks it). */
  keylessBundle?: string;
  /** The last stored step_hash walked (vouched for only when `verified`). */
  head_hash: string;
  steps: number;
  /**
   * The well-formed rows, in file order: a journal that verifies read a block at a time where it lies (memory
   * independent of its size), one that does not (or a receipt's journal) in memory.
   */
  entries: StepList;
}

export interface DiffOpenOptions {
  /** The project root for agent ids (default `cwd`). */
  root?: string;
  cwd?: string;
  /** Trusted keys for signed receipts. */
  publicKeys?: PublicKey[];
}

/** Reads `<agent|dir|file|receipt>` for a diff: never refused for not verifying (InputError when missing). */
export function openForDiff(target: string, options: DiffOpenOptions = {}): DiffSide {
  const cwd = options.cwd ?? process.cwd();
  const t = targetPath(target, cwd);
  if (path.isAbsolute(t) && looksLikeReceipt(t)) {
    const keys = options.publicKeys ?? [];
    // One read: the rows compared are the bytes that were verified, whatever happens to the file meanwhile.
    const { verdict: v, receipt } = inspectReceipt(t, keys.length > 0 ? { publicKeys: keys } : {});
    const errors = v.errors.map((f) => ({
      file: f.member === undefined ? t : `${t}:${f.member}`,
      line: f.line ?? null,
      kind: f.kind,
      message: f.message,
    }));
    // An archive that cannot be read at all has no chain to compare.
    if (receipt === undefined)
      throw new BrokenChainError(
        t,
        v.errors.map((f) => describeReceiptFault(t, f)),
        'receipt',
        errors,
      );
    const verdict = signatureVerdict(v, keys.length);
    const chainErrors = errors.filter((f) => f.kind !== 'no_trusted_key');
    const side = {
      file: t,
      kind: 'receipt' as const,
      verified: chainErrors.length === 0,
      errors: chainErrors,
      signature: { status: verdict.status, holds: verdict.holds },
      ...keylessBundleOf(t),
    };
    const steps = verifiedOrNot(() => VerifiedSteps.fromBytes(receipt.journal, `${t}:journal`));
    if (steps !== undefined) return { ...side, head_hash: steps.head_hash, steps: steps.length, entries: steps };
    const r = readJournalBytes(receipt.journal);
    return { ...side, head_hash: r.head_hash, steps: r.steps, entries: r.entries };
  }
  const root = path.resolve(cwd, options.root ?? '.');
  const { file } = resolveJournal(t, root);
  const side = { file, kind: 'journal' as const, signature: null };
  const steps = verifiedOrNot(() => VerifiedSteps.open(file));
  if (steps !== undefined)
    return { ...side, verified: true, errors: [], head_hash: steps.head_hash, steps: steps.length, entries: steps };
  // What was edited in a copy that does not verify is the question: its well-formed rows, read whole.
  const r = readJournalFile(file);
  return {
    ...side,
    verified: r.ok,
    errors: r.errors.map((f) => ({ file, line: f.line, kind: f.kind, message: f.message })),
    head_hash: r.head_hash,
    steps: r.steps,
    entries: r.entries,
  };
}

/** A journal that verifies, to be read a block at a time; undefined when it does not (it is then read whole). */
const verifiedOrNot = (open: () => VerifiedSteps): VerifiedSteps | undefined => verifiedOr(open, () => undefined);

/** What a diff compares: rows in order (a ReplaySource or a DiffSide). */
export interface Comparable {
  head_hash: string;
  steps: number;
  entries: StepList;
}

/**
 * The first divergence between two journals. Every key is always present so a
 * script can read the document without branching:
 * - same: `diverged: false`, `reason`/`seq`/`left`/`right` null;
 * - `reason: "step_mismatch"`: the first step whose hashed content or stored
 *   hashes differ, the content fields that differ there (`hashes_changed` for
 *   `prev_hash`/`step_hash` edited alone), both rows as stored and their lines;
 * - `reason: "length_mismatch"`: one journal is a prefix of the other; `seq` is
 *   the first step present on one side only (`left` or `right` is null).
 * Time, seq and blob order are not hashed, so two runs that did the same thing at
 * different times do not diverge. Rows are compared by content, not by the
 * stored step_hash alone: in a tampered copy a field can be edited under an
 * unchanged step_hash, and that is the edit to show.
 */
export interface JournalDiff {
  diverged: boolean;
  reason: 'step_mismatch' | 'length_mismatch' | null;
  seq: number | null;
  fields_changed: ContentField[];
  hashes_changed: ('prev_hash' | 'step_hash')[];
  left: JsonValue;
  right: JsonValue;
  left_line: number | null;
  right_line: number | null;
  left_steps: number;
  right_steps: number;
  left_head: string;
  right_head: string;
}

export function diffJournals(left: Comparable, right: Comparable): JournalDiff {
  const base = {
    left_steps: left.steps,
    right_steps: right.steps,
    left_head: left.head_hash,
    right_head: right.head_hash,
  };
  const n = Math.min(left.entries.length, right.entries.length);
  for (let i = firstUnlike(left.entries, right.entries, n); i < n; i++) {
    const a = left.entries.at(i)!;
    const b = right.entries.at(i)!;
    const fields = fieldsChanged(a.row, b.row);
    const hashes = (['prev_hash', 'step_hash'] as const).filter((k) => a.row[k] !== b.row[k]);
    if (fields.length > 0 || hashes.length > 0) {
      return {
        diverged: true,
        reason: 'step_mismatch',
        seq: i,
        fields_changed: fields,
        hashes_changed: hashes,
        left: storedRow(a),
        right: storedRow(b),
        left_line: a.line,
        right_line: b.line,
        ...base,
      };
    }
  }
  if (left.entries.length !== right.entries.length) {
    const l = left.entries.at(n);
    const r = right.entries.at(n);
    return {
      diverged: true,
      reason: 'length_mismatch',
      seq: n,
      fields_changed: [],
      hashes_changed: [],
      left: l === undefined ? null : storedRow(l),
      right: r === undefined ? null : storedRow(r),
      left_line: l?.line ?? null,
      right_line: r?.line ?? null,
      ...base,
    };
  }
  return {
    diverged: false,
    reason: null,
    seq: null,
    fields_changed: [],
    hashes_changed: [],
    left: null,
    right: null,
    left_line: null,
    right_line: null,
    ...base,
  };
}

/**
 * Where a row-by-row comparison of two lists must start: 0, or, for two journals that verified, the first step
 * whose stored step_hash or blob refs differ (n when none), found without parsing a row. In a verified chain a
 * step's step_hash commits to its hashed fields and, through prev_hash, to every step before it, so rows with
 * equal step_hash and equal blob refs (the one content field no hash covers) are the same rows; the comparison
 * at the step found says what differs there, as it would have found it walking from 0.
 */
function firstUnlike(left: StepList, right: StepList, n: number): number {
  if (!(left instanceof VerifiedSteps && right instanceof VerifiedSteps)) return 0;
  const a = left.marks();
  const b = right.marks();
  for (let i = 0; i < n; i++) {
    const x = a.next();
    const y = b.next();
    if (x.done === true || y.done === true) return i;
    if (x.value.step_hash !== y.value.step_hash || !sameList(x.value.blob_refs, y.value.blob_refs)) return i;
  }
  return n;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** A side's status for `diff --json`. */
export function diffSideDocument(side: DiffSide): {
  file: string;
  kind: string;
  verified: boolean;
  signature: { status: string; holds: boolean; keyless_bundle?: { file: string; checked: false } } | null;
  head_hash: string;
  steps: number;
  errors: ErrorFault[];
} {
  return {
    file: side.file,
    kind: side.kind,
    verified: side.verified,
    signature: side.signature === null ? null : { ...side.signature, ...keylessBundleDocument(side.keylessBundle) },
    head_hash: side.head_hash,
    steps: side.steps,
    errors: side.errors,
  };
}

/** Whether a side holds as shown: its chain verified and, for a receipt, its signature verdict holds. */
export function sideHolds(side: DiffSide): boolean {
  return side.verified && (side.signature?.holds ?? true);
}
