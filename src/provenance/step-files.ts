import { runJournalFile } from '../runs/layout';
import { readRunJournalBytes } from '../runs/verify';
import { readRegularFile } from '../util/nofollow';
import { readStepChanges, STEP_CHANGES_EVENT, type RecordedChange } from './changes';

/**
 * The files each step of a local journal changed, for `show`, `replay` and the
 * HTML report: the `step_changes` rows of the run journal of the same id in the
 * journal's project, counted only when that run journal's chain verifies and a
 * row names the step's own step_hash (the same rule as the check's, minus the
 * per-step journal, which the caller has verified already).
 */
export interface StepFiles {
  /** The run journal they were read from. */
  file: string;
  bySeq: Map<number, RecordedChange[]>;
}

/** Undefined when there is no run journal, its chain does not verify, or it records no changes. */
export function stepFilesOf(
  projectRoot: string,
  agentId: string,
  stepHashAt: (seq: number) => string | undefined,
): StepFiles | undefined {
  let file: string;
  let bytes: Buffer | undefined;
  try {
    file = runJournalFile(projectRoot, agentId);
    bytes = readRegularFile(file);
  } catch {
    return undefined; // an id that is no run id, a link, a directory: no record to show
  }
  if (bytes === undefined) return undefined;
  const run = readRunJournalBytes(bytes);
  if (!run.chain_ok) return undefined;
  const bySeq = new Map<number, RecordedChange[]>();
  for (const { row } of run.entries) {
    if (row.event !== STEP_CHANGES_EVENT) continue;
    const c = readStepChanges(row);
    if (!c.ok || c.value.agent_id !== agentId || stepHashAt(c.value.seq) !== c.value.step_hash) continue;
    bySeq.set(c.value.seq, c.value.changes);
  }
  return bySeq.size === 0 ? undefined : { file, bySeq };
}
