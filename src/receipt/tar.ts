import {
  BLOCK,
  checksumOk,
  corrupt,
  DEFAULT_MAX_TAR_MEMBERS,
  isZero,
  parseHeader,
  parsePax,
  ReceiptFormatError,
  type TarEntry,
  type TarReadOptions,
} from './tar-header';

export {
  BLOCK,
  DEFAULT_MAX_RECEIPT_BYTES,
  DEFAULT_MAX_TAR_MEMBERS,
  readsAsTarHeader,
  ReceiptFormatError,
} from './tar-header';
export type { TarEntry, TarFaultKind, TarReadOptions } from './tar-header';

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
  /**
   * Offered when a non-empty member's data begins, at archive offset `at`: true when the sink has taken those
   * `length` bytes where they lie (a plain archive's file) instead of in pieces; the stream then goes on after
   * them (`push` says where) and hands the sink no data.
   */
  inPlace?(at: number, length: number): boolean;
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
  /** Set when a member's data was taken where it lies (TarMemberSink.inPlace): the offset after it. */
  private resumeAt: number | undefined;

  constructor(
    private readonly receiver: TarReceiver,
    options: TarReadOptions = {},
  ) {
    this.maxMembers = options.maxMembers ?? DEFAULT_MAX_TAR_MEMBERS;
  }

  /**
   * The next piece of the archive. Returns undefined, or, when a member's data was taken where it lies, the
   * archive offset after that data: the rest of this piece is not read, and the next piece starts there.
   */
  push(buf: Buffer): number | undefined {
    let i = 0;
    while (i < buf.length) {
      if (this.resumeAt !== undefined) {
        const at = this.resumeAt;
        this.resumeAt = undefined;
        return at;
      }
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
    const at = this.resumeAt;
    this.resumeAt = undefined;
    return at;
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
    else if (this.sink?.inPlace?.(this.off, size) === true) {
      this.off += size;
      this.left = 0;
      this.resumeAt = this.off;
      this.dataDone();
    }
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
