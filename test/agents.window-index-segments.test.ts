import fc from 'fast-check';
import { appendFileSync, copyFileSync, existsSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fullWindowLines, windowLinesFor } from '../src/agents/window-index';
import { MAX_SEGMENTS } from '../src/agents/window-index-file';
import { tempDir } from './helpers/tmp';
import { lineTags, taggedLine, indexParts, signedIndex } from './helpers/window-index';

/**
 * The window index is appended to (src/agents/window-index-file.ts): a call writes only a segment of what it read,
 * followed by the HMAC of every byte before it. Any segment that does not verify where it is (changed, cut short,
 * taken from another index) or rows that do not hold together, and the window is read whole: the same lines as the
 * full read, and the index written whole again (one segment).
 */
const dir = tempDir('stepchain-window-segments-');
const KEY = Buffer.alloc(32, 5);
let n = 0;

const tags = lineTags;
const line = taggedLine;

const parts = indexParts;

const signed = (head: Buffer, segs: Buffer[]): Buffer => signedIndex(KEY, head, segs);

/** A session file of `lines` lines (every third tagged k1, every third k2) and its index, asked once per append. */
function session(appends: number): { f: string; idx: string; ask: (keys?: string[]) => string[] } {
  const f = path.join(dir, `s${n}.jsonl`);
  const idx = path.join(dir, `idx${n++}`, 'session.index');
  const ask = (keys = ['k1']) => windowLinesFor(f, 16 << 20, tags, { file: idx, key: KEY }, keys)!;
  writeFileSync(f, '');
  for (let a = 0; a < appends; a++) {
    appendFileSync(f, [0, 1, 2].map((j) => `${line(`i${a}.${j}`, `k${j}`, 10)}\n`).join(''));
    ask();
  }
  return { f, idx, ask };
}

/** The lines of the full read holding a wanted key (every id is a line's own here). */
const needed = (f: string, keys = ['k1']) =>
  fullWindowLines(f, 16 << 20)!.filter((l) => tags(l).some(([, k]) => keys.includes(k)));

test('a call that read something new appends a segment of it; the older bytes are not written again', () => {
  const { f, idx, ask } = session(3);
  const before = readFileSync(idx);
  expect(parts(idx).segs.length).toBe(3);
  appendFileSync(f, `${line('new', 'k1')}\n${line('other', 'k2')}\n`);
  expect(ask()).toEqual(needed(f));
  const after = readFileSync(idx);
  expect(after.subarray(0, before.length)).toEqual(before);
  expect(parts(idx).segs.length).toBe(4);
  expect(parts(idx).segs[3]!.readUInt32LE(48)).toBe(2); // its two rows only
  // Nothing new: nothing written.
  expect(ask(['k2'])).toEqual(needed(f, ['k2']));
  expect(readFileSync(idx)).toEqual(after);
});

test('a segment changed, cut short or taken from another index is not used: the full read, the index anew', () => {
  const other = session(2);
  const tampers: [string, (b: Buffer, idx: string) => Buffer][] = [
    ['a byte of the newest segment', (b) => flip(b, b.length - 40)],
    ['a byte of its HMAC', (b) => flip(b, b.length - 1)],
    ['a byte of an older segment', (b, idx) => flip(b, parts(idx).head.length + 32 + 60)],
    ['a byte of the head', (b) => flip(b, 10)],
    ['cut inside the newest segment', (b) => b.subarray(0, b.length - 50)],
    ['cut inside its HMAC', (b) => b.subarray(0, b.length - 5)],
    ['another index’s newest segment appended', (b) => Buffer.concat([b, lastSegment(other.idx)])],
    ['its newest segment for another index’s', (b, idx) => Buffer.concat([dropLast(b, idx), lastSegment(other.idx)])],
    [
      'its HMAC chain over another head',
      (b, idx) => Buffer.concat([readFileSync(other.idx).subarray(0, 40), b.subarray(parts(idx).head.length + 32)]),
    ],
  ];
  for (const [what, tamper] of tampers) {
    const { f, idx, ask } = session(3);
    appendFileSync(f, `${line('late', 'k1')}\n`);
    writeFileSync(idx, tamper(readFileSync(idx), idx));
    expect([what, ask()]).toEqual([what, needed(f)]);
    expect([what, parts(idx).segs.length]).toEqual([what, 1]); // read whole, written whole
    appendFileSync(f, `${line('later', 'k1')}\n`);
    expect([what, ask()]).toEqual([what, needed(f)]);
    expect([what, parts(idx).segs.length]).toEqual([what, 2]);
  }
});

function flip(b: Buffer, at: number): Buffer {
  const c = Buffer.from(b);
  c[at] ^= 1;
  return c;
}
function lastSegment(idx: string): Buffer {
  const p = parts(idx);
  return Buffer.concat([p.segs[p.segs.length - 1]!, p.macs[p.macs.length - 1]!]);
}
function dropLast(b: Buffer, idx: string): Buffer {
  const p = parts(idx);
  return b.subarray(0, b.length - p.segs[p.segs.length - 1]!.length - 32);
}

test('an index cut at a segment’s end is an older index: still true, what follows is read', () => {
  const { f, idx, ask } = session(3);
  const b = readFileSync(idx);
  writeFileSync(idx, dropLast(b, idx));
  appendFileSync(f, `${line('late', 'k1')}\n`);
  expect(ask()).toEqual(needed(f));
  expect(parts(idx).segs.length).toBe(3);
});

test('an index with the right HMACs whose rows do not hold together is not used: the full read answers', () => {
  // What only a holder of the key could write, and no stepchain writes: rows out of the file's order (within a
  // segment and across two), at no whole offset, before the base, or past their segment's stop.
  // Every row is asked for: only the rows a call uses are checked (a loop over all would cost every call), and those
  // of an index written whole again (so a row no call used is never carried into one).
  const { f, idx, ask } = session(2);
  const every = ['k0', 'k1', 'k2'];
  const right = needed(f, every);
  const good = parts(idx);
  // The HMACs are those of node's own HMAC-SHA256 (the index builds them on a hash it can copy: RFC 2104).
  expect(signed(good.head, good.segs)).toEqual(readFileSync(idx));
  const forge = (edit: (segs: { at: Float64Array; len: Uint32Array }[]) => void): void => {
    const segs = good.segs.map((s) => Buffer.from(s));
    const views = segs.map((s) => {
      const k = s.readUInt32LE(48);
      return {
        at: new Float64Array(s.buffer, s.byteOffset + 56, k),
        len: new Uint32Array(s.buffer, s.byteOffset + 56 + 8 * k, k),
      };
    });
    edit(views);
    writeFileSync(idx, signed(good.head, segs));
  };
  const forgeries: [string, (s: { at: Float64Array; len: Uint32Array }[]) => void][] = [
    ['rows out of order', (s) => ([s[1]!.at[0], s[1]!.at[2]] = [s[1]!.at[2]!, s[1]!.at[0]!])],
    ['rows out of order across segments', (s) => ([s[0]!.at[0], s[1]!.at[0]] = [s[1]!.at[0]!, s[0]!.at[0]!])],
    ['an offset that is not whole', (s) => (s[1]!.at[0] = s[1]!.at[0]! + 0.5)],
    ['an offset that is not a number', (s) => (s[0]!.at[0] = NaN)],
    ['a negative offset', (s) => (s[0]!.at[0] = -1)],
    ['a line past its segment’s stop', (s) => (s[0]!.len[0] = 1 << 20)],
  ];
  for (const [what, edit] of forgeries) {
    forge(edit);
    expect([what, ask(every)]).toEqual([what, right]);
    expect([what, parts(idx).segs.length]).toEqual([what, 1]);
  }
  // A row no call uses, out of order: left alone while it is not used, refused when the index is written whole.
  forge((s) => ([s[1]!.at[0], s[1]!.at[2]] = [s[1]!.at[2]!, s[1]!.at[0]!]));
  appendFileSync(f, `${line('late', 'k1')}\n`);
  expect(ask(['k1'])).toEqual(needed(f));
  expect(parts(idx).segs.length).toBe(3);
  const small = windowLinesFor(f, 40, tags, { file: idx, key: KEY }, ['k1'])!; // most rows before it: written whole
  expect(small).toEqual(fullWindowLines(f, 40)!.filter((l) => tags(l).some(([, k]) => k === 'k1')));
  expect(parts(idx).segs.length).toBe(1);
});

test(`after ${MAX_SEGMENTS} segments, or a window moved past half the rows, the index is written whole`, () => {
  const { f, idx, ask } = session(MAX_SEGMENTS);
  expect(parts(idx).segs.length).toBe(MAX_SEGMENTS);
  appendFileSync(f, `${line('late', 'k1')}\n`);
  expect(ask()).toEqual(needed(f));
  expect(parts(idx).segs.length).toBe(1);
  appendFileSync(f, `${line('later', 'k1')}\n`);
  expect(ask()).toEqual(needed(f));
  expect(parts(idx).segs.length).toBe(2);
  // A window of the last few lines: most rows are before it; the next look writes the index whole from there.
  const small = () => windowLinesFor(f, 200, tags, { file: idx, key: KEY }, ['k1'])!;
  const tail = fullWindowLines(f, 200)!.filter((l) => tags(l).some(([, k]) => k === 'k1'));
  expect(small()).toEqual(tail);
  expect(parts(idx).segs.length).toBe(1);
  expect(small()).toEqual(tail);
});

type Step =
  | { op: 'append'; lines: [string, string][][]; torn: boolean }
  | { op: 'query'; window: number; keys: string[] }
  | { op: 'index'; how: 'flip' | 'cut' | 'splice' | 'save' | 'stale'; at: number };

test('over long histories of appends and damaged indexes, the indexed read gives the full read’s lines', () => {
  const tag = fc.tuple(fc.constantFrom('i1', 'i2', 'i3', 'i4', 'i5'), fc.constantFrom('k1', 'k2', 'k3'));
  const step: fc.Arbitrary<Step> = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        op: fc.constant('append' as const),
        lines: fc.array(fc.array(tag, { maxLength: 2 }), { maxLength: 4 }),
        torn: fc.boolean(),
      }),
    },
    {
      weight: 6,
      arbitrary: fc.record({
        op: fc.constant('query' as const),
        window: fc.oneof(fc.integer({ min: 1, max: 3000 }), fc.constant(16 << 20)),
        keys: fc.array(fc.constantFrom('k1', 'k2', 'k3'), { maxLength: 2 }),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        op: fc.constant('index' as const),
        how: fc.constantFrom('flip' as const, 'cut' as const, 'splice' as const, 'save' as const, 'stale' as const),
        at: fc.nat(),
      }),
    },
  );
  const foreign = session(2).idx;
  fc.assert(
    fc.property(fc.array(step, { minLength: 1, maxLength: 120 }), (history) => {
      const f = path.join(dir, `h${n}.jsonl`);
      const idx = path.join(dir, `hidx${n}`, 'session.index');
      const saved = path.join(dir, `hsaved${n++}`);
      writeFileSync(f, '');
      let u = 0;
      for (const s of history) {
        if (s.op === 'append') {
          const text = s.lines.map((t) => JSON.stringify({ t, u: u++ })).join('\n');
          appendFileSync(f, s.lines.length === 0 ? '' : text + (s.torn ? '' : '\n'));
        } else if (s.op === 'query') {
          const all = fullWindowLines(f, s.window)!;
          const ids = new Set(
            all.flatMap((l) =>
              tags(l)
                .filter(([, k]) => s.keys.includes(k))
                .map(([i]) => i),
            ),
          );
          const last = all[all.length - 1]!;
          const whole = all.slice(0, -1).filter((l) => tags(l).some(([i]) => ids.has(i)));
          const want = all.length === 1 ? all : last === '' ? whole : [...whole, last];
          const got = windowLinesFor(f, s.window, tags, { file: idx, key: KEY }, s.keys)!;
          expect(got.filter((l) => l !== '')).toEqual(want.filter((l) => l !== ''));
        } else if (!existsSync(idx)) continue;
        else if (s.how === 'save') copyFileSync(idx, saved);
        else if (s.how === 'stale') {
          if (existsSync(saved)) copyFileSync(saved, idx);
        } else if (s.how === 'cut') truncateSync(idx, s.at % (readFileSync(idx).length + 1));
        else if (s.how === 'splice') appendFileSync(idx, lastSegment(foreign));
        else writeFileSync(idx, flip(readFileSync(idx), s.at % readFileSync(idx).length));
      }
    }),
    { numRuns: 150 },
  );
});
