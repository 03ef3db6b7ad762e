import { existsSync } from 'node:fs';
import path from 'node:path';
import {
  checkpointKey,
  checkpointKeyPath,
  checkpointsEnabled,
  readCheckpointRecord,
  tipMirrorDir,
  tipMirrorFile,
  type CheckpointRecord,
} from './checkpoint';

/**
 * Rollback is tampering (docs/journal.md, "Rollback"): the one rule, shared by
 * the three writers (per-step journals, run journals, the audit log) and their
 * verifiers. A file is judged against the last authenticated checkpoint beside
 * it, whatever identity the file has now (a truncation in place changes its
 * size and ctime, a replacement its inode: the checkpoint still says what was
 * verified there).
 */

/** What a checkpoint vouched for: `steps` rows (entries) ending at `head`, in the first `end` bytes of the file. */
export interface CheckpointedTip {
  steps: number;
  head: string;
  end: number;
}

/** What the file holds now, as a writer or a verifier walked it. */
export interface HeldTip {
  /** Rows walked (a torn tail left out); undefined when only the bytes are judged. */
  steps?: number;
  /** The stored hash of row `checkpointed.steps - 1` as the file holds it now (undefined: no such row, or unknown). */
  headAt?: string | undefined;
  /** Where a torn tail the writer would set aside starts. */
  tornFrom?: number;
}

/** A rollback: the file holds less than (or other than) what an authenticated checkpoint recorded. */
export interface RollbackFault {
  kind: 'rollback';
  checkpointed_steps: number;
  checkpointed_head: string;
  /** The rows the file holds now (undefined when the bytes alone gave it away). */
  held_steps?: number;
  /** One line, without the file's name (the caller names the file). */
  message: string;
}

/**
 * The rollback rule: a fault when the checkpoint vouched for bytes that would
 * now be set aside as a torn tail, when the file holds fewer rows than it
 * recorded, or when the row it recorded as the head is not the one at that
 * place now (history replaced). `unit` names the rows ("steps", "entries").
 */
export function rollbackFault(ck: CheckpointedTip, held: HeldTip, unit = 'steps'): RollbackFault | undefined {
  const fault = (why: string): RollbackFault => ({
    kind: 'rollback',
    checkpointed_steps: ck.steps,
    checkpointed_head: ck.head,
    ...(held.steps === undefined ? {} : { held_steps: held.steps }),
    message: `the checkpoint recorded ${ck.steps} ${unit} ending at ${ck.head}, ${why}`,
  });
  if (held.tornFrom !== undefined && held.tornFrom < ck.end)
    return fault(
      `but from byte ${held.tornFrom}, within the ${ck.end} it vouched for, the file no longer holds a complete row: edited or cut, not a write that never finished`,
    );
  if (held.steps === undefined) return undefined;
  if (held.steps < ck.steps) return fault(`but only ${held.steps} remain: truncated or rolled back`);
  if (ck.steps > 0 && held.headAt !== ck.head)
    return fault(`but the file's row ${ck.steps - 1} is not that row: history replaced`);
  return undefined;
}

/** A checkpoint to judge a file against, or why rollback could not be checked (undefined: nothing recorded). */
export type PriorCheckpoint = { record: CheckpointRecord } | { unchecked: string } | undefined;

/**
 * The mirror of a checkpoint kept beside the key (src/util/checkpoint.ts, `tipMirrorDir`): where it is (default:
 * beside the checkpoint key), the target it must describe, and how many rows a record vouches for.
 */
export interface TipMirror {
  dir?: string;
  target: string;
  rows(r: CheckpointRecord): number | undefined;
}

/**
 * The authenticated checkpoint `ckptFile` of `kind`, read with `key` (default:
 * the local checkpoint key from `env`, never created here), or its mirror
 * beside the key when that vouches for more rows (an older file restored with
 * its older checkpoint: docs/journal.md, "Rollback"). Rollback cannot be
 * checked (and the caller says so) when checkpoints are off, the key cannot be
 * used, or what lies there does not authenticate under it (and no mirror does);
 * where there is no checkpoint and no key nothing was ever recorded to check
 * against.
 */
export function priorCheckpoint(
  ckptFile: string,
  kind: string,
  env: NodeJS.ProcessEnv,
  key?: Uint8Array,
  mirror?: TipMirror,
): PriorCheckpoint {
  if (key === undefined) {
    if (!checkpointsEnabled(env)) return { unchecked: 'checkpoints are off (STEPCHAIN_CHECKPOINT)' };
    key = checkpointKey(env, false);
    if (key === undefined) {
      const keyFile = checkpointKeyPath(env);
      if (existsSync(keyFile)) return { unchecked: `the checkpoint key ${keyFile} cannot be used` };
      if (existsSync(ckptFile)) return { unchecked: `no checkpoint key (${keyFile}) to authenticate ${ckptFile}` };
      return undefined;
    }
  }
  const r = readCheckpointRecord(ckptFile, kind, key);
  const m = mirror === undefined ? undefined : mirrored(mirror, kind, key, env);
  if (m !== undefined && (typeof r === 'string' || (mirror!.rows(m) ?? -1) > (mirror!.rows(r) ?? -1)))
    return { record: m };
  if (r === 'absent') return undefined;
  if (r === 'unauthenticated') return { unchecked: `${ckptFile} does not authenticate under the checkpoint key` };
  return { record: r };
}

/** The mirrored checkpoint of `mirror.target`, if one authenticates under `key` and describes that target. */
function mirrored(
  mirror: TipMirror,
  kind: string,
  key: Uint8Array,
  env: NodeJS.ProcessEnv,
): CheckpointRecord | undefined {
  const file = tipMirrorFile(mirror.dir ?? tipMirrorDir(env), kind, mirror.target);
  const r = readCheckpointRecord(file, kind, key);
  return typeof r === 'string' || r.target !== path.resolve(mirror.target) ? undefined : r;
}

/** The warning line a verifier prints when rollback could not be checked. */
export function rollbackUncheckedLine(file: string, why: string): string {
  return `stepchain: ${file}: warning: rollback not checked: ${why}`;
}
