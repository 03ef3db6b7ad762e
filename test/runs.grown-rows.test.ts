import { appendFileSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { runJournalFile } from '../src/runs';
import {
  EXCHANGE_LINK_EVENT,
  exchangeLinksIn,
  readExchangeLink,
  recordExchangeLinks,
  type ExchangeLink,
} from '../src/runs/exchange-links';
import { forgetGrownRows, grownRowsReads } from '../src/runs/grown-rows';
import { statSync } from 'node:fs';
import { RunJournal } from '../src/runs/journal';
import { readRunJournalFile } from '../src/runs/verify';
import { freshDir, tempDir } from './helpers/tmp';
import { tearLastLine } from './helpers/torn-line';

/**
 * `record` reads the exchange links of a hook journal's run journal as it grows (only the lines appended since the
 * last look walked), before linking an exchange and again under the append's lock. Whatever happened to the file
 * between two looks, a look gives the links a whole read of it gives.
 */
const ENV = { ...process.env, STEPCHAIN_AUDIT: 'off' };
const base = tempDir('stepchain-grown-rows-');
const fresh = (): string => freshDir(base);
const H = (c: string): string => c.repeat(64);

/** The links of a run journal as a whole read gives them (its well-formed rows, chain or not). */
function wholeRead(file: string): ExchangeLink[] {
  const out: ExchangeLink[] = [];
  for (const { row } of readRunJournalFile(file).entries) {
    if (row.event !== EXCHANGE_LINK_EVENT) continue;
    const r = readExchangeLink(row);
    if (r.ok) out.push(r.link);
  }
  return out;
}

const link = (n: number): ExchangeLink => ({
  tool_use_id: `toolu_${n}`,
  hook_journal: 'hook',
  hook_seq: n,
  hook_step_hash: H('a'),
  exchange_journal: 'run-x',
  exchange_seq: n,
  exchange_step_hash: H('b'),
});

test('as the run journal grows (links, other events, a line half written, a link twice), each look is the whole read', () => {
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom('link', 'twice', 'other', 'torn', 'look'), { minLength: 1, maxLength: 16 }),
      (ops) => {
        forgetGrownRows();
        const root = fresh();
        const file = runJournalFile(root, 'hook');
        let n = 0;
        let torn = '';
        const finishTorn = (): void => {
          // The writer finishes the line it had begun: the bytes it held back arrive.
          if (torn !== '') appendFileSync(file, torn);
          torn = '';
        };
        for (const op of ops) {
          if (op === 'link' || op === 'twice') {
            finishTorn();
            recordExchangeLinks(root, [link(op === 'twice' ? 0 : n++)], { env: ENV, durable: false });
          } else if (op === 'other') {
            finishTorn();
            new RunJournal(file, { env: ENV, durable: false }).record([
              { event: 'note', payload: new Map([['text', `between ${n}`]]) },
            ]);
          } else if (op === 'torn' && torn === '' && n > 0) {
            // Half of a line, as a writer's first write of it: not a row yet.
            torn = tearLastLine(file, 30);
          }
          if (n === 0) continue;
          if (torn === '') expect(exchangeLinksIn(file)).toEqual(wholeRead(file));
          else {
            const text = readFileSync(file, 'utf8');
            const before = path.join(root, 'before.jsonl');
            writeFileSync(before, text.slice(0, text.lastIndexOf('\n') + 1));
            expect(exchangeLinksIn(file)).toEqual(wholeRead(before));
          }
        }
        finishTorn();
        // A link recorded twice is written once (the look under the lock saw it).
        const all = exchangeLinksIn(file);
        expect(new Set(all.map((l) => l.tool_use_id)).size).toBe(all.length);
      },
    ),
    { numRuns: 25 },
  );
});

test('a run journal replaced, cut, or edited where it was read: read again from its start', () => {
  forgetGrownRows();
  const root = fresh();
  const file = runJournalFile(root, 'hook');
  recordExchangeLinks(root, [link(0), link(1), link(2)], { env: ENV, durable: false });
  expect(exchangeLinksIn(file).map((l) => l.hook_seq)).toEqual([0, 1, 2]);

  // Replaced by another run journal (a rename over it: another inode).
  const other = fresh();
  recordExchangeLinks(other, [link(7), link(8), link(9)], { env: ENV, durable: false });
  const lines = readFileSync(runJournalFile(other, 'hook'), 'utf8').split(/(?<=\n)/);
  renameSync(runJournalFile(other, 'hook'), file);
  expect(exchangeLinksIn(file).map((l) => l.hook_seq)).toEqual([7, 8, 9]);

  // Cut to its first two lines, then grown again by the third (walked on from where the cut left it).
  writeFileSync(file, lines.slice(0, 2).join(''));
  expect(exchangeLinksIn(file).map((l) => l.hook_seq)).toEqual([7, 8]);
  appendFileSync(file, lines[2]!);
  expect(exchangeLinksIn(file).map((l) => l.hook_seq)).toEqual([7, 8, 9]);

  // Its last line edited in place (the same length): the whole read of what it holds now.
  writeFileSync(file, readFileSync(file, 'utf8').replace('"hook_seq": 9', '"hook_seq": 6'));
  expect(exchangeLinksIn(file)).toEqual(wholeRead(file));
  expect(exchangeLinksIn(file).map((l) => l.hook_seq)).toEqual([7, 8, 6]);

  // Appended lines that do not link to the chain read: the whole file, as it reads.
  appendFileSync(file, lines.join(''));
  expect(exchangeLinksIn(file)).toEqual(wholeRead(file));
  expect(exchangeLinksIn(file)).toHaveLength(6);
});

test('a recording that links after every exchange reads each byte of the run journal once, nothing whole', () => {
  forgetGrownRows();
  const root = fresh();
  const file = runJournalFile(root, 'hook');
  const before = grownRowsReads();
  // As record does for each exchange: the links there (linkedHookSteps), then the append under the lock.
  for (let n = 0; n < 60; n++) {
    exchangeLinksIn(file);
    recordExchangeLinks(root, [link(n)], { env: ENV, durable: false });
  }
  expect(exchangeLinksIn(file)).toEqual(wholeRead(file));
  const after = grownRowsReads();
  expect(after.wholeReads - before.wholeReads).toBe(0);
  expect(after.walkedBytes - before.walkedBytes).toBe(statSync(file).size);
});
