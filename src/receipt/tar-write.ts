import { Header } from 'tar';

/**
 * The receipt archive writer, on the `tar` package (node-tar): it encodes the
 * ustar headers (TarWriter frames the members); this module pins every header field so
 * the same members give the same bytes. The reader is `tar.ts`, our own strict
 * parser (docs/receipts.md says why receipts are not read with `tar`).
 */
const BLOCK = 512;
/** tar and Python's tarfile pad an archive to whole 10240-byte records; so do we. */
const RECORD = 20 * BLOCK;
/** The largest size a ustar size field holds (11 octal digits). */
const MAX_USTAR_SIZE = 8 ** 11 - 1;

export interface TarWriteMember {
  name: string;
  data: Uint8Array;
}

/**
 * A deterministic ustar archive (docs/format.md §3): members in the order given,
 * regular files, mode 0644, uid/gid 0, no user or group names, one mtime for all,
 * no pax headers; two zero blocks and padding to a 10240-byte record.
 * Names are the receipt's own short ASCII forms; anything else is refused rather
 * than written with a pax or prefix header some reader might not expect.
 */
export function writeTar(members: TarWriteMember[], mtime: number): Buffer {
  const chunks: Buffer[] = [];
  const tar = new TarWriter((b) => chunks.push(Buffer.from(b)), mtime);
  for (const m of members) tar.member(m.name, m.data.length, (put) => put(m.data));
  tar.end();
  return Buffer.concat(chunks);
}

/**
 * writeTar's archive handed to `sink` as it is made, for members too large to hold (a receipt's journal is copied
 * from its file a piece at a time): the same bytes as writeTar for the same members. Each header is node-tar's
 * (its encoding of the pinned fields); a member's body must be exactly the size its header says.
 */
export class TarWriter {
  private readonly when: Date;
  private written = 0;
  constructor(
    private readonly sink: (bytes: Uint8Array) => void,
    mtime: number,
  ) {
    this.when = new Date(Math.max(0, Math.floor(mtime)) * 1000);
  }

  /** A member of `size` bytes, which `body` gives through `put` (in as many pieces as it likes). */
  member(name: string, size: number, body: (put: (bytes: Uint8Array) => void) => void): void {
    if (!/^[\x21-\x7e]{1,100}$/.test(name) || name.startsWith('/'))
      throw new Error(`tar writer: unsupported member name ${JSON.stringify(name)}`);
    if (size > MAX_USTAR_SIZE) throw new Error(`tar writer: member ${name} is too large for a ustar header`);
    const header = new Header({
      path: name,
      type: 'File',
      mode: 0o644,
      uid: 0,
      gid: 0,
      uname: '',
      gname: '',
      size,
      mtime: this.when,
    });
    if (header.encode() || header.block === undefined)
      throw new Error(`tar writer: member ${name} would need a pax header`);
    this.put(header.block);
    let given = 0;
    body((bytes) => {
      given += bytes.length;
      if (given > size) throw new Error(`tar writer: member ${name} is longer than its ${size} bytes`);
      this.put(bytes);
    });
    if (given !== size) throw new Error(`tar writer: member ${name} is ${given} bytes, not its ${size}`);
    this.put(Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK));
  }

  /** The two zero blocks that end an archive, and zeros to a whole record. */
  end(): void {
    this.put(Buffer.alloc(2 * BLOCK));
    this.put(Buffer.alloc((RECORD - (this.written % RECORD)) % RECORD));
  }

  private put(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.written += bytes.length;
    this.sink(bytes);
  }
}
