/**
 * Tar archives with every byte under the test's control, in the shapes real
 * writers produce (Python's tarfile, GNU tar, node-tar) and in hostile ones.
 * Numbers are given as the exact field text; `checksum` is computed unless given.
 */

export type Magic = 'posix' | 'gnu' | 'v7';

export interface HeaderSpec {
  name: string;
  /** Typeflag character (default '0'). */
  type?: string;
  /** The member's data (written after the header, zero-padded to 512). */
  data?: Buffer;
  /** Exact text of each numeric field (default: Python's style, `%0{n-1}o` + NUL). */
  mode?: string;
  uid?: string;
  gid?: string;
  size?: string;
  mtime?: string;
  checksum?: string;
  devmajor?: string;
  devminor?: string;
  linkname?: string;
  uname?: string;
  gname?: string;
  magic?: Magic;
  prefix?: string;
  /** Bytes written over the header after everything else (before the checksum). */
  patch?: { at: number; bytes: Buffer }[];
}

/** Python's numeric style: zero-padded octal, NUL-terminated. */
export const octalNul = (n: number, len: number): string => `${n.toString(8).padStart(len - 1, '0')}\0`;
/** node-tar's style: zero-padded octal, a space, then NUL when there is room. */
export const octalSpace = (n: number, len: number): string =>
  `${n.toString(8).padStart(len - 2, '0')} \0`.slice(0, len);

function put(h: Buffer, off: number, len: number, s: string | Buffer): void {
  const b = typeof s === 'string' ? Buffer.from(s, 'latin1') : s;
  b.copy(h, off, 0, Math.min(len, b.length));
}

/** The header of one member; the checksum is the unsigned sum unless `spec.checksum` is given. */
export function header(spec: HeaderSpec): Buffer {
  const data = spec.data ?? Buffer.alloc(0);
  const h = Buffer.alloc(512);
  put(h, 0, 100, Buffer.from(spec.name, 'utf8'));
  put(h, 100, 8, spec.mode ?? octalNul(0o644, 8));
  put(h, 108, 8, spec.uid ?? octalNul(0, 8));
  put(h, 116, 8, spec.gid ?? octalNul(0, 8));
  put(h, 124, 12, spec.size ?? octalNul(data.length, 12));
  put(h, 136, 12, spec.mtime ?? octalNul(1_700_000_000, 12));
  h.fill(0x20, 148, 156);
  h[156] = (spec.type ?? '0').charCodeAt(0);
  if (spec.linkname !== undefined) put(h, 157, 100, spec.linkname);
  const magic = spec.magic ?? 'posix';
  if (magic === 'posix') put(h, 257, 8, 'ustar\x0000');
  else if (magic === 'gnu') put(h, 257, 8, 'ustar  \0');
  if (magic !== 'v7') {
    if (spec.uname !== undefined) put(h, 265, 32, spec.uname);
    if (spec.gname !== undefined) put(h, 297, 32, spec.gname);
    put(h, 329, 8, spec.devmajor ?? octalNul(0, 8));
    put(h, 337, 8, spec.devminor ?? octalNul(0, 8));
  }
  if (spec.prefix !== undefined) put(h, 345, 155, Buffer.from(spec.prefix, 'utf8'));
  for (const p of spec.patch ?? []) p.bytes.copy(h, p.at);
  if (spec.checksum !== undefined) put(h, 148, 8, spec.checksum);
  else setChecksum(h, 0);
  return h;
}

/** Recomputes the checksum of the header at `at` (Python's and GNU tar's `%06o\0 `). */
export function setChecksum(buf: Buffer, at: number): void {
  buf.fill(0x20, at + 148, at + 156);
  let sum = 0;
  for (let i = at; i < at + 512; i++) sum += buf[i]!;
  buf.write(`${sum.toString(8).padStart(6, '0')}\0 `, at + 148, 8, 'latin1');
}

/** Pax extended-header records for `entries`, each `<len> <key>=<value>\n`. */
export function paxData(entries: [string, string][]): Buffer {
  const parts: Buffer[] = [];
  for (const [k, v] of entries) {
    const rest = Buffer.from(` ${k}=${v}\n`, 'utf8').length;
    let len = rest + 1;
    while (String(len).length + rest !== len) len = String(len).length + rest;
    parts.push(Buffer.from(`${len} ${k}=${v}\n`, 'utf8'));
  }
  return Buffer.concat(parts);
}

/** One member: a header, its data, zero padding (or `padding` when given, for hostile cases). */
export function member(spec: HeaderSpec, padding?: Buffer): Buffer {
  const data = spec.data ?? Buffer.alloc(0);
  const pad = (512 - (data.length % 512)) % 512;
  const tail = Buffer.alloc(pad);
  if (padding !== undefined) padding.copy(tail, 0, 0, Math.min(pad, padding.length));
  return Buffer.concat([header(spec), data, tail]);
}

/** A pax extended header member for the next member. */
export function paxMemberSpec(entries: [string, string][], extra: Partial<HeaderSpec> = {}): HeaderSpec {
  return { name: 'PaxHeader/x', type: 'x', data: paxData(entries), ...extra };
}

/** Members followed by the end-of-archive marker: `two` zero blocks, or padded to a 10240-byte record. */
export function archive(members: Buffer[], end: 'two' | 'record' | 'none' = 'two'): Buffer {
  const body = Buffer.concat(members);
  if (end === 'none') return body;
  const two = body.length + 1024;
  const total = end === 'record' ? Math.ceil(two / 10240) * 10240 : two;
  return Buffer.concat([body, Buffer.alloc(total - body.length)]);
}

/** The offsets of every header in a well-formed archive (walking sizes as plain octal). */
export function headerOffsets(buf: Buffer): number[] {
  const out: number[] = [];
  let off = 0;
  while (off + 512 <= buf.length) {
    const h = buf.subarray(off, off + 512);
    if (h.every((b) => b === 0)) break;
    out.push(off);
    const size = parseInt(h.toString('latin1', 124, 136).replace(/[\0 ]/g, '') || '0', 8);
    off += 512 + Math.ceil((Number.isFinite(size) ? size : 0) / 512) * 512;
  }
  return out;
}
