import { createHmac, randomBytes } from 'node:crypto';
import {
  appendFileSync,
  chmodSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fullWindowLines, windowLinesFor, type LineTags } from '../src/agents/window-index';
import { Mac } from '../src/agents/window-index-file';
import { tempDir } from './helpers/tmp';
import { lineTags, taggedLine, INDEX_DOMAIN, pad8, indexParts, signedIndex } from './helpers/window-index';

/**
 * The window index against what its contract names (src/agents/window-index*.ts): the HMAC it builds by hand is
 * node's own, and a hostile or racing index file, or a window far past the index, never gives another answer than
 * the full read, never throws, and never reads more than the full read would.
 */
const dir = tempDir('stepchain-window-attack-');
const KEY = Buffer.alloc(32, 7);
const DOMAIN = INDEX_DOMAIN;
let n = 0;
/** Bytes this process has read through read(2) and the like (/proc/self/io's rchar). */
const rchar = (): number => Number(/rchar: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))![1]);

const tags = lineTags;
const line = taggedLine;

function session(appends: number, window = 16 << 20) {
  const f = path.join(dir, `s${n}.jsonl`);
  const idx = path.join(dir, `idx${n++}`, 'session.index');
  const ask = (keys = ['k1'], w = window) => windowLinesFor(f, w, tags, { file: idx, key: KEY }, keys)!;
  const needed = (keys = ['k1'], w = window) =>
    fullWindowLines(f, w)!.filter((l) => tags(l).some(([, k]) => keys.includes(k)));
  writeFileSync(f, '');
  for (let a = 0; a < appends; a++) {
    appendFileSync(f, [0, 1, 2].map((j) => `${line(`i${a}.${j}`, `k${j}`, 10)}\n`).join(''));
    ask();
  }
  return { f, idx, ask, needed };
}

const parts = indexParts;

const signed = (head: Buffer, segs: Buffer[]): Buffer => signedIndex(KEY, head, segs);

test('the hand-built HMAC is node’s HMAC-SHA256 for keys of every length, tagged twice and updated after', () => {
  for (const len of [0, 1, 31, 32, 63, 64, 65, 128, 200]) {
    const key = randomBytes(len);
    const a = randomBytes(100);
    const b = randomBytes(3000);
    const mac = new Mac(key).update(a);
    const first = mac.tag();
    expect([len, first]).toEqual([len, createHmac('sha256', key).update(DOMAIN).update(a).digest()]);
    expect([len, mac.tag()]).toEqual([len, first]); // a tag does not change what it covers
    expect([len, mac.update(b).tag()]).toEqual([
      len,
      createHmac('sha256', key).update(DOMAIN).update(a).update(b).digest(),
    ]);
  }
});

test('an index file of any short length, of any bytes, or a prefix of a real one: the full read answers', () => {
  const { f, idx, ask, needed } = session(3);
  const real = readFileSync(idx);
  const right = needed();
  for (let len = 0; len <= 100; len++) {
    for (const bytes of [Buffer.alloc(len), randomBytes(len), Buffer.alloc(len, 0xff), real.subarray(0, len)]) {
      writeFileSync(idx, bytes);
      expect([len, ask()]).toEqual([len, right]);
    }
  }
  // Cut anywhere inside (not at a segment's end): never the older index, the full read.
  for (let len = 101; len < real.length; len += 7) {
    writeFileSync(idx, real.subarray(0, len));
    expect([len, ask()]).toEqual([len, right]);
  }
  // A directory where the index goes, or a file over the limit (sparse: nothing read): the full read, no throw.
  rmSync(idx, { force: true });
  mkdirSync(idx);
  expect(ask()).toEqual(right);
  rmSync(idx, { recursive: true });
  writeFileSync(idx, real);
  truncateSync(idx, (256 << 20) + 1);
  const start = rchar();
  expect(ask()).toEqual(right);
  expect(rchar() - start).toBeLessThan(1 << 20); // not read: the window is a few hundred bytes
  expect(readFileSync(f).length).toBeGreaterThan(0);
});

test('a signed index with hostile lengths or stops is not used: the full read answers, nothing thrown', () => {
  const { idx, ask, needed } = session(2);
  const every = ['k0', 'k1', 'k2'];
  const right = needed(every);
  const good = parts(idx);
  const head = (json: string, claimed?: number) => {
    const j = Buffer.from(json);
    const h = Buffer.alloc(8 + pad8(j.length));
    h.writeUInt32LE(claimed ?? j.length, 0);
    j.copy(h, 8);
    return h;
  };
  const goodJson = good.head.toString('utf8', 8, 8 + good.head.readUInt32LE(0));
  const { dev, ino } = JSON.parse(goodJson) as { dev: string; ino: string };
  const seg = (edit: (s: Buffer) => void, i = 1) =>
    good.segs.map((s, k) => {
      const c = Buffer.from(s);
      if (k === i) edit(c);
      return c;
    });
  const cases: [string, Buffer][] = [
    ['a head length near 2^32', Buffer.concat([head(goodJson, 0xfffffff8), good.segs[0]!])],
    [
      'a row count near 2^32',
      signed(
        good.head,
        seg((s) => s.writeUInt32LE(0xffffffff, 48)),
      ),
    ],
    [
      'a row count one more',
      signed(
        good.head,
        seg((s) => s.writeUInt32LE(s.readUInt32LE(48) + 1, 48)),
      ),
    ],
    ['no segment', signed(good.head, [])],
    [
      'a stop that is NaN',
      signed(
        good.head,
        seg((s) => s.writeDoubleLE(NaN, 0)),
      ),
    ],
    [
      'a stop that is negative',
      signed(
        good.head,
        seg((s) => s.writeDoubleLE(-8, 0)),
      ),
    ],
    [
      'a stop past 2^53',
      signed(
        good.head,
        seg((s) => s.writeDoubleLE(2 ** 60, 0)),
      ),
    ],
    [
      'a stop of infinity',
      signed(
        good.head,
        seg((s) => s.writeDoubleLE(Infinity, 0)),
      ),
    ],
    [
      'a stop not whole',
      signed(
        good.head,
        seg((s) => s.writeDoubleLE(s.readDoubleLE(0) + 0.5, 0)),
      ),
    ],
    [
      'a stop before the last',
      signed(
        good.head,
        seg((s) => s.writeDoubleLE(1, 0)),
      ),
    ],
    [
      'a stop past the file',
      signed(
        good.head,
        seg((s) => s.writeDoubleLE(s.readDoubleLE(0) + 8, 0)),
      ),
    ],
    [
      'a check from NaN',
      signed(
        good.head,
        seg((s) => s.writeDoubleLE(NaN, 8)),
      ),
    ],
    [
      'a check from past the stop',
      signed(
        good.head,
        seg((s) => s.writeDoubleLE(s.readDoubleLE(0) + 1, 8)),
      ),
    ],
    ['a check from before the base', signed(head(JSON.stringify({ dev, ino, base: 5 })), good.segs)],
    ['a base past the window', signed(head(JSON.stringify({ dev, ino, base: 1e6 })), good.segs)],
    ['a base that is negative', signed(head(JSON.stringify({ dev, ino, base: -1 })), good.segs)],
    // A row before the file's start that a negative base would let through: read at position -1 (node: the
    // file's current position) it would be another line, or a throw.
    [
      'a negative base and a row before the file',
      signed(
        head(JSON.stringify({ dev, ino, base: -100 })),
        seg((s) => s.writeDoubleLE(-1, 56), 0),
      ),
    ],
    ['another inode', signed(head(JSON.stringify({ dev, ino: `${ino}0`, base: 0 })), good.segs)],
    ['a head that is not JSON', signed(head('{"dev":'), good.segs)],
    ['a head that is null', signed(head('null'), good.segs)],
    ['a head with numbers', signed(head(JSON.stringify({ dev: 1, ino: 2, base: 0 })), good.segs)],
    ['segments reordered', signed(good.head, [good.segs[1]!, good.segs[0]!])],
    ['a segment twice', signed(good.head, [good.segs[0]!, good.segs[0]!, good.segs[1]!])],
  ];
  for (const [what, bytes] of cases) {
    writeFileSync(idx, bytes);
    expect([what, ask(every)]).toEqual([what, right]);
  }
});

test('two calls that both append to the same index at once leave one that is not used: the full read answers', () => {
  // Both found the index at one length (fstat) before either wrote: the second segment's HMAC is of the bytes
  // without the first. What such a race leaves, built from two real appends.
  const { f, idx, ask, needed } = session(3);
  const before = readFileSync(idx);
  appendFileSync(f, `${line('a', 'k1')}\n`);
  expect(ask()).toEqual(needed());
  const withA = readFileSync(idx);
  writeFileSync(idx, before);
  appendFileSync(f, `${line('b', 'k1')}\n`);
  expect(ask()).toEqual(needed());
  const withB = readFileSync(idx);
  expect(withA.length).toBeGreaterThan(before.length);
  expect(withB.length).toBeGreaterThan(before.length);
  writeFileSync(idx, Buffer.concat([withA, withB.subarray(before.length)]));
  appendFileSync(f, `${line('c', 'k1')}\n`);
  expect(ask()).toEqual(needed());
  expect(parts(idx).segs.length).toBe(1); // not verified: written whole
});

test('a window far past the index’s stop reads no more than the full read (not the bytes in between)', () => {
  const window = 256 << 10;
  const { f, ask, needed } = session(3, window);
  // The agent wrote 4 MB since the index was written: the window is its last 256 KB.
  const filler = `${JSON.stringify({ p: 'y'.repeat(1000) })}\n`.repeat(4096);
  appendFileSync(f, `${filler}${line('far', 'k1')}\n`);
  const right = needed();
  const start = rchar();
  expect(ask()).toEqual(right);
  const read = rchar() - start;
  expect(read).toBeLessThan(2 * window);
});

test('a call that finds another call appended to the index since it read it does not append after it', () => {
  // Another call's append lands while this one scans (its tags are asked between the index's read and its append):
  // this one's segment would follow bytes its HMAC does not cover, and the next call would find no index to use.
  const { f, idx, needed } = session(3);
  let racing = false;
  const racy: LineTags = (l) => {
    if (!racing && l.includes('"mine"')) {
      racing = true;
      appendFileSync(f, `${line('theirs', 'k1')}\n`);
      expect(windowLinesFor(f, 16 << 20, tags, { file: idx, key: KEY }, ['k1'])).toEqual(needed());
    }
    return tags(l);
  };
  const segs = parts(idx).segs.length;
  appendFileSync(f, `${line('mine', 'k1')}\n`);
  windowLinesFor(f, 16 << 20, racy, { file: idx, key: KEY }, ['k1']);
  expect(parts(idx).segs.length).toBe(segs + 1); // theirs only
  appendFileSync(f, `${line('next', 'k1')}\n`);
  expect(windowLinesFor(f, 16 << 20, tags, { file: idx, key: KEY }, ['k1'])).toEqual(needed());
  expect(parts(idx).segs.length).toBe(segs + 2); // still used: appended to, not written whole
});

test('an index written whole again never carries a row that does not hold together, even one no call used', () => {
  // Rows in the window no call asks for (keys k0, k2): out of order, past their stop, at no whole offset. When the
  // window moves past half the rows the index is written whole; it must be the one the full read writes.
  const rowsOf = (file: string) => parts(file).segs.map((s) => s.subarray(48)); // the rows, not the stop or check
  const edits: [string, (s: Buffer) => void][] = [
    [
      'out of order',
      (s) => {
        const a = s.readDoubleLE(56 + 8);
        s.writeDoubleLE(s.readDoubleLE(56 + 16), 56 + 8);
        s.writeDoubleLE(a, 56 + 16);
      },
    ],
    ['past its stop', (s) => s.writeUInt32LE(1 << 20, 56 + 3 * 8 + 8)],
    ['not whole', (s) => s.writeDoubleLE(s.readDoubleLE(56 + 16) + 0.5, 56 + 16)],
  ];
  for (const [what, edit] of edits) {
    const { f, idx, needed } = session(2);
    const good = parts(idx);
    const segs = good.segs.map((s) => Buffer.from(s));
    edit(segs[1]!);
    writeFileSync(idx, signed(good.head, segs));
    appendFileSync(f, `${line('late', 'k1')}\n`);
    // The window starts at the line of the second segment's second row: 4 of 7 rows before it.
    const at1 = segs[1]!.readDoubleLE(56 + 8);
    const w = readFileSync(f).length - (at1 - 1);
    const got = windowLinesFor(f, w, tags, { file: idx, key: KEY }, ['k1']);
    expect([what, got]).toEqual([what, needed(['k1'], w)]);
    const fresh = `${idx}.fresh`;
    windowLinesFor(f, w, tags, { file: fresh, key: KEY }, ['k1']);
    expect([what, rowsOf(idx)]).toEqual([what, rowsOf(fresh)]);
  }
});

test('an index written whole is 0600 in a 0700 directory, even one that was made open to others', () => {
  const f = path.join(dir, `open${n}.jsonl`);
  const idxDir = path.join(dir, `open-idx${n++}`);
  mkdirSync(idxDir, { mode: 0o755 });
  chmodSync(idxDir, 0o755);
  writeFileSync(f, `${line('a', 'k1')}\n`);
  const idx = path.join(idxDir, 'session.index');
  expect(windowLinesFor(f, 16 << 20, tags, { file: idx, key: KEY }, ['k1'])).toEqual([line('a', 'k1')]);
  expect(statSync(idxDir).mode & 0o777).toBe(0o700);
  expect(statSync(idx).mode & 0o777).toBe(0o600);
});
