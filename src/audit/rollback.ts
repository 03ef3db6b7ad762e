import path from 'node:path';
import type { CheckpointRecord } from '../util/checkpoint';
import { priorCheckpoint, rollbackFault, type CheckpointedTip, type RollbackFault } from '../util/rollback';
import { AUDIT_CHECKPOINT, AUDIT_CHECKPOINT_KIND } from './layout';
import { verifyAuditLog, type AuditFault, type AuditVerifyResult } from './verify';

/**
 * The rollback rule (src/util/rollback.ts) for the audit log: what
 * `audit.checkpoint` vouched for (the entry count and tip HMAC, each segment's
 * size), and what the log holds now. The checkpoint is keyed with the audit
 * key, so whoever verifies the log can check it.
 */

/**
 * The checkpoint of the log in `dir` under the audit key (or its mirror beside the checkpoint key, from `env`,
 * when that vouches for more entries), or why it cannot be used.
 */
export function priorAuditCheckpoint(
  dir: string,
  key: Uint8Array,
  env: NodeJS.ProcessEnv = process.env,
): ReturnType<typeof priorCheckpoint> {
  const mirror = { target: dir, rows: (r: CheckpointRecord) => checkpointedAuditTip(r)?.steps };
  return priorCheckpoint(path.join(dir, AUDIT_CHECKPOINT), AUDIT_CHECKPOINT_KIND, env, key, mirror);
}

/**
 * The tip the checkpoint recorded: its entry count and HMAC, and the bytes it
 * vouched for in `segment` (a segment it did not list: none). Undefined for a
 * checkpoint without a count (written before counts were kept: the next
 * append writes one).
 */
export function checkpointedAuditTip(r: CheckpointRecord, segment?: string): CheckpointedTip | undefined {
  const { entries, hmac, files } = r.state;
  if (typeof entries !== 'number' || !Number.isSafeInteger(entries) || entries < 0 || typeof hmac !== 'string')
    return undefined;
  let end = 0;
  if (segment !== undefined && Array.isArray(files)) {
    const at = (files as unknown[]).find((f): f is [string, { size: string }] => Array.isArray(f) && f[0] === segment);
    const size = Number(at?.[1]?.size);
    if (Number.isSafeInteger(size) && size > 0) end = size;
  }
  return { steps: entries, head: hmac, end };
}

/** Judges the log walked to `whole` (verified with `hashAt` the checkpointed tip's index). */
export function auditRollback(ck: CheckpointedTip, whole: AuditVerifyResult): RollbackFault | undefined {
  return rollbackFault(ck, { steps: whole.entries, headAt: whole.hash_at }, 'entries');
}

/**
 * `audit verify` with the rollback check: the log in `dir` against its
 * authenticated checkpoint. A rollback is a fault of the whole log (file '',
 * line 0); `unchecked` says why it could not be checked.
 */
export function verifyAuditLogChecked(
  dir: string,
  key: Uint8Array,
  env: NodeJS.ProcessEnv = process.env,
): { result: AuditVerifyResult; unchecked?: string } {
  const prior = priorAuditCheckpoint(dir, key, env);
  if (prior === undefined) return { result: verifyAuditLog(dir, key) };
  if ('unchecked' in prior) return { result: verifyAuditLog(dir, key), unchecked: prior.unchecked };
  const ck = checkpointedAuditTip(prior.record);
  if (ck === undefined)
    return {
      result: verifyAuditLog(dir, key),
      unchecked: `${path.join(dir, AUDIT_CHECKPOINT)} records no entry count`,
    };
  const { hash_at, ...result } = verifyAuditLog(dir, key, { hashAt: ck.steps - 1 });
  const f = auditRollback(ck, { ...result, ...(hash_at === undefined ? {} : { hash_at }) });
  if (f === undefined) return { result };
  const fault: AuditFault = { file: '', line: 0, kind: 'rollback', message: f.message };
  return {
    result: { ...result, ok: false, errors: [...result.errors, fault], fault_count: result.fault_count + 1 },
  };
}
