import { createHash } from 'node:crypto';
import { constants, deflateSync, inflateSync } from 'node:zlib';
import fc from 'fast-check';
import { adler32, deflateStored, inflate, ZlibError } from '../src/git/zlib-small';
import { Bits, canonical } from './helpers/deflate-bits';

/**
 * src/git/zlib-small.ts replaces node:zlib on the hook's path (git's loose and packed objects). Its inflate must
 * answer what zlib's (node's inflateSync) answers: the same bytes when zlib accepts a stream, a refusal when zlib
 * refuses one, with the same bound on the output. Checked here against node on streams node made (every level and
 * strategy), on those streams damaged, and on hand-made streams that break one rule of RFC 1950/1951 each.
 */

type Verdict = { data: Buffer } | 'refused';

/** What our inflate makes of `b` with at most `max` bytes out; any error but a ZlibError fails the test. */
function ours(b: Uint8Array, max: number): Verdict {
  try {
    return { data: inflate(b, max).data };
  } catch (e) {
    if (e instanceof ZlibError) return 'refused';
    throw e;
  }
}

function node(b: Uint8Array, max: number): Verdict {
  try {
    return { data: inflateSync(b, { maxOutputLength: max }) };
  } catch {
    return 'refused';
  }
}

/** Both verdicts, as comparable values (a hex digest of the output: a 64 KiB difference prints short). */
function verdicts(b: Uint8Array, max: number): [string, string] {
  const show = (v: Verdict): string =>
    v === 'refused' ? v : `${v.data.length}:${createHash('sha256').update(v.data).digest('hex')}`;
  return [show(ours(b, max)), show(node(b, max))];
}

function expectSame(b: Uint8Array, max = 1 << 20): string {
  const [a, n] = verdicts(b, max);
  expect(a).toBe(n);
  return a;
}

const STRATEGIES = [
  constants.Z_DEFAULT_STRATEGY,
  constants.Z_FILTERED,
  constants.Z_HUFFMAN_ONLY,
  constants.Z_RLE,
  constants.Z_FIXED,
];

/** Bodies of the shapes git's objects and the edge cases have. */
const body = fc.oneof(
  fc.uint8Array({ maxLength: 2000 }).map((a) => Buffer.from(a)),
  fc.string({ maxLength: 3000 }).map((s) => Buffer.from(s)),
  // repetitive: runs and repeats (long matches, distances up to the window)
  fc
    .tuple(fc.uint8Array({ minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 900 }))
    .map(([a, n]) => Buffer.concat(Array.from({ length: n }, () => a))),
  fc.constantFrom(Buffer.alloc(0), Buffer.from('x'), Buffer.alloc(65537, 0x61)),
);

/** A commit and a tree as git stores them (`<type> <size>\0<body>`). */
function gitObjects(seed: number): Buffer[] {
  const id = (i: number): Buffer => createHash('sha1').update(`${seed}-${i}`).digest();
  const commit = Buffer.from(
    `tree ${id(0).toString('hex')}\nparent ${id(1).toString('hex')}\nauthor A U Thor <a@example.com> ${seed} +0000\n` +
      `committer A U Thor <a@example.com> ${seed} +0000\n\nstep ${seed}\n`,
  );
  const tree = Buffer.concat(
    Array.from({ length: 60 }, (_, i) => Buffer.concat([Buffer.from(`100644 file${i}.py\0`), id(i + 2)])),
  );
  return [commit, tree].map((b, i) => Buffer.concat([Buffer.from(`${i ? 'tree' : 'commit'} ${b.length}\0`), b]));
}

describe('inflate agrees with node on what node deflated', () => {
  test('every level and strategy, random and structured bodies', () => {
    fc.assert(
      fc.property(body, fc.integer({ min: 0, max: 9 }), fc.constantFrom(...STRATEGIES), (b, level, strategy) => {
        const z = deflateSync(b, { level, strategy });
        const r = inflate(z, b.length);
        expect(r.data.equals(b)).toBe(true);
        expect(r.end).toBe(z.length);
        // One byte less room than the data needs: refused by both.
        if (b.length > 1) expect(verdicts(z, b.length - 1)).toEqual(['refused', 'refused']);
      }),
      { numRuns: 300 },
    );
  });

  test('git-shaped objects, 64 KiB + 1, and the empty body, at every level and strategy', () => {
    const bodies = [...gitObjects(1765000000), ...gitObjects(7), Buffer.alloc(0), Buffer.from('a')];
    bodies.push(Buffer.from(Array.from({ length: 65537 }, (_, i) => (i * 7919) % 251)));
    for (const b of bodies)
      for (let level = 0; level <= 9; level++)
        for (const strategy of STRATEGIES) {
          const z = deflateSync(b, { level, strategy });
          expect(inflate(z, b.length).data.equals(b)).toBe(true);
        }
  });
});

/** One way to damage a stream: a flipped bit, a cut, bytes after it, another Adler-32, another header. */
const mutation = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('append' as const), bytes: fc.uint8Array({ minLength: 1, maxLength: 8 }) }),
  fc.record({
    kind: fc.constant('adler' as const),
    at: fc.integer({ min: 1, max: 4 }),
    xor: fc.integer({ min: 1, max: 255 }),
  }),
  fc.record({
    kind: fc.constant('header' as const),
    cmf: fc.integer({ min: 0, max: 255 }),
    flg: fc.integer({ min: 0, max: 255 }),
  }),
);

/** FLG with FDICT and FLEVEL from `flg` and the check bits that make `cmf`'s header right. */
function checked(cmf: number, flg: number): number {
  return flg + ((31 - (((cmf << 8) | flg) % 31)) % 31);
}

function mutate(z: Buffer, m: typeof mutation extends fc.Arbitrary<infer T> ? T : never): Buffer {
  const out = Buffer.from(z);
  switch (m.kind) {
    case 'flip':
      out[m.at % out.length]! ^= 1 << m.bit;
      return out;
    case 'cut':
      return out.subarray(0, m.at % out.length);
    case 'append':
      return Buffer.concat([out, m.bytes]);
    case 'adler':
      out[out.length - m.at]! ^= m.xor;
      return out;
    case 'header': {
      // Any header, half the time one whose check bits are right (so that what follows is what decides).
      out[0] = m.cmf;
      out[1] = m.flg % 2 === 0 ? m.flg : checked(m.cmf, m.flg & 0xe0);
      return out;
    }
  }
}

test('damaged streams: our verdict (the output, or a refusal) is node inflateSync`s, with the same bound', () => {
  fc.assert(
    fc.property(
      body.filter((b) => b.length < 5000),
      fc.integer({ min: 0, max: 9 }),
      fc.constantFrom(...STRATEGIES),
      mutation,
      fc.integer({ min: -3, max: 3 }),
      (b, level, strategy, m, slack) => {
        const z = mutate(deflateSync(b, { level, strategy }), m);
        expectSame(z, Math.max(1, b.length + slack));
      },
    ),
    { numRuns: 1500 },
  );
});

test('bytes after the stream are ignored, as zlib does, and the stream`s end is said', () => {
  const z = deflateSync(Buffer.from('hello hello hello'));
  const r = inflate(Buffer.concat([z, Buffer.from('next object')]), 100);
  expect(r.data.toString()).toBe('hello hello hello');
  expect(r.end).toBe(z.length);
  expect(expectSame(Buffer.concat([z, z]))).not.toBe('refused');
});

test('the bound: output up to it is accepted, one byte past it is refused, a bomb costs no more than it', () => {
  const z = deflateSync(Buffer.alloc(1 << 24));
  expect(verdicts(z, 1 << 24)[0]).not.toBe('refused');
  expect(verdicts(z, (1 << 24) - 1)).toEqual(['refused', 'refused']);
  expect(verdicts(z, 4096)).toEqual(['refused', 'refused']);
  expect(inflate(deflateSync(Buffer.alloc(0)), 0).data.length).toBe(0);
});

/**
 * A final dynamic block with these literal/length and distance code lengths, sent with a code-length code of the
 * sixteen lengths, four bits each (complete), then `then` writes the block's symbols with the two codes.
 */
function dynamic(
  lit: number[],
  dist: number[],
  then: (w: Bits, l: number[], d: number[]) => void,
  data = Buffer.alloc(0),
): Buffer {
  const w = new Bits()
    .put(1, 1)
    .put(2, 2)
    .put(lit.length - 257, 5)
    .put(dist.length - 1, 5)
    .put(15, 4);
  const order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];
  for (const s of order) w.put(s < 16 ? 4 : 0, 3);
  for (const l of [...lit, ...dist]) w.code(l, 4);
  then(w, canonical(lit), canonical(dist));
  return w.zlib(data);
}

/** Literal/length lengths: 256 (end) and the literals in `used` at length `len`, the rest absent. */
function litLengths(used: number[], len: number, eob = len): number[] {
  const l = new Array<number>(257).fill(0);
  for (const s of used) l[s] = len;
  l[256] = eob;
  return l;
}

describe('hand-made streams that break one rule each: refused, as zlib refuses them', () => {
  const refused = (b: Buffer): void => {
    expect(verdicts(b, 1000)).toEqual(['refused', 'refused']);
  };

  test('the header: its check bits, its method, its window, a preset dictionary', () => {
    const ok = new Bits().put(1, 1).put(1, 2).code(0, 7).zlib(); // a fixed block of the end code alone
    expect(expectSame(ok)).toBe('0:' + createHash('sha256').digest('hex'));
    refused(Buffer.from([0x78, 0x02, ...ok.subarray(2)])); // check bits
    refused(Buffer.from([0x79, checked(0x79, 0), ...ok.subarray(2)])); // method 9
    refused(Buffer.from([0x88, checked(0x88, 0), ...ok.subarray(2)])); // a 64 KiB window
    refused(Buffer.from([0x78, checked(0x78, 0x20), 0, 0, 0, 1, ...ok.subarray(2)])); // FDICT
    // A window of 256 bytes, one of 16 KiB: accepted (zlib checks a distance against the output, not the header's).
    expect(expectSame(Buffer.from([0x08, checked(0x08, 0), ...ok.subarray(2)]))).not.toBe('refused');
    expect(expectSame(Buffer.from([0x68, checked(0x68, 0xc0), ...ok.subarray(2)]))).not.toBe('refused');
  });

  test('the reserved block type, and stored lengths that disagree', () => {
    refused(new Bits().put(1, 1).put(3, 2).zlib());
    const stored = Buffer.from([0x78, 0x01, 0x01, 0x03, 0x00, 0xfc, 0xff, 0x61, 0x62, 0x63, 0x02, 0x4d, 0x01, 0x27]);
    expect(expectSame(stored)).not.toBe('refused');
    const bad = Buffer.from(stored);
    bad[5] = 0xfd;
    refused(bad);
  });

  test('a fixed block: literal/length 286-287 and distances 30-31 are refused, a distance before the start', () => {
    // 286: an 8-bit code 11000110; end-of-block 0000000.
    refused(new Bits().put(1, 1).put(1, 2).code(0b11000110, 8).code(0, 7).zlib());
    // 'a' (00110000 + 0x61), length 3 (257: 0000001), distance code 30 (11110), then end.
    refused(
      new Bits()
        .put(1, 1)
        .put(1, 2)
        .code(0x30 + 0x61, 8)
        .code(1, 7)
        .code(30, 5)
        .code(0, 7)
        .zlib(),
    );
    // 'a', then length 3 at distance 2 (code 1): one byte before the output's start. (The Adler-32 is that of what
    // a decoder that let it through, reading zeros there, would make: the distance alone is wrong.)
    // A final fixed block: the literal 'a', length 3 (code 257), distance code `dist`, end of block.
    const aThenCopy = (dist: number): Bits =>
      new Bits()
        .put(1, 1)
        .put(1, 2)
        .code(0x30 + 0x61, 8)
        .code(1, 7)
        .code(dist, 5)
        .code(0, 7);
    const far = aThenCopy(1);
    refused(far.zlib(Buffer.from('a\0a\0')));
    // At distance 1 it is 'aaaa': accepted, the same bytes.
    const aaaa = aThenCopy(0);
    expect(inflate(aaaa.zlib(Buffer.from('aaaa')), 10).data.toString()).toBe('aaaa');
    expectSame(aaaa.zlib(Buffer.from('aaaa')));
  });

  test('Adler-32: a wrong one is refused, and a stream cut anywhere', () => {
    const data = Buffer.from('abcabcabcabc');
    const z = deflateSync(data);
    const bad = Buffer.from(z);
    bad[bad.length - 1]! ^= 1;
    refused(bad);
    for (let n = 0; n < z.length; n++) refused(z.subarray(0, n));
  });

  test('Huffman codes: over-subscribed, incomplete, and the incomplete ones zlib allows', () => {
    const lits = [0x61, 0x62, 0x63];
    const abc = (w: Bits, l: number[]): void => {
      for (const s of [...lits, 256]) w.code(l[s]!, litLengths(lits, 2)[s]!);
    };
    // Four codes of two bits: complete; 'abc' and the end.
    const good = dynamic(litLengths(lits, 2), [1], abc, Buffer.from('abc'));
    expect(inflate(good, 3).data.toString()).toBe('abc');
    expect(expectSame(good)).toMatch(/^3:/);
    // Five codes of two bits: over-subscribed.
    refused(dynamic(litLengths([...lits, 0x64], 2), [1], abc, Buffer.from('abc')));
    // Three codes of two bits: incomplete, and not a single one-bit code.
    const a = Buffer.from('a');
    refused(dynamic(litLengths([0x61, 0x62], 2), [1], (w, l) => w.code(l[0x61]!, 2).code(l[256]!, 2), a));
    // A single one-bit code: the end-of-block alone (zlib allows it), with a single one-bit distance code too.
    expect(expectSame(dynamic(litLengths([], 1), [1], (w, l) => w.code(l[256]!, 1)))).toMatch(/^0:/);
    // No distance code at all, no distance used: accepted.
    expect(expectSame(dynamic(litLengths([], 1), [0], (w, l) => w.code(l[256]!, 1)))).toMatch(/^0:/);
    // Two distance codes of one bit and a third: over-subscribed.
    refused(dynamic(litLengths([], 1), [1, 1, 1], (w, l) => w.code(l[256]!, 1)));
    // Two distance codes of two bits: incomplete.
    refused(dynamic(litLengths([], 1), [2, 2], (w, l) => w.code(l[256]!, 1)));
    // No end-of-block code.
    refused(
      dynamic(
        litLengths(lits, 2, 0).map((l, s) => (s === 0x64 ? 2 : l)),
        [1],
        abc,
      ),
    );
  });

  test('the code-length code: over-subscribed, incomplete, a repeat with nothing before it or past the end', () => {
    const header = (hlit: number, hdist: number): Bits => new Bits().put(1, 1).put(2, 2).put(hlit, 5).put(hdist, 5);
    // HCLEN 4 (16, 17, 18, 0) all one bit: over-subscribed.
    refused(header(0, 0).put(0, 4).put(1, 3).put(1, 3).put(1, 3).put(1, 3).zlib());
    // 0 alone at one bit: incomplete (zlib allows no incomplete code-length code).
    refused(header(0, 0).put(0, 4).put(0, 3).put(0, 3).put(0, 3).put(1, 3).zlib());
    // No code-length code at all: refused (zlib reads every length as 0, then misses the end-of-block).
    refused(header(0, 0).put(0, 4).put(0, 12).put(0, 64).put(0, 64).put(0, 64).put(0, 64).zlib());
    // 16 and 0 at one bit: 16 first repeats nothing.
    refused(header(0, 0).put(0, 4).put(1, 3).put(0, 3).put(0, 3).put(1, 3).code(1, 1).put(0, 2).zlib());
    // 18 (code 1) and 0 (code 0): 138 zeros, twice, runs past 257 + 1 lengths.
    refused(
      header(0, 0)
        .put(0, 4)
        .put(0, 3)
        .put(0, 3)
        .put(1, 3)
        .put(1, 3)
        .code(1, 1)
        .put(127, 7)
        .code(1, 1)
        .put(127, 7)
        .zlib(),
    );
    // More lengths than the format uses: 287 literal/length codes, 31 distance codes.
    refused(header(30, 0).put(0, 4).put(1, 3).zlib());
    refused(header(0, 30).put(0, 4).put(1, 3).zlib());
  });
});

describe('deflateStored', () => {
  test('node inflates what it writes back to the input, and so does inflate', () => {
    fc.assert(
      fc.property(fc.oneof(body, fc.constantFrom(Buffer.alloc(65535, 1), Buffer.alloc(131071, 2))), (b) => {
        const z = deflateStored(b);
        expect(inflateSync(z).equals(b)).toBe(true);
        expect(inflate(z, b.length).data.equals(b)).toBe(true);
        // zlib's level 0: its header, stored blocks only.
        expect([z[0], z[1]]).toEqual([0x78, 0x01]);
      }),
      { numRuns: 200 },
    );
  });

  test('a body of 2 x 65,535 + 1 bytes is three blocks, the last one final', () => {
    const b = Buffer.alloc(2 * 65535 + 1, 7);
    const z = deflateStored(b);
    expect(z.length).toBe(2 + 3 * 5 + b.length + 4);
    expect([z[2], z[2 + 5 + 65535], z[2 + 2 * (5 + 65535)]]).toEqual([0, 0, 1]);
    expect(inflateSync(z).equals(b)).toBe(true);
  });
});

test('adler32 is zlib`s (RFC 1950`s example, and across its reduction interval)', () => {
  expect(adler32(Buffer.from('Wikipedia'))).toBe(0x11e60398);
  const big = Buffer.alloc(20000, 0xff);
  expect(adler32(big)).toBe(deflateSync(big).readUInt32BE(deflateSync(big).length - 4));
});
