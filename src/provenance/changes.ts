import { isJsonInteger, isJsonObject, type JsonValue } from '../canonical';
import { isStepchainPath, isUnnameable, type TreeChange } from '../git/diff';
import type { Payload, RunRow } from '../runs/row';
import { isSafeId } from '../util/ids';
import { isObjectId } from '../git/object-id';

/**
 * What one step changed in the work tree, as a run-journal entry (docs/format.md §5,
 * "Step changes"; docs/provenance.md): event `step_changes` in the run journal of
 * the same id as the per-step journal, payload
 *
 *   {agent_id, seq, step_hash, snapshot, since: {seq, commit}, changes: [{path, blob, mode}], omitted}
 *
 * `changes` lists every path added, modified or deleted between the snapshot of
 * the step before (`since.seq`; null: the commit the run started from,
 * `since.commit`) and this step's, sorted as git sorts them, with the git object
 * id and mode after the change (both null for a deletion). Content addresses
 * only: no file content. `.sdd/` is never part of it. The run journal's chain
 * covers the payload; `step_hash` binds it to the step.
 */
export const STEP_CHANGES_EVENT = 'step_changes';

/** At most this many paths per entry (the rest are counted in `omitted` and never attributed). */
export const MAX_RECORDED_CHANGES = 50_000;

export interface RecordedChange {
  path: string;
  /** The git object id after the step, null when the step deleted the path. */
  blob: string | null;
  /** The git mode after the step (`100644`, `100755`, `120000`, `160000`), null for a deletion. */
  mode: string | null;
}

export interface StepChanges {
  agent_id: string;
  seq: number;
  step_hash: string;
  /** The step's snapshot commit (in the recording repository; not needed to check). */
  snapshot: string;
  /** What the changes are counted from: the previous step's snapshot, or (seq null) the commit the run started from. */
  since: { seq: number | null; commit: string | null };
  changes: RecordedChange[];
  /** Changed paths beyond MAX_RECORDED_CHANGES, not listed. */
  omitted: number;
}

/** The recorded form of a diff; a path that cannot be named exactly (not UTF-8) is left out, never guessed. */
export function changesOf(diff: readonly TreeChange[]): RecordedChange[] {
  return diff.filter((c) => !isUnnameable(c.path)).map((c) => ({ path: c.path, blob: c.blob, mode: c.mode }));
}

/** The run-journal payload of a step's changes (keys in this order on the line). */
export function stepChangesPayload(c: StepChanges): Payload {
  const m: Payload = new Map<string, JsonValue>();
  m.set('agent_id', c.agent_id);
  m.set('seq', c.seq);
  m.set('step_hash', c.step_hash);
  m.set('snapshot', c.snapshot);
  m.set(
    'since',
    new Map<string, JsonValue>([
      ['seq', c.since.seq],
      ['commit', c.since.commit],
    ]),
  );
  m.set(
    'changes',
    c.changes.map(
      (x) =>
        new Map<string, JsonValue>([
          ['path', x.path],
          ['blob', x.blob],
          ['mode', x.mode],
        ]),
    ),
  );
  m.set('omitted', c.omitted);
  return m;
}

const MODE = /^[0-7]{6}$/;
const HASH = /^[0-9a-f]{64}$/;

function get(v: JsonValue | undefined, k: string): JsonValue | undefined {
  if (v instanceof Map) return v.get(k);
  return isJsonObject(v) ? v[k] : undefined;
}

function count(v: JsonValue | undefined): number | undefined {
  return isJsonInteger(v) && typeof v === 'number' && v >= 0 ? v : undefined;
}

/**
 * A `step_changes` row read back, or why it cannot be one. Every field is
 * checked: a record from a pull request is hostile, and one that does not read
 * exactly attributes nothing.
 */
export function readStepChanges(row: RunRow): { ok: true; value: StepChanges } | { ok: false; reason: string } {
  const p = row.payload;
  const bad = (reason: string): { ok: false; reason: string } => ({ ok: false, reason });
  const agent = p.get('agent_id');
  if (typeof agent !== 'string' || !isSafeId(agent)) return bad('agent_id is not an agent id');
  const seq = count(p.get('seq'));
  if (seq === undefined) return bad('seq is not a non-negative integer');
  const stepHash = p.get('step_hash');
  if (typeof stepHash !== 'string' || !HASH.test(stepHash)) return bad('step_hash is not 64 hex digits');
  const snapshot = p.get('snapshot');
  if (typeof snapshot !== 'string' || !isObjectId(snapshot)) return bad('snapshot is not a commit id');
  const since = p.get('since');
  const sinceSeq = get(since, 'seq');
  const sinceCommit = get(since, 'commit');
  if (sinceSeq !== null && count(sinceSeq) === undefined) return bad('since.seq is neither null nor a seq');
  if (sinceCommit !== null && (typeof sinceCommit !== 'string' || !isObjectId(sinceCommit)))
    return bad('since.commit is neither null nor a commit id');
  const omitted = count(p.get('omitted'));
  if (omitted === undefined) return bad('omitted is not a count');
  const list = p.get('changes');
  if (!Array.isArray(list)) return bad('changes is not a list');
  const changes: RecordedChange[] = [];
  const seen = new Set<string>();
  for (const [i, c] of list.entries()) {
    const path = get(c, 'path');
    const blob = get(c, 'blob');
    const mode = get(c, 'mode');
    if (typeof path !== 'string' || path === '' || path.includes('\0') || path.startsWith('/'))
      return bad(`changes[${i}].path is not a repository path`);
    if (isStepchainPath(path)) return bad(`changes[${i}].path ${JSON.stringify(path)} is under .sdd/`);
    if (isUnnameable(path)) return bad(`changes[${i}].path holds U+FFFD (no recorder writes one)`);
    if (seen.has(path)) return bad(`changes[${i}].path ${JSON.stringify(path)} is listed twice`);
    seen.add(path);
    const deleted = blob === null && mode === null;
    if (!deleted && (typeof blob !== 'string' || !isObjectId(blob) || typeof mode !== 'string' || !MODE.test(mode)))
      return bad(`changes[${i}]: blob and mode must be an object id and a mode, or both null`);
    changes.push({ path, blob: deleted ? null : (blob as string), mode: deleted ? null : (mode as string) });
  }
  return {
    ok: true,
    value: {
      agent_id: agent,
      seq,
      step_hash: stepHash,
      snapshot,
      since: { seq: sinceSeq === null ? null : (sinceSeq as number), commit: sinceCommit as string | null },
      changes,
      omitted,
    },
  };
}
