import type { PublicKey } from '../receipt';
import type { AppendOnlyKind } from './append-only';
import type { CheckFaultKind } from './fault-kinds';
import type { DirCache } from './glob';
import type { AttributedFile } from '../provenance/attribute';
import type { KeylessIdentityPolicy } from '../receipt/keyless/verify';

/** What the repository check reads and reports: its items, faults, options and report (see workspace.ts). */

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
  /** Short status for a table: `ok`, `FAIL`, `deleted`, `renamed`, ... */
  status: string;
  /** Append-only outcome against the base, when checked. */
  appendOnly?: AppendOnlyKind | 'renamed';
  /** A journal gone from its base path whose rows now live at this path. */
  renamedTo?: string;
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
  /** The fault kind (`step_hash_mismatch`, `history_rewritten`, `signature_invalid`, ...): fault-kinds.ts. */
  kind: CheckFaultKind;
  message: string;
  severity: 'error' | 'warning';
  id?: string;
}

/** A trusted key and where it came from (shown in summaries: a PR must not bring its own key). */
export interface TrustedKeySource {
  keyId: string;
  source: string;
}

export interface Shard {
  index: number;
  count: number;
}

export interface CheckOptions {
  /** The repository root (the workspace). */
  root: string;
  journals?: string | string[];
  runs?: string | string[];
  receipts?: string | string[];
  /** A commit to check append-only history against (a PR's base). */
  base?: string;
  /**
   * Further commits history must only have been appended to against, with `base` (a criss-cross history's other
   * merge bases: `PullRequestBase.others`). The provenance pass takes the PR's changes against each of them.
   */
  alsoBases?: string[];
  /** Fetch the base from this remote when it is missing (a shallow checkout); default `origin`. */
  remote?: string;
  /** Pinned heads `{agent_id: head}` for per-step journals. */
  expectedHeads?: Record<string, string>;
  /** Where the pins came from (a repository-relative path), for fault locations. */
  expectedHeadsPath?: string;
  /** Trusted keys: every receipt must be signed by one of them. */
  publicKeys?: PublicKey[];
  /** Where each trusted key came from (reported as given). */
  keySources?: TrustedKeySource[];
  /** How the caller's user gives a trusted key (the door's words: `--public-key FILE`), for "signature NOT checked". */
  keyHint?: string;
  /**
   * Keyless trust anchors: a receipt's Sigstore bundle beside it must verify under this identity policy and these
   * trusted roots (a TrustedRoot JSON or gh's JSON-lines file: its text, and where it came from for messages;
   * default the shipped public Sigstore root). Without them a bundle fails its receipt (`keyless_not_checked`:
   * never green unchecked). A malformed root is an InputError.
   */
  keyless?: { policy: KeylessIdentityPolicy; trustedRoots?: { text: string; source: string } };
  /** How the caller's user gives keyless identities (the door's words), for `keyless_not_checked`. */
  keylessHint?: string;
  /** A flagged provider-state mutation is an error (default) or a warning. */
  failOnFlaggedMutations?: boolean;
  verifyJournals?: boolean;
  verifyRuns?: boolean;
  verifyReceipts?: boolean;
  /** Check only the files of this shard (by path hash, `shardOf`). */
  shard?: Shard;
  /** Directory listings to share with other scans of the same checkout (the fork tree's). */
  dirCache?: DirCache;
  /** With a base: attribute every changed file to the verified step that produced it (provenance.ts; default off). */
  provenance?: ProvenancePolicy;
  /**
   * Judge what HEAD commits, not what the work tree shows (the PR check: its checkout is a commit's): every file read
   * must be the blob HEAD holds at its path and lie in no submodule (`not_committed` otherwise, committed.ts). A file
   * HEAD does not hold at all is read as it is. Off by default: a local check judges the work tree, uncommitted
   * appends included.
   */
  committed?: boolean;
}

/** How unrecorded changes count: not at all, as warnings, or as errors (docs/provenance.md). */
export type ProvenancePolicy = 'off' | 'warn' | 'error';

/** The provenance pass's result (check/provenance.ts). */
export interface ProvenanceReport {
  policy: Exclude<ProvenancePolicy, 'off'>;
  /** The commit the changes are counted from (the base, or where the checkout branched from it). */
  base: string;
  files: AttributedFile[];
  recorded: number;
  unrecorded: number;
  /** Records that were found but count for nothing, and why. */
  ignored: string[];
}

export interface CheckReport {
  ok: boolean;
  root: string;
  base: string | null;
  /**
   * The checkout's HEAD commit the files were read from (null outside a git
   * repository). A gathering job accepts a shard's report only for its own
   * commit: a report committed to the repository cannot name the commit that
   * holds it.
   */
  commit: string | null;
  /** Whether the base commit had to be fetched. */
  fetchedBase: boolean;
  /** Base blobs fetched in one batch (a partial clone). */
  fetchedBlobs: number;
  /** Files checked that hold / do not hold (deleted journals count as failed). */
  verified: number;
  failed: number;
  /** agent id -> head of every per-step journal that verified. */
  heads: Record<string, string>;
  items: CheckedItem[];
  faults: CheckFault[];
  /** Files each kind's patterns matched in the checkout (all shards). */
  matched: Record<ItemKind, number>;
  shard: Shard | null;
  trustedKeys: TrustedKeySource[];
  /** Which verified step produced each changed file, when the pass ran (provenance.ts). */
  provenance?: ProvenanceReport;
}
