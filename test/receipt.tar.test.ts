import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { generateKeyPairSync } from 'node:crypto';
import { Cas, casDir, Journal, journalDir, journalFile } from '../src/journal';
import { buildReceipt, parsePrivateKey, readTar, ReceiptFormatError, verifyReceipt } from '../src/receipt';
import { repoRoot } from './helpers/paths';
import {
  archive,
  header,
  headerOffsets,
  member,
  octalSpace,
  paxData,
  paxMemberSpec,
  setChecksum,
  type HeaderSpec,
} from './helpers/tar-spec';
import { baseArchive, mutate, mutation } from './helpers/tar-gen';
import { tempDir } from './helpers/tmp';
import { python3 } from './helpers/python';

/**
 * One reading of every archive: whatever stepchain's tar reader accepts,
 * Python's tarfile and GNU tar read as the same members with the same bytes.
 * Archives are generated here (in the shapes Python, GNU tar and node-tar
 * write, then mutated byte by byte), every one is read by all three, and the
 * readers are compared. The hostile corpus of the archive-disagreement attacks
 * is refused by name.
 */

jest.setTimeout(300000);

for (const tool of ['python3', 'tar']) {
  if (spawnSync(tool, ['--version']).status !== 0) throw new Error(`these tests need ${tool}`);
}
if (!/GNU tar/.test(spawnSync('tar', ['--version'], { encoding: 'utf8' }).stdout))
  throw new Error('these tests need GNU tar (apt-get install -y tar)');

const root = tempDir('stepchain-tar-');
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

interface Member {
  /** The name's UTF-8 bytes in hex (names may hold any bytes). */
  name: string;
  type: string;
  sha256: string;
}
type Reading = { ok: true; members: Member[] } | { ok: false; error: string };

const hexName = (s: string): string => Buffer.from(s.replace(/\/+$/, ''), 'utf8').toString('hex');

function ours(buf: Buffer): Reading {
  try {
    const members = readTar(buf).map((e) => ({
      name: e.type === 'directory' ? hexName(e.name) : Buffer.from(e.name, 'utf8').toString('hex'),
      type: e.type === 'directory' ? 'dir' : 'file',
      sha256: sha(e.data),
    }));
    return { ok: true, members };
  } catch (e) {
    if (e instanceof ReceiptFormatError) return { ok: false, error: `${e.kind}: ${e.message}` };
    throw e; // anything else is a crash of the reader: the test fails
  }
}

/** Python's tarfile on many files in one process (test/python/read_tars.py). */
function pythonReads(files: string[]): Reading[] {
  const r = spawnSync(python3(), [path.join(repoRoot, 'test', 'python', 'read_tars.py'), ...files], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  if (r.status !== 0) throw new Error(`read_tars.py: ${r.stderr}`);
  return r.stdout
    .trim()
    .split('\n')
    .map((l) => {
      const d = JSON.parse(l) as { ok: boolean; error?: string; members?: (Member & { size: number })[] };
      return d.ok
        ? { ok: true, members: d.members!.map((m) => ({ name: m.name, type: m.type, sha256: m.sha256 })) }
        : { ok: false, error: d.error! };
    });
}

/** A C-quoted name as GNU tar lists it (`--quoting-style=c`), back to its bytes. */
function unquoteC(line: string): Buffer {
  const s = line.slice(1, -1);
  const out: number[] = [];
  const simple: Record<string, number> = { n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11, '\\': 92, '"': 34, '?': 63 };
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== '\\') {
      for (const b of Buffer.from(s[i]!, 'utf8')) out.push(b);
      continue;
    }
    const c = s[++i]!;
    if (/[0-7]/.test(c)) {
      let oct = c;
      while (oct.length < 3 && /[0-7]/.test(s[i + 1] ?? '')) oct += s[++i];
      out.push(parseInt(oct, 8));
    } else out.push(simple[c] ?? c.charCodeAt(0));
  }
  return Buffer.from(out);
}

/** The C-quoted name that ends a verbose listing line (an unescaped quote opens it: quotes inside are escaped). */
function trailingQuoted(line: string): string {
  for (let j = line.length - 2; j >= 0; j--) {
    if (line[j] !== '"') continue;
    let k = j - 1;
    while (k >= 0 && line[k] === '\\') k--;
    if ((j - 1 - k) % 2 === 0) return line.slice(j);
  }
  return line;
}

/**
 * The size a verbose listing line gives (the number before the date and time; the owner and group before it are the
 * header's, spaces and all, so the line is read from its end), or undefined.
 */
function listedSize(line: string, quoted: string): number | undefined {
  const m = / (\d+) +(?:-?\d+-\d\d-\d\d \d\d:\d\d|-?\d+) *$/.exec(line.slice(0, line.length - quoted.length));
  return m ? Number(m[1]) : undefined;
}

interface Ran {
  status: number | null;
  stdout: Buffer;
  stderr: string;
}

/**
 * GNU tar's readings of `files`: for each, one `tar -xvvO`, which writes every regular file's bytes, in archive
 * order, to stdout (the same extraction over a pipe as `--to-command`: nothing is written to disk, directories and
 * links are skipped) and its verbose listing (the lines `tar --list --verbose` prints, from the same code) to stderr,
 * all run by one shell (a process per archive from this test was most of its time; a `--list` and an `-xO` per
 * archive, ~960 tar processes, were still half its CPU). The bytes are cut by the listed sizes and hashed here
 * (`--to-command=sha256sum` started a shell and a sha256sum per member).
 */
function gnuReadsMany(files: string[]): Reading[] {
  if (files.length === 0) return [];
  const script = `for f in "$@"; do
  tar -xvvO --quoting-style=c -f "$f" >"$f.x1" 2>"$f.x2"; echo $? >"$f.x0"
done`;
  const r = spawnSync('bash', ['-c', script, 'gnu', ...files], { encoding: 'utf8' });
  expect([r.status, r.stderr]).toEqual([0, '']);
  return files.map((f) =>
    gnuReading({
      status: Number(readFileSync(`${f}.x0`, 'utf8')),
      stdout: readFileSync(`${f}.x1`),
      stderr: readFileSync(`${f}.x2`, 'utf8'),
    }),
  );
}

/** A verbose listing line: the type letter, then the nine permission letters and a space. */
const LISTING_LINE = /^.[-rwxsStT]{9} /;

function gnuReading(x: Ran): Reading {
  const lines = x.stderr.split('\n').filter(Boolean);
  // Anything on stderr that is no listing line is a message of tar's (a warning, an error): not a clean reading.
  const said = lines.filter((l) => !LISTING_LINE.test(l));
  if (x.status !== 0 || said.length > 0) return { ok: false, error: `extract: ${said.join('\n').trim()}` };
  const members: Member[] = [];
  let at = 0; // how far the extracted bytes are taken
  for (const l of lines) {
    // The mode string's first letter is the type.
    const type = l[0];
    const quoted = trailingQuoted(l);
    const raw = unquoteC(quoted);
    const name = raw.toString('hex');
    if (type === 'd') members.push({ name: hexName(raw.toString('utf8')), type: 'dir', sha256: sha(Buffer.alloc(0)) });
    else if (type === '-') {
      const size = listedSize(l, quoted);
      if (size === undefined) return { ok: false, error: `no size in the listing line ${JSON.stringify(l)}` };
      const bytes = at + size <= x.stdout.length ? x.stdout.subarray(at, at + size) : undefined;
      at += size;
      members.push({ name, type: 'file', sha256: bytes ? sha(bytes) : 'not extracted' });
    } else members.push({ name, type: `gnu type ${type}`, sha256: '' });
  }
  if (at < x.stdout.length) return { ok: false, error: 'more bytes extracted than listed' };
  return { ok: true, members };
}

/** Reads every archive with all three readers; returns each archive's three readings. */
function readAll(archives: Buffer[], tag: string): { buf: Buffer; ours: Reading; python: Reading; gnu?: Reading }[] {
  const dir = path.join(root, tag);
  mkdirSync(dir, { recursive: true });
  const files = archives.map((b, i) => {
    const f = path.join(dir, `${i}.tar`);
    writeFileSync(f, b);
    return f;
  });
  const py = pythonReads(files);
  const mine = archives.map((buf) => ours(buf));
  // GNU tar only where we accept (its verdict on the rest does not matter, and it is the slow reader).
  const accepted = files.filter((_f, i) => mine[i]!.ok);
  const gnu = new Map(gnuReadsMany(accepted).map((g, k) => [accepted[k]!, g]));
  return archives.map((buf, i) => {
    const o = mine[i]!;
    return o.ok ? { buf, ours: o, python: py[i]!, gnu: gnu.get(files[i]!)! } : { buf, ours: o, python: py[i]! };
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Archives in the shapes real writers produce.

const file = (name: string, data: string, extra: Partial<HeaderSpec> = {}): HeaderSpec => ({
  name,
  data: Buffer.from(data),
  ...extra,
});

/**
 * Names GNU tar rewrites or skips on purpose (a leading `/` removed, `..`
 * refused) are the receipt layer's to refuse (unsafe_member): for those the
 * comparison is with Python alone.
 */
const gnuRewrites = (buf: Buffer): boolean =>
  readTar(buf).some((e) => e.name.startsWith('/') || e.name.split('/').includes('..'));

function expectAgreement(r: { buf: Buffer; ours: Reading; python: Reading; gnu?: Reading }): void {
  if (!r.ours.ok) return;
  // Accepted: Python's tarfile and GNU tar read the very same members, bytes and all.
  expect(r.python).toEqual(r.ours);
  if (!gnuRewrites(r.buf)) expect(r.gnu).toEqual(r.ours);
}

describe('whatever stepchain accepts, Python tarfile and GNU tar read alike', () => {
  it('archives as Python, GNU tar and node-tar write them: all accepted, all read alike', () => {
    const archives = fc.sample(fc.noBias(baseArchive), { numRuns: 60, seed: 1202 });
    const read = readAll(archives, 'base');
    for (const r of read) {
      expect(r.ours).toMatchObject({ ok: true });
      expectAgreement(r);
    }
  });

  it('mutated archives (header bytes with and without a fixed checksum, padding, trailing bytes, cut ends)', () => {
    const cases = fc.sample(fc.noBias(fc.tuple(baseArchive, mutation)), { numRuns: 1000, seed: 20261202 });
    const read = readAll(
      cases.map(([a, m]) => mutate(a, m)),
      'mutated',
    );
    let accepted = 0;
    for (const r of read) {
      if (r.ours.ok) accepted++;
      expectAgreement(r);
    }
    // Both verdicts occur (the generator reaches both sides of every rule it can).
    expect(accepted).toBeGreaterThan(50);
    expect(accepted).toBeLessThan(read.length);
  });
});

describe('every token at every field start', () => {
  it('of archives in each shape (ustar, GNU, node-tar, directories, pax): whatever is accepted is read alike', () => {
    const bases: Buffer[] = [
      archive([member(file('dir/a.txt', 'hello'))]),
      archive([member(file('dir/a.txt', 'hello', { magic: 'gnu', devmajor: '', devminor: '' }))]),
      archive([member(file('b.txt', 'x'.repeat(700), { mode: octalSpace(0o644, 8), uid: '', gid: '' }))]),
      archive([member(paxMemberSpec([['path', 'long/name.txt']])), member(file('short', 'p'))]),
    ];
    // The fields readers parse differently, and tokens each reader takes its own way.
    const starts = [0, 1, 100, 101, 108, 124, 125, 136, 137, 147, 156, 157, 257, 263, 265, 329, 345, 346, 500];
    const tokens = [
      'evil',
      '/',
      '+1',
      '1_0',
      '0o7',
      ' 7 ',
      '8',
      '\x80\x00',
      '\0x',
      ' ',
      'ustar  \0',
      'ustar\x0000',
      '5',
      'g',
      '\u00e9',
    ];
    const archives: Buffer[] = [];
    for (const base of bases) {
      const heads = headerOffsets(base);
      for (const which of heads.keys())
        for (const at of starts)
          for (const token of tokens) archives.push(mutate(base, { op: 'token', which, at, token, fix: true }));
    }
    const read = readAll(archives, 'grid');
    let accepted = 0;
    for (const r of read) {
      if (r.ours.ok) accepted++;
      expectAgreement(r);
    }
    expect(accepted).toBeGreaterThan(100);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The hostile corpus: archives on which the readers disagree. Each is refused, by name.

describe('archives on which readers disagree are refused', () => {
  const cases: [string, () => Buffer, string, RegExp][] = [
    [
      'a pax path hidden in the pax header padding (Python reads it, others do not)',
      () => {
        const hidden = paxData([['path', 'evil.txt']]);
        return archive([member(paxMemberSpec([['mtime', '1700000000']]), hidden), member(file('a.txt', 'x'))]);
      },
      'corrupt_archive',
      /padding/,
    ],
    [
      'non-zero bytes in a file member padding',
      () => archive([member(file('a.txt', 'x'), Buffer.from('hidden'))]),
      'corrupt_archive',
      /padding/,
    ],
    [
      'a ustar prefix under a GNU magic (Python prepends it, GNU tar ignores it)',
      () => archive([member(file('a.txt', 'x', { magic: 'gnu', prefix: 'evil' }))]),
      'corrupt_archive',
      /GNU header/,
    ],
    [
      'a prefix under an unknown (v7) magic',
      () => archive([member(file('a.txt', 'x', { magic: 'v7', prefix: 'evil' }))]),
      'corrupt_archive',
      /magic/,
    ],
    [
      'a non-octal mtime (Python: invalid header, GNU tar: a number)',
      () => archive([member(file('a.txt', 'x', { mtime: '123 4567012\0' }))]),
      'corrupt_archive',
      /mtime/,
    ],
    [
      'an mtime with a sign (GNU tar reads base-64, Python an octal)',
      () => archive([member(file('a.txt', 'x', { mtime: '+1234567012\0' }))]),
      'corrupt_archive',
      /mtime/,
    ],
    [
      "an mtime with an underscore or 0o (Python's int() takes them, GNU tar does not)",
      () => archive([member(file('a.txt', 'x', { mtime: '0o123456701\0' }))]),
      'corrupt_archive',
      /mtime/,
    ],
    [
      'digits after a leading NUL (Python: 0)',
      () => archive([member(file('a.txt', 'x', { mtime: '\x0012345670\0\0' }))]),
      'corrupt_archive',
      /mtime/,
    ],
    [
      'a base-256 uid',
      () => archive([member(file('a.txt', 'x', { uid: '\x80\0\0\0\0\0\x10\0' }))]),
      'corrupt_archive',
      /uid/,
    ],
    ['a malformed mode', () => archive([member(file('a.txt', 'x', { mode: '0000649\0' }))]), 'corrupt_archive', /mode/],
    [
      'a size with no terminator',
      () => archive([member(file('a.txt', 'x', { size: '000000000001' }))]),
      'corrupt_archive',
      /size/,
    ],
    [
      'a checksum that only the signed sum matches',
      () => {
        const h = header(file('caf\u00e9.txt', 'x'));
        let signed = 0;
        for (let i = 0; i < 512; i++) signed += i >= 148 && i < 156 ? 0x20 : h[i]! > 127 ? h[i]! - 256 : h[i]!;
        return archive([member(file('caf\u00e9.txt', 'x', { checksum: `${signed.toString(8).padStart(6, '0')}\0 ` }))]);
      },
      'not_a_receipt',
      /checksum/,
    ],
    [
      'junk after the NUL of a name',
      () => archive([member(file('a.txt', 'x', { patch: [{ at: 6, bytes: Buffer.from('junk') }] }))]),
      'corrupt_archive',
      /name field/,
    ],
    [
      "bytes in the header's last 12 bytes",
      () => archive([member(file('a.txt', 'x', { patch: [{ at: 505, bytes: Buffer.from('x') }] }))]),
      'corrupt_archive',
      /padding/,
    ],
    [
      'a pax key outside the accepted few (uid)',
      () => archive([member(paxMemberSpec([['uid', '0']])), member(file('a.txt', 'x'))]),
      'corrupt_archive',
      /pax key "uid"/,
    ],
    [
      'hdrcharset (changes how Python decodes names)',
      () => archive([member(paxMemberSpec([['hdrcharset', 'BINARY']])), member(file('a.txt', 'x'))]),
      'corrupt_archive',
      /hdrcharset/,
    ],
    [
      'a pax linkpath',
      () => archive([member(paxMemberSpec([['linkpath', '/etc/passwd']])), member(file('a.txt', 'x'))]),
      'unsafe_member',
      /linkpath/,
    ],
    [
      'a key twice in one pax header',
      () =>
        archive([
          member(
            paxMemberSpec([
              ['path', 'a.txt'],
              ['path', 'evil.txt'],
            ]),
          ),
          member(file('b.txt', 'x')),
        ]),
      'corrupt_archive',
      /twice/,
    ],
    [
      'a pax record length with a leading zero',
      () => {
        const pax = Buffer.from('018 path=evil.txt\n');
        return archive([member({ name: 'PaxHeader/x', type: 'x', data: pax }), member(file('a.txt', 'x'))]);
      },
      'corrupt_archive',
      /record length/,
    ],
    [
      'a NUL inside the declared pax data, records after it (Python stops at the NUL)',
      () => {
        const pax = Buffer.concat([Buffer.from('\0'), paxData([['path', 'evil.txt']])]);
        return archive([member({ name: 'PaxHeader/x', type: 'x', data: pax }), member(file('a.txt', 'x'))]);
      },
      'corrupt_archive',
      /malformed record/,
    ],
    [
      'a non-numeric pax size (Python: 0)',
      () => archive([member(paxMemberSpec([['size', '1_0']])), member(file('a.txt', 'x'))]),
      'corrupt_archive',
      /size/,
    ],
    [
      'a pax global header',
      () => archive([member({ name: 'g', type: 'g', data: paxData([['comment', 'x']]) }), member(file('a.txt', 'x'))]),
      'unsafe_member',
      /global/,
    ],
    [
      'a Solaris extended header',
      () =>
        archive([member({ name: 'X', type: 'X', data: paxData([['path', 'evil.txt']]) }), member(file('a.txt', 'x'))]),
      'unsafe_member',
      /Solaris/,
    ],
    [
      'an old-style regular file whose name ends in a slash (Python: a directory)',
      () => archive([member(file('a/', 'x', { type: '\0' }))]),
      'unsafe_member',
      /v7/,
    ],
    [
      'a pax path ending in a slash on a file (Python strips it)',
      () => archive([member(paxMemberSpec([['path', 'a.txt/']])), member(file('x', 'y'))]),
      'corrupt_archive',
      /directory's name/,
    ],
    [
      'a directory with data (Python does not skip it, GNU tar does)',
      () => archive([member({ name: 'd/', type: '5', data: Buffer.from('x'.repeat(600)) }), member(file('a', 'b'))]),
      'corrupt_archive',
      /has data/,
    ],
    [
      'a link name on a regular file',
      () => archive([member(file('a.txt', 'x', { linkname: 'b' }))]),
      'corrupt_archive',
      /link name/,
    ],
    [
      'a lone zero block, then a member (GNU tar reads on, Python stops)',
      () => Buffer.concat([member(file('a.txt', 'x')), Buffer.alloc(512), archive([member(file('b.txt', 'y'))])]),
      'trailing_data',
      /after the end-of-archive/,
    ],
    [
      'a lone zero block at the end',
      () => Buffer.concat([member(file('a.txt', 'x')), Buffer.alloc(512)]),
      'truncated',
      /lone zero block/,
    ],
    ['no end-of-archive marker', () => member(file('a.txt', 'x')), 'truncated', /end-of-archive marker/],
  ];

  it.each(cases)('%s', (_name, make, kind, why) => {
    let err: unknown;
    try {
      readTar(make());
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ReceiptFormatError);
    expect((err as ReceiptFormatError).kind).toBe(kind);
    expect((err as ReceiptFormatError).message).toMatch(why);
    expect((err as ReceiptFormatError).message).not.toMatch(/\n/);
  });

  it('the corpus really divides the readers: Python or GNU tar read several of them differently from each other', () => {
    const read = readAll(
      cases.map(([, make]) => make()),
      'corpus',
    );
    const gnu = (i: number): Reading => gnuReadsMany([path.join(root, 'corpus', `${i}.tar`)])[0]!;
    // The headline cases, shown: the hidden pax path, the prefix under GNU magic, the non-octal mtime.
    expect(read[0]!.python).toMatchObject({ ok: true, members: [{ name: hexName('evil.txt') }] });
    expect(gnu(0)).toMatchObject({ ok: true, members: [{ name: hexName('a.txt') }] });
    expect(read[2]!.python).toMatchObject({ ok: true, members: [{ name: hexName('evil/a.txt') }] });
    expect(gnu(2)).toMatchObject({ ok: true, members: [{ name: hexName('a.txt') }] });
    expect(read[4]!.python).toMatchObject({ ok: false });
    expect(spawnSync('tar', ['-tf', path.join(root, 'corpus', '4.tar')]).status).toBe(0);
  });
});

describe('the attack, whole: one signed receipt, two journals', () => {
  it('a pax path hidden in padding makes Python read another journal from the same signed bytes: refused', () => {
    const project = path.join(root, 'attack');
    const evil = Buffer.from('{"transfer":"$10000 to mallory"}\n');
    const j = Journal.open(journalDir(project, 'payments'), { durability: 'none' });
    j.append({ prompt: 'transfer $10 to alice', blobs: [evil] });
    const { privateKey } = generateKeyPairSync('ed25519');
    const key = parsePrivateKey(Buffer.from(privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()), 'k.pem');
    const honest = buildReceipt(journalFile(project, 'payments'), { signKey: key, cas: new Cas(casDir(project)) });
    expect(verifyReceipt(honest.bytes, { publicKeys: [key.publicKey] }).ok).toBe(true);
    // The same members; before the blob, a pax header whose padding says `path=journal/000000.jsonl`.
    const parts = readTar(honest.bytes).map((e) =>
      e.name.startsWith('blobs/')
        ? Buffer.concat([
            member(paxMemberSpec([['mtime', '1700000000']]), paxData([['path', 'journal/000000.jsonl']])),
            member({ name: e.name, data: Buffer.from(e.data) }),
          ])
        : member({ name: e.name, data: Buffer.from(e.data) }),
    );
    const hostile = archive(parts, 'record');
    const f = path.join(root, 'attack.tar');
    writeFileSync(f, hostile);
    // Python's tarfile: the last journal/000000.jsonl (the one getmember returns) is the hidden blob.
    const py = spawnSync(
      python3(),
      [
        '-c',
        'import sys,tarfile; t=tarfile.open(sys.argv[1]); sys.stdout.write(t.extractfile("journal/000000.jsonl").read().decode())',
        f,
      ],
      { encoding: 'utf8' },
    );
    expect(py.stdout).toBe(evil.toString());
    // stepchain: refused, and says why.
    const r = verifyReceipt(hostile, { publicKeys: [key.publicKey] });
    expect(r.ok).toBe(false);
    expect(r.errors.map((e) => e.kind)).toEqual(['corrupt_archive']);
    expect(r.errors[0]!.message).toMatch(/padding/);
  });
});

describe('the attack, whole: one gzip receipt, two archives', () => {
  it('a tar hidden in the gzip header (FEXTRA) makes GNU tar read another journal from the same bytes: refused', () => {
    const project = path.join(root, 'polyglot');
    const j = Journal.open(journalDir(project, 'payments'), { durability: 'none' });
    j.append({ prompt: 'transfer $10 to alice', ts: 1_700_000_000 });
    const { privateKey } = generateKeyPairSync('ed25519');
    const key = parsePrivateKey(Buffer.from(privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()), 'k.pem');
    const honest = buildReceipt(journalFile(project, 'payments'), { signKey: key });
    const gz = gzipSync(honest.bytes);
    expect(verifyReceipt(gz, { publicKeys: [key.publicKey] }).ok).toBe(true);
    // A plain tar of the same members but another journal, behind a first header that begins with the
    // gzip header (FLG.FEXTRA set, XLEN covering the rest of the tar); the deflate stream follows it.
    const evil = '{"transfer":"$10000 to mallory"}\n';
    const inner = archive([
      member({ name: 'x' }),
      ...readTar(honest.bytes).map((e) =>
        member({ name: e.name, data: e.name.startsWith('journal/') ? Buffer.from(evil) : Buffer.from(e.data) }),
      ),
    ]);
    const xlen = inner.length - 12;
    Buffer.from([...gz.subarray(0, 10), xlen & 0xff, xlen >> 8]).copy(inner, 0);
    inner[3] = gz[3]! | 0x04;
    setChecksum(inner, 0);
    const hostile = Buffer.concat([inner, gz.subarray(10)]);
    const f = path.join(root, 'polyglot.receipt.tar.gz');
    writeFileSync(f, hostile);
    // The gzip view is the honest, signed receipt; GNU tar reads the plain tar and extracts the other journal.
    expect(gunzipSync(hostile).equals(honest.bytes)).toBe(true);
    const gnu = spawnSync('tar', ['-xOf', f, 'journal/000000.jsonl'], { encoding: 'utf8' });
    expect(gnu.stdout).toBe(evil);
    // stepchain: refused, and says why.
    const r = verifyReceipt(hostile, { publicKeys: [key.publicKey] });
    expect(r.ok).toBe(false);
    expect(r.errors.map((e) => e.kind)).toEqual(['corrupt_archive']);
    expect(r.errors[0]!.message).toMatch(/also read as a tar header/);
    // An honest gzip receipt is not one (its first block fails every checksum).
    expect(verifyReceipt(gz, { publicKeys: [key.publicKey] }).ok).toBe(true);
  });
});

describe('count bombs', () => {
  it('a million directory headers: one refusal, bounded memory, no stack overflow', () => {
    const dirHeader = header({ name: 'journal/', type: '5' });
    const n = 1_000_000;
    const buf = Buffer.alloc((n + 2) * 512);
    for (let i = 0; i < n; i++) dirHeader.copy(buf, i * 512);
    const before = process.memoryUsage().heapUsed;
    let err: unknown;
    try {
      readTar(buf, { maxMembers: 1000 });
    } catch (e) {
      err = e;
    }
    expect((err as ReceiptFormatError).kind).toBe('too_many_members');
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(64 * 1024 * 1024);
  });
});
