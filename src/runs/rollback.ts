import type { CheckpointRecord } from '../util/checkpoint';
import { priorCheckpoint, rollbackFault, type CheckpointedTip, type RollbackFault } from '../util/rollback';
import { verifyRunJournal, type RunFault, type RunVerifyOptions, type RunVerifyResult } from './verify';

/**
 * The rollback rule (src/util/rollback.ts) for run journals: what the run
 * journal's checkpoint (`journal.jsonl.checkpoint`) vouched for, and what the
 * file holds at that place now.
 */
export const RUN_CHECKPOINT_KIND = 'run-journal';

export function runCheckpointFile(file: string): string {
  return `${file}.checkpoint`;
}

/** The tip a run journal checkpoint recorded (count and head; the file's size then), if well-formed. */
export function checkpointedRunTip(r: CheckpointRecord): CheckpointedTip | undefined {
  const { count, head } = r.state;
  const end = Number(r.id.size);
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0 || typeof head !== 'string')
    return undefined;
  if (!Number.isSafeInteger(end) || end < 0) return undefined;
  return { steps: count, head, end };
}

/** Judges a run journal walked to `count` rows (the row at the checkpointed tip's index stored `hashAt`). */
export function runRollback(
  ck: CheckpointedTip,
  walked: { count: number; hashAt: string | undefined },
  tornFrom?: number,
): RollbackFault | undefined {
  return rollbackFault(
    ck,
    { steps: walked.count, headAt: walked.hashAt, ...(tornFrom === undefined ? {} : { tornFrom }) },
    'events',
  );
}

/**
 * `run verify` with the rollback check: the file against its authenticated
 * checkpoint (key from `env`, never created here). A rollback is a fault of
 * the whole file (line 0); `unchecked` says why it could not be checked.
 */
export function verifyRunJournalChecked(
  file: string,
  options: RunVerifyOptions,
  env: NodeJS.ProcessEnv,
): { result: RunVerifyResult; unchecked?: string } {
  const mirror = { target: file, rows: (r: CheckpointRecord) => checkpointedRunTip(r)?.steps };
  const prior = priorCheckpoint(runCheckpointFile(file), RUN_CHECKPOINT_KIND, env, undefined, mirror);
  if (prior === undefined) return { result: verifyRunJournal(file, options) };
  if ('unchecked' in prior) return { result: verifyRunJournal(file, options), unchecked: prior.unchecked };
  const ck = checkpointedRunTip(prior.record);
  if (ck === undefined)
    return { result: verifyRunJournal(file, options), unchecked: `${runCheckpointFile(file)} records no run state` };
  const { hash_at, ...result } = verifyRunJournal(file, { ...options, hashAt: ck.steps - 1 });
  const f = runRollback(ck, { count: result.count, hashAt: hash_at });
  if (f === undefined) return { result };
  const fault: RunFault = { line: 0, index: null, kind: 'rollback', message: f.message };
  return {
    result: {
      ...result,
      ok: false,
      errors: [...result.errors, fault],
      fault_count: result.fault_count + 1,
    },
  };
}
