import type { DigestSet } from '../util/digest-set';
import type { HeldManifest } from './held-manifest';
import type { ReceiptFaultKind } from './fault-kinds';
import type { JournalWalk } from './journal-walk';
import type { ReceiptFormatError } from './tar';

export const MANIFEST_MEMBER = 'manifest.json';
export const SIGNATURE_MEMBER = 'manifest.sig';
export const JOURNAL_MEMBER = 'journal/000000.jsonl';
export const BLOB_MEMBER = /^blobs\/([0-9a-f]{64})$/;
export const ALLOWED_DIRS = new Set(['journal', 'journal/', 'blobs', 'blobs/']);

/** One problem found in a receipt. `member` names the archive member, `line` the journal line (1-based). */
export interface ReceiptFault {
  kind: ReceiptFaultKind;
  message: string;
  member?: string;
  line?: number;
}

/** Layout faults reported before the rest of an archive is left unexamined. */
export const MAX_LAYOUT_FAULTS = 100;

/**
 * The blob digests a verify holds at most (VerifyReceiptOptions.maxDigests): the manifest's list, the chain's refs and
 * the bundled blobs together, ~40 bytes each. 40 MB at this count; with what else a verify holds, a receipt listing
 * this many peaked at 117-121 MB plain and 142-147 MB gzipped (Dec 7), under the 160 MB the bench holds it to.
 */
export const DEFAULT_MAX_DIGESTS = 1_000_000;

/** A receipt's members as gathered in one pass (`keep`: their bytes; otherwise what the verdict needs). */
export interface Members {
  /**
   * The manifest's bytes; in a streamed verify a large one's are never held whole (manifest-stream.ts), or, read
   * whole (not in canonical form), let go once nothing read later needs them.
   */
  manifest?: Buffer;
  /** What was kept of a manifest let go or streamed (held-manifest.ts: `manifestBytesOf` makes its bytes again). */
  heldManifest?: HeldManifest;
  signature?: Buffer;
  /** The chain walk of the journal member, when there is one. */
  walk?: JournalWalk;
  /** The journal member's bytes (only when kept). */
  journal?: Buffer;
  /**
   * Each bundled blob's name (the digest it claims), in archive order, flagged BLOB_MISMATCH when the SHA-256 of its
   * bytes is another (32 bytes a blob: a receipt may bundle millions).
   */
  bundled: DigestSet;
  /** The blobs' bytes (only when kept). */
  blobs: Map<string, Buffer>;
}

/** A bundled blob's flag: the SHA-256 of its bytes is not its name. */
export const BLOB_MISMATCH = 1;

/** A tar or layout refusal as a receipt fault. */
export function faultOf(e: ReceiptFormatError): ReceiptFault {
  return e.member === undefined
    ? { kind: e.kind, message: e.message }
    : { kind: e.kind, message: e.message, member: e.member };
}
