import { Journal, type JournalOptions, type StepInput } from './journal';
import type { StepRow } from './journal';

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
}

export function recordStep(journalDirPath: string, step: StepInput, options: RecordOptions): RecordResult {
  const journal = Journal.open(journalDirPath, options);
  const row = journal.append(step);
  const warnings: string[] = [];
  return { row, journal, warnings };
}
