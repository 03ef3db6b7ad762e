import { createHash, type Hash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { InputError } from '../errors';
import { faultMessage, verifyJournalBytesWithRefs, type Fault } from '../journal';
import { ZERO_HASH } from '../util/hash';
import { JournalWalker, type JournalWalk } from './journal-walk';
import { isSignersSeed, verifyBytes, type PublicKey } from './keys';
import { parseManifest, type Manifest } from './manifest';
import type { RedactField } from './redaction';
import {
  DEFAULT_MAX_RECEIPT_BYTES,
  DEFAULT_MAX_TAR_MEMBERS,
  checkGzipHead,
  gzipCorrupt,
  gzipTooLarge,
  isGzip,
  maybeGunzip,
  ReceiptFormatError,
  TarStream,
  type TarEntry,
  type TarMemberSink,
  type TarMemberStart,
  type TarReceiver,
} from './tar';

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
}

/** Layout faults reported before the rest of an archive is left unexamined. */
const MAX_LAYOUT_FAULTS = 100;
/** Faults a verdict lists in all (a journal of a million bad lines is not a million lines of output). */
export const MAX_RECEIPT_FAULTS = 1000;

/** A receipt's members as gathered in one pass (`keep`: their bytes; otherwise what the verdict needs). */
interface Members {
  manifest?: Buffer;
  signature?: Buffer;
  /** The chain walk of the journal member, when there is one. */
  walk?: JournalWalk;
  /** The journal member's bytes (only when kept). */
  journal?: Buffer;
  /** Each bundled blob's name and the SHA-256 of its bytes, in archive order. */
  blobDigests: Map<string, string>;
  /** The blobs' bytes (only when kept). */
  blobs: Map<string, Buffer>;
}

/**
 * A receipt's bytes, read once (a file name or the bytes themselves), gunzipped
 * with a cap. Everything after works on these bytes: what is verified is what
 * is displayed, whatever happens to the file meanwhile.
 */
export function readReceiptBytes(input: Buffer | string, maxBytes = DEFAULT_MAX_RECEIPT_BYTES): Buffer {
  const bytes = typeof input === 'string' ? readCapped(input, maxBytes) : input;
  if (bytes.length > maxBytes)
    throw new ReceiptFormatError('too_large', `receipt is ${bytes.length} bytes, over the ${maxBytes}-byte limit`);
  return maybeGunzip(bytes, maxBytes);
}

/**
 * A receipt file's bytes as they are on disk (not gunzipped), read once with the
 * cap: what a keyless signature's subject digest is computed over.
 */
export function readReceiptFile(file: string, maxBytes = DEFAULT_MAX_RECEIPT_BYTES): Buffer {
  return readCapped(file, maxBytes);
}

/**
 * One read of a file: opened without blocking (a FIFO is refused, not waited
 * on), checked to be a regular file on the open descriptor, and read up to one
 * byte past the cap, so a file that grows after it was measured is still refused.
 */
function readCapped(file: string, maxBytes: number): Buffer {
  const { fd, size } = openReceiptFile(file, maxBytes);
  try {
    let buf = Buffer.allocUnsafe(Math.min(maxBytes + 1, size + 1));
    let n = 0;
    for (;;) {
      if (n === buf.length) {
        // The file grew since fstat: read on, still bounded by the cap.
        if (n > maxBytes) throw grewPast(maxBytes);
        const bigger = Buffer.allocUnsafe(Math.min(maxBytes + 1, buf.length * 2));
        buf.copy(bigger, 0, 0, n);
        buf = bigger;
      }
      const got = readOrSay(file, fd, buf, n, buf.length - n);
      if (got === 0) return buf.subarray(0, n);
      n += got;
    }
  } finally {
    closeSync(fd);
  }
}

const grewPast = (maxBytes: number): ReceiptFormatError =>
  new ReceiptFormatError('too_large', `receipt grew past the ${maxBytes}-byte limit while it was read`);

const why = (e: unknown): string => (e as NodeJS.ErrnoException).code ?? (e as Error).message;

/**
 * A receipt file opened without blocking (a FIFO is refused, not waited on),
 * checked to be a regular file no larger than the cap on the open descriptor.
 */
function openReceiptFile(file: string, maxBytes: number): { fd: number; size: number } {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new InputError(`${file}: no such receipt file`);
    throw new InputError(`${file}: cannot read receipt: ${why(e)}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new InputError(`${file}: not a regular file`);
    if (st.size > maxBytes)
      throw new ReceiptFormatError('too_large', `receipt is ${st.size} bytes, over the ${maxBytes}-byte limit`);
    return { fd, size: st.size };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

function readOrSay(file: string, fd: number, buf: Buffer, at: number, length: number): number {
  try {
    return readSync(fd, buf, at, length, null);
  } catch (e) {
    throw new InputError(`${file}: cannot read receipt: ${why(e)}`);
  }
}

/** A receipt streamed from its file: the verdict, and what a keyless check needs of the same bytes. */
export interface StreamedReceipt {
  verdict: ReceiptVerifyResult;
  /** The manifest's bytes, when the layout, the manifest and the signature encoding hold (as `inspectReceipt`'s parts). */
  manifestBytes: Buffer | undefined;
  /** The SHA-256 of the file's bytes as on disk; undefined when they could not be read (the verdict says why). */
  sha256: string | undefined;
}

/** Raw bytes read at a time. */
const RAW_PIECE = 1024 * 1024;

/**
 * Verifies a receipt file as `verifyReceipt` does, reading it once, in one pass,
 * in memory that does not grow with it: the file is read in pieces (gunzipped
 * as they come when it is gzip), tar headers are checked as they arrive, the
 * chain is walked and the blobs hashed as their bytes arrive. Only what is
 * compared across members (names, digests, the manifest, the chain's head) is
 * kept. Only an unreadable file throws (InputError).
 */
export async function verifyReceiptFile(file: string, options: VerifyReceiptOptions = {}): Promise<StreamedReceipt> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_RECEIPT_BYTES;
  const scan = new ArchiveScan(false);
  const hash = createHash('sha256');
  try {
    const { fd } = openReceiptFile(file, maxBytes);
    try {
      await streamReceipt(file, fd, maxBytes, hash, scan);
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    if (!(e instanceof ReceiptFormatError)) throw e;
    return { verdict: unreadVerdict(e), manifestBytes: undefined, sha256: undefined };
  }
  scan.finish();
  const { result, manifest } = verdictOf(scan, options);
  let manifestBytes: Buffer | undefined;
  if (scan.faults.length === 0) {
    try {
      manifestBytes = partsOf(scan.members, manifest).manifestBytes;
    } catch (e) {
      if (!(e instanceof ReceiptFormatError)) throw e;
    }
  }
  return { verdict: result, manifestBytes, sha256: hash.digest('hex') };
}

/**
 * Reads the file into the scan: as it is, or gunzipped (with the cap on what it
 * inflates to). Faults of the file or its compression throw; the archive's own
 * faults are the scan's, which reads on to the end so that a corrupt gzip is
 * named as such, as reading it whole would.
 */
async function streamReceipt(file: string, fd: number, maxBytes: number, hash: Hash, scan: ArchiveScan): Promise<void> {
  const head = Buffer.allocUnsafe(512);
  let headLen = 0;
  for (let got = -1; got !== 0 && headLen < head.length; headLen += got)
    got = readOrSay(file, fd, head, headLen, head.length - headLen);
  const first = head.subarray(0, headLen);
  if (headLen > maxBytes) throw grewPast(maxBytes);
  function* pieces(): Generator<Buffer, void, undefined> {
    let total = first.length;
    hash.update(first);
    if (first.length > 0) yield first;
    for (;;) {
      const buf = Buffer.allocUnsafe(RAW_PIECE);
      const got = readOrSay(file, fd, buf, 0, buf.length);
      if (got === 0) return;
      total += got;
      if (total > maxBytes) throw grewPast(maxBytes);
      const piece = buf.subarray(0, got);
      hash.update(piece);
      yield piece;
    }
  }
  if (!isGzip(first)) {
    for (const p of pieces()) scan.push(p);
    return;
  }
  checkGzipHead(first);
  let out = 0;
  // Our own refusal ends the pipeline, which then reports the streams it stopped as aborted: ours is the fault.
  let refused: ReceiptFormatError | undefined;
  try {
    await pipeline(Readable.from(pieces()), createGunzip({ chunkSize: 64 * 1024 }), async (inflated) => {
      for await (const c of inflated as AsyncIterable<Buffer>) {
        out += c.length;
        if (out > maxBytes) throw (refused = gzipTooLarge(maxBytes));
        scan.push(c);
      }
    });
  } catch (e) {
    if (refused !== undefined) throw refused;
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && code.startsWith('Z_')) throw gzipCorrupt(e);
    throw e;
  }
}

/** Why a member name is not one of the four allowed forms, as a fault. */
function nameFault(e: { name: string; type: TarEntry['type'] }): ReceiptFault | undefined {
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

/** Collects a member's pieces (copied unless they are views of bytes that stay: the kept path). */
class Collect implements TarMemberSink {
  readonly parts: Buffer[] = [];
  constructor(private readonly stable: boolean) {}
  data(piece: Buffer): void {
    this.parts.push(this.stable ? piece : Buffer.from(piece));
  }
  bytes(): Buffer {
    return this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
  }
}

/** What is done with one member's data as it arrives, and what is kept of it when it ends. */
interface MemberWork {
  sink: TarMemberSink;
  done(): void;
}

/**
 * Reads an archive's members in one pass, as its pieces arrive, into what the
 * verdict needs: manifest and signature bytes (small), the journal's chain
 * walked as it arrives, each blob hashed as it arrives; with `keep`, also the
 * members' bytes (callers that display a receipt). Every unsafe, unknown or
 * duplicate member is a fault. Counts are capped: a receipt has at most its
 * manifest, signature, journal, the two directories and one member per blob the
 * manifest names (before the manifest is seen, the tar reader's own cap holds),
 * and after MAX_LAYOUT_FAULTS faults the rest of the archive is not examined.
 */
class ArchiveScan implements TarReceiver {
  readonly faults: ReceiptFault[] = [];
  readonly members: Members = { blobDigests: new Map(), blobs: new Map() };
  manifest: Manifest | undefined;
  private readonly seen = new Set<string>();
  private readonly tar = new TarStream(this);
  private limit = DEFAULT_MAX_TAR_MEMBERS;
  private count = 0;
  /** The rest of the archive is not examined (a structural fault, or too many faults). */
  private stopped = false;
  private work: MemberWork | undefined;

  constructor(private readonly keep: boolean) {}

  push(piece: Buffer): void {
    if (this.stopped) return;
    try {
      this.tar.push(piece);
    } catch (e) {
      this.fail(e);
    }
  }

  finish(): void {
    if (this.stopped) return;
    try {
      this.tar.finish();
    } catch (e) {
      this.fail(e);
    }
  }

  private fail(e: unknown): void {
    if (!(e instanceof ReceiptFormatError)) throw e;
    this.faults.push(faultOf(e));
    this.stopped = true;
  }

  start(m: TarMemberStart): TarMemberSink | undefined {
    this.work = undefined;
    const type = m.typeflag === '0' ? 'file' : m.typeflag === '5' ? 'directory' : undefined;
    // Only a member that will be kept gets its data looked at; the rest is judged when it ends.
    if (type !== 'file' || nameFault({ name: m.name, type }) !== undefined || this.seen.has(m.name)) return undefined;
    this.work = this.workFor(m.name);
    return this.work.sink;
  }

  private workFor(name: string): MemberWork {
    const { members, keep } = this;
    if (name === JOURNAL_MEMBER) {
      const walker = new JournalWalker();
      const kept = keep ? new Collect(true) : undefined;
      return {
        sink: {
          data: (p) => {
            walker.push(p);
            kept?.data(p);
          },
        },
        done: () => {
          members.walk = walker.finish();
          if (kept !== undefined) members.journal = kept.bytes();
        },
      };
    }
    const blob = BLOB_MEMBER.exec(name);
    if (blob !== null) {
      const hash = createHash('sha256');
      const kept = keep ? new Collect(true) : undefined;
      return {
        sink: {
          data: (p) => {
            hash.update(p);
            kept?.data(p);
          },
        },
        done: () => {
          members.blobDigests.set(blob[1]!, hash.digest('hex'));
          if (kept !== undefined) members.blobs.set(blob[1]!, kept.bytes());
        },
      };
    }
    const whole = new Collect(keep);
    return {
      sink: whole,
      done: () => {
        if (name === MANIFEST_MEMBER) {
          members.manifest = whole.bytes();
          try {
            this.manifest = parseManifest(members.manifest);
            this.limit = Math.max(this.count, 5 + this.manifest.blob_digests.length);
          } catch (err) {
            if (!(err instanceof ReceiptFormatError)) throw err;
          }
        } else members.signature = whole.bytes();
      },
    };
  }

  end(e: { name: string; type: TarEntry['type'] }): void {
    if (this.stopped) return;
    const work = this.work;
    this.work = undefined;
    if (++this.count > this.limit) {
      this.faults.push({
        kind: 'too_many_members',
        message: `more than ${this.limit} members: the manifest names ${this.limit - 5} blob(s), so a receipt holds at most ${this.limit} (manifest, signature, journal, journal/ and blobs/ directories, one per blob)`,
      });
      this.stopped = true;
      return;
    }
    const f = nameFault(e) ?? duplicateFault(e, this.seen);
    if (f !== undefined) {
      this.faults.push(f);
      if (this.faults.length >= MAX_LAYOUT_FAULTS) {
        this.faults.push({
          kind: 'too_many_faults',
          message: `${MAX_LAYOUT_FAULTS} layout faults; the rest of the archive was not examined`,
        });
        this.stopped = true;
      }
      return;
    }
    work?.done();
  }
}

/** One pass over an uncompressed archive held whole (its members' bytes kept as views of it). */
function scanArchive(bytes: Buffer): ArchiveScan {
  const scan = new ArchiveScan(true);
  scan.push(bytes);
  scan.finish();
  return scan;
}

/** Readers disagree on duplicates (first wins or last wins): a second member of a name is refused rather than picked. */
function duplicateFault(e: { name: string; type: TarEntry['type'] }, seen: Set<string>): ReceiptFault | undefined {
  const key = e.type === 'directory' ? e.name.replace(/\/$/, '') + '/' : e.name;
  if (!seen.has(key)) {
    seen.add(key);
    return undefined;
  }
  return {
    kind: 'duplicate_member',
    message: `member ${JSON.stringify(e.name)} appears more than once`,
    member: e.name,
  };
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

/**
 * A receipt's parts, in memory (nothing is extracted). Structure, manifest and
 * signature encoding are checked; the chain, blobs and signature are not (use
 * `verifyReceipt`). Throws ReceiptFormatError (exit 1) or InputError (exit 2:
 * the file cannot be read).
 */
export function loadReceipt(input: Buffer | string, options: LoadOptions = {}): LoadedReceipt {
  const { members, faults, manifest } = scanArchive(readReceiptBytes(input, options.maxBytes));
  if (faults.length > 0) throw new ReceiptFormatError(faults[0]!.kind, faults[0]!.message, faults[0]!.member);
  return partsOf(members, manifest);
}

/** The parts of a receipt whose layout holds; throws ReceiptFormatError for a missing member or a bad manifest or signature encoding. */
function partsOf(members: Members, manifest: Manifest | undefined): LoadedReceipt {
  if (members.manifest === undefined)
    throw new ReceiptFormatError('missing_member', 'the receipt has no manifest.json', MANIFEST_MEMBER);
  if (members.walk === undefined)
    throw new ReceiptFormatError('missing_member', `the receipt has no ${JOURNAL_MEMBER}`, JOURNAL_MEMBER);
  const loaded: LoadedReceipt = {
    manifest: manifest ?? parseManifest(members.manifest),
    manifestBytes: members.manifest,
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
export function verifyReceipt(input: Buffer | string, options: VerifyReceiptOptions = {}): ReceiptVerifyResult {
  return inspectReceipt(input, options).verdict;
}

/**
 * Reads a receipt once and verifies it (as `verifyReceipt`), returning the
 * verdict together with the parts of the very bytes it is about (when the
 * layout holds), so a caller that goes on to display the receipt shows what
 * was verified, never a second read of a file that may have changed.
 */
export function inspectReceipt(input: Buffer | string, options: VerifyReceiptOptions = {}): ReceiptInspection {
  let bytes: Buffer;
  try {
    bytes = readReceiptBytes(input, options.maxBytes);
  } catch (e) {
    if (!(e instanceof ReceiptFormatError)) throw e;
    return { verdict: unreadVerdict(e), receipt: undefined };
  }
  const scan = scanArchive(bytes);
  const verdict = verdictOf(scan, options);
  if (scan.faults.length > 0) return { verdict: verdict.result, receipt: undefined };
  let receipt: LoadedReceipt | undefined;
  try {
    receipt = partsOf(scan.members, verdict.manifest);
  } catch (e) {
    if (!(e instanceof ReceiptFormatError)) throw e;
    receipt = undefined; // already a fault of the verdict
  }
  return { verdict: verdict.result, receipt };
}

/** A verdict that is only the fault that kept the receipt from being read. */
function unreadVerdict(e: ReceiptFormatError): ReceiptVerifyResult {
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
function verdictOf(
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
  result.blobs.bundled = [...members.blobDigests.keys()];
  let manifest: Manifest | undefined = scanned.manifest;
  if (members.manifest === undefined) {
    errors.push({ kind: 'missing_member', message: 'the receipt has no manifest.json', member: MANIFEST_MEMBER });
  } else if (manifest === undefined) {
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
        const seed = keys.find((k) => isSignersSeed(members.manifest!, sig, k));
        errors.push({
          kind: 'signature_invalid',
          message:
            seed === undefined
              ? `the signature does not verify under any trusted key (${keys.map((k) => k.keyId).join(', ')})`
              : `the signature does not verify under any trusted key: ${seed.source} is the signer's PRIVATE seed, not its public key (give the public key; treat that file as leaked)`,
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
  // Faults the chain walk counted but did not list (its list is capped): part of the count said below.
  let unlisted = 0;
  // Journal faults that stand for a run of n faults count n.
  let runs = 0;
  if (members.walk === undefined) {
    errors.push({ kind: 'missing_member', message: `the receipt has no ${JOURNAL_MEMBER}`, member: JOURNAL_MEMBER });
  } else {
    const walked = members.walk;
    for (const f of walked.faults) {
      const fault: ReceiptFault = { kind: f.kind, message: faultMessage(f), member: JOURNAL_MEMBER };
      runs += (f.count ?? 1) - 1;
      if (f.line !== null) fault.line = f.line;
      errors.push(fault);
    }
    unlisted = walked.omitted;
    result.head_hash = walked.head;
    result.steps = walked.steps;
    chainRefs = walked.refs;
    result.redacted_fields = walked.redacted;
    result.published = result.redacted_fields.length > 0;
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
  for (const [digest, actual] of members.blobDigests) {
    const member = `blobs/${digest}`;
    if (actual !== digest)
      errors.push({ kind: 'blob_digest_mismatch', message: `the blob's SHA-256 is not its name`, member });
    if (!namedSet.has(digest))
      errors.push({ kind: 'unexpected_blob', message: 'a bundled blob that no step refers to', member });
  }
  result.blobs.missing = named.filter((d) => !members.blobDigests.has(d));
  if (options.requireBlobs) {
    for (const d of result.blobs.missing)
      errors.push({ kind: 'missing_blob', message: 'a referenced blob is not bundled', member: `blobs/${d}` });
  }

  if (options.expectedHead !== undefined && options.expectedHead !== result.head_hash) {
    errors.push({ kind: 'head_mismatch', message: `head ${result.head_hash}, expected ${options.expectedHead}` });
  }
  result.ok = errors.length === 0;
  result.fault_count = errors.length + runs + unlisted;
  if (errors.length > MAX_RECEIPT_FAULTS || unlisted > 0) {
    const more = Math.max(0, errors.length - MAX_RECEIPT_FAULTS) + unlisted;
    errors.length = Math.min(errors.length, MAX_RECEIPT_FAULTS);
    errors.push({
      kind: 'too_many_faults',
      message: `${more.toLocaleString('en-US')} more fault${more === 1 ? '' : 's'} not listed`,
    });
  }
  return { result, manifest };
}

/**
 * The chain walk of a receipt's journal member (docs/format.md §2 verification, strict:
 * lines must be canonical and newline-terminated). Same faults as
 * `verifyJournalBytes(buf, { strict: true })`, but keeps only the blob refs, not
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
  // The journal's fast, parallel strict walk (canonical lines hashed from their bytes).
  const r = verifyJournalBytesWithRefs(buf, { strict: true });
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
