/** Hand-built tar archives for hostile-input tests: every header field under the test's control. */
export interface RawMember {
  name: string;
  data?: Buffer | string;
  /** Typeflag character (default '0'). */
  type?: string;
  /** Declared size (default: the data's length). */
  size?: number;
  linkname?: string;
  prefix?: string;
}

function put(h: Buffer, off: number, len: number, s: string): void {
  Buffer.from(s, 'latin1').copy(h, off, 0, len);
}

export function rawHeader(m: RawMember): Buffer {
  const data = Buffer.from(m.data ?? '');
  const size = m.size ?? data.length;
  const h = Buffer.alloc(512);
  put(h, 0, 100, m.name);
  put(h, 100, 8, '0000644\0');
  put(h, 108, 8, '0000000\0');
  put(h, 116, 8, '0000000\0');
  put(h, 124, 12, `${size.toString(8).padStart(11, '0')}\0`);
  put(h, 136, 12, '00000000000\0');
  h.fill(0x20, 148, 156);
  h[156] = (m.type ?? '0').charCodeAt(0);
  if (m.linkname !== undefined) put(h, 157, 100, m.linkname);
  put(h, 257, 6, 'ustar\0');
  put(h, 263, 2, '00');
  if (m.prefix !== undefined) put(h, 345, 155, m.prefix);
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += h[i]!;
  put(h, 148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return h;
}

function pad(n: number): Buffer {
  return Buffer.alloc((512 - (n % 512)) % 512);
}

/** A tar of the given members; data is written as given (so it may disagree with the declared size). */
export function rawTar(members: RawMember[], end = true): Buffer {
  const parts: Buffer[] = [];
  for (const m of members) {
    const data = Buffer.from(m.data ?? '');
    parts.push(rawHeader(m), data, pad(data.length));
  }
  if (end) parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

/** A pax extended header member setting `records` for the next member. */
export function paxMember(records: Record<string, string>): RawMember {
  let body = '';
  for (const [k, v] of Object.entries(records)) {
    const rest = ` ${k}=${v}\n`;
    let len = rest.length + 1;
    while (String(len).length + rest.length !== len) len = String(len).length + rest.length;
    body += `${len}${rest}`;
  }
  return { name: 'PaxHeader', type: 'x', data: body };
}
