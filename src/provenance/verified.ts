import { readJournalBytes } from '../journal/verify';
import { readRunJournalBytes } from '../runs/verify';
import type { VerifiedStepChanges } from './attribute';
import { readStepChanges, STEP_CHANGES_EVENT } from './changes';

/**
 * The recorded changes that count (docs/provenance.md, "What counts"): read
 * from a run journal whose chain verifies, each entry naming its own run's
 * agent, a seq of that agent's per-step journal, which verifies too, and the
 * step_hash that journal holds at that seq. Anything else attributes nothing
 * and is said (`ignored`): a broken chain, an entry that does not read, a step
 * the journal does not hold.
 */
export interface VerifiedChanges {
  records: VerifiedStepChanges[];
  /** Why records of this run were not used, one line each. */
  ignored: string[];
}

/**
 * `runId`'s run journal bytes, and `journal` the bytes of the per-step journal
 * of the same id in the same project (undefined when there is none).
 */
export function verifiedChanges(runId: string, runBytes: Buffer, journal: Buffer | undefined): VerifiedChanges {
  const out: VerifiedChanges = { records: [], ignored: [] };
  const run = readRunJournalBytes(runBytes);
  const entries = run.entries.filter((e) => e.row.event === STEP_CHANGES_EVENT);
  if (entries.length === 0) return out;
  if (!run.chain_ok) {
    out.ignored.push(`run ${runId}: its chain does not verify: none of its ${entries.length} recorded changes count`);
    return out;
  }
  if (journal === undefined) {
    out.ignored.push(`run ${runId}: no per-step journal ${runId} beside it: its recorded changes count for nothing`);
    return out;
  }
  const steps = readJournalBytes(journal);
  if (!steps.ok) {
    out.ignored.push(
      `run ${runId}: the per-step journal ${runId} does not verify: its recorded changes count for nothing`,
    );
    return out;
  }
  const hashAt = new Map(steps.entries.map((e) => [e.row.seq, e.row.step_hash]));
  for (const { line, row } of entries) {
    const c = readStepChanges(row);
    if (!c.ok) {
      out.ignored.push(`run ${runId}, line ${line}: ${STEP_CHANGES_EVENT}: ${c.reason}`);
      continue;
    }
    const v = c.value;
    if (v.agent_id !== runId) {
      out.ignored.push(`run ${runId}, line ${line}: names agent ${v.agent_id}, not ${runId}`);
      continue;
    }
    if (hashAt.get(v.seq) !== v.step_hash) {
      out.ignored.push(`run ${runId}, line ${line}: step ${v.seq} of ${runId} is not the step with that step_hash`);
      continue;
    }
    out.records.push({ ...v, ts: Number.isFinite(row.ts) ? row.ts : 0 });
  }
  return out;
}
