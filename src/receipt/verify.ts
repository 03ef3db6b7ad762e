import { readFileSync, statSync } from 'node:fs';
import { InputError } from '../errors';
import { verifyJournalBytesWithRefs, type Fault } from '../journal';
import { sha256Hex, ZERO_HASH } from '../util/hash';
import { verifyBytes, type PublicKey } from './keys';
import { parseManifest, type Manifest } from './manifest';
import { DEFAULT_MAX_RECEIPT_BYTES, maybeGunzip, readTar, ReceiptFormatError, type TarEntry } from './tar';

export const MANIFEST_MEMBER = 'manifest.json';
export const SIGNATURE_MEMBER = 'manifest.sig';
export const JOURNAL_MEMBER = 'journal/000000.jsonl';
const BLOB_MEMBER = /^blobs\/([0-9a-f]{64})$/;
const ALLOWED_DIRS = new Set(['journal', 'journal/', 'blobs', 'blobs/']);

/** One problem found in a receipt. `member` names the archive member, `line` the journal line (1-based). */
export interface ReceiptFault {
  kind: string;
  message: string;
  member?: string;
  line?: number;
}

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
  errors: ReceiptFault[];
}

export interface LoadOptions {
  /** Cap on the receipt's size, compressed and decompressed (default 1 GiB). */
  maxBytes?: number;
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

interface Members {
  manifest?: Buffer;
  signature?: Buffer;
  journal?: Buffer;
  blobs: Map<string, Buffer>;
}

/** Reads a receipt's bytes (a file name or the bytes themselves), gunzipping with a cap. */
function receiptBytes(input: Buffer | string, maxBytes: number): Buffer {
  let bytes: Buffer;
  if (typeof input === 'string') {
    let st;
    try {
      st = statSync(input);
    } catch {
      throw new InputError(`${input}: no such receipt file`);
    }
    if (!st.isFile()) throw new InputError(`${input}: not a regular file`);
    if (st.size > maxBytes)
      throw new ReceiptFormatError('too_large', `receipt is ${st.size} bytes, over the ${maxBytes}-byte limit`);
    try {
      bytes = readFileSync(input);
    } catch (e) {
      throw new InputError(
        `${input}: cannot read receipt: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      );
    }
  } else {
    bytes = input;
    if (bytes.length > maxBytes)
      throw new ReceiptFormatError('too_large', `receipt is ${bytes.length} bytes, over the ${maxBytes}-byte limit`);
  }
  return maybeGunzip(bytes, maxBytes);
}

/** Why a member name is not one of the four allowed forms, as a fault. */
function nameFault(e: TarEntry): ReceiptFault | undefined {
  const n = e.name;
  const quoted = JSON.stringify(n);
  const segments = n.split('/');
  if (n.startsWith('/') || /^[A-Za-z]:/.test(n) || n.includes('\\')) {
    return { kind: 'unsafe_member', message: `absolute or non-portable member name ${quoted}`, member: n };
  }
  if (segments.some((s) => s === '..'))
    return { kind: 'unsafe_member', message: `path traversal in member name ${quoted}`, member: n };
  if (n.includes('\0') || /[\x00-\x1f\x7f]/.test(n))
    return { kind: 'unsafe_member', message: `control characters in member name ${quoted}`, member: n };
  if (e.type === 'directory') {
    return ALLOWED_DIRS.has(n)
      ? undefined
      : { kind: 'unknown_member', message: `unexpected directory ${quoted}`, member: n };
  }
  if (n === MANIFEST_MEMBER || n === SIGNATURE_MEMBER || n === JOURNAL_MEMBER || BLOB_MEMBER.test(n)) return undefined;
  return {
    kind: 'unknown_member',
    message: `unexpected member ${quoted} (a receipt holds manifest.json, manifest.sig, journal/000000.jsonl and blobs/<sha256>)`,
    member: n,
  };
}

/** Sorts archive entries into the receipt's members; every unsafe, unknown or duplicate member is a fault. */
function classify(entries: TarEntry[]): { members: Members; faults: ReceiptFault[] } {
  const faults: ReceiptFault[] = [];
  const seen = new Set<string>();
  const members: Members = { blobs: new Map() };
  for (const e of entries) {
    const f = nameFault(e);
    if (f !== undefined) {
      faults.push(f);
      continue;
    }
    const key = e.type === 'directory' ? e.name.replace(/\/$/, '') + '/' : e.name;
    if (seen.has(key)) {
      // Readers disagree on duplicates (first wins or last wins): refuse rather than pick.
      faults.push({
        kind: 'duplicate_member',
        message: `member ${JSON.stringify(e.name)} appears more than once`,
        member: e.name,
      });
      continue;
    }
    seen.add(key);
    if (e.type === 'directory') continue;
    if (e.name === MANIFEST_MEMBER) members.manifest = e.data;
    else if (e.name === SIGNATURE_MEMBER) members.signature = e.data;
    else if (e.name === JOURNAL_MEMBER) members.journal = e.data;
    else members.blobs.set(BLOB_MEMBER.exec(e.name)![1]!, e.data);
  }
  return { members, faults };
}

/**
 * `manifest.sig`: standard base64 (with padding, optionally one trailing
 * newline) of exactly 64 bytes. Throws ReceiptFormatError otherwise.
 */
export function decodeSignature(bytes: Buffer): Buffer {
  let text = bytes.toString('latin1');
  if (text.endsWith('\n')) text = text.slice(0, -1);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0 || text.length === 0) {
    throw new ReceiptFormatError('signature_not_base64', 'manifest.sig is not base64', SIGNATURE_MEMBER);
  }
  const sig = Buffer.from(text, 'base64');
  if (sig.toString('base64') !== text)
    throw new ReceiptFormatError('signature_not_base64', 'manifest.sig is not canonical base64', SIGNATURE_MEMBER);
  if (sig.length !== 64) {
    throw new ReceiptFormatError(
      'signature_wrong_length',
      `manifest.sig decodes to ${sig.length} bytes; an Ed25519 signature is 64`,
      SIGNATURE_MEMBER,
    );
  }
  return sig;
}

function faultOf(e: ReceiptFormatError): ReceiptFault {
  return e.member === undefined
    ? { kind: e.kind, message: e.message }
    : { kind: e.kind, message: e.message, member: e.member };
}

/** Reads and sorts a receipt's members; throws ReceiptFormatError on the first structural fault. */
function scan(input: Buffer | string, options: LoadOptions): { members: Members; faults: ReceiptFault[] } {
  const bytes = receiptBytes(input, options.maxBytes ?? DEFAULT_MAX_RECEIPT_BYTES);
  return classify(readTar(bytes));
}

/**
 * A receipt's parts, in memory (nothing is extracted). Structure, manifest and
 * signature encoding are checked; the chain, blobs and signature are not (use
 * `verifyReceipt`). Throws ReceiptFormatError (exit 1) or InputError (exit 2:
 * the file cannot be read).
 */
export function loadReceipt(input: Buffer | string, options: LoadOptions = {}): LoadedReceipt {
  const { members, faults } = scan(input, options);
  if (faults.length > 0) throw new ReceiptFormatError(faults[0]!.kind, faults[0]!.message, faults[0]!.member);
  if (members.manifest === undefined)
    throw new ReceiptFormatError('missing_member', 'the receipt has no manifest.json', MANIFEST_MEMBER);
  if (members.journal === undefined)
    throw new ReceiptFormatError('missing_member', `the receipt has no ${JOURNAL_MEMBER}`, JOURNAL_MEMBER);
  const loaded: LoadedReceipt = {
    manifest: parseManifest(members.manifest),
    manifestBytes: members.manifest,
    journal: members.journal,
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
export function verifyReceipt(input: Buffer | string, options: VerifyReceiptOptions = {}): ReceiptVerifyResult {
  const result: ReceiptVerifyResult = {
    ok: false,
    head_hash: ZERO_HASH,
    steps: 0,
    signed: false,
    signature_ok: null,
    key_id: null,
    blobs: { bundled: [], missing: [] },
    errors: [],
  };
  const errors = result.errors;
  let members: Members;
  try {
    const s = scan(input, options);
    if (s.faults.length > 0) {
      // A hostile layout is not interpreted any further.
      errors.push(...s.faults);
      return result;
    }
    members = s.members;
  } catch (e) {
    if (e instanceof ReceiptFormatError) {
      errors.push(faultOf(e));
      return result;
    }
    throw e;
  }
  result.signed = members.signature !== undefined;
  result.blobs.bundled = [...members.blobs.keys()];

  let manifest: Manifest | undefined;
  if (members.manifest === undefined) {
    errors.push({ kind: 'missing_member', message: 'the receipt has no manifest.json', member: MANIFEST_MEMBER });
  } else {
    try {
      manifest = parseManifest(members.manifest);
    } catch (e) {
      if (!(e instanceof ReceiptFormatError)) throw e;
      errors.push(faultOf(e));
    }
  }

  const keys = options.publicKeys ?? [];
  if (members.signature !== undefined) {
    let sig: Buffer | undefined;
    try {
      sig = decodeSignature(members.signature);
    } catch (e) {
      if (!(e instanceof ReceiptFormatError)) throw e;
      errors.push(faultOf(e));
    }
    if (keys.length === 0) {
      errors.push({
        kind: 'no_trusted_key',
        message: 'the receipt is signed but no public key was given to check it (--public-key)',
        member: SIGNATURE_MEMBER,
      });
    } else if (sig !== undefined && members.manifest !== undefined) {
      const good = keys.find((k) => verifyBytes(members.manifest!, sig, k));
      result.signature_ok = good !== undefined;
      result.key_id = good?.keyId ?? null;
      if (good === undefined) {
        errors.push({
          kind: 'signature_invalid',
          message: `the signature does not verify under any trusted key (${keys.map((k) => k.keyId).join(', ')})`,
          member: SIGNATURE_MEMBER,
        });
      }
    } else if (sig !== undefined) {
      result.signature_ok = false;
    }
  } else if (keys.length > 0) {
    errors.push({
      kind: 'unsigned',
      message: 'a trusted key was given but the receipt is not signed (no manifest.sig)',
      member: SIGNATURE_MEMBER,
    });
  }

  let chainRefs: string[] | undefined;
  if (members.journal === undefined) {
    errors.push({ kind: 'missing_member', message: `the receipt has no ${JOURNAL_MEMBER}`, member: JOURNAL_MEMBER });
  } else {
    const walked = walkReceiptJournal(members.journal);
    for (const f of walked.faults) {
      const fault: ReceiptFault = { kind: f.kind, message: f.message, member: JOURNAL_MEMBER };
      if (f.line !== null) fault.line = f.line;
      errors.push(fault);
    }
    result.head_hash = walked.head;
    result.steps = walked.steps;
    chainRefs = walked.refs;
  }

  if (manifest !== undefined && chainRefs !== undefined) {
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
    const same =
      manifest.blob_digests.length === chainRefs.length && manifest.blob_digests.every((d, i) => d === chainRefs![i]);
    if (!same) {
      errors.push({
        kind: 'blob_digests_mismatch',
        message: `manifest blob_digests (${manifest.blob_digests.length}) differ from the chain's blob_refs (${chainRefs.length}, first-occurrence order)`,
        member: MANIFEST_MEMBER,
      });
    }
  }

  const named = manifest?.blob_digests ?? chainRefs ?? [];
  const namedSet = new Set(named);
  for (const [digest, data] of members.blobs) {
    const member = `blobs/${digest}`;
    if (sha256Hex(data) !== digest)
      errors.push({ kind: 'blob_digest_mismatch', message: `the blob's SHA-256 is not its name`, member });
    if (!namedSet.has(digest))
      errors.push({ kind: 'unexpected_blob', message: 'a bundled blob that no step refers to', member });
  }
  result.blobs.missing = named.filter((d) => !members.blobs.has(d));
  if (options.requireBlobs) {
    for (const d of result.blobs.missing)
      errors.push({ kind: 'missing_blob', message: 'a referenced blob is not bundled', member: `blobs/${d}` });
  }

  if (options.expectedHead !== undefined && options.expectedHead !== result.head_hash) {
    errors.push({ kind: 'head_mismatch', message: `head ${result.head_hash}, expected ${options.expectedHead}` });
  }
  result.ok = errors.length === 0;
  return result;
}

/**
 * The chain walk of a receipt's journal member (docs/format.md §2 verification, strict:
 * lines must be canonical and newline-terminated). Same faults as
 * `verifyJournalBytes(buf, { strict: true })`, but keeps only the blob refs, not
 * the rows, so a 100,000-step receipt does not sit in memory twice.
 */
export function walkReceiptJournal(buf: Buffer): { head: string; steps: number; refs: string[]; faults: Fault[] } {
  // The journal's fast, parallel strict walk (canonical lines hashed from their bytes).
  const r = verifyJournalBytesWithRefs(buf, { strict: true });
  return { head: r.head_hash, steps: r.steps, refs: r.blob_refs, faults: r.errors };
}

/** `RECEIPT[:member[:line]]: kind: message` for one fault. */
export function describeReceiptFault(receipt: string, f: ReceiptFault): string {
  const where = f.member === undefined ? receipt : `${receipt}:${f.member}${f.line === undefined ? '' : `:${f.line}`}`;
  return `${where}: ${f.kind}: ${f.message}`;
}
