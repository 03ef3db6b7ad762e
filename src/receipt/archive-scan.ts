import { createHash } from 'node:crypto';
import type { DescriptorSource } from '../journal/parallel';
import { JournalWalker } from './journal-walk';
import { HOLD_MIN_BYTES, holdManifest, hasManifest } from './held-manifest';
import type { PublicKey } from './keys';
import { readManifest, type Manifest, type ReadManifest } from './manifest';
import { ManifestStream } from './manifest-stream';
import { judgeSignature, type SignatureOutcome } from './signature-judge';
import { MAX_LINE_BYTES } from '../canonical';
import { DigestBudget, DigestBudgetExceeded, DigestSet } from '../util/digest-set';
import {
  ALLOWED_DIRS,
  BLOB_MEMBER,
  BLOB_MISMATCH,
  DEFAULT_MAX_DIGESTS,
  faultOf,
  JOURNAL_MEMBER,
  MANIFEST_MEMBER,
  MAX_LAYOUT_FAULTS,
  SIGNATURE_MEMBER,
  type Members,
  type ReceiptFault,
} from './members';
import {
  DEFAULT_MAX_TAR_MEMBERS,
  ReceiptFormatError,
  TarStream,
  type TarEntry,
  type TarMemberSink,
  type TarMemberStart,
  type TarReceiver,
} from './tar';

/**
 * One pass over a receipt's tar members (kept whole, or streamed): the layout rules every reader would agree on,
 * and what the verdict needs of each member.
 */
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

/**
 * Collects a member's pieces: views of bytes that stay (the kept path), or copied into one buffer (a 67 MB manifest
 * copied in pieces and then joined was held twice). A header's size is a claim: the buffer is first made for at most
 * FIRST_BYTES of it, and made for the whole claim only once more than that has arrived, never for more than the
 * longest text a manifest can be read as (MAX_LINE_BYTES; bytes past it are dropped, and the member reads as the cut
 * text it then is, which no manifest reading takes). A 1 KB archive claiming an 8 GiB manifest made Buffer.allocUnsafe throw (an internal
 * error where a truncated member was named).
 */
class Collect implements TarMemberSink {
  private readonly parts: Buffer[] = [];
  private whole: Buffer | undefined;
  private fill = 0;
  constructor(
    stable: boolean,
    private readonly size: number,
  ) {
    this.whole = stable ? undefined : Buffer.allocUnsafe(Math.min(size, FIRST_BYTES));
  }
  data(piece: Buffer): void {
    if (this.whole === undefined) {
      this.parts.push(piece);
      return;
    }
    if (this.fill + piece.length > this.whole.length) this.grow();
    this.fill += piece.copy(this.whole, this.fill);
  }
  /** The buffer made for the whole claim (capped), the bytes so far copied in. */
  private grow(): void {
    const old = this.whole!;
    const cap = Math.min(this.size, MAX_LINE_BYTES);
    if (old.length >= cap) return;
    this.whole = Buffer.allocUnsafe(cap);
    old.copy(this.whole, 0, 0, this.fill);
  }
  bytes(): Buffer {
    if (this.whole !== undefined) return this.whole.subarray(0, this.fill);
    return this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts);
  }
}

/** What a member's claimed size is trusted for before its bytes arrive. */
const FIRST_BYTES = 1 << 20;

/** A plain archive's file, open, whose journal member may be walked where it lies (ArchiveScan.readInPlace). */
export interface InPlaceFile {
  source: DescriptorSource;
  /** The file's size when it was opened. */
  size: number;
  /** The smallest journal member walked so (smaller ones cost less pushed than shared among threads). */
  minBytes: number;
  env?: NodeJS.ProcessEnv;
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
export class ArchiveScan implements TarReceiver {
  readonly faults: ReceiptFault[] = [];
  readonly members: Members;
  /** What every digest set of this reading counts against (`maxDigests`). */
  private readonly budget: DigestBudget;
  manifest: Manifest | undefined;
  /** The manifest's blob digests (as read with it: its `blob_digests` is made from them only when read). */
  manifestDigests: DigestSet | undefined;
  /**
   * The manifest's fault, as the scan's reading found it (or `manifest_too_large`, its bytes not kept): the verdict
   * and the receipt's parts name it without reading the bytes again (a 17 MiB manifest was read three times).
   */
  manifestFault: ReceiptFault | undefined;
  /** The names of the members seen but blobs (those are `members.bundled`). */
  private readonly seen = new Set<string>();
  private readonly tar = new TarStream(this);
  private limit = DEFAULT_MAX_TAR_MEMBERS;
  private count = 0;
  /** The rest of the archive is not examined (a structural fault, or too many faults). */
  private stopped = false;
  private work: MemberWork | undefined;
  private file: InPlaceFile | undefined;

  /** The signature, judged as soon as both members are in (a streamed verify given its keys). */
  signatureOutcome: SignatureOutcome | undefined;
  /** The manifest as read, while its bytes are kept (what letting them go keeps of them). */
  private read: ReadManifest | undefined;

  /**
   * `keep`: the members' bytes are kept (callers that display a receipt). `signatureKeys`, when not: the trusted
   * keys, so the signature is judged as soon as the manifest and it are in, and then a large manifest's bytes are
   * let go (held-manifest.ts), as they are when the journal begins: its walk is the longest part of a verify.
   */
  constructor(
    private readonly keep: boolean,
    private readonly signatureKeys?: readonly PublicKey[],
    maxDigests = DEFAULT_MAX_DIGESTS,
  ) {
    this.budget = new DigestBudget(maxDigests);
    this.members = { bundled: new DigestSet(0, this.budget), blobs: new Map() };
  }

  /**
   * The archive is this plain file, open: a journal member of at least `minBytes` that lies whole in it is walked
   * where it lies (JournalWalker.walkFile) instead of pushed (`push` then says where the reading resumes).
   */
  readInPlace(file: InPlaceFile): void {
    this.file = file;
  }

  /**
   * The next piece. Returns undefined, or, when the journal's data was walked where it lies in the file
   * (readInPlace), the file offset after it: the rest of the piece is not pushed, the next piece starts there.
   */
  push(piece: Buffer): number | undefined {
    if (this.stopped) return undefined;
    try {
      return this.tar.push(piece);
    } catch (e) {
      this.fail(e);
      return undefined;
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
    if (e instanceof DigestBudgetExceeded) e = tooManyDigests(e.limit);
    if (!(e instanceof ReceiptFormatError)) throw e;
    this.faults.push(faultOf(e));
    this.stopped = true;
  }

  start(m: TarMemberStart): TarMemberSink | undefined {
    this.work = undefined;
    const type = m.typeflag === '0' ? 'file' : m.typeflag === '5' ? 'directory' : undefined;
    // Only a member that will be kept gets its data looked at; the rest is judged when it ends.
    if (type !== 'file' || nameFault({ name: m.name, type }) !== undefined || this.wasSeen(m.name)) return undefined;
    this.work = this.workFor(m.name, m.size);
    return this.work.sink;
  }

  /** A member of this name (a file's, or a directory's with its slash) was taken already. */
  private wasSeen(key: string): boolean {
    const blob = BLOB_MEMBER.exec(key);
    return blob === null ? this.seen.has(key) : this.members.bundled.hasHex(blob[1]!);
  }

  private workFor(name: string, size: number): MemberWork {
    const { members, keep } = this;
    if (name === JOURNAL_MEMBER) {
      this.letManifestGo();
      const walker = new JournalWalker(undefined, undefined, undefined, this.budget);
      if (this.manifestDigests !== undefined) walker.expectRefs(this.manifestDigests);
      const kept = keep ? new Collect(true, size) : undefined;
      const file = keep ? undefined : this.file;
      return {
        sink: {
          data: (p) => {
            walker.push(p);
            kept?.data(p);
          },
          // Bytes not all in the file (a cut archive) are pushed, so the stream names what is missing.
          inPlace: (at, length) => {
            if (file === undefined || length < file.minBytes || at + length > file.size) return false;
            walker.walkFile(file.source, at, at + length, file.env);
            return true;
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
      const kept = keep ? new Collect(true, size) : undefined;
      return {
        sink: {
          data: (p) => {
            hash.update(p);
            kept?.data(p);
          },
        },
        done: () => {
          const named = Buffer.from(blob[1]!, 'hex');
          members.bundled.add(named);
          if (!hash.digest().equals(named)) members.bundled.mark(members.bundled.size - 1, BLOB_MISMATCH);
          if (kept !== undefined) members.blobs.set(blob[1]!, kept.bytes());
        },
      };
    }
    if (name === MANIFEST_MEMBER && !keep && size >= HOLD_MIN_BYTES) return this.streamedManifest(size);
    const whole = new Collect(keep, size);
    return {
      sink: whole,
      done: () => {
        if (name === MANIFEST_MEMBER) this.tookManifest(whole.bytes());
        else members.signature = whole.bytes();
        this.settleSignature();
      },
    };
  }

  /** The manifest's bytes, whole, read (a fault of theirs is kept for the verdict to name). */
  private tookManifest(bytes: Buffer): void {
    this.members.manifest = bytes;
    try {
      this.tookRead(readManifest(bytes, this.budget));
    } catch (err) {
      if (!(err instanceof ReceiptFormatError)) throw err;
      this.manifestFault = faultOf(err);
    }
  }

  private tookRead(read: ReadManifest): void {
    this.manifest = read.manifest;
    this.manifestDigests = read.digests;
    this.limit = Math.max(this.count, 5 + read.digests.size);
    this.read = read;
  }

  /**
   * A large manifest read as it streams (manifest-stream.ts): its bytes are never held whole, only what makes them
   * again (`members.heldManifest`); one not in canonical form is collected whole and read as before, or, too large
   * for that, its fault kept for the verdict. A small one is collected (its bytes cost little, and stay readable).
   */
  private streamedManifest(size: number): MemberWork {
    const stream = new ManifestStream(size, this.budget);
    return {
      sink: stream,
      done: () => {
        const out = stream.end();
        if (out.kind === 'bytes') this.tookManifest(out.bytes);
        else if (out.kind === 'too_large') this.manifestFault = faultOf(out.fault);
        else {
          this.members.heldManifest = out.held;
          this.tookRead(out.read);
          this.read = undefined;
        }
        this.settleSignature();
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
    const f = nameFault(e) ?? this.duplicateFault(e);
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

  /** With `signatureKeys`: the signature judged once it and the manifest are in, and the manifest then let go. */
  private settleSignature(): void {
    const keys = this.signatureKeys;
    const m = this.members;
    if (keys === undefined || this.keep || m.signature === undefined || !hasManifest(m)) return;
    this.signatureOutcome ??= judgeSignature(m, keys);
    this.letManifestGo();
  }

  /** A large manifest's bytes let go, what makes them again kept (a streamed verify given its keys). */
  private letManifestGo(): void {
    const m = this.members;
    if (this.signatureKeys === undefined || this.keep || m.manifest === undefined || this.read === undefined) return;
    const held = holdManifest(m.manifest, this.read);
    this.read = undefined;
    if (held === undefined) return;
    m.heldManifest = held;
    delete m.manifest;
  }

  /**
   * Readers disagree on duplicates (first wins or last wins): a second member of a name is refused rather than
   * picked. A blob's name is taken when its member is (`members.bundled`, by the work's `done`).
   */
  private duplicateFault(e: { name: string; type: TarEntry['type'] }): ReceiptFault | undefined {
    const key = e.type === 'directory' ? e.name.replace(/\/$/, '') + '/' : e.name;
    if (!this.wasSeen(key)) {
      if (!BLOB_MEMBER.test(key)) this.seen.add(key);
      return undefined;
    }
    return {
      kind: 'duplicate_member',
      message: `member ${JSON.stringify(e.name)} appears more than once`,
      member: e.name,
    };
  }
}

/**
 * More blob digests than a verify holds (`maxDigests`): the reading stops there, as at any other structural fault,
 * and memory stays bounded whatever the receipt lists.
 */
function tooManyDigests(limit: number): ReceiptFormatError {
  return new ReceiptFormatError(
    'too_many_digests',
    `the receipt names more than ${limit} blob digests (listed, referred to and bundled together), the most a verify holds (maxDigests, --max-digests)`,
  );
}

/** One pass over an uncompressed archive held whole (its members' bytes kept as views of it). */
export function scanArchive(bytes: Buffer, maxDigests?: number): ArchiveScan {
  const scan = new ArchiveScan(true, undefined, maxDigests);
  scan.push(bytes);
  scan.finish();
  return scan;
}
