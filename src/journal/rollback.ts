import { isSha256Hex } from '../util/hash';
import type { CheckpointRecord } from '../util/checkpoint';
import { priorCheckpoint, rollbackFault, type CheckpointedTip, type RollbackFault } from '../util/rollback';
import type { Fault } from './chain';
import { journalCheckpointFile, JOURNAL_CHECKPOINT_KIND } from './checkpoint';
import { verifyJournalFilePrefix, type VerifyResult } from './verify';

/**
 * The rollback rule (src/util/rollback.ts) for per-step journals: what the
 * journal's checkpoint vouched for, and what the file holds at that place now.
 */

/** The tip a journal checkpoint recorded (its offset, steps and head), if well-formed. */
export function checkpointedJournalTip(r: CheckpointRecord): CheckpointedTip | undefined {
  const { offset, steps, head } = r.state;
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) return undefined;
  if (typeof steps !== 'number' || !Number.isSafeInteger(steps) || steps < 0) return undefined;
  if (typeof head !== 'string' || !isSha256Hex(head)) return undefined;
  return { steps, head, end: offset };
}

/**
 * Judges a journal walked to `walked` (rows and head, a torn tail left out,
 * starting at `tornFrom` when there is one) against the checkpointed tip. Where
 * the file holds more rows than were checkpointed, the checkpointed prefix is
 * walked again to learn which row ends it; where it held fewer, that prefix is
 * walked again too (an append since the walk began writes a checkpoint newer
 * than the walk: no rollback when the file now holds what it vouched for).
 */
export function journalRollback(
  file: string,
  ck: CheckpointedTip,
  walked: { steps: number; head: string },
  tornFrom?: number,
  env?: NodeJS.ProcessEnv,
): RollbackFault | undefined {
  let headAt: string | undefined;
  let steps = walked.steps;
  if (walked.steps === ck.steps) headAt = walked.head;
  else {
    // More rows than checkpointed: which row ends the prefix it vouched for. Fewer: the checkpoint may be newer than
    // the walk (an append that landed after the walk planned on the file's size wrote rows, then it), so that prefix
    // is walked now; a file cut or replaced below it still holds fewer rows there, or another row at its end.
    const prefix = verifyJournalFilePrefix(file, ck.end, env);
    if (walked.steps < ck.steps) steps = prefix.steps;
    headAt = prefix.steps === ck.steps ? prefix.head_hash : undefined;
  }
  return rollbackFault(ck, { steps, headAt, ...(tornFrom === undefined ? {} : { tornFrom }) });
}

/** A journal's rollback as a verify fault (whole-journal: line null). */
export function rollbackJournalFault(f: RollbackFault): Fault {
  return { line: null, kind: 'rollback', message: f.message };
}

/**
 * `verify`'s rollback check: the verified result of `file` against its
 * authenticated checkpoint, with the checkpoint key from `env` (never created
 * here). Returns the result with a `rollback` fault added when the file holds
 * less than the checkpoint recorded, and why rollback could not be checked
 * when it could not (for a warning).
 */
export function withJournalRollback(
  file: string,
  result: VerifyResult,
  env: NodeJS.ProcessEnv,
): { result: VerifyResult; unchecked?: string } {
  const mirror = { target: file, rows: (r: CheckpointRecord) => checkpointedJournalTip(r)?.steps };
  const prior = priorCheckpoint(journalCheckpointFile(file), JOURNAL_CHECKPOINT_KIND, env, undefined, mirror);
  if (prior === undefined) return { result };
  if ('unchecked' in prior) return { result, unchecked: prior.unchecked };
  const ck = checkpointedJournalTip(prior.record);
  if (ck === undefined) return { result, unchecked: `${journalCheckpointFile(file)} records no journal state` };
  const f = journalRollback(file, ck, { steps: result.steps, head: result.head_hash }, undefined, env);
  if (f === undefined) return { result };
  return {
    result: {
      ...result,
      ok: false,
      errors: [...result.errors, rollbackJournalFault(f)],
      fault_count: result.fault_count + 1,
    },
  };
}
