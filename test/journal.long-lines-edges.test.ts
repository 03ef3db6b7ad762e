import { writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { lineTooLong } from '../src/canonical';
import type { Fault } from '../src/journal';
import { readRowLine, ROW_TOO_LARGE } from '../src/journal/row';
import { walkReceiptJournal } from '../src/receipt';
import { JournalWalker } from '../src/receipt/journal-walk';
import { scanFileChunk } from '../src/journal/file-chunk';
import { chainRows, pushedWalk } from './helpers/long-lines';
import { tempDir } from './helpers/tmp';

const root = tempDir('stepchain-long-edges-');

const [a, b, c] = chainRows(root);
const MAX = 1000;

/** The pushed walk of `buf` in pieces of the given sizes (the rest last). */
const pushed = (buf: Buffer, cuts: number[], slice: number, direct: number, max = MAX) =>
  pushedWalk(buf, cuts, slice, direct, max);

describe('the pushed walk at its edges', () => {
  it('a last line of exactly maxLineBytes + 1 bytes, no newline, is the long-line fault (every piece size)', () => {
    for (const tail of [MAX, MAX + 1, MAX + 2]) {
      const buf = Buffer.from(`${a}\n${'y'.repeat(tail)}`);
      for (const cut of [1, 7, 400, buf.length]) {
        const r = pushed(buf, Array(Math.ceil(buf.length / cut)).fill(cut), 64, Number.MAX_SAFE_INTEGER);
        const f = r.faults.find((x) => x.line === 2)!;
        expect([tail, cut, f.message.startsWith('line of')]).toEqual([tail, cut, tail > MAX]);
      }
    }
  });

  it('a big piece (walked where it lies) holding a whole line longer than maxLineBytes: the long-line fault', () => {
    const buf = Buffer.from(`${a}\n${'y'.repeat(MAX + 5)}\n${b}\n`);
    const r = pushed(buf, [], 64, 16);
    expect(r.faults).toEqual([{ line: 2, kind: 'malformed_json', message: lineTooLong(MAX + 5, MAX) }]);
  });

  it('random journals, small direct pieces too, CR and CRLF: the whole-bytes walk with each long line a short bad one', () => {
    const strip = (fs: Fault[]): Fault[] =>
      fs.filter((f) => f.kind !== 'empty_journal').map((f) => ({ ...f, message: '' }));
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.constantFrom(a!, b!, c!, '', '{"x": 1', `${a}\r`, '\r', 'z\rz'),
            fc.integer({ min: MAX + 1, max: 3 * MAX }),
            fc.constant(MAX),
            fc.constant(MAX + 1),
          ),
          { maxLength: 8 },
        ),
        fc.boolean(),
        fc.integer({ min: 1, max: 2 * MAX }),
        fc.integer({ min: 1, max: 4 * MAX }),
        fc.array(fc.integer({ min: 1, max: 4000 }), { maxLength: 12 }),
        fc.boolean(),
        (parts, lastNewline, slice, direct, cuts, cr) => {
          const fill = (n: number): string => (cr ? `${'y'.repeat(n - 2)}\r${'y'}` : 'y'.repeat(n));
          const line = (p: string | number): string => (typeof p === 'number' ? fill(p) : p);
          const nl = lastNewline && parts.length > 0 ? '\n' : '';
          const buf = Buffer.from(parts.map(line).join('\n') + nl);
          const walked = pushed(buf, cuts, slice, direct);
          const model = Buffer.from(
            parts.map((p) => (typeof p === 'number' ? (p > MAX ? '{' : fill(p)) : p)).join('\n') + nl,
          );
          const whole = walkReceiptJournal(model);
          expect({ ...walked, faults: strip(walked.faults) }).toEqual({ ...whole, faults: strip(whole.faults) });
          // Each long line is said to be one, with its length.
          let at = 0;
          for (const p of parts) {
            at++;
            // (Adjacent faults of a kind are listed as one, with the first one's message.)
            const f = walked.faults.find((x) => x.line === at);
            // (A bare CR in a line read ends a line for the strict walk: the count is the model's, checked above.)
            if (
              !cr &&
              !parts.some((q) => typeof q === 'string' && q.includes('\r')) &&
              typeof p === 'number' &&
              p > MAX &&
              f !== undefined
            )
              expect(f).toMatchObject({ kind: 'malformed_json', message: lineTooLong(p, MAX) });
          }
        },
      ),
      // Each guard of 273cfc3 put back alone (the slice buffer capped at the limit + 1, a piece longer than the limit
      // copied, a tail one byte over the limit at finish) fails this by run 13 with this seed (by run 35 with seeds 1-5):
      // 300 runs, not 1,500 (0.8 s of CPU).
      { numRuns: 300, seed: 4242 },
    );
  });
});

describe('a line under the limit whose canonical encoding is not', () => {
  it('is one malformed line, not an internal error (90 MB of DEL bytes in a string encode to 540 MB)', () => {
    const line = Buffer.from(a!.replace('"prompt":"p0"', `"prompt":"${'\x7f'.repeat(90_000_000)}"`), 'latin1');
    expect(readRowLine(line)).toEqual({ kind: 'malformed', reason: ROW_TOO_LARGE });
  });
});

describe('the file walk (lines longer than a block) against the pushed walk, with a small limit', () => {
  // Longer than a block of either walk (16 MB), so the walk looks through them to their newline (longLine).
  const LIMIT = 2 * 1024 * 1024;
  const LONG = 17 * 1024 * 1024;
  const layouts: [string, (string | number)[], boolean][] = [
    ['between rows', [a!, LONG, b!, c!], true],
    ['first, then two adjacent', [LONG, LONG + 1, a!], true],
    ['last, no newline', [a!, b!, LONG], false],
    ['beside CRLF and bare CR lines', [`${a}\r`, LONG, '\r', b!], true],
  ];
  it.each(layouts)('%s: the same faults and rows, with and without WebAssembly', (_name, parts, lastNewline) => {
    const text = Buffer.from(
      parts.map((p) => (typeof p === 'number' ? 'y'.repeat(p) : p)).join('\n') + (lastNewline ? '\n' : ''),
    );
    const file = path.join(root, `file-walk-${Math.random().toString(36).slice(2)}.jsonl`);
    writeFileSync(file, text);
    const walker = new JournalWalker(64 * 1024, 1024 * 1024, LIMIT);
    for (let i = 0; i < text.length; i += 3 * 1024 * 1024) walker.push(text.subarray(i, i + 3 * 1024 * 1024));
    const want = walker.finish();
    for (const wasm of [true, false]) {
      const s = scanFileChunk(file, 0, text.length, { strict: true, collectRefs: true, maxLineBytes: LIMIT, wasm });
      expect([wasm, s.faults.list, s.rows]).toEqual([wasm, want.faults, want.steps]);
      // Recovery: an unread line is a torn-tail candidate, said to be too long.
      const r = scanFileChunk(file, 0, text.length, { strict: false, recovery: true, maxLineBytes: LIMIT, wasm });
      const first = parts.findIndex((p) => typeof p === 'number' && p > LIMIT);
      expect(r.recovery?.firstNonParsing).toEqual({
        line: first + 1,
        offset: Buffer.byteLength(
          parts
            .slice(0, first)
            .map((p) => `${p}\n`)
            .join(''),
        ),
        reason: lineTooLong(parts[first] as number, LIMIT),
      });
    }
  });
});
