import { gunzipSync } from 'node:zlib';
import { IntegrityError } from '../errors';

/**
 * A minimal in-memory tar reader, for receipts only (the writer is `tar-write.ts`).
 *
 * Receipts are files from strangers, so the reader trusts nothing: it never
 * touches the disk, checks every header checksum, checks a declared size against
 * the bytes that remain *before* slicing, refuses any member that is not a
 * regular file or a directory (links, devices, FIFOs, GNU long-name and sparse
 * records), and refuses non-zero bytes after the end-of-archive marker (a reader
 * that skips zero blocks must not see members we did not). Member *names* are
 * judged by the receipt layer (`receipt.ts`), which knows the four allowed forms.
 */

/** Named structural faults of an archive (all exit 1). */
export type TarFaultKind =
  'not_a_receipt' | 'too_large' | 'truncated' | 'corrupt_archive' | 'unsafe_member' | 'trailing_data';

export class ReceiptFormatError extends IntegrityError {
  override name = 'ReceiptFormatError';
  constructor(
    readonly kind: string,
    message: string,
    readonly member?: string,
  ) {
    super(message);
  }
}

export interface TarEntry {
  /** The member name as stored (after a pax `path` override and a ustar prefix). */
  name: string;
  /** `file` or `directory`; anything else is refused while reading. */
  type: 'file' | 'directory';
  /** The member's bytes (a view into the archive, no copy). */
  data: Buffer;
}

const BLOCK = 512;
/** Default cap on a receipt's (decompressed) size: 1 GiB. */
export const DEFAULT_MAX_RECEIPT_BYTES = 1024 * 1024 * 1024;

function field(h: Buffer, off: number, len: number): string {
  const raw = h.subarray(off, off + len);
  const nul = raw.indexOf(0);
  return raw.subarray(0, nul < 0 ? len : nul).toString('latin1');
}

/** An octal numeric field (NUL/space terminated), or a GNU base-256 one; NaN when malformed. */
function numeric(h: Buffer, off: number, len: number): number {
  const raw = h.subarray(off, off + len);
  if (raw[0]! & 0x80) {
    // base-256 (GNU): big-endian, first byte's top bit is the marker; negative values refused.
    if (raw[0]! & 0x40) return NaN;
    let v = raw[0]! & 0x3f;
    for (let i = 1; i < len; i++) {
      v = v * 256 + raw[i]!;
      if (v > Number.MAX_SAFE_INTEGER) return Infinity;
    }
    return v;
  }
  // As Python's tarfile reads it: up to the first NUL, surrounding spaces ignored.
  const nul = raw.indexOf(0);
  const s = raw
    .subarray(0, nul < 0 ? len : nul)
    .toString('latin1')
    .trim();
  if (s === '') return 0;
  if (!/^[0-7]+$/.test(s)) return NaN;
  return parseInt(s, 8);
}

function checksumOk(h: Buffer): boolean {
  const stored = numeric(h, 148, 8);
  if (!Number.isFinite(stored)) return false;
  let unsigned = 0;
  let signed = 0;
  for (let i = 0; i < BLOCK; i++) {
    const b = i >= 148 && i < 156 ? 0x20 : h[i]!;
    unsigned += b;
    signed += b > 127 ? b - 256 : b;
  }
  return stored === unsigned || stored === signed;
}

function isZero(buf: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (buf[i] !== 0) return false;
  return true;
}

/** Parses pax extended-header records (`<len> <key>=<value>\n`). */
function parsePax(data: Buffer, member: string): Map<string, string> {
  const out = new Map<string, string>();
  let i = 0;
  while (i < data.length) {
    if (data[i] === 0) break;
    const sp = data.indexOf(0x20, i);
    if (sp < 0 || sp - i > 20)
      throw new ReceiptFormatError('corrupt_archive', `malformed pax header record at byte ${i}`, member);
    const lenText = data.subarray(i, sp).toString('latin1');
    if (!/^[0-9]+$/.test(lenText))
      throw new ReceiptFormatError('corrupt_archive', 'malformed pax header record length', member);
    const len = Number(lenText);
    if (len <= sp - i + 1 || i + len > data.length || data[i + len - 1] !== 0x0a) {
      throw new ReceiptFormatError('corrupt_archive', 'pax header record overruns its header', member);
    }
    const rec = data.subarray(sp + 1, i + len - 1).toString('utf8');
    const eq = rec.indexOf('=');
    if (eq <= 0) throw new ReceiptFormatError('corrupt_archive', 'pax header record without a key', member);
    out.set(rec.slice(0, eq), rec.slice(eq + 1));
    i += len;
  }
  return out;
}

/** Decompresses a gzip receipt (magic 1f 8b) with a size cap; other bytes are returned as they are. */
export function maybeGunzip(bytes: Buffer, maxBytes = DEFAULT_MAX_RECEIPT_BYTES): Buffer {
  if (bytes.length < 2 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes;
  try {
    return gunzipSync(bytes, { maxOutputLength: maxBytes });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError) {
      throw new ReceiptFormatError('too_large', `gzip receipt decompresses to more than ${maxBytes} bytes`);
    }
    throw new ReceiptFormatError('not_a_receipt', `gzip data is corrupt: ${(e as Error).message}`);
  }
}

const TYPE_NAMES: Record<string, string> = {
  '1': 'a hard link',
  '2': 'a symbolic link',
  '3': 'a character device',
  '4': 'a block device',
  '6': 'a FIFO',
  '7': 'a contiguous file',
  L: 'a GNU long-name record',
  K: 'a GNU long-link record',
  S: 'a GNU sparse file',
  M: 'a GNU multi-volume continuation',
  V: 'a GNU volume header',
};

/**
 * Reads every member of an uncompressed tar held in memory. Throws
 * ReceiptFormatError for anything that is not a plain, complete archive of
 * regular files and directories.
 */
export function readTar(buf: Buffer): TarEntry[] {
  if (buf.length === 0) throw new ReceiptFormatError('not_a_receipt', 'empty file');
  if (buf.length < BLOCK)
    throw new ReceiptFormatError('not_a_receipt', `not a tar archive (${buf.length} bytes, shorter than one header)`);
  const entries: TarEntry[] = [];
  let pax: Map<string, string> | undefined;
  let off = 0;
  for (;;) {
    if (off + BLOCK > buf.length) {
      if (off === buf.length && entries.length > 0 && pax === undefined) return entries; // no end marker: tolerated (Python does)
      throw new ReceiptFormatError('truncated', `archive ends inside a header at byte ${off}`);
    }
    if (isZero(buf, off, off + BLOCK)) {
      if (!isZero(buf, off, buf.length)) {
        throw new ReceiptFormatError('trailing_data', `non-zero bytes after the end-of-archive marker at byte ${off}`);
      }
      if (pax !== undefined)
        throw new ReceiptFormatError('truncated', 'archive ends after a pax header, before its member');
      if (entries.length === 0) throw new ReceiptFormatError('not_a_receipt', 'empty tar archive');
      return entries;
    }
    const h = buf.subarray(off, off + BLOCK);
    if (!checksumOk(h)) {
      throw new ReceiptFormatError(
        entries.length === 0 && pax === undefined ? 'not_a_receipt' : 'corrupt_archive',
        entries.length === 0 && pax === undefined
          ? 'not a tar archive (bad header checksum)'
          : `bad header checksum at byte ${off} (a member larger than its header claims, or a corrupt archive)`,
      );
    }
    const magic = h.subarray(257, 263).toString('latin1');
    let name = field(h, 0, 100);
    if (magic === 'ustar\0') {
      const prefix = field(h, 345, 155);
      if (prefix !== '') name = `${prefix}/${name}`;
    }
    const typeflag = h[156] === 0 ? '0' : String.fromCharCode(h[156]!);
    let size = numeric(h, 124, 12);
    if (pax !== undefined) {
      const p = pax.get('path');
      if (p !== undefined) name = p;
      const s = pax.get('size');
      if (s !== undefined) size = /^[0-9]{1,20}$/.test(s) ? Number(s) : NaN;
      if (pax.has('linkpath') || [...pax.keys()].some((k) => k.startsWith('GNU.sparse'))) {
        throw new ReceiptFormatError(
          'unsafe_member',
          `member ${JSON.stringify(name)} carries pax link or sparse data`,
          name,
        );
      }
    }
    if (!Number.isFinite(size) || size < 0) {
      throw new ReceiptFormatError(
        'corrupt_archive',
        `member ${JSON.stringify(name)} has a malformed size field`,
        name,
      );
    }
    const dataStart = off + BLOCK;
    const remaining = buf.length - dataStart;
    // Checked before anything is sliced or allocated: a header may claim gigabytes.
    if (size > remaining) {
      throw new ReceiptFormatError(
        'truncated',
        `member ${JSON.stringify(name)} declares ${size} bytes but only ${remaining} remain in the archive`,
        name,
      );
    }
    const data = buf.subarray(dataStart, dataStart + size);
    off = dataStart + Math.ceil(size / BLOCK) * BLOCK;
    if (off > buf.length)
      throw new ReceiptFormatError(
        'truncated',
        `member ${JSON.stringify(name)}: archive ends inside its padding`,
        name,
      );
    if (typeflag === 'x' || typeflag === 'g') {
      const records = parsePax(data, name);
      if (typeflag === 'g') {
        // Global headers only matter if they redefine names or sizes; those we refuse.
        if (records.has('path') || records.has('size') || records.has('linkpath')) {
          throw new ReceiptFormatError('unsafe_member', 'a pax global header redefines member names or sizes');
        }
      } else {
        if (pax !== undefined) throw new ReceiptFormatError('corrupt_archive', 'two pax headers in a row');
        pax = records;
      }
      continue;
    }
    pax = undefined;
    if (typeflag === '0') {
      entries.push({ name, type: 'file', data });
    } else if (typeflag === '5') {
      if (size !== 0)
        throw new ReceiptFormatError('corrupt_archive', `directory member ${JSON.stringify(name)} has data`, name);
      entries.push({ name, type: 'directory', data });
    } else {
      const what = TYPE_NAMES[typeflag] ?? `an unknown member type ${JSON.stringify(typeflag)}`;
      throw new ReceiptFormatError(
        'unsafe_member',
        `member ${JSON.stringify(name)} is ${what}; only regular files are allowed`,
        name,
      );
    }
  }
}
