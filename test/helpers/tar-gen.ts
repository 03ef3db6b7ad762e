import fc from 'fast-check';
import {
  archive,
  headerOffsets,
  member,
  octalNul,
  octalSpace,
  paxMemberSpec,
  setChecksum,
  type HeaderSpec,
  type Magic,
} from './tar-spec';

/**
 * fast-check generators of tar archives: as Python, GNU tar and node-tar write
 * them (`baseArchive`), and the hostile mutations of them that divide readers
 * (`mutation`, applied by `mutate`).
 */

type Style = 'python' | 'node' | 'gnu-spaces';
interface MemberPlan {
  name: string;
  dir: boolean;
  data: Buffer;
  magic: Magic;
  style: Style;
  /** Pax records before the member (valid ones). */
  pax: [string, string][];
  emptyIds: boolean;
}

function num(style: Style, n: number, len: number): string {
  if (style === 'node') return octalSpace(n, len);
  if (style === 'gnu-spaces') {
    // Old GNU tar: right-aligned digits after leading spaces, then a space (and a NUL when there is room).
    const d = n.toString(8);
    return `${' '.repeat(Math.max(0, len - 2 - d.length))}${d} \0`.slice(0, len);
  }
  return octalNul(n, len);
}

function planBytes(p: MemberPlan): Buffer[] {
  const out: Buffer[] = [];
  let name = p.name;
  let prefix: string | undefined;
  if (p.pax.length > 0) out.push(member(paxMemberSpec(p.pax)));
  else if (Buffer.byteLength(name) > 100 && p.magic === 'posix') {
    const cut = name.lastIndexOf('/', name.length - 2);
    prefix = name.slice(0, cut);
    name = name.slice(cut + 1);
  }
  const spec: HeaderSpec = {
    name: p.pax.some(([k]) => k === 'path') ? 'placeholder' : name + (p.dir ? '/' : ''),
    type: p.dir ? '5' : '0',
    data: p.data,
    magic: p.magic,
    mode: num(p.style, p.dir ? 0o755 : 0o644, 8),
    uid: p.emptyIds ? '' : num(p.style, 1000, 8),
    gid: p.emptyIds ? '' : num(p.style, 1000, 8),
    size: num(p.style, p.data.length, 12),
    mtime: num(p.style, 1_700_000_000, 12),
    ...(p.magic === 'gnu' ? { devmajor: '', devminor: '' } : {}),
    ...(prefix === undefined ? {} : { prefix }),
  };
  out.push(member(spec));
  return out;
}

const segment = fc.stringMatching(/^[a-z0-9._-]{1,12}$/).filter((s) => s !== '.' && s !== '..');
const memberPlan: fc.Arbitrary<MemberPlan> = fc
  .record({
    parts: fc.array(segment, { minLength: 1, maxLength: 3 }),
    long: fc.boolean(),
    dir: fc.boolean(),
    data: fc.uint8Array({ maxLength: 1400 }),
    magic: fc.constantFrom<Magic>('posix', 'posix', 'gnu'),
    style: fc.constantFrom<Style>('python', 'node', 'gnu-spaces'),
    paxKind: fc.constantFrom('none', 'none', 'path', 'mtime', 'path+times'),
    emptyIds: fc.boolean(),
  })
  .map((r) => {
    let name = r.parts.join('/');
    if (r.long) name = `${'d'.repeat(60)}/${'e'.repeat(50)}/${name}`;
    const data = r.dir ? Buffer.alloc(0) : Buffer.from(r.data);
    const pax: [string, string][] = [];
    if (r.paxKind.includes('path') || (r.long && r.magic === 'gnu')) pax.push(['path', name + (r.dir ? '/' : '')]);
    if (r.paxKind === 'mtime' || r.paxKind === 'path+times') pax.push(['mtime', '1700000000.25']);
    if (r.paxKind === 'path+times') pax.push(['atime', '1700000001.5'], ['ctime', '1700000002']);
    return { name, dir: r.dir, data, magic: r.magic, style: r.style, pax, emptyIds: r.emptyIds };
  });

export const baseArchive = fc
  .record({ members: fc.array(memberPlan, { minLength: 1, maxLength: 4 }), end: fc.constantFrom('two', 'record') })
  .map(({ members, end }) => {
    // Distinct names: duplicates are the receipt layer's business, not a reading disagreement.
    const seen = new Set<string>();
    const unique = members.filter((m) => !seen.has(m.name) && seen.add(m.name));
    return archive(unique.flatMap(planBytes), end as 'two' | 'record');
  });

/** Where header fields start (and a byte in), and field-shaped tokens to write there. */
const FIELD_STARTS = [
  0, 1, 100, 101, 108, 116, 124, 125, 136, 137, 143, 147, 156, 157, 257, 263, 265, 297, 329, 337, 345, 346, 500,
];
const TOKENS = [
  'evil',
  'x/',
  '/',
  '+1',
  '-1',
  '1_0',
  '0o7',
  ' 7 ',
  '7',
  '8',
  '\x80\x00',
  '\xff',
  '\0',
  '\0x',
  ' ',
  'ustar  \0',
  'ustar\x0000',
  'ustar\0',
  '5',
  '0',
  'x',
  'g',
  '\u00e9',
];

export type Mutation =
  | { op: 'none' }
  | { op: 'header'; which: number; at: number; byte: number; fix: boolean }
  | { op: 'token'; which: number; at: number; token: string; fix: boolean }
  | { op: 'padding'; at: number; byte: number }
  | { op: 'tail'; bytes: Uint8Array }
  | { op: 'cut'; blocks: number };

// Header bytes are where readers differ: most mutations land there, uniformly over the 512 bytes (no small-value bias).
export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 1, arbitrary: fc.constant<Mutation>({ op: 'none' }) },
  {
    weight: 8,
    arbitrary: fc.record({
      op: fc.constant('header' as const),
      which: fc.nat({ max: 7 }),
      at: fc.noBias(fc.nat({ max: 511 })),
      byte: fc.oneof(
        fc.noBias(fc.integer({ min: 0, max: 255 })),
        fc.constantFrom(0, 0x20, 0x2b, 0x2d, 0x2e, 0x2f, 0x30, 0x37, 0x38, 0x5f, 0x61, 0x6f, 0x78, 0x80, 0xff),
      ),
      fix: fc.boolean(),
    }),
  },
  {
    // Field-shaped tokens written at field starts (or anywhere): signs, underscores, 0o, spaces, base-256, magics, names.
    weight: 10,
    arbitrary: fc.record({
      op: fc.constant('token' as const),
      which: fc.nat({ max: 7 }),
      at: fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(...FIELD_STARTS) },
        { weight: 1, arbitrary: fc.noBias(fc.nat({ max: 511 })) },
      ),
      token: fc.constantFrom(...TOKENS),
      fix: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('padding' as const), at: fc.nat(), byte: fc.integer({ min: 1, max: 255 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('tail' as const), bytes: fc.uint8Array({ minLength: 1, maxLength: 600 }) }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('cut' as const), blocks: fc.integer({ min: 1, max: 21 }) }) },
);

export function mutate(good: Buffer, m: Mutation): Buffer {
  const b = Buffer.from(good);
  if (m.op === 'header') {
    const heads = headerOffsets(b);
    const at = heads[m.which % heads.length]!;
    b[at + m.at] = m.byte;
    if (m.fix && (m.at < 148 || m.at >= 156)) setChecksum(b, at);
    return b;
  }
  if (m.op === 'token') {
    const heads = headerOffsets(b);
    const at = heads[m.which % heads.length]!;
    const t = Buffer.from(m.token, m.token === '\u00e9' ? 'utf8' : 'latin1');
    t.copy(b, at + m.at, 0, Math.min(t.length, 512 - m.at));
    if (m.fix && (m.at + t.length <= 148 || m.at >= 156)) setChecksum(b, at);
    return b;
  }
  if (m.op === 'padding') {
    // A byte somewhere after the last header's data that a lenient reader skips: member padding or the end marker.
    const zeros: number[] = [];
    for (let i = 512; i < b.length; i++) if (b[i] === 0 && i % 512 > 0 && b[i - 1] !== 0) zeros.push(i);
    if (zeros.length === 0) return b;
    b[zeros[m.at % zeros.length]!] = m.byte;
    return b;
  }
  if (m.op === 'tail') return Buffer.concat([b, Buffer.from(m.bytes)]);
  if (m.op === 'cut') return b.subarray(0, Math.max(0, b.length - m.blocks * 512));
  return b;
}
