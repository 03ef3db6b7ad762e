import { IntegrityError } from '../errors';
import type { ReceiptFaultKind } from './fault-kinds';

/** The tar format as a receipt reader accepts it: one header, one pax record, each checked alone (see `tar.ts`). */

/** Named structural faults of an archive (all exit 1). */
export type TarFaultKind =
  | 'not_a_receipt'
  | 'too_large'
  | 'truncated'
  | 'corrupt_archive'
  | 'unsafe_member'
  | 'trailing_data'
  | 'too_many_members';

export class ReceiptFormatError extends IntegrityError {
  override name = 'ReceiptFormatError';
  constructor(
    readonly kind: ReceiptFaultKind,
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

export interface TarReadOptions {
  /** Refuse an archive with more members than this (default 1,000,000; pax headers are not counted). */
  maxMembers?: number;
}

export const BLOCK = 512;
/** Default cap on a receipt's (decompressed) size: 1 GiB. */
export const DEFAULT_MAX_RECEIPT_BYTES = 1024 * 1024 * 1024;
/** Default cap on an archive's members: far above any receipt's, far below what exhausts memory. */
export const DEFAULT_MAX_TAR_MEMBERS = 1_000_000;

/** The pax keys a receipt member may carry: its name, its size and its times. Anything else is refused. */
const PAX_KEYS = new Set(['path', 'size', 'mtime', 'atime', 'ctime']);
const UTF8 = new TextDecoder('utf-8', { fatal: true });

export const corrupt = (message: string, member?: string): ReceiptFormatError =>
  new ReceiptFormatError('corrupt_archive', message, member);

export function isZero(buf: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (buf[i] !== 0) return false;
  return true;
}

function utf8(bytes: Buffer): string | undefined {
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * A NUL-terminated string field. Everything after the first NUL must be NUL:
 * Python reads up to the NUL, other readers may not, and bytes nobody shows are
 * where a second meaning hides.
 */
function stringField(h: Buffer, off: number, len: number, what: string, at: number): string {
  const raw = h.subarray(off, off + len);
  const nul = raw.indexOf(0);
  const end = nul < 0 ? len : nul;
  if (nul >= 0 && !isZero(raw, nul, len))
    throw corrupt(`header at byte ${at}: non-zero bytes after the ${what} field's NUL`);
  const s = utf8(raw.subarray(0, end));
  if (s === undefined) throw corrupt(`header at byte ${at}: the ${what} field is not UTF-8`);
  return s;
}

/**
 * An octal numeric field, in the one shape every reader parses alike: optional
 * leading spaces, octal digits, then at least one space or NUL terminator and
 * nothing but spaces and NULs. An all-NUL field reads as 0 everywhere
 * (node-tar writes uid and gid so) and is accepted where `empty` says so.
 * Refused: base-256 (GNU) and signed values, `+`, `_` and `0o` (Python's int()
 * takes them, GNU tar does not), digits after a NUL, 8 and 9, no terminator.
 */
function numericField(h: Buffer, off: number, len: number, what: string, at: number, empty: boolean): number {
  const raw = h.subarray(off, off + len);
  if (isZero(raw, 0, len)) {
    if (empty) return 0;
    throw corrupt(`header at byte ${at}: the ${what} field is empty`);
  }
  let i = 0;
  while (i < len && raw[i] === 0x20) i++;
  const digitsStart = i;
  let v = 0;
  while (i < len && raw[i]! >= 0x30 && raw[i]! <= 0x37) v = v * 8 + (raw[i++]! - 0x30);
  let ok = i > digitsStart && i < len;
  for (let j = i; ok && j < len; j++) if (raw[j] !== 0x20 && raw[j] !== 0) ok = false;
  if (!ok) {
    throw corrupt(
      `header at byte ${at}: malformed ${what} field ${JSON.stringify(raw.toString('latin1'))} (expected octal digits ended by a space or NUL)`,
    );
  }
  return v;
}

const MAGIC_POSIX = Buffer.from('ustar\x0000', 'latin1');
const MAGIC_GNU = Buffer.from('ustar  \x00', 'latin1');

export interface Header {
  name: string;
  typeflag: string;
  size: number;
}

/** Parses and checks one 512-byte header (see the module comment for the rules). */
/** The stored checksum is the unsigned byte sum with the checksum field read as spaces (POSIX; signed sums are refused). */
export function checksumOk(h: Buffer): boolean {
  let stored: number;
  try {
    stored = numericField(h, 148, 8, 'checksum', 0, false);
  } catch {
    return false;
  }
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : h[i]!;
  return stored === sum;
}

export function parseHeader(h: Buffer, at: number): Header {
  if (!checksumOk(h))
    throw corrupt(`bad header checksum at byte ${at} (a member larger than its header claims, or a corrupt archive)`);
  const magic = h.subarray(257, 265);
  const posix = magic.equals(MAGIC_POSIX);
  if (!posix && !magic.equals(MAGIC_GNU)) {
    // A v7 or unknown header: Python would still read a ustar prefix from it, GNU tar would not.
    throw corrupt(
      `header at byte ${at}: not a ustar or GNU tar header (magic ${JSON.stringify(magic.toString('latin1'))})`,
    );
  }
  let name = stringField(h, 0, 100, 'name', at);
  numericField(h, 100, 8, 'mode', at, true);
  numericField(h, 108, 8, 'uid', at, true);
  numericField(h, 116, 8, 'gid', at, true);
  const size = numericField(h, 124, 12, 'size', at, false);
  numericField(h, 136, 12, 'mtime', at, true);
  const typeflag = String.fromCharCode(h[156]!);
  // Links are refused by type (tarEntries); on any other member a link name is a second meaning.
  if (typeflag !== '1' && typeflag !== '2' && !isZero(h, 157, 257))
    throw corrupt(`header at byte ${at}: a link name on a member that is not a link`);
  stringField(h, 265, 32, 'uname', at);
  stringField(h, 297, 32, 'gname', at);
  numericField(h, 329, 8, 'devmajor', at, true);
  numericField(h, 337, 8, 'devminor', at, true);
  if (posix) {
    const prefix = stringField(h, 345, 155, 'prefix', at);
    if (prefix !== '') name = `${prefix}/${name}`;
    if (!isZero(h, 500, BLOCK)) throw corrupt(`header at byte ${at}: non-zero bytes in the header's padding`);
  } else if (!isZero(h, 345, BLOCK)) {
    // GNU keeps times and sparse maps here; Python would read these bytes as a ustar prefix.
    throw corrupt(
      `header at byte ${at}: non-zero bytes after a GNU header's fields (Python reads them as a name prefix)`,
    );
  }
  return { name, typeflag, size };
}

/**
 * Parses a pax extended header's records (`<len> <key>=<value>\n`), strictly:
 * the declared data is records and nothing else (no NUL, no leading zeros in a
 * length), each key at most once and one of PAX_KEYS, values UTF-8, numbers
 * decimal. Python's tarfile reads records from the padding after the declared
 * size too: the caller has already required that padding to be zero.
 */
export function parsePax(data: Buffer, at: number): Map<string, string> {
  const out = new Map<string, string>();
  const where = `pax header at byte ${at}`;
  let i = 0;
  while (i < data.length) {
    const sp = data.indexOf(0x20, i);
    if (sp < 0 || sp === i || sp - i > 12) throw corrupt(`${where}: malformed record at offset ${i}`);
    const lenText = data.toString('latin1', i, sp);
    if (!/^[1-9][0-9]*$/.test(lenText)) throw corrupt(`${where}: malformed record length ${JSON.stringify(lenText)}`);
    const len = Number(lenText);
    if (len <= sp - i + 1 || i + len > data.length || data[i + len - 1] !== 0x0a)
      throw corrupt(`${where}: a record overruns its header or lacks its newline`);
    const rec = data.subarray(sp + 1, i + len - 1);
    const eq = rec.indexOf(0x3d);
    if (eq <= 0) throw corrupt(`${where}: a record without a key`);
    const key = rec.toString('latin1', 0, eq);
    const value = utf8(rec.subarray(eq + 1));
    if (!PAX_KEYS.has(key)) {
      throw new ReceiptFormatError(
        key === 'linkpath' || key.startsWith('GNU.sparse') ? 'unsafe_member' : 'corrupt_archive',
        `${where}: pax key ${JSON.stringify(key)} is not accepted in a receipt (only ${[...PAX_KEYS].join(', ')})`,
      );
    }
    if (value === undefined || /[\x00-\x1f\x7f]/.test(value))
      throw corrupt(`${where}: the ${key} value is not plain UTF-8`);
    if (out.has(key)) throw corrupt(`${where}: key ${key} appears twice`);
    const numeric = key === 'size' ? /^(0|[1-9][0-9]{0,15})$/ : /^-?(0|[1-9][0-9]{0,17})(\.[0-9]{1,9})?$/;
    if (key !== 'path' && !numeric.test(value)) throw corrupt(`${where}: malformed ${key} ${JSON.stringify(value)}`);
    out.set(key, value);
    i += len;
  }
  return out;
}

/**
 * Whether a block passes the header checksum as the most lenient reader parses
 * it (GNU tar, Python: leading spaces, octal digits up to anything else, or a
 * base-256 number; the unsigned or the signed sum). Such a block starts a tar
 * archive for those readers, whatever else the bytes are.
 */
export function readsAsTarHeader(h: Buffer): boolean {
  let stored: number;
  if (h[148] === 0x80 || h[148] === 0xff) {
    stored = 0;
    for (let i = 149; i < 156; i++) stored = stored * 256 + h[i]!;
    if (h[148] === 0xff) stored -= 2 ** 56;
  } else {
    const m = /^[\0 ]*\+?(?:0o)?([0-7][0-7_]*)/i.exec(h.toString('latin1', 148, 156));
    if (m === null) return false;
    stored = parseInt(m[1]!.replace(/_/g, ''), 8);
  }
  let unsigned = 0;
  let signed = 0;
  for (let i = 0; i < BLOCK; i++) {
    const b = i >= 148 && i < 156 ? 0x20 : h[i]!;
    unsigned += b;
    signed += b >= 0x80 ? b - 0x100 : b;
  }
  return stored === unsigned || stored === signed;
}
