import type { Fault } from './chain';

/**
 * The one rule for a journal that holds no row (docs/journal.md, "A journal
 * without rows"), shared by `verify` and by every writer before it extends a
 * file, so that an append never extends what verify rejects:
 * - a file of no bytes is a journal whose first write never happened (a writer
 *   killed between creating the file and writing its row, ours or the
 *   reference's): verify accepts it with 0 steps, as the reference does, and
 *   append starts the chain in it (a truncation to nothing of a checkpointed
 *   journal is a rollback, docs/journal.md "Rollback");
 * - a file that holds bytes but only blank lines is `empty_journal`: no writer
 *   leaves one, so verify fails it and append refuses to extend it;
 * - a file whose lines are malformed has those faults and no other (the
 *   reference's list: `malformed_json` on each such line).
 */
export function noRowsFault(walked: { bytes: number; steps: number; malformedLines: boolean }): Fault | undefined {
  if (walked.steps > 0 || walked.bytes === 0 || walked.malformedLines) return undefined;
  return { line: null, kind: 'empty_journal', message: 'journal has no steps (no line holds a row)' };
}
