import { Header, PackSync, ReadEntry } from 'tar';

/**
 * The receipt archive writer, on the `tar` package (node-tar): it encodes the
 * ustar headers and frames the members; this module pins every header field so
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
  const when = new Date(Math.max(0, Math.floor(mtime)) * 1000);
  const pack = new PackSync({ mtime: when, noPax: true, strict: true });
  const chunks: Buffer[] = [];
  pack.on('data', (c: Buffer) => chunks.push(c));
  for (const m of members) {
    if (!/^[\x21-\x7e]{1,100}$/.test(m.name) || m.name.startsWith('/'))
      throw new Error(`tar writer: unsupported member name ${JSON.stringify(m.name)}`);
    if (m.data.length > MAX_USTAR_SIZE) throw new Error(`tar writer: member ${m.name} is too large for a ustar header`);
    const header = new Header({
      path: m.name,
      type: 'File',
      mode: 0o644,
      uid: 0,
      gid: 0,
      uname: '',
      gname: '',
      size: m.data.length,
      mtime: when,
    });
    header.encode();
    const entry = new ReadEntry(header);
    pack.add(entry);
    entry.end(Buffer.from(m.data.buffer, m.data.byteOffset, m.data.length));
  }
  pack.end();
  const body = Buffer.concat(chunks);
  const pad = (RECORD - (body.length % RECORD)) % RECORD;
  return pad === 0 ? body : Buffer.concat([body, Buffer.alloc(pad)]);
}
