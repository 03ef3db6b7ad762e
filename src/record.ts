import { tornTailOption } from './util/chain-file';
import path from 'node:path';
import { Journal, type JournalOptions, type StepInput } from './journal';
import type { StepRow } from './journal';
import { namedConfigOnce } from './git/exec';
import { repoInfo, type RepoInfo } from './git/repo';
import { takeSnapshot, type SnapshotInfo } from './git/snapshot';
import { auditEvent, auditOptions } from './audit/log';
import { recordStepChanges, type RecordedStepChanges } from './provenance/record';

/**
 * Recording one step of an agent run: the journal append, plus what rides along
 * with it (the worktree snapshot of docs/format.md §4's per-step snapshots, the audit
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
  /** Audit key file (default from the environment, see docs/runs-audit.md). */
  auditKeyPath?: string;
  /**
   * With a snapshot, record what the step changed (paths and blob ids) in the run journal of the same id
   * (docs/provenance.md; default true).
   */
  provenance?: boolean;
}

export interface RecordResult {
  row: StepRow;
  journal: Journal;
  warnings: string[];
  /** The per-step worktree snapshot, when one was recorded. */
  snapshot?: SnapshotInfo;
  /** What the step changed, as chained into the run journal (docs/provenance.md), when recorded. */
  changes?: RecordedStepChanges;
  /**
   * Things worth saying once, not warnings: outside a git work tree there are no
   * snapshots, which is said on a journal's first step only.
   */
  notes: string[];
}

export function recordStep(journalDirPath: string, step: StepInput, options: RecordOptions): RecordResult {
  // One lock cycle: the step is checked before anything is created, the chain verified before it is extended.
  const { journal, row } = Journal.appendTo(journalDirPath, step, options);
  const warnings: string[] = [];
  const result: RecordResult = { row, journal, warnings, notes: [] };
  // Where the root sits in git, asked once for the snapshot and the changes.
  let repo: RepoInfo | undefined;
  // One read of the configuration naming programs for the step's git commands (snapshot and changes alike), from
  // the repository's files when git's answer can be read there (./git/config-read.ts).
  const readNamed = namedConfigOnce(options.root, options.env ?? process.env, () => repo);
  if (options.snapshot !== false) {
    try {
      const agentId = path.basename(path.resolve(journalDirPath));
      repo = repoInfo(options.root, options.env ?? process.env);
      const snap = takeSnapshot(
        {
          root: options.root,
          agentId,
          seq: row.seq,
          stepHash: row.step_hash,
          env: options.env ?? process.env,
          readNamed,
        },
        repo ?? null,
      );
      if (snap !== undefined) {
        result.snapshot = snap;
        // Said, not hidden: a fork from this step would hand out an empty directory where the agent's files were.
        if (snap.nested !== undefined)
          warnings.push(
            `step ${row.seq}: its worktree snapshot holds none of the files of ${snap.nested.join(', ')}: a git repository of its own (a submodule or a nested repository) is recorded by its commit only (one with no commit yet, not at all), so a fork from this step restores none of its files or edits`,
          );
        if (snap.unopened !== undefined)
          warnings.push(
            `step ${row.seq}: its worktree snapshot holds none of the files of ${snap.unopened.join(', ')}: git could not open ${snap.unopened.length === 1 ? 'that directory' : 'those directories'} (no permission), so a fork from this step restores none of their files`,
          );
      } else if (row.seq === 0)
        result.notes.push(
          `${options.root} is not in a git work tree: steps are recorded without worktree snapshots (a fork restores no files)`,
        );
    } catch (e) {
      warnings.push(`step ${row.seq} recorded, but its worktree snapshot failed: ${(e as Error).message}`);
    }
  }
  if (result.snapshot !== undefined && options.provenance !== false) {
    try {
      const changes = recordStepChanges(result.snapshot, {
        root: options.root,
        env: options.env ?? process.env,
        readNamed,
        ...(repo === undefined ? {} : { commonDir: repo.commonDir }),
        ...(options.auditKeyPath === undefined ? {} : { auditKeyPath: options.auditKeyPath }),
        ...tornTailOption(options),
      });
      if (changes !== undefined) result.changes = changes;
      if (changes?.warning !== undefined) warnings.push(`step ${row.seq} recorded, but ${changes.warning}`);
    } catch (e) {
      // Said, not hidden: the PR check will show this step's files as unrecorded.
      warnings.push(
        `step ${row.seq} recorded, but what it changed was not (its files will show as unrecorded): ${(e as Error).message}`,
      );
    }
  }
  // docs/format.md §5: mirror the step into the HMAC audit chain (best-effort; the row stands either way).
  const agent = path.basename(path.resolve(journalDirPath));
  const audited = auditEvent(
    options.root,
    'replay.step',
    {
      actor: agent,
      resource_type: 'journal',
      resource_id: agent,
      details: { agent, seq: row.seq, step_hash: row.step_hash },
    },
    auditOptions(options.env ?? process.env, options.auditKeyPath, options.onTornTail),
  );
  if (audited !== undefined) warnings.push(`step ${row.seq} recorded, but ${audited}`);
  return result;
}
