import type { JsonValue } from '../canonical';
import { fieldsChanged, type ContentField } from './step';
import { storedRow, type ReplaySource } from './source';

/**
 * The first divergence between two verified journals. Every key is always
 * present so a script can read the document without branching:
 * - same: `diverged: false`, `reason`/`seq`/`left`/`right` null;
 * - `reason: "step_mismatch"`: the first seq whose hashed content differs, the
 *   content fields that differ there, and both rows as stored;
 * - `reason: "length_mismatch"`: one journal is a prefix of the other; `seq` is
 *   the first step present on one side only (`left` or `right` is null).
 * Steps are compared by `step_hash`: time, seq and blob_refs are not hashed, so
 * two runs that did the same thing at different times do not diverge.
 */
export interface JournalDiff {
  diverged: boolean;
  reason: 'step_mismatch' | 'length_mismatch' | null;
  seq: number | null;
  fields_changed: ContentField[];
  left: JsonValue;
  right: JsonValue;
  left_steps: number;
  right_steps: number;
  left_head: string;
  right_head: string;
}

export function diffJournals(left: ReplaySource, right: ReplaySource): JournalDiff {
  const base = {
    left_steps: left.steps,
    right_steps: right.steps,
    left_head: left.head_hash,
    right_head: right.head_hash,
  };
  const n = Math.min(left.steps, right.steps);
  for (let i = 0; i < n; i++) {
    const a = left.entries[i]!;
    const b = right.entries[i]!;
    if (a.row.step_hash !== b.row.step_hash) {
      return {
        diverged: true,
        reason: 'step_mismatch',
        seq: i,
        fields_changed: fieldsChanged(a.row, b.row),
        left: storedRow(a),
        right: storedRow(b),
        ...base,
      };
    }
  }
  if (left.steps !== right.steps) {
    const l = left.entries[n];
    const r = right.entries[n];
    return {
      diverged: true,
      reason: 'length_mismatch',
      seq: n,
      fields_changed: [],
      left: l === undefined ? null : storedRow(l),
      right: r === undefined ? null : storedRow(r),
      ...base,
    };
  }
  return { diverged: false, reason: null, seq: null, fields_changed: [], left: null, right: null, ...base };
}
