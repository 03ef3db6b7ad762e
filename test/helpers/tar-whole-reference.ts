/*
 * The receipt tar reader as it was before it streamed (whole archive in memory), frozen here as the
 * reference the streaming reader (src/receipt/tar.ts, TarStream) must agree with on every archive:
 * the same members, bytes and all, or the same refusal (kind, message, member).
 */
import { gunzipSync } from 'node:zlib';
import { IntegrityError } from '../../src/errors';

/**
 * A minimal in-memory tar reader, for receipts only (the writer is `tar-write.ts`).
 *
 * Receipts are files from strangers, and a signed receipt must mean one thing to
 * every reader: the reader refuses every archive on which a strict POSIX reader,
 * GNU tar and Python's `tarfile` could disagree (docs/receipts.md, "Hostile
 * input"). It never touches the disk, checks every header checksum (unsigned,
 * as POSIX), checks a declared size against the bytes that remain *before*
 * slicing, accepts only regular files, directories and pax extended headers
 * with a few keys, insists on zero padding everywhere a reader could look
 * (after a string field's NUL, after a member's data, the ustar prefix under a
 * GNU magic) and on numeric fields every reader parses alike, and refuses
 * non-zero bytes after the end-of-archive marker. Member *names* are judged by
 * the receipt layer (`verify.ts`), which knows the four allowed forms.
 */

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

export interface TarReadOptions {
  /** Refuse an archive with more members than this (default 1,000,000; pax headers are not counted). */
  maxMembers?: number;
}

const BLOCK = 512;
/** Default cap on a receipt's (decompressed) size: 1 GiB. */
export const DEFAULT_MAX_RECEIPT_BYTES = 1024 * 1024 * 1024;
/** Default cap on an archive's members: far above any receipt's, far below what exhausts memory. */
export const DEFAULT_MAX_TAR_MEMBERS = 1_000_000;

/** The pax keys a receipt member may carry: its name, its size and its times. Anything else is refused. */
const PAX_KEYS = new Set(['path', 'size', 'mtime', 'atime', 'ctime']);
const UTF8 = new TextDecoder('utf-8', { fatal: true });

const corrupt = (message: string, member?: string): ReceiptFormatError =>
  new ReceiptFormatError('corrupt_archive', message, member);

function isZero(buf: Buffer, from: number, to: number): boolean {
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

interface Header {
  name: string;
  typeflag: string;
  size: number;
}

/** Parses and checks one 512-byte header (see the module comment for the rules). */
/** The stored checksum is the unsigned byte sum with the checksum field read as spaces (POSIX; signed sums are refused). */
function checksumOk(h: Buffer): boolean {
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

function parseHeader(h: Buffer, at: number): Header {
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
function parsePax(data: Buffer, at: number): Map<string, string> {
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
function readsAsTarHeader(h: Buffer): boolean {
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

/**
 * Decompresses a gzip receipt (magic 1f 8b) with a size cap; other bytes are
 * returned as they are. Concatenated gzip members and trailing zero bytes read
 * the same everywhere (gzip, Python, node); anything else after the stream is
 * corrupt.
 */
export function maybeGunzip(bytes: Buffer, maxBytes = DEFAULT_MAX_RECEIPT_BYTES): Buffer {
  if (bytes.length < 2 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes;
  // A gzip header can carry 64 KiB of anything (FEXTRA): a whole tar archive whose first header starts with the
  // gzip magic. GNU tar (and file(1)) read such bytes as that plain tar, gzip readers as the compressed one.
  if (bytes.length >= BLOCK && readsAsTarHeader(bytes.subarray(0, BLOCK)))
    throw corrupt(
      'gzip data whose first 512 bytes also read as a tar header: GNU tar would read another archive from the same bytes',
    );
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
  '\0': 'an old-style (v7) regular file',
  '1': 'a hard link',
  '2': 'a symbolic link',
  '3': 'a character device',
  '4': 'a block device',
  '6': 'a FIFO',
  '7': 'a contiguous file',
  g: 'a pax global header',
  X: 'a Solaris extended header',
  L: 'a GNU long-name record',
  K: 'a GNU long-link record',
  S: 'a GNU sparse file',
  M: 'a GNU multi-volume continuation',
  V: 'a GNU volume header',
};

/**
 * The members of an uncompressed tar held in memory, one at a time (nothing is
 * collected, so a million headers cost no more memory than one). Throws
 * ReceiptFormatError for anything that is not a plain, complete archive of
 * regular files and directories that every reader reads alike.
 */
export function* tarEntries(buf: Buffer, options: TarReadOptions = {}): Generator<TarEntry, void, undefined> {
  const maxMembers = options.maxMembers ?? DEFAULT_MAX_TAR_MEMBERS;
  if (buf.length === 0) throw new ReceiptFormatError('not_a_receipt', 'empty file');
  if (buf.length < BLOCK)
    throw new ReceiptFormatError('not_a_receipt', `not a tar archive (${buf.length} bytes, shorter than one header)`);
  let count = 0;
  let pax: Map<string, string> | undefined;
  let paxAt = 0;
  let off = 0;
  for (;;) {
    if (off + BLOCK > buf.length) {
      throw new ReceiptFormatError(
        'truncated',
        off === buf.length
          ? `the archive ends at byte ${off} without its end-of-archive marker (two zero blocks)`
          : `archive ends inside a header at byte ${off}`,
      );
    }
    if (isZero(buf, off, off + BLOCK)) {
      if (off === 0) throw new ReceiptFormatError('not_a_receipt', 'empty tar archive');
      if (pax !== undefined)
        throw new ReceiptFormatError(
          'truncated',
          `archive ends after the pax header at byte ${paxAt}, before its member`,
        );
      // Python stops at the first zero block, GNU tar reads on after a lone one: nothing may follow.
      if (!isZero(buf, off, buf.length)) {
        throw new ReceiptFormatError('trailing_data', `non-zero bytes after the end-of-archive marker at byte ${off}`);
      }
      if (off + 2 * BLOCK > buf.length)
        throw new ReceiptFormatError(
          'truncated',
          `a lone zero block at byte ${off} ends the archive (the end-of-archive marker is two)`,
        );
      return;
    }
    const h = buf.subarray(off, off + BLOCK);
    // The first header failing its checksum: not a tar at all.
    if (off === 0 && !checksumOk(h))
      throw new ReceiptFormatError('not_a_receipt', 'not a tar archive (bad header checksum)');
    const header = parseHeader(h, off);
    const { typeflag } = header;
    let { name, size } = header;
    const member = typeflag === 'x' ? undefined : name;
    if (pax !== undefined) {
      if (typeflag === 'x') throw corrupt(`two pax headers in a row at byte ${off}`);
      const p = pax.get('path');
      if (p !== undefined) name = p;
      const s = pax.get('size');
      if (s !== undefined) size = Number(s);
    }
    const dataStart = off + BLOCK;
    const remaining = buf.length - dataStart;
    // Checked before anything is sliced or allocated: a header may claim gigabytes.
    if (size > remaining) {
      throw new ReceiptFormatError(
        'truncated',
        `member ${JSON.stringify(name)} declares ${size} bytes but only ${remaining} remain in the archive`,
        member,
      );
    }
    const data = buf.subarray(dataStart, dataStart + size);
    const next = dataStart + Math.ceil(size / BLOCK) * BLOCK;
    if (next > buf.length)
      throw new ReceiptFormatError(
        'truncated',
        `member ${JSON.stringify(name)}: archive ends inside its padding`,
        member,
      );
    if (!isZero(buf, dataStart + size, next))
      throw corrupt(`member ${JSON.stringify(name)}: non-zero bytes in the padding after its data`, member);
    if (typeflag === 'x') {
      pax = parsePax(data, off);
      paxAt = off;
      off = next;
      continue;
    }
    pax = undefined;
    let type: TarEntry['type'];
    if (typeflag === '0') {
      // Python strips a trailing slash from a pax path; GNU tar may take such a member for a directory.
      if (name.endsWith('/')) throw corrupt(`regular file ${JSON.stringify(name)} has a directory's name`, name);
      type = 'file';
    } else if (typeflag === '5') {
      // Python does not skip data after a directory header; other readers do.
      if (size !== 0) throw corrupt(`directory member ${JSON.stringify(name)} has data`, name);
      type = 'directory';
    } else {
      const what = TYPE_NAMES[typeflag] ?? `an unknown member type ${JSON.stringify(typeflag)}`;
      throw new ReceiptFormatError(
        'unsafe_member',
        `member ${JSON.stringify(name)} is ${what}; only regular files and directories are allowed`,
        name,
      );
    }
    if (++count > maxMembers)
      throw new ReceiptFormatError('too_many_members', `more than ${maxMembers} members (at byte ${off})`);
    off = next;
    yield { name, type, data };
  }
}

/** Every member of an uncompressed tar held in memory (see `tarEntries`). */
export function readTar(buf: Buffer, options: TarReadOptions = {}): TarEntry[] {
  const out: TarEntry[] = [];
  for (const e of tarEntries(buf, options)) out.push(e);
  return out;
}
