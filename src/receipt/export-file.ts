import { createHash } from 'node:crypto';
import { closeSync, fstatSync, readSync } from 'node:fs';
import { Gzip } from 'minizlib';
import { IntegrityError, withOsErrors } from '../errors';
import type { Cas, Fault } from '../journal';
import { longLineRefused } from '../canonical';
import { refusedAsLong } from '../journal/long-row';
import { readRange, writeAll } from '../util/fs';
import { sha256Hex } from '../util/hash';
import { openRegularFile } from '../util/nofollow';
import { JournalWalker, type JournalWalk } from './journal-walk';
import { JOURNAL_MEMBER } from './members';
import { TarWriter } from './tar-write';

/**
 * A receipt written to a file as it is made, never held (`stepchain export` of a journal of any size): the
 * journal's bytes are copied from the file into the archive a piece at a time, and each blob the same way. What the
 * manifest says (head, steps, blob digests) must be known before the journal member is written, so the journal is
 * walked twice: once where it lies (in parallel, as `verify` walks it) for the manifest, then again as its bytes
 * are copied, so what the archive holds is what verified (a journal rewritten in place between the two walks says
 * so, and nothing is written). Only a journal whose every line is already canonical is streamed; the others are
 * re-encoded row by row in memory, as before (export.ts).
 */

/** Bytes read from the journal or a blob at a time. */
const PIECE_BYTES = 4 * 1024 * 1024;
/** A blob up to this size is read once, whole (checked, then written from memory: nothing can change it between). */
const WHOLE_BLOB_BYTES = 16 * 1024 * 1024;

/**
 * Bytes gathered before a write(2): a tar member is a header, a body and padding, so a receipt of many small blobs
 * would otherwise be three system calls a blob.
 */
const WRITE_BYTES = 1024 * 1024;

/** Where a receipt's bytes go: the file, through gzip when asked, each byte hashed as written (what is on disk). */
export class ReceiptSink {
  private readonly hash = createHash('sha256');
  private readonly gzip: Gzip | undefined;
  private readonly held = Buffer.allocUnsafe(WRITE_BYTES);
  private heldBytes = 0;
  size = 0;

  constructor(
    private readonly fd: number,
    gzip: boolean,
  ) {
    if (!gzip) return;
    // minizlib's Gzip runs zlib synchronously (the engine `gzipSync` uses, the same level): fed the archive in
    // pieces, it gives what gzipSync gives for the archive whole.
    this.gzip = new Gzip({ level: 6 });
    this.gzip.on('data', (c: Buffer) => this.out(c));
  }

  write(bytes: Uint8Array): void {
    if (this.gzip === undefined) this.out(bytes);
    else this.gzip.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length));
  }

  /** The last bytes written; the SHA-256 of every byte written. */
  end(): string {
    this.gzip?.end();
    this.flush();
    return this.hash.digest('hex');
  }

  private out(bytes: Uint8Array): void {
    this.hash.update(bytes);
    this.size += bytes.length;
    // Copied, never kept: the callers reuse the buffers they hand over (a 4 MiB piece of the journal).
    if (this.heldBytes + bytes.length > WRITE_BYTES) this.flush();
    if (bytes.length >= WRITE_BYTES) writeAll(this.fd, bytes);
    else this.heldBytes += Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).copy(this.held, this.heldBytes);
  }

  private flush(): void {
    if (this.heldBytes === 0) return;
    writeAll(this.fd, this.held.subarray(0, this.heldBytes));
    this.heldBytes = 0;
  }
}

/** A journal file held open for export: its size when opened, and the strict walk of those bytes where they lie. */
export interface OpenedJournal {
  file: string;
  fd: number;
  size: number;
  walk: JournalWalk;
  /** The file's identity before the walk (a write to it, an append included, changes its ctime). */
  stamp: FileStamp;
}

/** What tells that a file was not written to: the same inode, size and change time. */
export interface FileStamp {
  ino: bigint;
  size: bigint;
  ctimeNs: bigint;
}

function stampOf(fd: number): FileStamp {
  const st = fstatSync(fd, { bigint: true });
  return { ino: st.ino, size: st.size, ctimeNs: st.ctimeNs };
}

/** Whether nothing wrote to the journal since it was opened (its bytes are the ones walked). */
export function untouchedSince(j: OpenedJournal): boolean {
  const now = stampOf(j.fd);
  return now.ino === j.stamp.ino && now.size === j.stamp.size && now.ctimeNs === j.stamp.ctimeNs;
}

/**
 * Opens a journal (never through a link, never a FIFO) and walks its bytes strictly (canonical lines, the walk a
 * receipt's journal member gets). The caller closes `fd`; undefined when there is no such file.
 */
export function openJournalForExport(file: string, env: NodeJS.ProcessEnv = process.env): OpenedJournal | undefined {
  const opened = openRegularFile(file);
  if (opened === undefined) return undefined;
  try {
    const stamp = stampOf(opened.fd);
    const walker = new JournalWalker();
    walker.walkFile({ kind: 'fd', fd: opened.fd, path: file }, 0, opened.size, env);
    return { file, fd: opened.fd, size: opened.size, walk: walker.finish(), stamp };
  } catch (e) {
    closeSync(opened.fd);
    throw e;
  }
}

/**
 * The faults a receipt's reader would find in a journal's canonical bytes (the ones export re-encodes into a receipt)
 * for their lines longer than LONG_LINE_BYTES: such a line is taken only as a row LongRowCheck takes (not one with a
 * key over 64 KiB, though canonical), so export must not write one it refuses. The same per-line rule publish applies
 * (`refusedAsLong`); the other lines were verified strictly already, so nothing else is walked again.
 */
export function longLineFaults(journal: Buffer): Fault[] {
  const faults: Fault[] = [];
  for (let at = 0, line = 1; at < journal.length; line++) {
    const nl = journal.indexOf(0x0a, at);
    const end = nl < 0 ? journal.length : nl;
    if (refusedAsLong(journal.subarray(at, end)))
      faults.push({ line, kind: 'non_canonical', message: longLineRefused(end - at) });
    at = end + 1;
  }
  return faults;
}

/** Whether a strict walk found the journal fit to be streamed as it is (every line canonical, the chain whole). */
export function streamable(walk: JournalWalk): boolean {
  return walk.faults.length === 0 && walk.omitted === 0;
}

/**
 * The journal member: the file's bytes [0, size). With `walkAgain` they are walked once more as they are copied,
 * and a walk that differs from the first (the file changed in place meanwhile) is an IntegrityError; without it the
 * caller checks that nothing wrote to the file (untouchedSince) after the copy, and walks again when something did.
 */
export function writeJournalMember(tar: TarWriter, j: OpenedJournal, walkAgain: boolean): void {
  const walker = walkAgain ? new JournalWalker() : undefined;
  const piece = Buffer.allocUnsafe(Math.min(PIECE_BYTES, Math.max(1, j.size)));
  tar.member(JOURNAL_MEMBER, j.size, (put) => {
    for (let at = 0; at < j.size;) {
      const n = readAt(j.fd, piece, 0, Math.min(piece.length, j.size - at), at, j.file);
      if (n === 0) throw changed(j.file, `it now ends at byte ${at}, short of the ${j.size} it was walked with`);
      const bytes = piece.subarray(0, n);
      walker?.push(bytes);
      put(bytes);
      at += n;
    }
  });
  if (walker === undefined) return;
  const again = walker.finish();
  if (!streamable(again) || !sameWalk(again, j.walk)) throw changed(j.file, 'its rows are not the rows walked first');
}

function sameWalk(a: JournalWalk, b: JournalWalk): boolean {
  return (
    a.head === b.head &&
    a.steps === b.steps &&
    a.refs.length === b.refs.length &&
    a.refs.every((r, i) => r === b.refs[i])
  );
}

function changed(file: string, why: string): IntegrityError {
  return new IntegrityError(`${file}: the journal changed while it was exported (${why}); nothing written`);
}

/**
 * A blob's member, when the CAS holds it as a regular file whose bytes are its digest: true. Not stored: false.
 * Stored but not matching: false, with a warning (left out, as before). A link or a FIFO in its place is an
 * InputError naming it (Cas.get's rule). A large blob is hashed as it is read, then read again as it is written
 * and hashed again: a blob that changed between the two is an IntegrityError (nothing is written).
 */
export function writeBlobMember(tar: TarWriter, cas: Cas, digest: string, warnings: string[]): boolean {
  const file = cas.pathOf(digest);
  const opened = openRegularFile(file);
  if (opened === undefined) return false;
  const { fd, size } = opened;
  try {
    if (size <= WHOLE_BLOB_BYTES) {
      // A blob cut meanwhile is short, and does not match its digest (as Cas.get's read of it would not).
      const bytes = withOsErrors(file, 'cannot read', () => readRange(fd, 0, size));
      if (sha256Hex(bytes) !== digest) return mismatch(digest, warnings);
      tar.member(`blobs/${digest}`, size, (put) => put(bytes));
      return true;
    }
    const piece = Buffer.allocUnsafe(PIECE_BYTES);
    if (hashPieces(fd, size, piece, file, () => undefined) !== digest) return mismatch(digest, warnings);
    let again = '';
    tar.member(`blobs/${digest}`, size, (put) => {
      again = hashPieces(fd, size, piece, file, put);
    });
    if (again !== digest) throw new IntegrityError(`${file}: the blob changed while it was exported; nothing written`);
    return true;
  } finally {
    closeSync(fd);
  }
}

function mismatch(digest: string, warnings: string[]): false {
  warnings.push(`CAS blob ${digest} does not match its digest; left out of the receipt`);
  return false;
}

/** Reads [0, size) of `fd` in pieces, each handed to `each` and hashed: the SHA-256 of them all. */
function hashPieces(fd: number, size: number, piece: Buffer, file: string, each: (b: Buffer) => void): string {
  const h = createHash('sha256');
  for (let at = 0; at < size;) {
    const n = readAt(fd, piece, 0, Math.min(piece.length, size - at), at, file);
    if (n === 0) throw new IntegrityError(`${file}: the blob was cut while it was exported; nothing written`);
    const b = piece.subarray(0, n);
    h.update(b);
    each(b);
    at += n;
  }
  return h.digest('hex');
}

/** readSync, an OS error an InputError naming the file read (never taken for the output's). */
function readAt(fd: number, into: Buffer, offset: number, length: number, position: number, file: string): number {
  return withOsErrors(file, 'cannot read', () => readSync(fd, into, offset, length, position));
}
