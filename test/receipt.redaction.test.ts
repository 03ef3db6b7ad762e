import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { Journal, journalDir, journalFile, readJournalBytes } from '../src/journal';
import { REDACTABLE_FIELDS, redactedFields, redactedFieldsOf, type RedactField } from '../src/receipt';
import { JournalWalker } from '../src/receipt/journal-walk';
import { tempDir } from './helpers/tmp';

/**
 * A published receipt's mark read from a journal's bytes (`redactedFieldsOf`, docs/receipts.md: a public function)
 * is the rows' own (`redactedFields`: none once some step lists a blob, as publish empties every blob_refs) and the
 * receipt walk's, whatever the caller says of blobs: `false` (or nothing, as the docs call it) is not a promise.
 */
const root = tempDir('stepchain-redaction-');
let n = 0;

/** The bytes of a journal whose rows list blobs and hold the mark as `steps` say. */
function journalOf(steps: { blob: boolean; marked: RedactField[] }[]): Buffer {
  const id = `j${n++}`;
  const j = Journal.open(journalDir(root, id), { durability: 'none' });
  // One appendMany (one lock, one write, one checkpoint): the same rows as an append a step.
  j.appendMany(
    steps.map((s, i) => {
      const value = (f: RedactField, v: string): string => (s.marked.includes(f) ? '<<redacted>>' : v);
      return {
        prompt: value('prompt', `step ${i}`),
        model: value('model', 'm'),
        tool_call: value('tool_call', 'c'),
        tool_result: value('tool_result', 'r'),
        ts: 1_700_000_000 + i,
        blobs: s.blob ? [Buffer.from(`blob ${i}`)] : [],
      };
    }),
  );
  return readFileSync(journalFile(root, id));
}

const step = fc.record({
  blob: fc.boolean(),
  marked: fc.subarray([...REDACTABLE_FIELDS]),
});

test('redactedFieldsOf(journal, false) is the mark the rows and the receipt walk give', () => {
  fc.assert(
    fc.property(fc.array(step, { minLength: 1, maxLength: 6 }), (steps) => {
      const buf = journalOf(steps);
      const rows = redactedFields(readJournalBytes(buf).entries.map((e) => e.row));
      const walker = new JournalWalker();
      walker.push(buf);
      expect(redactedFieldsOf(buf, false)).toEqual(rows);
      expect(walker.finish().redacted).toEqual(rows);
      expect(redactedFieldsOf(buf, true)).toEqual([]);
    }),
    { numRuns: 120, seed: 1205 },
  );
});

test('a step listing a blob, another holding the mark: none redacted (a chain publish did not write)', () => {
  const buf = journalOf([
    { blob: true, marked: [] },
    { blob: false, marked: ['prompt'] },
  ]);
  expect(redactedFields(readJournalBytes(buf).entries.map((e) => e.row))).toEqual([]);
  expect(redactedFieldsOf(buf, false)).toEqual([]);
});
