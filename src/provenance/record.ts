import { auditEvent, auditOptions } from '../audit/log';
import { diffTreesSync, type TreeChange } from '../git/diff';
import { GitCommandError } from '../git/exec';
import { looseCommitTree, readRef, refAbsent } from '../git/loose';
import { diffLooseTrees } from '../git/tree-diff';
import { snapshotRefDir, type SnapshotInfo } from '../git/snapshot';
import { tornTailOption, type TornTailMoved } from '../util/chain-file';
import { RunJournal } from '../runs/journal';
import { runJournalFile } from '../runs/layout';
import type { RunRow } from '../runs/row';
import { changesOf, MAX_RECORDED_CHANGES, STEP_CHANGES_EVENT, stepChangesPayload, type StepChanges } from './changes';

/**
 * Recording what a step changed (docs/provenance.md): one `git diff-tree` of the
 * step's snapshot against the previous step's (the first step: against the
 * commit the run started from), chained into the run journal of the same id as
 * a `step_changes` entry and mirrored into the audit chain. It rides along with
 * the step like the snapshot: `recordStep` turns a failure into a warning.
 */
export interface ChangesOptions {
  root: string;
  env: NodeJS.ProcessEnv;
  auditKeyPath?: string;
  /** The configuration naming programs, when the step's snapshot already read it. */
  readNamed?: () => string;
  /** The repository's common git dir, when the caller knows it: an unchanged tree is then told without git. */
  commonDir?: string;
  /** Told whenever a torn tail of the run journal or the audit log is moved aside (default: one line on stderr). */
  onTornTail?: (m: TornTailMoved) => void;
}

export interface RecordedStepChanges {
  changes: StepChanges;
  row: RunRow;
  file: string;
  /** The audit event that could not be written (the entry stands). */
  warning?: string;
}

/** The tree of a commit (a 40-digit id) or a ref (`refs/...`) when loose files say it plainly; else undefined. */
function treeOf(commonDir: string, commitOrRef: string): string | undefined {
  try {
    const commit = commitOrRef.startsWith('refs/') ? readRef(commonDir, commitOrRef) : commitOrRef;
    return commit === undefined ? undefined : looseCommitTree(commonDir, commit);
  } catch {
    return undefined; // git says what is wrong, if anything
  }
}

/** The ref of the step before `snap`'s, in the same journal's layout (`.../<seq>` -> `.../<seq - 1>`). */
export function previousRef(snap: SnapshotInfo): string {
  return `${snapshotRefDir(snap.ref)}/${snap.seq - 1}`;
}

/**
 * The step's changes: against the previous step's snapshot when it has one,
 * else (the first step, or a step after one recorded without a snapshot) against
 * the commit this snapshot was built on, which `since` then says.
 */
export function stepChanges(
  snap: SnapshotInfo,
  root: string,
  env: NodeJS.ProcessEnv,
  readNamed?: () => string,
  commonDir?: string,
): StepChanges {
  const git = readNamed === undefined ? { env } : { env, readNamed };
  // Most tool calls change no file: the snapshot's tree is the one it is compared with, which the repository's
  // loose files tell without a `git diff-tree` (src/git/loose.ts); the others are compared in-process when both
  // trees are loose (src/git/tree-diff.ts). Anything they do not tell plainly, git answers.
  const known = (ref: string | undefined): string | undefined =>
    ref !== undefined && commonDir !== undefined && snap.tree !== undefined ? treeOf(commonDir, ref) : undefined;
  const compare = (from: string | undefined): TreeChange[] => {
    const tree = known(from);
    if (tree !== undefined && tree === snap.tree) return [];
    const inProcess = tree === undefined ? undefined : diffLooseTrees(commonDir!, tree, snap.tree!);
    return inProcess ?? diffTreesSync(root, from, snap.commit, git);
  };
  let diff: TreeChange[] | undefined;
  let since: StepChanges['since'] = { seq: null, commit: snap.parent ?? null };
  const prev = snap.seq > 0 ? previousRef(snap) : undefined;
  // The step before recorded no snapshot (`--no-snapshot`, a failed one): told without a git process where refs are
  // files, else by git's failure.
  if (prev !== undefined && !(commonDir !== undefined && refAbsent(commonDir, prev, snap.ref))) {
    try {
      diff = compare(prev);
      since = { seq: snap.seq - 1, commit: null };
    } catch (e) {
      if (!(e instanceof GitCommandError)) throw e; // no snapshot of the step before: from the start commit, said
    }
  }
  diff ??= compare(snap.parent);
  const all = changesOf(diff);
  return {
    agent_id: snap.agent_id,
    seq: snap.seq,
    step_hash: snap.step_hash,
    snapshot: snap.commit,
    since,
    changes: all.slice(0, MAX_RECORDED_CHANGES),
    omitted: Math.max(0, all.length - MAX_RECORDED_CHANGES),
  };
}

/**
 * Records the step's changes; a step that changed nothing (most tool calls read) writes nothing: no entry
 * claims nothing, and the run journal and audit chain are not touched.
 */
export function recordStepChanges(snap: SnapshotInfo, options: ChangesOptions): RecordedStepChanges | undefined {
  const changes = stepChanges(snap, options.root, options.env, options.readNamed, options.commonDir);
  if (changes.changes.length === 0 && changes.omitted === 0) return undefined;
  const journal = new RunJournal(runJournalFile(options.root, snap.agent_id), {
    env: options.env,
    ...tornTailOption(options),
  });
  const [row] = journal.record([{ event: STEP_CHANGES_EVENT, payload: stepChangesPayload(changes) }]);
  const out: RecordedStepChanges = { changes, row: row!, file: journal.file };
  const warning = auditEvent(
    options.root,
    'provenance.step_changes',
    {
      actor: snap.agent_id,
      resource_type: 'run',
      resource_id: snap.agent_id,
      details: {
        agent: snap.agent_id,
        seq: snap.seq,
        step_hash: snap.step_hash,
        changes: changes.changes.length,
        journal_head: row!.event_hash,
      },
    },
    auditOptions(options.env, options.auditKeyPath, options.onTornTail),
  );
  if (warning !== undefined) out.warning = warning;
  return out;
}
