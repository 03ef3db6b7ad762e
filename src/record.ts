import path from 'node:path';
import { Journal, validateStep, type JournalOptions, type StepInput } from './journal';
import type { StepRow } from './journal';
import { takeSnapshot, type SnapshotInfo } from './git/snapshot';

/**
 * Recording one step of an agent run: the journal append, plus what rides along
 * with it (the worktree snapshot of SPEC §4's per-step snapshots, the audit
 * event of §5). The CLI's `append` and any library user call this; a failure of
 * a ride-along never loses the journal entry: it comes back in `warnings`.
 */
export interface RecordOptions extends JournalOptions {
  /** The project root (for snapshots and the audit log). */
  root: string;
  /** Record a per-step worktree snapshot when the root is in a git work tree (default true). */
  snapshot?: boolean;
  /** Environment for settings such as the audit key (default process.env). */
  env?: NodeJS.ProcessEnv;
}

export interface RecordResult {
  row: StepRow;
  journal: Journal;
  warnings: string[];
  /** The per-step worktree snapshot, when one was recorded. */
  snapshot?: SnapshotInfo;
}

export function recordStep(journalDirPath: string, step: StepInput, options: RecordOptions): RecordResult {
  validateStep(step); // nothing is created for a step that cannot be written
  const journal = Journal.open(journalDirPath, options);
  const row = journal.append(step);
  const warnings: string[] = [];
  const result: RecordResult = { row, journal, warnings };
  if (options.snapshot !== false) {
    try {
      const agentId = path.basename(path.resolve(journalDirPath));
      const snap = takeSnapshot({ root: options.root, agentId, seq: row.seq, stepHash: row.step_hash, env: options.env ?? process.env });
      if (snap !== undefined) result.snapshot = snap;
    } catch (e) {
      warnings.push(`step ${row.seq} recorded, but its worktree snapshot failed: ${(e as Error).message}`);
    }
  }
  return result;
}
