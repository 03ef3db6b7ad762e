import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { readJournalBytes, VerifiedSteps } from '../src/journal';
import { REDACTABLE_FIELDS, redactRows, RowRedactor, type RedactField } from '../src/receipt';
import { writeSyntheticJournal } from './helpers/journal-rows';
import { randomStep, reshapeLines } from './helpers/random-steps';
import { freshDir, tempDir } from './helpers/tmp';

/**
 * Publish rewrites a canonical row from the spans of its values (RowRedactor.lineOfText: no parse, no encode) and any
 * other row from its parsed value (RowRedactor.line). The two must write the same bytes: over random rows (nested
 * values, non-ASCII text written as escapes, floats of every form, nulls in the fields it redacts), some lines made
 * not canonical (a space, as a hand edit or another writer leaves them: those are parsed), and any set of fields, the
 * chain publish writes from a block read (VerifiedSteps.rewritable) is the one the parsed rows give (redactRows).
 */
const root = tempDir('stepchain-publish-fast-');

test('a canonical row rewritten from its spans is the row rewritten from its parse, for any fields redacted', () => {
  let fromSpans = 0;
  let fromParse = 0;
  fc.assert(
    fc.property(
      fc.array(randomStep, { minLength: 1, maxLength: 8 }),
      fc.subarray([...REDACTABLE_FIELDS], { minLength: 1 }),
      (steps, fields: RedactField[]) => {
        const file = path.join(freshDir(root), '000000.jsonl');
        writeSyntheticJournal(file, steps.length, (i) => steps[i]!);
        writeFileSync(file, reshapeLines(readFileSync(file, 'latin1').split('\n'), steps).join('\n'), 'latin1');

        const expected = redactRows(
          readJournalBytes(readFileSync(file)).entries.map((e) => e.row),
          fields,
        );
        const redactor = new RowRedactor(fields);
        let got = '';
        for (const r of VerifiedSteps.open(file).rewritable()) {
          if ('entry' in r) fromParse++;
          else fromSpans++;
          got += redactor.lineOf(r);
        }
        expect(got).toBe(expected.lines.toString('utf8'));
        expect(redactor.head).toBe(expected.head);
        expect(redactor.steps).toBe(steps.length);
      },
    ),
    { numRuns: 150, seed: 1206 },
  );
  // Both ways were taken, many times each (a path never taken proves nothing).
  expect(fromSpans).toBeGreaterThan(100);
  expect(fromParse).toBeGreaterThan(100);
});

test('rewritable() from a step: the steps from there on, as at() reads them', () => {
  const file = path.join(freshDir(root), '000000.jsonl');
  writeSyntheticJournal(file, 700, (i) => ({
    model: 'm',
    prompt: `step ${i}`,
    tool_call: { n: i },
    tool_result: null,
    ts: 1_700_000_000.5 + i,
  }));
  const steps = VerifiedSteps.open(file);
  for (const from of [0, 1, 255, 256, 257, 699]) {
    const seqs = [...steps.rewritable(from)].map((r) => r.seq);
    expect(seqs).toEqual(Array.from({ length: 700 - from }, (_, k) => from + k));
  }
  expect([...steps.rewritable(700)]).toEqual([]);
});
