/**
 * The deterministic receipt archive writer (the reader, which trusts nothing, is `tar.ts`).
 */
const BLOCK = 512;
const RECORD = 20 * BLOCK;

export interface TarWriteMember {
  name: string;
  data: Uint8Array;
}

function octal(h: Buffer, off: number, len: number, value: number): void {
  // `len - 1` digits and a NUL, as GNU tar and Python write them.
  h.write(value.toString(8).padStart(len - 1, '0'), off, len - 1, 'latin1');
  h[off + len - 1] = 0;
}

/**
 * A deterministic ustar archive: members in the order given, mode 0644, uid/gid
 * 0, no user names, one mtime for all; two zero blocks and padding to a
 * 10240-byte record, as tar and Python's tarfile write.
 */
export function writeTar(members: TarWriteMember[], mtime: number): Buffer {
  const parts: Buffer[] = [];
  let total = 0;
  for (const m of members) {
    const nameBytes = Buffer.from(m.name, 'utf8');
    if (nameBytes.length > 100 || /[^\x21-\x7e]/.test(m.name))
      throw new Error(`tar writer: unsupported member name ${JSON.stringify(m.name)}`);
    if (m.data.length >= 8 ** 11) throw new Error(`tar writer: member ${m.name} is too large for a ustar header`);
    const h = Buffer.alloc(BLOCK);
    nameBytes.copy(h, 0);
    octal(h, 100, 8, 0o644);
    octal(h, 108, 8, 0);
    octal(h, 116, 8, 0);
    octal(h, 124, 12, m.data.length);
    octal(h, 136, 12, Math.max(0, Math.floor(mtime)));
    h.fill(0x20, 148, 156);
    h[156] = 0x30; // '0': regular file
    h.write('ustar\0', 257, 'latin1');
    h.write('00', 263, 'latin1');
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += h[i]!;
    h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'latin1');
    const pad = (BLOCK - (m.data.length % BLOCK)) % BLOCK;
    parts.push(h, Buffer.from(m.data.buffer, m.data.byteOffset, m.data.length));
    if (pad > 0) parts.push(Buffer.alloc(pad));
    total += BLOCK + m.data.length + pad;
  }
  const end = 2 * BLOCK;
  const tail = end + ((RECORD - ((total + end) % RECORD)) % RECORD);
  parts.push(Buffer.alloc(tail));
  return Buffer.concat(parts, total + tail);
}
