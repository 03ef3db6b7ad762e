import { gunzipSync } from 'node:zlib';
import { IntegrityError } from '../errors';

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
  if (!isGzip(bytes)) return bytes;
  checkGzipHead(bytes);
  try {
    return gunzipSync(bytes, { maxOutputLength: maxBytes });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError) throw gzipTooLarge(maxBytes);
    throw gzipCorrupt(e);
  }
}

/** Whether a receipt's first bytes are gzip's magic (1f 8b). */
export function isGzip(head: Buffer): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/**
 * A gzip header can carry 64 KiB of anything (FEXTRA): a whole tar archive whose first header starts with the
 * gzip magic. GNU tar (and file(1)) read such bytes as that plain tar, gzip readers as the compressed one.
 * `head` is the file's first bytes (at least 512 when the file has them).
 */
export function checkGzipHead(head: Buffer): void {
  if (head.length >= BLOCK && readsAsTarHeader(head.subarray(0, BLOCK)))
    throw corrupt(
      'gzip data whose first 512 bytes also read as a tar header: GNU tar would read another archive from the same bytes',
    );
}

export const gzipTooLarge = (maxBytes: number): ReceiptFormatError =>
  new ReceiptFormatError('too_large', `gzip receipt decompresses to more than ${maxBytes} bytes`);

export const gzipCorrupt = (e: unknown): ReceiptFormatError =>
  new ReceiptFormatError('not_a_receipt', `gzip data is corrupt: ${(e as Error).message}`);

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

/** What a streamed archive's reader is told of each member (see `TarStream`). */
export interface TarMemberSink {
  /** A piece of the member's data, in order (a view that is valid only during the call). */
  data(piece: Buffer): void;
}

/** A member as its header announces it, before its data: name and type as read (checked only when it ends). */
export interface TarMemberStart {
  name: string;
  typeflag: string;
  size: number;
}

/**
 * Receives a streamed archive: `start` for each member's header (the sink it
 * returns gets the data; undefined: the data is skipped), `end` once the
 * member's data and padding are read and the member is judged a regular file
 * or directory, in the order and with the checks of `tarEntries`.
 */
export interface TarReceiver {
  start(m: TarMemberStart): TarMemberSink | undefined;
  end(entry: { name: string; type: TarEntry['type'] }): void;
}

type TarState = 'header' | 'data' | 'padding' | 'end';

/**
 * A tar archive read in pieces of any size, in one pass, in memory bounded by a
 * header (and a pax header's records): the reading rules of the module comment,
 * every check made as soon as its bytes arrive and the rest when the archive
 * ends (`finish`). Throws ReceiptFormatError at the first fault, with the same
 * kind and message as reading the whole archive at once would.
 */
export class TarStream {
  private state: TarState = 'header';
  /** Absolute offset of the next byte. */
  private off = 0;
  private readonly head = Buffer.alloc(BLOCK);
  private headFill = 0;
  /** The current header's offset, and the member it announced. */
  private headerAt = 0;
  private name = '';
  /** The name in the header itself (faults name the member so, before a pax path). */
  private headerName = '';
  private typeflag = '';
  private size = 0;
  private left = 0;
  private sink: TarMemberSink | undefined;
  private paxParts: Buffer[] | undefined;
  private pax: Map<string, string> | undefined;
  private paxAt = 0;
  private count = 0;
  private zeroAt = -1;
  private readonly maxMembers: number;

  constructor(
    private readonly receiver: TarReceiver,
    options: TarReadOptions = {},
  ) {
    this.maxMembers = options.maxMembers ?? DEFAULT_MAX_TAR_MEMBERS;
  }

  /** The next piece of the archive. */
  push(buf: Buffer): void {
    let i = 0;
    while (i < buf.length) {
      switch (this.state) {
        case 'header': {
          const n = Math.min(BLOCK - this.headFill, buf.length - i);
          if (this.headFill === 0 && n === BLOCK) {
            i += BLOCK;
            this.header(buf.subarray(i - BLOCK, i));
          } else {
            buf.copy(this.head, this.headFill, i, i + n);
            this.headFill += n;
            i += n;
            if (this.headFill === BLOCK) {
              this.headFill = 0;
              this.header(this.head);
            }
          }
          break;
        }
        case 'data': {
          const n = Math.min(this.left, buf.length - i);
          const piece = buf.subarray(i, i + n);
          if (this.paxParts !== undefined) this.paxParts.push(Buffer.from(piece));
          else this.sink?.data(piece);
          this.left -= n;
          this.off += n;
          i += n;
          if (this.left === 0) this.dataDone();
          break;
        }
        case 'padding': {
          const n = Math.min(this.left, buf.length - i);
          if (!isZero(buf, i, i + n))
            throw corrupt(
              `member ${JSON.stringify(this.name)}: non-zero bytes in the padding after its data`,
              this.memberName(),
            );
          this.left -= n;
          this.off += n;
          i += n;
          if (this.left === 0) this.memberDone();
          break;
        }
        case 'end': {
          // Python stops at the first zero block, GNU tar reads on after a lone one: nothing may follow.
          if (!isZero(buf, i, buf.length))
            throw new ReceiptFormatError(
              'trailing_data',
              `non-zero bytes after the end-of-archive marker at byte ${this.zeroAt}`,
            );
          this.off += buf.length - i;
          i = buf.length;
          break;
        }
      }
    }
  }

  /** The archive has ended: what it lacks is a fault. */
  finish(): void {
    const total = this.off + this.headFill;
    if (total === 0) throw new ReceiptFormatError('not_a_receipt', 'empty file');
    if (total < BLOCK)
      throw new ReceiptFormatError('not_a_receipt', `not a tar archive (${total} bytes, shorter than one header)`);
    if (this.state === 'header') {
      throw new ReceiptFormatError(
        'truncated',
        this.headFill === 0
          ? `the archive ends at byte ${this.off} without its end-of-archive marker (two zero blocks)`
          : `archive ends inside a header at byte ${this.off}`,
      );
    }
    if (this.state === 'data') {
      const remaining = total - (this.headerAt + BLOCK);
      throw new ReceiptFormatError(
        'truncated',
        `member ${JSON.stringify(this.name)} declares ${this.size} bytes but only ${remaining} remain in the archive`,
        this.memberName(),
      );
    }
    if (this.state === 'padding')
      throw new ReceiptFormatError(
        'truncated',
        `member ${JSON.stringify(this.name)}: archive ends inside its padding`,
        this.memberName(),
      );
    if (this.zeroAt + 2 * BLOCK > total)
      throw new ReceiptFormatError(
        'truncated',
        `a lone zero block at byte ${this.zeroAt} ends the archive (the end-of-archive marker is two)`,
      );
  }

  /** The member name a fault names (none for a pax header). */
  private memberName(): string | undefined {
    return this.typeflag === 'x' ? undefined : this.headerName;
  }

  private header(h: Buffer): void {
    const off = this.off;
    this.off += BLOCK;
    if (isZero(h, 0, BLOCK)) {
      if (off === 0) throw new ReceiptFormatError('not_a_receipt', 'empty tar archive');
      if (this.pax !== undefined)
        throw new ReceiptFormatError(
          'truncated',
          `archive ends after the pax header at byte ${this.paxAt}, before its member`,
        );
      this.zeroAt = off;
      this.state = 'end';
      return;
    }
    // The first header failing its checksum: not a tar at all.
    if (off === 0 && !checksumOk(h))
      throw new ReceiptFormatError('not_a_receipt', 'not a tar archive (bad header checksum)');
    const header = parseHeader(h, off);
    let { name, size } = header;
    if (this.pax !== undefined) {
      if (header.typeflag === 'x') throw corrupt(`two pax headers in a row at byte ${off}`);
      const p = this.pax.get('path');
      if (p !== undefined) name = p;
      const s = this.pax.get('size');
      if (s !== undefined) size = Number(s);
    }
    this.headerAt = off;
    this.name = name;
    this.headerName = header.name;
    this.typeflag = header.typeflag;
    this.size = size;
    this.left = size;
    this.paxParts = header.typeflag === 'x' ? [] : undefined;
    this.sink = header.typeflag === 'x' ? undefined : this.receiver.start({ name, typeflag: header.typeflag, size });
    this.state = 'data';
    if (size === 0) this.dataDone();
  }

  private dataDone(): void {
    this.left = Math.ceil(this.size / BLOCK) * BLOCK - this.size;
    this.state = 'padding';
    if (this.left === 0) this.memberDone();
  }

  private memberDone(): void {
    this.state = 'header';
    if (this.paxParts !== undefined) {
      this.pax = parsePax(Buffer.concat(this.paxParts), this.headerAt);
      this.paxAt = this.headerAt;
      this.paxParts = undefined;
      return;
    }
    this.pax = undefined;
    const { name, typeflag, size } = this;
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
    if (++this.count > this.maxMembers)
      throw new ReceiptFormatError(
        'too_many_members',
        `more than ${this.maxMembers} members (at byte ${this.headerAt})`,
      );
    this.receiver.end({ name, type });
  }
}

/**
 * The members of an uncompressed tar held in memory (the `TarStream` rules, the
 * archive given whole: each member's data is a view into it). Throws
 * ReceiptFormatError, after the members read before the fault, for anything
 * that is not a plain, complete archive of regular files and directories that
 * every reader reads alike.
 */
export function* tarEntries(buf: Buffer, options: TarReadOptions = {}): Generator<TarEntry, void, undefined> {
  const out: TarEntry[] = [];
  // Pushed whole, the archive hands each member's data over as one view into `buf`.
  let data = buf.subarray(0, 0);
  let fault: unknown;
  const stream = new TarStream(
    {
      start: () => {
        data = buf.subarray(0, 0);
        return { data: (piece) => (data = piece) };
      },
      end: ({ name, type }) => out.push({ name, type, data }),
    },
    options,
  );
  try {
    stream.push(buf);
    stream.finish();
  } catch (e) {
    fault = e;
  }
  yield* out;
  if (fault !== undefined) throw fault;
}

/** Every member of an uncompressed tar held in memory (see `tarEntries`). */
export function readTar(buf: Buffer, options: TarReadOptions = {}): TarEntry[] {
  const out: TarEntry[] = [];
  for (const e of tarEntries(buf, options)) out.push(e);
  return out;
}
