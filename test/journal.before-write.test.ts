import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Journal, journalDir } from '../src/journal';
import { freshDir, tempDir } from './helpers/tmp';

/**
 * `JournalOptions.beforeWrite` (what the Gemini CLI hook marks its pending payloads by): told the rows an append is
 * about to write, their seq and hashes as written, before a byte of them is; what it throws stops the append.
 */
const tmp = tempDir('stepchain-before-write-');

test('told the rows before they are written; a throw leaves the journal as it was, and the next append the same seq', () => {
  const dir = journalDir(freshDir(tmp, 'p'), 'agent-a');
  const told: { seq: number; step_hash: string; size: number }[] = [];
  let refuse = false;
  const file = path.join(dir, '000000.jsonl');
  const sizeNow = (): number => statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  const options = {
    beforeWrite: (rows: readonly { seq: number; step_hash: string }[]) => {
      for (const r of rows) told.push({ seq: r.seq, step_hash: r.step_hash, size: sizeNow() });
      if (refuse) throw new Error('refused');
    },
  };
  const first = Journal.appendTo(dir, { input: Buffer.from('a'), tool_call: { id: 'c0' } }, options).row;
  expect(told).toEqual([{ seq: 0, step_hash: first.step_hash, size: 0 }]);
  const before = readFileSync(file);
  refuse = true;
  expect(() => Journal.appendTo(dir, { input: Buffer.from('b'), tool_call: { id: 'c1' } }, options)).toThrow('refused');
  expect(told[1]).toMatchObject({ seq: 1, size: before.length });
  expect(readFileSync(file)).toEqual(before);
  refuse = false;
  const j = Journal.open(dir, options);
  const rows = j.appendMany([{ input: Buffer.from('b') }, { input: Buffer.from('c') }]);
  expect(rows.map((r) => r.seq)).toEqual([1, 2]);
  expect(told.slice(2).map((t) => t.seq)).toEqual([1, 2]);
  expect(told.slice(2).map((t) => t.step_hash)).toEqual(rows.map((r) => r.step_hash));
  expect(j.read().entries.map((e) => e.row.seq)).toEqual([0, 1, 2]);
});
