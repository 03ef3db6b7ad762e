/**
 * Append-only compares what the verifier reads (issue 20, section 1): property tests
 * against the journal reader (`readJournalBytes`), whatever ends the lines.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { checkAppendOnly } from '../src/check';
import { Journal, readJournalBytes } from '../src/journal';
import { tempDir } from './helpers/tmp';

const tmp = tempDir('stepchain-append-only-');

/** The rows (lines without their newline) of a real chain of `n` steps. */
function chainRows(name: string, n: number, tag: string): string[] {
  const j = Journal.open(path.join(tmp, name), { durability: 'none' });
  j.appendMany(Array.from({ length: n }, (_, i) => ({ prompt: `${tag}${i}`, ts: 1_700_000_000 + i })));
  return readFileSync(j.file, 'utf8').split('\n').slice(0, -1);
}

const N = 8;
/** Two chains of the same length: b's row i is another row with the same seq (a replaced history). */
const A = chainRows('a', N, 'pay $10 to alice ');
const B = chainRows('b', N, 'pay $10000 to mallory ');

const ending = fc.constantFrom('\n', '\r\n', '\r');
/** Whatever the reader skips or strips: nothing, spaces, tabs, \v, \f, \x1c-\x1f, NBSP, U+3000. */
const blank = fc.constantFrom('', ' ', '\t', '\v', '\f', '\x1c', '\x1f', '\u00a0', '\u3000', ' \t ');

/** One framing of some rows: each with whitespace around it, an ending, blank lines after it; the last maybe unterminated. */
function framing(n: number) {
  return fc.record({
    around: fc.array(fc.tuple(blank, blank), { minLength: n, maxLength: n }),
    endings: fc.array(ending, { minLength: n, maxLength: n }),
    blanks: fc.array(fc.array(fc.tuple(blank, ending), { maxLength: 2 }), { minLength: n, maxLength: n }),
    leading: fc.array(fc.tuple(blank, ending), { maxLength: 2 }),
    finalNewline: fc.boolean(),
  });
}
type Framing = {
  around: [string, string][];
  endings: string[];
  blanks: [string, string][][];
  leading: [string, string][];
  finalNewline: boolean;
};

/** The text of `rows` in a framing: the verifier reads exactly `rows` from it. */
function frame(rows: string[], f: Framing): Buffer {
  let s = f.leading.map(([b, e]) => b + e).join('');
  rows.forEach((r, i) => {
    const last = i === rows.length - 1;
    s += f.around[i]![0] + r + f.around[i]![1];
    // The last row may end without a newline (and then with nothing after it).
    if (last && !f.finalNewline) return;
    s += f.endings[i]!;
    for (const [b, e] of f.blanks[i]!) s += b + e;
  });
  return Buffer.from(s, 'utf8');
}

/** The reader's rows of a journal, as bytes: what verify walks and hashes. */
function readerRows(buf: Buffer): string[] {
  return readJournalBytes(buf).entries.map((e) => e.bytes.toString('utf8'));
}

/** Base and head framed at random, with the rows each holds. */
const framed = (base: string[], head: string[]) =>
  fc.tuple(framing(base.length), framing(head.length)).map(([fb, fh]) => ({
    base: frame(base, fb),
    head: frame(head, fh),
  }));

const isPrefix = (a: string[], b: string[]): boolean => a.length <= b.length && a.every((r, i) => b[i] === r);

describe('append-only reads rows as the verifier does', () => {
  test('the framings are what the reader reads (the generator is right)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: N }).chain((n) => framing(n).map((f) => ({ n, f }))),
        ({ n, f }) => {
          const rows = A.slice(0, n);
          const buf = frame(rows, f);
          expect(readerRows(buf)).toEqual(rows);
          expect(readJournalBytes(buf).ok).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });

  test('a head that appends rows passes, however either frames its lines', () => {
    fc.assert(
      fc.property(
        fc
          .tuple(fc.integer({ min: 1, max: N }), fc.integer({ min: 0, max: N }))
          .filter(([b, h]) => h >= b)
          .chain(([b, h]) => framed(A.slice(0, b), A.slice(0, h)).map((v) => ({ ...v, b, h }))),
        ({ base, head, b, h }) => {
          const r = checkAppendOnly(base, head);
          expect(r).toMatchObject({ ok: true, baseRows: b, headRows: h, appended: h - b });
          expect(r.kind).toBe(h > b ? 'appended' : 'unchanged');
        },
      ),
      { numRuns: 300 },
    );
  });

  test('a head that changes, removes or reorders a base row fails at the first one, wherever its line ends', () => {
    const edit = fc.oneof(
      fc.record({ op: fc.constant('replace' as const), i: fc.nat(N - 1) }),
      fc.record({ op: fc.constant('remove' as const), i: fc.nat(N - 1) }),
      fc.record({ op: fc.constant('swap' as const), i: fc.nat(N - 1), j: fc.nat(N - 1) }),
      fc.record({ op: fc.constant('history' as const), i: fc.constant(0) }),
    );
    fc.assert(
      fc.property(
        fc
          .tuple(fc.integer({ min: 1, max: N }), edit, fc.nat(3))
          .filter(([b, e]) => e.i < b && (e.op !== 'swap' || (e.j !== e.i && e.j < b)))
          .chain(([b, e, extra]) => {
            let head = A.slice(0, b);
            if (e.op === 'replace') head[e.i] = B[e.i]!;
            else if (e.op === 'remove') head.splice(e.i, 1);
            else if (e.op === 'swap') [head[e.i], head[e.j]] = [head[e.j]!, head[e.i]!];
            else head = B.slice(0, b); // the whole history replaced by a new chain of the same length
            head = head.concat(A.slice(b, b + extra)); // and maybe rows appended after it
            const first = e.op === 'swap' ? Math.min(e.i, e.j) : e.i;
            return framed(A.slice(0, b), head).map((v) => ({ ...v, first, op: e.op }));
          }),
        ({ base, head, first, op }) => {
          const r = checkAppendOnly(base, head);
          expect(r.ok).toBe(false);
          expect(r.firstChangedSeq).toBe(first);
          expect(isPrefix(readerRows(base), readerRows(head))).toBe(false);
          if (op !== 'remove') expect(r.kind).toBe('rewritten');
        },
      ),
      { numRuns: 400 },
    );
  });

  test('the check agrees with the reader on any two journals of rows and blank lines', () => {
    // Rows from both chains in any order and number: the verdict is exactly "the reader's base rows are a prefix".
    const rows = fc.array(fc.constantFrom(...A.slice(0, 4), ...B.slice(0, 2)), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(
        fc.tuple(rows, rows).chain(([b, h]) => framed(b, h)),
        ({ base, head }) => {
          const want = isPrefix(readerRows(base), readerRows(head));
          expect(checkAppendOnly(base, head).ok).toBe(want);
        },
      ),
      { numRuns: 500 },
    );
  });

  test("a base's torn last line is not a row; a base row the head leaves out is", () => {
    fc.assert(
      fc.property(
        fc
          .tuple(fc.integer({ min: 1, max: N - 1 }), fc.integer({ min: 1, max: 40 }))
          .chain(([b, cut]) => framed(A.slice(0, b), A.slice(0, b + 1)).map((v) => ({ ...v, b, cut }))),
        ({ base, head, b, cut }) => {
          // A write killed after `cut` bytes of the next row: verify fails on it, the next append moves it aside.
          const tornBase = Buffer.concat([base, Buffer.from(`\n${A[b]!.slice(0, cut)}`)]);
          expect(readerRows(tornBase)).toEqual(A.slice(0, b));
          expect(checkAppendOnly(tornBase, head)).toMatchObject({ ok: true, baseRows: b, appended: 1 });
          // Without its last row the head is truncated, however the base's last row ended.
          const short = Buffer.from(A.slice(0, b - 1).join('\n'));
          expect(checkAppendOnly(tornBase, short)).toMatchObject({ ok: false, kind: 'truncated' });
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('the two attacks of issue 20', () => {
  test('a last row without its final newline, rewritten', () => {
    const base = Buffer.from(A.slice(0, 3).join('\n')); // no final newline
    const head = Buffer.from(`${[A[0], A[1], B[2]].join('\n')}\n`);
    expect(readJournalBytes(base).ok).toBe(true);
    expect(checkAppendOnly(base, head)).toMatchObject({ ok: false, kind: 'rewritten', firstChangedSeq: 2, line: 3 });
  });

  test('rows separated by a bare \\r, the whole history replaced by a chain of the same length', () => {
    const base = Buffer.from(`${A.slice(0, 4).join('\r')}\r`);
    const head = Buffer.from(`${B.slice(0, 4).join('\r')}\r`);
    expect(readJournalBytes(base).ok).toBe(true);
    expect(readJournalBytes(head).ok).toBe(true);
    expect(checkAppendOnly(base, head)).toMatchObject({ ok: false, kind: 'rewritten', firstChangedSeq: 0, line: 1 });
  });
});
