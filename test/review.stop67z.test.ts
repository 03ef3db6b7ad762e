import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { deflateSync, inflateSync } from 'node:zlib';
import { looseCommitTree, readLooseObject } from '../src/git/loose';
import { readRepoInfo } from '../src/git/repo-read';
import { inflate, ZlibError } from '../src/git/zlib-small';
import { git, initRepo } from './helpers/git';
import { tempDir } from './helpers/tmp';
import { Bits, canonical } from './helpers/deflate-bits';

/**
 * A hostile review of src/git/zlib-small.ts and its callers (loose.ts, repo-read.ts): streams at the edges of RFC
 * 1951 judged against node's inflateSync and python3's zlib, and git's own verdict on the objects and packs the
 * callers read. A fault found is the first test; the rest are edges that held, kept as guards.
 */
const tmp = tempDir('stepchain-review-stop67z-');
let n = 0;
const repo = (): string => initRepo(path.join(tmp, `r${n++}`), { 'a.txt': 'a\n' });
const objectFile = (root: string, oid: string): string =>
  path.join(root, '.git', 'objects', oid.slice(0, 2), oid.slice(2));

/** Writes `raw` (`<type> <size>\0<body>` as given) as the loose object it hashes to; returns its id. */
function plantLoose(root: string, raw: Buffer): string {
  const oid = createHash('sha1').update(raw).digest('hex');
  mkdirSync(path.dirname(objectFile(root, oid)), { recursive: true });
  writeFileSync(objectFile(root, oid), deflateSync(raw));
  return oid;
}

test('a loose object whose size has a leading zero (`commit 0123`): git refuses it, and so does readLooseObject', () => {
  const root = repo();
  const tree = git(root, ['rev-parse', 'HEAD^{tree}']);
  const body = Buffer.from(`tree ${tree}\nauthor t <t@t> 1 +0000\ncommitter t <t@t> 1 +0000\n\nx\n`);
  const oid = plantLoose(root, Buffer.concat([Buffer.from(`commit 0${body.length}\0`), body]));
  // git's parse_loose_header takes only a size in canonical decimal: "unable to parse ... header".
  expect(() => git(root, ['cat-file', '-t', oid])).toThrow(/unable to parse/);
  expect(() => git(root, ['rev-parse', `${oid}^{tree}`])).toThrow();
  const commonDir = path.join(root, '.git');
  expect(() => readLooseObject(commonDir, oid)).toThrow(/corrupt/);
  expect(() => looseCommitTree(commonDir, oid)).toThrow(/corrupt/);
  // The same commit with git's header is read (the rule is the header's, not the body's).
  const plain = plantLoose(root, Buffer.concat([Buffer.from(`commit ${body.length}\0`), body]));
  expect(git(root, ['rev-parse', `${plain}^{tree}`])).toBe(tree);
  expect(looseCommitTree(commonDir, plain)).toBe(tree);
  // A tree with such a header is refused as well, and `tree 0` (an empty tree's own header) still read.
  const zeroTree = plantLoose(root, Buffer.from('tree 00\0'));
  expect(() => readLooseObject(commonDir, zeroTree)).toThrow(/corrupt/);
  const empty = plantLoose(root, Buffer.from('tree 0\0'));
  expect(readLooseObject(commonDir, empty)).toEqual({ type: 'tree', body: Buffer.alloc(0) });
});

const ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];
/** A complete code-length code: symbols 0-12 at four bits, 13-18 at five. */
const CL = Array.from({ length: 19 }, (_, s) => (s < 13 ? 4 : 5));
const CL_CODES = canonical(CL);

/** A final dynamic block's header, then its code lengths as `[symbol, extra]` pairs of the code-length code. */
function dynamicHeader(nlen: number, ndist: number, lengths: [number, number][]): Bits {
  const w = new Bits()
    .put(1, 1)
    .put(2, 2)
    .put(nlen - 257, 5)
    .put(ndist - 1, 5)
    .put(15, 4);
  for (const s of ORDER) w.put(CL[s]!, 3);
  for (const [s, extra] of lengths) {
    w.code(CL_CODES[s]!, CL[s]!);
    if (s >= 16) w.put(extra, s === 16 ? 2 : s === 17 ? 3 : 7);
  }
  return w;
}

const sparse = (size: number, set: Record<number, number>): number[] =>
  Array.from({ length: size }, (_, s) => set[s] ?? 0);
const plainly = (lengths: number[]): [number, number][] => lengths.map((l) => [l, 0]);

type Verdict = string;
const show = (d: Buffer): Verdict => `${d.length}:${createHash('sha1').update(d).digest('hex')}`;

function ours(z: Buffer, max: number): Verdict {
  try {
    return show(inflate(z, max).data);
  } catch (e) {
    if (e instanceof ZlibError) return 'refused';
    throw e; // a TypeError, a RangeError: a crash, never a verdict
  }
}

function node(z: Buffer, max: number): Verdict {
  try {
    return show(inflateSync(z, { maxOutputLength: max }));
  } catch {
    return 'refused';
  }
}

/** python3's zlib (the system's zlib, which git links) on each stream, in one process. */
function python(cases: [Buffer, number][]): Verdict[] {
  const program = [
    'import hashlib, sys, zlib',
    'for line in sys.stdin:',
    '    h, m = line.split(); d = bytes.fromhex(h); m = int(m)',
    '    try:',
    '        o = zlib.decompressobj(); r = o.decompress(d, m + 1)',
    "        print('refused' if not o.eof or len(r) > m else '%d:%s' % (len(r), hashlib.sha1(r).hexdigest()))",
    '    except zlib.error:',
    "        print('refused')",
  ].join('\n');
  const input = cases.map(([z, m]) => `${z.toString('hex') || '00'} ${m}\n`).join('');
  return execFileSync('python3', ['-c', program], { input, encoding: 'utf8' }).trim().split('\n');
}

test('edges of RFC 1950/1951: the same verdict as node`s zlib and python3`s, at the same bound', () => {
  const cases: [string, Buffer, number][] = [];
  const add = (name: string, z: Buffer, max = 1 << 20): void => void cases.push([name, z, max]);
  // HLIT 286 and HDIST 30, their limits; a code-length 16 that repeats the last literal/length length (285's)
  // across the boundary into the distance lengths.
  const lit = sparse(286, { 97: 1, 256: 2, 285: 2 });
  const dist = [2, 2, 2, 2];
  {
    const l = canonical(lit);
    const d = canonical(dist);
    const w = dynamicHeader(286, 4, [...plainly(lit), [16, 0], [2, 0]]);
    w.code(l[97]!, 1).code(l[285]!, 2).code(d[0]!, 2).code(l[256]!, 2);
    add('16 across the lit/dist boundary, 258 by symbol 285', w.zlib(Buffer.alloc(259, 97)));
  }
  // 258 by symbol 284 and 31 extra bits (RFC 1951 says 284 ends at 257; zlib takes it), and 257 by 30.
  for (const [extra, len] of [
    [31, 258],
    [30, 257],
  ] as const) {
    const ll = sparse(286, { 97: 1, 256: 2, 284: 2 });
    const l = canonical(ll);
    const w = dynamicHeader(286, 1, [...plainly(ll), [1, 0]]);
    w.code(l[97]!, 1).code(l[284]!, 2).put(extra, 5).code(0, 1).code(l[256]!, 2);
    add(`symbol 284 + ${extra}`, w.zlib(Buffer.alloc(len + 1, 97)));
  }
  // A code-length 16 first; an 18 past the total; no distance code, unused and used; a lone one-bit distance
  // code, its code 1 (absent) used; a literal/length code of the end-of-block alone; codes of 15 bits.
  add('16 first', dynamicHeader(257, 1, [[16, 0]]).zlib(Buffer.alloc(0)));
  add(
    '18 past the total',
    dynamicHeader(257, 1, [
      [18, 127],
      [18, 110],
      [1, 0],
    ]).zlib(Buffer.alloc(0)),
  );
  for (const used of [false, true]) {
    const ll = sparse(258, { 97: 1, 256: 2, 257: 2 });
    const l = canonical(ll);
    const w = dynamicHeader(258, 1, [...plainly(ll), [0, 0]]).code(l[97]!, 1);
    if (used) w.code(l[257]!, 2).put(0, 16);
    add(`no distance code, ${used ? '' : 'un'}used`, w.code(l[256]!, 2).zlib(Buffer.from(used ? 'aaaa' : 'a')));
  }
  for (const bit of [0, 1]) {
    const ll = sparse(258, { 97: 1, 256: 2, 257: 2 });
    const l = canonical(ll);
    const w = dynamicHeader(258, 1, [...plainly(ll), [1, 0]]);
    w.code(l[97]!, 1).code(l[257]!, 2).code(bit, 1).put(0, 16).code(l[256]!, 2);
    add(`one one-bit distance code, code ${bit}`, w.zlib(Buffer.from('aaaa')));
  }
  add(
    'end-of-block alone',
    dynamicHeader(257, 1, [...plainly(sparse(257, { 256: 1 })), [1, 0]])
      .code(0, 1)
      .zlib(Buffer.alloc(0)),
  );
  add(
    'end-of-block alone, its absent code used',
    dynamicHeader(257, 1, [...plainly(sparse(257, { 256: 1 })), [1, 0]])
      .code(1, 1)
      .put(0, 16)
      .zlib(Buffer.alloc(0)),
  );
  {
    const syms = [97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 256, 111];
    const ll = sparse(257, Object.fromEntries(syms.map((s, i) => [s, Math.min(i + 1, 15)])));
    const l = canonical(ll);
    const w = dynamicHeader(257, 1, [...plainly(ll), [1, 0]]);
    const text = 'abcdefghijklmno';
    for (const c of Buffer.from(text)) w.code(l[c]!, ll[c]!);
    add('codes of 15 bits', w.code(l[256]!, ll[256]!).zlib(Buffer.from(text)));
  }
  // A distance of exactly the output's length, and one more (a fixed block: 'abc', then 3 back 3 or 4).
  for (const d of [3, 4]) {
    const w = new Bits().put(1, 1).put(1, 2);
    for (const c of Buffer.from('abc')) w.code(0x30 + c, 8);
    add(
      `distance ${d} after 3 bytes`,
      w
        .code(1, 7)
        .code(d - 1, 5)
        .code(0, 7)
        .zlib(Buffer.from('abcabc')),
    );
  }
  // Stored blocks: empty ones then the final one, none final (a cut stream), LEN and NLEN that disagree.
  add('empty stored blocks, then the final', Buffer.from('7801000000ffff000000ffff010000ffff00000001', 'hex'));
  add('no final block', Buffer.from('7801000000ffff000000ffff', 'hex'));
  add('LEN/NLEN disagree', Buffer.from('7801010000fffe00000001', 'hex'));
  // Every window size in the header (CINFO 0-15), a preset dictionary, wrong check bits.
  const empty = Buffer.from('7801010000ffff00000001', 'hex');
  for (let cinfo = 0; cinfo < 16; cinfo++) {
    const cmf = (cinfo << 4) | 8;
    add(`CINFO ${cinfo}`, Buffer.from([cmf, (31 - ((cmf << 8) % 31)) % 31, ...empty.subarray(2)]));
  }
  add('FDICT', Buffer.from([0x78, 0xbb, 0, 0, 0, 1, ...empty.subarray(2)]));
  add('FCHECK', Buffer.from([0x78, 0x02, ...empty.subarray(2)]));
  // Ending at the Adler-32, cut inside it, bytes after it; output at the bound and one past it.
  add('ends at its Adler-32', empty);
  for (let cut = 1; cut <= 4; cut++) add(`Adler-32 cut by ${cut}`, empty.subarray(0, empty.length - cut));
  add('bytes after it', Buffer.concat([empty, Buffer.from('zz')]));
  const thousand = deflateSync(Buffer.alloc(1000, 7));
  add('at the bound', thousand, 1000);
  add('one past the bound', thousand, 999);

  const py = python(cases.map(([, z, m]) => [z, m]));
  const table = cases.map(([name, z, max], i) => `${name}: ${ours(z, max)} ${node(z, max)} ${py[i]}`);
  for (const [i, [name, z, max]] of cases.entries()) {
    const v = ours(z, max);
    expect(`${name}: ${v} ${v} ${v}`).toBe(table[i]);
  }
  // The edges a decoder most easily gets wrong either way: taken where they should be, refused where not.
  const verdictOf = (name: string): string => ours(cases.find(([c]) => c === name)![1], 1 << 20);
  expect(verdictOf('symbol 284 + 31')).toMatch(/^259:/);
  expect(verdictOf('distance 3 after 3 bytes')).toMatch(/^6:/);
  expect(verdictOf('distance 4 after 3 bytes')).toBe('refused');
  expect(verdictOf('CINFO 7')).toMatch(/^0:/);
  expect(verdictOf('CINFO 8')).toBe('refused');
});

test('a pack entry whose size lies, and HEAD in two packs: git refuses or chooses, readRepoInfo leaves it to git', () => {
  const root = repo();
  git(root, ['gc', '-q']);
  const head = git(root, ['rev-parse', 'HEAD']);
  expect(readRepoInfo(root)?.head).toBe(head);
  const packDir = path.join(root, '.git', 'objects', 'pack');
  const idx = readdirSync(packDir).find((f) => f.endsWith('.idx'))!;
  const pack = path.join(packDir, idx.replace(/\.idx$/, '.pack'));
  const offset = Number(
    git(root, ['verify-pack', '-v', path.join(packDir, idx)])
      .split('\n')
      .find((l) => l.startsWith(head))!
      .split(/\s+/)[4],
  );
  const original = readFileSync(pack);
  chmodSync(pack, 0o644);
  for (const delta of [-1, 1]) {
    // The entry's size (its low four bits in the first header byte) one less, then one more, than its stream's.
    const lying = Buffer.from(original);
    lying[offset] = (lying[offset]! & 0xf0) | (((lying[offset]! & 15) + delta) & 15);
    writeFileSync(pack, lying);
    expect(() => git(root, ['rev-parse', 'HEAD^{commit}'])).toThrow(/corrupt/);
    expect(readRepoInfo(root)).toBeUndefined();
  }
  writeFileSync(pack, original);
  expect(readRepoInfo(root)?.head).toBe(head);
  execFileSync('git', ['pack-objects', '-q', path.join(packDir, 'pack')], { cwd: root, input: `${head}\n` });
  expect(git(root, ['rev-parse', 'HEAD^{commit}'])).toBe(head);
  expect(readRepoInfo(root)).toBeUndefined();
});

test('a loose tree past 32 KiB (inflated by zlib): read as git reads it, refused with a byte after its stream', () => {
  const root = repo();
  const commonDir = path.join(root, '.git');
  // Entries naming 3,000 distinct ids (a tree's bytes are mostly ids, which do not compress).
  const body = Buffer.concat(
    Array.from({ length: 3000 }, (_, i) =>
      Buffer.concat([
        Buffer.from(`100644 f${String(i).padStart(4, '0')}\0`),
        createHash('sha1').update(`${i}`).digest(),
      ]),
    ),
  );
  // Written by git (level 1), past the bound.
  const oid = execFileSync('git', ['hash-object', '-w', '-t', 'tree', '--stdin'], { cwd: root, input: body })
    .toString()
    .trim();
  const file = objectFile(root, oid);
  expect(readFileSync(file).length).toBeGreaterThan(1 << 15);
  expect(readLooseObject(commonDir, oid)).toEqual({ type: 'tree', body });
  chmodSync(file, 0o644);
  writeFileSync(file, Buffer.concat([readFileSync(file), Buffer.from([0])]));
  expect(() => git(root, ['cat-file', '-p', oid])).toThrow(/garbage at end of loose object/);
  expect(() => readLooseObject(commonDir, oid)).toThrow(/garbage/);
  // One byte fewer: cut inside the Adler-32, refused by both.
  writeFileSync(file, readFileSync(file).subarray(0, -2));
  expect(() => git(root, ['cat-file', '-p', oid])).toThrow();
  expect(() => readLooseObject(commonDir, oid)).toThrow();
});
