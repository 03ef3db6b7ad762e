import fc from 'fast-check';
import {
  appendFileSync,
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { fullWindowLines, windowLinesFor, CHECK_BYTES } from '../src/agents/window-index';
import { tempDir } from './helpers/tmp';
import { lineTags } from './helpers/window-index';

/**
 * The window index over session files larger than the bytes it hashes (CHECK_BYTES): the check region slides as
 * the file grows, the window moves past the index's base, and every change the index can see (an edit, a
 * truncation regrown, a rewrite, a replacement, an index from earlier or from another session) must leave the
 * answer the full read's.
 */
const dir = tempDir('stepchain-window-attack-');
const KEY = Buffer.alloc(32, 3);
let n = 0;
let uniq = 0;

const tags = lineTags;

type Op =
  | { op: 'append'; lines: [string, string][][]; pad: number; torn: boolean }
  | { op: 'edit'; back: number; to: string }
  | { op: 'cut'; back: number; regrow: [string, string][][] }
  | { op: 'rewrite' | 'replace'; lines: [string, string][][] }
  | { op: 'index'; how: 'save' | 'stale' | 'foreign' | 'drop' }
  | { op: 'query'; window: number; keys: string[] };

const PAD = 9000;
function text(lines: [string, string][][], pad: number, torn = false): string {
  const s = lines.map((t) => JSON.stringify({ t, n: uniq++, pad: 'p'.repeat((pad % 3) * PAD) })).join('\n');
  return lines.length === 0 ? '' : s + (torn ? '' : '\n');
}

const tag = fc.tuple(fc.constantFrom('i1', 'i\u00e92', 'i"3', 'i4'), fc.constantFrom('k1', 'k2', 'k\\3'));
const lines = fc.array(fc.array(tag, { maxLength: 2 }), { maxLength: 5 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant('append' as const), lines, pad: fc.nat(), torn: fc.boolean() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('edit' as const),
      back: fc.nat(),
      to: fc.constantFrom('\n', 'x', '"', '{'),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('cut' as const), back: fc.nat(), regrow: lines }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constantFrom('rewrite' as const, 'replace' as const), lines }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('index' as const),
      how: fc.constantFrom('save', 'stale', 'foreign', 'drop'),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant('query' as const),
      window: fc.oneof(fc.integer({ min: 1, max: 200_000 }), fc.constant(16 << 20)),
      keys: fc.array(fc.constantFrom('k1', 'k2', 'k\\3'), { maxLength: 2 }),
    }),
  },
);

/** The lines a reader of `keys` needs, of the full read. */
function needed(all: string[], keys: string[]): string[] {
  const ids = new Set(
    all.flatMap((l) =>
      tags(l)
        .filter(([, k]) => keys.includes(k))
        .map(([i]) => i),
    ),
  );
  const tail = all[all.length - 1]!;
  const whole = all.slice(0, -1).filter((l) => tags(l).some(([id]) => ids.has(id)));
  return tail === '' ? whole : [...whole, tail];
}

test('over files larger than the hashed bytes, the index gives the lines the full read gives', () => {
  fc.assert(
    fc.property(fc.array(op, { minLength: 1, maxLength: 40 }), (history) => {
      const f = path.join(dir, `s${n}.jsonl`);
      const other = path.join(dir, `o${n}.jsonl`);
      const idx = path.join(dir, `idx${n}`, 'session.index');
      const oidx = path.join(dir, `oidx${n}`, 'session.index');
      const saved = path.join(dir, `saved${n++}`);
      writeFileSync(f, '');
      writeFileSync(other, text([[['i1', 'k1']]], 2));
      for (const o of history) {
        const size = statSync(f).size;
        if (o.op === 'append') appendFileSync(f, text(o.lines, o.pad, o.torn));
        else if (o.op === 'edit') {
          // Only where the index can see it: the last CHECK_BYTES of the file (further back: docs/agents.md).
          if (size === 0) continue;
          const at = size - 1 - (o.back % Math.min(size, CHECK_BYTES));
          const fd = openSync(f, 'r+');
          writeSync(fd, o.to, at);
          closeSync(fd);
        } else if (o.op === 'cut') {
          truncateSync(f, size - (o.back % (Math.min(size, CHECK_BYTES) + 1)));
          appendFileSync(f, text(o.regrow, 1));
        } else if (o.op === 'rewrite') writeFileSync(f, text(o.lines, 2));
        else if (o.op === 'replace') {
          writeFileSync(`${f}.new`, text(o.lines, 2));
          renameSync(`${f}.new`, f);
        } else if (o.op === 'index') {
          if (o.how === 'save' && existsSync(idx)) copyFileSync(idx, saved);
          else if (o.how === 'stale' && existsSync(saved)) copyFileSync(saved, idx);
          else if (o.how === 'drop') rmSync(idx, { force: true });
          else if (o.how === 'foreign') {
            windowLinesFor(other, 16 << 20, tags, { file: oidx, key: KEY }, ['k1']);
            mkdirSync(path.dirname(idx), { recursive: true, mode: 0o700 });
            copyFileSync(oidx, idx);
          }
        } else if (o.op === 'query') {
          const all = fullWindowLines(f, o.window)!;
          const got = windowLinesFor(f, o.window, tags, { file: idx, key: KEY }, o.keys)!;
          // Exactly the full read's lines holding a wanted key or an id of one, then the torn last line if any
          // (no two of these ids or keys share a digest); a window inside one line: that piece.
          const some = (ls: string[]) => ls.filter((l) => l !== ''); // an empty file or last line: nothing either way
          expect(some(got)).toEqual(some(all.length === 1 ? all : needed(all, o.keys)));
        }
      }
    }),
    { numRuns: 300 },
  );
});
