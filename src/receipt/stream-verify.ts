import { createHash, type Hash } from 'node:crypto';
import { closeSync, readSync } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { parallelMinBytes } from '../journal/parallel';
import { ArchiveScan } from './archive-scan';
import { RecycledOutput } from './inflate-recycle';
import { grewPast, openReceiptFile, readOrSay } from './read-file';
import { checkGzipHead, checkGzipTail, gzipCorrupt, gzipTooLarge, isGzip } from './gzip';
import { DEFAULT_MAX_RECEIPT_BYTES, ReceiptFormatError } from './tar';
import { partsOf, unreadVerdict, verdictOf, type ReceiptVerifyResult, type VerifyReceiptOptions } from './verify';

/** A receipt streamed from its file: the verdict, and what a keyless check needs of the same bytes. */
export interface StreamedReceipt {
  verdict: ReceiptVerifyResult;
  /** The manifest's bytes, when the layout, the manifest and the signature encoding hold (as `inspectReceipt`'s parts). */
  manifestBytes: Buffer | undefined;
  /** The SHA-256 of the file's bytes as on disk; undefined when they could not be read (the verdict says why). */
  sha256: string | undefined;
}

/** Raw bytes read at a time: a plain receipt's (its journal walked in such pieces where they are read), a gzip's. */
const PLAIN_PIECE = 4 * 1024 * 1024;
/**
 * A plain receipt's journal member of at least this many bytes is walked where it lies (ArchiveScan.readInPlace):
 * read block by block into the line scanner, not in pieces copied there (the 100,000-step bench receipt: 322 vs
 * 343 ms on one thread); among threads while its manifest lists fewer than 65,536 digests, on one thread from there
 * (slices hold their refs until they are put together, ~75 MB more for a million: JournalWalker.walkFile).
 */
const IN_PLACE_MIN_BYTES = 1024 * 1024;
/** A gzip's pieces queue up before the inflater (a stream's 16): small ones, so memory stays small. */
const GZIP_PIECE = 1024 * 1024;
/**
 * What the inflater hands on at a time. Its stream holds one piece back (16 KB of room), so the inflater, on
 * libuv's threads, waits for this thread to take each one: in 64 KB pieces a 200 MB gzip was ~3,200 such waits and
 * 450 ms; in 1 MB ones 270 ms (4 MB then: 320-390 ms, each a fresh buffer out of cache). With the output buffers
 * used again (./inflate-recycle.ts), 4 MiB: each piece costs this thread a turn of the event loop, the stream's
 * hand-over and node's allocation of a buffer it drops, and this thread is the critical path (it hashes every
 * byte): the bench's inflating archive, 210 MB of members, 1 -> 4 MiB was main-thread CPU 175.8 -> 171.4 ms and
 * the process's 253 -> 242 (medians of 31, interleaved), peak RSS 53 -> 59 MB; 8 MiB no less CPU, a later first
 * piece and 69 MB.
 */
const INFLATED_PIECE = 4 * 1024 * 1024;

export interface StreamVerifyOptions extends VerifyReceiptOptions {
  /** Compute the file's SHA-256 (what a keyless check needs; default true): false leaves `sha256` undefined. */
  fileDigest?: boolean;
  /**
   * Return the manifest's bytes (what a keyless check's statement holds; default true): false leaves
   * `manifestBytes` undefined, and a large manifest's bytes, let go during the walk, are not made again.
   */
  manifestBytes?: boolean;
  /**
   * Where the thread count and the smallest walk shared among threads are read (STEPCHAIN_THREADS,
   * STEPCHAIN_PARALLEL_MIN_BYTES; default process.env).
   */
  env?: NodeJS.ProcessEnv;
}

/**
 * Verifies a receipt file as `verifyReceipt` does, reading it once, in one pass,
 * in memory that does not grow with it: the file is read in pieces (gunzipped
 * as they come when it is gzip), tar headers are checked as they arrive, the
 * chain is walked and the blobs hashed as their bytes arrive. Only what is
 * compared across members (names, digests, the manifest, the chain's head) is
 * kept. Only an unreadable file throws (InputError).
 */
export async function verifyReceiptFile(file: string, options: StreamVerifyOptions = {}): Promise<StreamedReceipt> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_RECEIPT_BYTES;
  const scan = new ArchiveScan(false, options.publicKeys ?? [], options.maxDigests);
  // Hashing the file is a sixth of a plain receipt's verification: only when asked.
  const hash = options.fileDigest === false ? undefined : createHash('sha256');
  try {
    const { fd, size } = openReceiptFile(file, maxBytes);
    try {
      await streamReceipt(file, { fd, size, env: options.env ?? process.env }, maxBytes, hash, scan);
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
  if (scan.faults.length === 0 && options.manifestBytes !== false) {
    try {
      manifestBytes = partsOf({ members: scan.members, manifest, manifestFault: scan.manifestFault }).manifestBytes;
    } catch (e) {
      if (!(e instanceof ReceiptFormatError)) throw e;
    }
  }
  return { verdict: result, manifestBytes, sha256: hash?.digest('hex') };
}

/**
 * Reads the file into the scan: as it is, or gunzipped (with the cap on what it
 * inflates to). Faults of the file or its compression throw; the archive's own
 * faults are the scan's, which reads on to the end so that a corrupt gzip is
 * named as such, as reading it whole would.
 */
async function streamReceipt(
  file: string,
  { fd, size, env }: { fd: number; size: number; env: NodeJS.ProcessEnv },
  maxBytes: number,
  hash: Hash | undefined,
  scan: ArchiveScan,
): Promise<void> {
  const head = Buffer.allocUnsafe(512);
  let headLen = 0;
  for (let got = -1; got !== 0 && headLen < head.length; headLen += got)
    got = readOrSay(file, fd, head, headLen, head.length - headLen);
  const first = head.subarray(0, headLen);
  if (headLen > maxBytes) throw grewPast(maxBytes);
  if (!isGzip(first)) {
    // A digest of the whole file is computed over bytes read in order: then every byte is read here.
    if (hash === undefined)
      scan.readInPlace({
        source: { kind: 'fd', fd, path: file },
        size,
        minBytes: Math.min(IN_PLACE_MIN_BYTES, parallelMinBytes(env)),
        env,
      });
    plainInto(file, { fd, size }, first, maxBytes, hash, scan);
    return;
  }
  checkGzipHead(first);
  const piece = pieceFor(INFLATED_PIECE, inflatedSizeHint(fd, size) ?? INFLATED_PIECE);
  await inflateInto(gzipPieces(file, { fd, size }, first, maxBytes, hash), { piece, maxBytes }, scan);
}

/**
 * What a gzip says it inflates to: its trailer's last 4 bytes (ISIZE, the size modulo 2^32), read where the file
 * ends; undefined when they cannot be read there (a pipe), or when they cannot be the whole file's: less than half
 * the file (less a header's room) is not what one deflate member that fills it inflates to (zlib's worst is a few
 * bytes in 64 KiB more), but the last of several members' or zero padding's, and those large gzips were inflated in
 * 64 KiB pieces (a 47 MB gzip of 120 MB in two members: 0.35 s wall, 0.55 before; padded: 0.43, 0.59). Only a hint
 * for the inflater's piece (pieceFor): a small receipt's gzip is not given a 4 MiB buffer; a trailer that lies
 * costs time (small pieces), never a verdict, and the inflater checks the real one (its CRC and size) as it always
 * did.
 */
function inflatedSizeHint(fd: number, size: number): number | undefined {
  const trailer = Buffer.alloc(4);
  try {
    if (size < 18 || readSync(fd, trailer, 0, 4, size - 4) !== 4) return undefined;
    const isize = trailer.readUInt32LE(0);
    return 2 * isize + 1024 >= size ? isize : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A gzip's pieces as read, from `first` (its first bytes, read), each read into the one buffer: the next piece is
 * asked for only once the inflater has taken the last whole (inflateInto), so none is overwritten while it is used,
 * and reading a gzip leaves no buffer a piece to be collected (a 79 MB gzip left 79 of them, ~15 MB more peak).
 */
function* gzipPieces(
  file: string,
  { fd, size }: { fd: number; size: number },
  first: Buffer,
  maxBytes: number,
  hash: Hash | undefined,
): Generator<Buffer, void, undefined> {
  let total = first.length;
  hash?.update(first);
  yield first;
  const buf = Buffer.allocUnsafe(pieceFor(GZIP_PIECE, size - total));
  for (;;) {
    const got = readOrSay(file, fd, buf, 0, buf.length);
    if (got === 0) return;
    total += got;
    if (total > maxBytes) throw grewPast(maxBytes);
    const piece = buf.subarray(0, got);
    hash?.update(piece);
    yield piece;
  }
}

/**
 * A read buffer for `left` bytes still to come (by the file's size when opened), at most `piece`: the same reads as
 * a buffer of `piece` bytes while the file stays that size. A small receipt's 4 MiB buffer (two 1 MiB ones for a
 * gzip: the last read, of nothing, had its own) was most of what its verify allocated, and a process verifying many
 * had V8 collect its heap every few. At least 64 KiB, should the file grow meanwhile.
 */
function pieceFor(piece: number, left: number): number {
  return Math.min(piece, Math.max(64 * 1024, left));
}

/**
 * A plain receipt's bytes into the scan, from `first` (its first bytes, read): in pieces read where the scan
 * expects its next byte, which is after the journal's data when the scan walked that where it lies. The scan keeps
 * nothing of a piece (it copies what it keeps): one buffer serves every read.
 */
function plainInto(
  file: string,
  { fd, size }: { fd: number; size: number },
  first: Buffer,
  maxBytes: number,
  hash: Hash | undefined,
  scan: ArchiveScan,
): void {
  hash?.update(first);
  const buf = Buffer.allocUnsafe(pieceFor(PLAIN_PIECE, size - first.length));
  let piece = first;
  let at = 0;
  while (piece.length > 0) {
    at = scan.push(piece) ?? at + piece.length;
    const got = readOrSay(file, fd, buf, 0, buf.length, at);
    if (at + got > maxBytes) throw grewPast(maxBytes);
    piece = buf.subarray(0, got);
    hash?.update(piece);
  }
}

/**
 * Inflates a gzip's pieces into the scan, `piece` bytes at a time, with the cap on what it inflates to. The pieces
 * are written one at a time (each taken whole before the next): node's inflater stops at a zero byte after a member
 * and ends its output, so where it took fewer bytes than it was given, what it left, and every piece after, is
 * checked by the gzip tail rule (checkGzipTail), never written to an inflater that has ended (that failed the read
 * with "premature close" whenever the padding ran into the next piece).
 */
async function inflateInto(
  pieces: Iterable<Buffer>,
  { piece: outPiece, maxBytes }: { piece: number; maxBytes: number },
  scan: ArchiveScan,
): Promise<void> {
  const gunzip = createGunzip({ chunkSize: outPiece });
  // Its full output buffers used again once read (./inflate-recycle.ts): no fresh memory for each inflated piece.
  const recycled = RecycledOutput.install(gunzip, outPiece);
  let out = 0;
  // Our own refusal ends the read: the inflater is destroyed, and ours is the fault.
  let refused: ReceiptFormatError | undefined;
  // Taken as they come ('readable', then read() until none is left): each read() hands the inflater its next piece
  // of work before this one is scanned, as the stream's async iterator did, without its promises and ticks per piece.
  const taken = new Promise<void>((resolve, reject) => {
    const fail = (e: unknown): void => {
      gunzip.off('readable', take);
      reject(e);
    };
    const take = (): void => {
      try {
        for (let c = gunzip.read() as Buffer | null; c !== null; c = gunzip.read() as Buffer | null) {
          out += c.length;
          if (out > maxBytes) throw (refused = gzipTooLarge(maxBytes));
          scan.push(c);
        }
        recycled?.taken();
      } catch (e) {
        fail(e);
        gunzip.destroy();
      }
    };
    gunzip.on('readable', take);
    gunzip.once('end', resolve);
    gunzip.on('error', fail);
    // Destroyed before its end without an error (the writing side's own fault): this side ends too.
    gunzip.once('close', () => fail(new Error('the inflater was closed before its end')));
  });
  // The reading side's failure (ours or the inflater's) stops the writing at once: a write the inflater will never
  // take (it failed, and is destroyed) is not waited for.
  let failed = false;
  const gone = new Promise<void>((resolve) => {
    taken.catch(() => {
      failed = true;
      resolve();
    });
    gunzip.once('close', resolve);
  });
  try {
    let fed = 0;
    let ended = false;
    for (const piece of pieces) {
      if (failed) break;
      if (ended) {
        checkGzipTail(piece);
        continue;
      }
      fed += piece.length;
      const written = new Promise<void>((resolve, reject) => gunzip.write(piece, (e) => (e ? reject(e) : resolve())));
      written.catch(() => undefined); // its failure is the reading side's too (awaited there)
      await Promise.race([written, gone]);
      if (failed || gunzip.destroyed) break;
      const left = fed - gunzip.bytesWritten;
      if (left > 0) {
        ended = true;
        checkGzipTail(piece.subarray(piece.length - left));
      }
    }
    if (!ended && !failed && !gunzip.destroyed) gunzip.end();
    await taken;
  } catch (e) {
    gunzip.destroy();
    await taken.catch(() => undefined);
    if (refused !== undefined) throw refused;
    if (e instanceof ReceiptFormatError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && code.startsWith('Z_')) throw gzipCorrupt(e);
    throw e;
  }
  gunzip.destroy();
}
