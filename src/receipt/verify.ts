import { LONG_LINE_BYTES } from '../canonical';
import { faultMessage, verifyJournalBytesWithRefs, type Fault } from '../journal';
import { defineLazyList, DigestSet, lazyListItems } from '../util/digest-set';
import { ZERO_HASH } from '../util/hash';
import { scanArchive, type ArchiveScan } from './archive-scan';
import type { PublicKey } from './keys';
import { readManifest, type Manifest } from './manifest';
import { BLOB_MISMATCH, faultOf, JOURNAL_MEMBER, MANIFEST_MEMBER, type Members, type ReceiptFault } from './members';

export { DEFAULT_MAX_DIGESTS } from './members';
import { readReceiptBytes } from './read-file';
import { hasManifest, manifestBytesOf } from './held-manifest';
import { decodeSignature, judgeSignature } from './signature-judge';

export { decodeSignature };
import type { RedactField } from './redaction';
import { ReceiptFormatError } from './tar';
import { pluralWord } from '../util/words';

export interface ReceiptVerifyResult {
  ok: boolean;
  /** The head walked from the bundled chain (64 zeros when there is none). */
  head_hash: string;
  steps: number;
  signed: boolean;
  /** true/false when a signature was checked against trusted keys; null when unsigned or no key was given. */
  signature_ok: boolean | null;
  /** The trusted key that verified the signature. */
  key_id: string | null;
  /** Digests of the bundled blobs, and of those named by the manifest (or chain) but not bundled. */
  blobs: { bundled: string[]; missing: string[] };
  /** A published receipt: some row holds `<<redacted>>` (its chain was re-anchored over the redacted rows). */
  published: boolean;
  /** The fields found redacted (empty unless published). */
  redacted_fields: RedactField[];
  /** The problems, at most MAX_RECEIPT_FAULTS (then one `too_many_faults` entry says how many more). */
  errors: ReceiptFault[];
  /** Every problem found (a run of journal faults counts each; those not listed included). */
  fault_count: number;
}

export interface LoadOptions {
  /** Cap on the receipt's size, compressed and decompressed (default 1 GiB). */
  maxBytes?: number;
  /**
   * Cap on the blob digests a verify holds at once, the manifest's list, the chain's refs and the bundled blobs
   * together (default DEFAULT_MAX_DIGESTS; ~40 bytes each): a receipt that needs more fails with `too_many_digests`,
   * so memory stays bounded whatever a receipt lists (docs/receipts.md). A non-negative integer or Infinity; any
   * other value is a TypeError.
   */
  maxDigests?: number;
}

export interface VerifyReceiptOptions extends LoadOptions {
  /** The head the caller expects (e.g. recorded when the receipt was made). */
  expectedHead?: string;
  /** Trusted keys: the signature must verify under one of them, and an unsigned receipt fails. */
  publicKeys?: PublicKey[];
  /** Fail when a blob named by the manifest is not bundled. */
  requireBlobs?: boolean;
}

export interface LoadedReceipt {
  manifest: Manifest;
  /** The exact bytes the signature covers. */
  manifestBytes: Buffer;
  /** `journal/000000.jsonl` (canonical lines): read it with `readJournalBytes`. */
  journal: Buffer;
  /** `blobs/<sha256>` as bundled (not yet hash-checked: `verifyReceipt` does that). */
  blobs: Map<string, Buffer>;
  /** The 64-byte signature, when `manifest.sig` is present. */
  signature?: Buffer;
}

/** A receipt read once: the verdict on its bytes, and those very bytes' parts when its layout holds. */
export interface ReceiptInspection {
  verdict: ReceiptVerifyResult;
  /** The parts the verdict is about; undefined when the layout, the manifest or the signature encoding is faulty. */
  receipt: LoadedReceipt | undefined;
  /** The receipt file's bytes as read (what a keyless signature's statement names by digest). */
  bytes?: Buffer;
}

/** Faults a verdict lists in all (a journal of a million bad lines is not a million lines of output). */
export const MAX_RECEIPT_FAULTS = 1000;

/**
 * A receipt's parts, in memory (nothing is extracted). Structure, manifest and
 * signature encoding are checked; the chain, blobs and signature are not (use
 * `verifyReceipt`). Throws ReceiptFormatError (exit 1) or InputError (exit 2:
 * the file cannot be read).
 */
export function loadReceipt(input: Uint8Array | string, options: LoadOptions = {}): LoadedReceipt {
  const scan = scanArchive(readReceiptBytes(input, options.maxBytes), options.maxDigests);
  const faults = scan.faults;
  if (faults.length > 0) throw new ReceiptFormatError(faults[0]!.kind, faults[0]!.message, faults[0]!.member);
  return partsOf(scan);
}

/**
 * The parts of a receipt whose layout holds; throws ReceiptFormatError for a missing member or a bad manifest or
 * signature encoding. The manifest is the scan's reading of it, or the fault that reading found: never read again.
 */
export function partsOf({
  members,
  manifest,
  manifestFault,
}: Pick<ArchiveScan, 'members' | 'manifest' | 'manifestFault'>): LoadedReceipt {
  const manifestBytes = manifestBytesOf(members);
  if (manifestBytes === undefined)
    throw new ReceiptFormatError('missing_member', 'the receipt has no manifest.json', MANIFEST_MEMBER);
  if (members.walk === undefined)
    throw new ReceiptFormatError('missing_member', `the receipt has no ${JOURNAL_MEMBER}`, JOURNAL_MEMBER);
  if (manifest === undefined && manifestFault !== undefined)
    throw new ReceiptFormatError(manifestFault.kind, manifestFault.message, manifestFault.member);
  const loaded: LoadedReceipt = {
    manifest: manifest ?? readManifest(manifestBytes).manifest,
    manifestBytes,
    journal: members.journal ?? Buffer.alloc(0),
    blobs: members.blobs,
  };
  if (members.signature !== undefined) loaded.signature = decodeSignature(members.signature);
  return loaded;
}

/**
 * Verifies a receipt offline (docs/format.md §3), never writing anything: member names and
 * types, manifest (canonical, format_version), signature against trusted keys,
 * the chain from genesis (canonical lines), manifest head/steps/blob_digests
 * against the chain, bundled blob digests, and the expected head. Every fault is
 * reported; only an unreadable file throws (InputError).
 */
export function verifyReceipt(input: Uint8Array | string, options: VerifyReceiptOptions = {}): ReceiptVerifyResult {
  return inspectReceipt(input, options).verdict;
}

/**
 * Reads a receipt once and verifies it (as `verifyReceipt`), returning the
 * verdict together with the parts of the very bytes it is about (when the
 * layout holds), so a caller that goes on to display the receipt shows what
 * was verified, never a second read of a file that may have changed.
 */
export function inspectReceipt(input: Uint8Array | string, options: VerifyReceiptOptions = {}): ReceiptInspection {
  let bytes: Buffer;
  try {
    bytes = readReceiptBytes(input, options.maxBytes);
  } catch (e) {
    if (!(e instanceof ReceiptFormatError)) throw e;
    return { verdict: unreadVerdict(e), receipt: undefined };
  }
  const scan = scanArchive(bytes, options.maxDigests);
  const verdict = verdictOf(scan, options);
  if (scan.faults.length > 0) return { verdict: verdict.result, receipt: undefined, bytes };
  let receipt: LoadedReceipt | undefined;
  try {
    receipt = partsOf({ members: scan.members, manifest: verdict.manifest, manifestFault: scan.manifestFault });
  } catch (e) {
    if (!(e instanceof ReceiptFormatError)) throw e;
    receipt = undefined; // already a fault of the verdict
  }
  return { verdict: verdict.result, receipt, bytes };
}

/** A verdict that is only the fault that kept the receipt from being read. */
export function unreadVerdict(e: ReceiptFormatError): ReceiptVerifyResult {
  const result = emptyVerdict();
  result.errors.push(faultOf(e));
  result.fault_count = 1;
  return result;
}

function emptyVerdict(): ReceiptVerifyResult {
  return {
    ok: false,
    head_hash: ZERO_HASH,
    steps: 0,
    signed: false,
    signature_ok: null,
    key_id: null,
    blobs: { bundled: [], missing: [] },
    published: false,
    redacted_fields: [],
    errors: [],
    fault_count: 0,
  };
}

/** The verdict on what one pass over a receipt gathered (the same whether its bytes were kept or streamed). */
export function verdictOf(
  scanned: ArchiveScan,
  options: VerifyReceiptOptions,
): { result: ReceiptVerifyResult; manifest: Manifest | undefined } {
  const result = emptyVerdict();
  const errors = result.errors;
  if (scanned.faults.length > 0) {
    // A hostile layout is not interpreted any further (a loop, not a spread: the list can be long).
    for (const f of scanned.faults) errors.push(f);
    result.fault_count = errors.length;
    return { result, manifest: undefined };
  }
  const members = scanned.members;
  result.signed = members.signature !== undefined;
  const bundled = members.bundled;
  // The lists are made when read (a million blobs are a million strings): the text verdict reads only their counts.
  const counts = { bundled: bundled.size, missing: 0 };
  defineLazyList(
    result.blobs,
    'bundled',
    () => bundled.hex(),
    () => BLOB_COUNTS.delete(result.blobs),
  );
  const read = manifestOf(scanned, errors);
  const manifest = read?.manifest;
  const signature = scanned.signatureOutcome ?? judgeSignature(members, options.publicKeys ?? []);
  for (const e of signature.errors) errors.push(e);
  result.signature_ok = signature.ok;
  result.key_id = signature.keyId;
  const chain = judgeChain(members, result);
  if (read !== undefined && chain.refs !== undefined) judgeManifest(read, chain.refs, result);
  const extra = judgeBlobs(members, read?.digests ?? chain.refs ?? new DigestSet(), options, result, counts);
  if (options.expectedHead !== undefined && options.expectedHead !== result.head_hash) {
    errors.push({ kind: 'head_mismatch', message: `head ${result.head_hash}, expected ${options.expectedHead}` });
  }
  countFaults(result, chain.runs, chain.unlisted + extra);
  BLOB_COUNTS.set(result.blobs, counts);
  return { result, manifest };
}

/** The manifest (read during the scan, or now) and its digests, a fault when it is missing or malformed. */
function manifestOf(
  scanned: ArchiveScan,
  errors: ReceiptFault[],
): { manifest: Manifest; digests: DigestSet } | undefined {
  const members = scanned.members;
  // The scan read the manifest once and kept its fault (or its bytes were not kept, too large to read the general
  // way, and it is named as the reading would be): not read again here.
  if (scanned.manifestFault !== undefined) {
    errors.push(scanned.manifestFault);
    return undefined;
  }
  if (!hasManifest(members)) {
    errors.push({ kind: 'missing_member', message: 'the receipt has no manifest.json', member: MANIFEST_MEMBER });
    return undefined;
  }
  if (scanned.manifest !== undefined && scanned.manifestDigests !== undefined)
    return { manifest: scanned.manifest, digests: scanned.manifestDigests };
  try {
    // Read now only when the scan did not read it (its bytes are then kept: only a manifest read is let go).
    return readManifest(members.manifest!);
  } catch (e) {
    if (!(e instanceof ReceiptFormatError)) throw e;
    errors.push(faultOf(e));
    return undefined;
  }
}

/**
 * The journal member's chain walk: its faults, head, steps and redactions.
 * `refs`: its blob refs (undefined without a journal); `unlisted`: faults the
 * walk counted but did not list (its list is capped); `runs`: the extra faults
 * of journal faults that stand for a run of n.
 */
function judgeChain(
  members: Members,
  result: ReceiptVerifyResult,
): { refs: DigestSet | undefined; unlisted: number; runs: number } {
  if (members.walk === undefined) {
    result.errors.push({
      kind: 'missing_member',
      message: `the receipt has no ${JOURNAL_MEMBER}`,
      member: JOURNAL_MEMBER,
    });
    return { refs: undefined, unlisted: 0, runs: 0 };
  }
  const walked = members.walk;
  let runs = 0;
  for (const f of walked.faults) {
    const fault: ReceiptFault = { kind: f.kind, message: faultMessage(f), member: JOURNAL_MEMBER };
    runs += (f.count ?? 1) - 1;
    if (f.line !== null) fault.line = f.line;
    result.errors.push(fault);
  }
  result.head_hash = walked.head;
  result.steps = walked.steps;
  result.redacted_fields = walked.redacted;
  result.published = result.redacted_fields.length > 0;
  return { refs: walked.refSet, unlisted: walked.omitted, runs };
}

/** The manifest against the chain it describes: head, steps, blob digests in first-occurrence order. */
function judgeManifest(
  { manifest, digests }: { manifest: Manifest; digests: DigestSet },
  chainRefs: DigestSet,
  result: ReceiptVerifyResult,
): void {
  const errors = result.errors;
  if (manifest.head_hash !== result.head_hash) {
    errors.push({
      kind: 'manifest_head_mismatch',
      message: `manifest head_hash ${manifest.head_hash}, the chain's head is ${result.head_hash}`,
      member: MANIFEST_MEMBER,
    });
  }
  if (manifest.steps !== result.steps) {
    errors.push({
      kind: 'manifest_steps_mismatch',
      message: `manifest steps ${manifest.steps}, the chain has ${result.steps}`,
      member: MANIFEST_MEMBER,
    });
  }
  if (!digests.sameOrder(chainRefs)) {
    errors.push({
      kind: 'blob_digests_mismatch',
      message: `manifest blob_digests (${digests.size}) differ from the chain's blob_refs (${chainRefs.size}, first-occurrence order)`,
      member: MANIFEST_MEMBER,
    });
  }
}

/**
 * The bundled blobs: each named by its digest and referred to; the referred ones missing (a fault if required).
 * Returns how many faults were counted but not listed: past the verdict's cap (MAX_RECEIPT_FAULTS, which
 * countFaults applies) a fault per blob is counted, not made.
 */
function judgeBlobs(
  members: Members,
  named: DigestSet,
  options: VerifyReceiptOptions,
  result: ReceiptVerifyResult,
  counts: { bundled: number; missing: number },
): number {
  const errors = result.errors;
  let extra = 0;
  const add = (
    kind: 'blob_digest_mismatch' | 'unexpected_blob' | 'missing_blob',
    message: string,
    i: number,
    of: DigestSet,
  ): void => {
    // The list is cut to the cap after every fault is in: one more than the cap already says that it is cut.
    if (errors.length > MAX_RECEIPT_FAULTS) extra++;
    else errors.push({ kind, message, member: `blobs/${of.hexAt(i)}` });
  };
  const bundled = members.bundled;
  for (let i = 0; i < bundled.size; i++) {
    if ((bundled.flags(i) & BLOB_MISMATCH) !== 0)
      add('blob_digest_mismatch', `the blob's SHA-256 is not its name`, i, bundled);
    if (named.indexOfEntry(bundled, i) < 0) add('unexpected_blob', 'a bundled blob that no step refers to', i, bundled);
  }
  const missing = (i: number): boolean => bundled.indexOfEntry(named, i) < 0;
  for (let i = 0; i < named.size; i++) {
    if (!missing(i)) continue;
    counts.missing++;
    if (options.requireBlobs) add('missing_blob', 'a referenced blob is not bundled', i, named);
  }
  defineLazyList(
    result.blobs,
    'missing',
    function* () {
      for (let i = 0; i < named.size; i++) if (missing(i)) yield named.hexAt(i);
    },
    () => BLOB_COUNTS.delete(result.blobs),
  );
  return extra;
}

/**
 * The number of bundled and missing blobs of a verdict, without making its lists (a million hex strings each);
 * the lists' lengths for a verdict not made here, or one whose lists were replaced.
 */
export function blobCounts(result: ReceiptVerifyResult): { bundled: number; missing: number } {
  const counts = BLOB_COUNTS.get(result.blobs);
  return counts === undefined
    ? { bundled: result.blobs.bundled.length, missing: result.blobs.missing.length }
    : { ...counts };
}

/**
 * The digests of a verdict's bundled or missing blobs, one at a time: from its digest sets while its list is not
 * made (a list is a million strings for a million blobs), else the list.
 */
export function blobDigests(result: ReceiptVerifyResult, which: keyof ReceiptVerifyResult['blobs']): Iterable<string> {
  return lazyListItems(result.blobs, which);
}

/** A verdict's blob counts, kept beside its lazily made lists (blobCounts). */
const BLOB_COUNTS = new WeakMap<ReceiptVerifyResult['blobs'], { bundled: number; missing: number }>();

/**
 * The verdict's counts, its list capped at MAX_RECEIPT_FAULTS (the rest said in one `too_many_faults`).
 * `unlisted`: faults counted but never listed (the walk's, past its cap; the blobs', past this one).
 */
function countFaults(result: ReceiptVerifyResult, runs: number, unlisted: number): void {
  const errors = result.errors;
  result.ok = errors.length === 0;
  result.fault_count = errors.length + runs + unlisted;
  if (errors.length > MAX_RECEIPT_FAULTS || unlisted > 0) {
    const more = Math.max(0, errors.length - MAX_RECEIPT_FAULTS) + unlisted;
    errors.length = Math.min(errors.length, MAX_RECEIPT_FAULTS);
    errors.push({
      kind: 'too_many_faults',
      message: `${more.toLocaleString('en-US')} more ${pluralWord(more, 'fault')} not listed`,
    });
  }
}

/**
 * The chain walk of a receipt's journal member (docs/format.md §2 verification, strict:
 * lines must be canonical and newline-terminated). Same faults as
 * `verifyJournalBytes(buf, { strict: true })` but for a line longer than LONG_LINE_BYTES (taken only as a canonical
 * row checked as it comes, as every reader of a receipt takes one); keeps only the blob refs, not
 * the rows, so a 100,000-step receipt does not sit in memory twice.
 */
export function walkReceiptJournal(buf: Buffer): {
  head: string;
  steps: number;
  refs: string[];
  faults: Fault[];
  /** Faults counted but not listed (the list is capped). */
  omitted: number;
} {
  // The journal's fast, parallel strict walk (canonical lines hashed from their bytes), with the rule every reader of
  // a receipt has for a line longer than LONG_LINE_BYTES (JournalWalker), so this walk is theirs.
  const r = verifyJournalBytesWithRefs(buf, { strict: true }, undefined, LONG_LINE_BYTES);
  return { head: r.head_hash, steps: r.steps, refs: r.blob_refs, faults: r.errors, omitted: r.errors_omitted };
}

/**
 * `RECEIPT[:member[:line]]: kind: message` for one fault. A member name that is
 * not plain (`[A-Za-z0-9._/-]`) is quoted: it is the archive's data, and must
 * not read as part of the line's structure.
 */
export function describeReceiptFault(receipt: string, f: ReceiptFault): string {
  const member = f.member === undefined || /^[A-Za-z0-9._/-]+$/.test(f.member) ? f.member : JSON.stringify(f.member);
  const where = member === undefined ? receipt : `${receipt}:${member}${f.line === undefined ? '' : `:${f.line}`}`;
  return `${where}: ${f.kind}: ${f.message}`;
}
