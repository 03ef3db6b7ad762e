/**
 * A receipt read into shared memory (walkableBuffer) holds its journal member as a view at an offset of the archive's
 * bytes, and the verification threads walk it there. `diff` and `show` fall back to reading the journal whole when
 * that walk fails, which prints the same, so the bin's output (test/journal.shared-differential.test.ts, every
 * command in shared and ordinary memory) cannot show a walk made at the wrong offset: it is checked here, in-process.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Journal, UnverifiedJournalError, VerifiedSteps } from '../src/journal';
import { setChunkWorkerEntry } from '../src/journal/parallel';
import { CHUNK_WORKER_SOURCE } from '../src/journal/worker/source.generated';
import { exportReceipt } from '../src/receipt';
import { inspectReceipt } from '../src/receipt/verify';
import { tempDir } from './helpers/tmp';

const tmp = tempDir('stepchain-shared-read-');
const shared = { STEPCHAIN_PARALLEL_MIN_BYTES: '1', STEPCHAIN_THREADS: '2' };

test("a receipt's journal member in shared memory is walked where it lies, at its offset in the archive", () => {
  const j = Journal.open(path.join(tmp, '.sdd', 'runtime', 'journal', 'held'), { durability: 'none' });
  j.appendMany(Array.from({ length: 340 }, (_, i) => ({ prompt: `more ${i}`, tool_result: { i }, ts: 1.8e9 + i })));
  const good = path.join(tmp, 'held.tar');
  exportReceipt(j.file, good);
  // The same receipt with one row of its journal member edited (same length): it must not verify.
  const bad = path.join(tmp, 'edited.tar');
  const tar = readFileSync(good);
  const at = tar.indexOf('"more 7"');
  expect(at).toBeGreaterThan(0);
  tar.write('"more 8"', at);
  writeFileSync(bad, tar);
  const saved = { ...process.env };
  Object.assign(process.env, shared);
  setChunkWorkerEntry({ source: CHUNK_WORKER_SOURCE });
  try {
    const held = inspectReceipt(good);
    const journal = held.receipt!.journal;
    expect(journal.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(journal.byteOffset).toBeGreaterThan(0);
    const steps = VerifiedSteps.fromBytes(journal, 'held', shared);
    expect([steps.length, steps.head_hash]).toEqual([held.verdict.steps, held.verdict.head_hash]);
    expect(steps.at(339)!.row.prompt).toBe('more 339');
    expect(() => VerifiedSteps.fromBytes(inspectReceipt(bad).receipt!.journal, 'edited', shared)).toThrow(
      UnverifiedJournalError,
    );
  } finally {
    setChunkWorkerEntry(undefined);
    for (const k of Object.keys(shared)) delete process.env[k];
    Object.assign(process.env, saved);
  }
});
