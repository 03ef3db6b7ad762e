import { tornTailOption } from './util/chain-file';
import path from 'node:path';
import { Journal, type JournalOptions, type StepInput } from './journal';
import type { StepRow } from './journal';
import { gitTimeoutMs, namedConfigOnce } from './git/exec';
import { repoInfo, type RepoInfo } from './git/repo';
import {
  abandonSnapshot,
  finishSnapshot,
  journalKey,
  snapshotRef,
  snapshotRefDir,
  startSnapshot,
  takeSnapshot,
  type SnapshotInfo,
  type SnapshotOptions,
  type StartedSnapshot,
} from './git/snapshot';
import { auditEvent, auditOptions } from './audit/log';
import { previousRef, recordStepChanges, type RecordedStepChanges } from './provenance/record';
import { StepMarker, waitForPreviousSnapshot } from './git/step-markers';
import { SNAPSHOT_TIMEOUT_MS } from './git/snapshot-begin';
import { someOf } from './util/words';

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
  /**
   * For a caller that can wait (the hook command, whose agent waits on it): the snapshot's add of the work tree
   * starts before the append and runs while the step is appended and audited, and the rest of the snapshot (its
   * commit and ref, then what the step changed) is handed over here to finish afterwards; the result's `snapshot`,
   * `changes` and `warnings` are complete once `settled()` resolves. Absent: all of it is done before recordStep
   * returns.
   */
  deferSnapshots?: DeferredSnapshots;
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
  const env = options.env ?? process.env;
  const agentId = path.basename(path.resolve(journalDirPath));
  const deferred = options.snapshot === false ? undefined : options.deferSnapshots;
  // Deferred: the snapshot's add of the work tree starts before the append and runs while the step is appended and
  // audited (a failure to start it is the step's warning, as any snapshot failure); a caller that knew a step was
  // coming may have started it already (`DeferredSnapshots.startEarly`): for this step only, the next one.
  const early =
    options.deferSnapshots === undefined
      ? undefined
      : takeEarly(options.deferSnapshots, options.root, env, deferred !== undefined);
  const begun = deferred === undefined ? undefined : (early ?? beginSnapshot(options.root, env));
  // Where the root sits in git, asked once for the snapshot and the changes.
  let repo: RepoInfo | undefined = begun?.repo;
  // One read of the configuration naming programs for the step's git commands (snapshot and changes alike), from
  // the repository's files when git's answer can be read there (./git/config-read.ts).
  const readNamed = begun?.readNamed ?? namedConfigOnce(options.root, env, () => repo);
  const started = begun?.started;
  const startFailed = begun?.failed;
  // In line, where the root sits in git is asked before the append too: the step's marker goes there.
  let inLineFailed: unknown;
  if (deferred === undefined && options.snapshot !== false)
    try {
      repo = repoInfo(options.root, env);
    } catch (e) {
      inLineFailed = e ?? new Error('the snapshot did not start');
    }
  // Steps of one journal recorded by processes at once: each one's changes wait for the previous step's snapshot
  // (./git/step-markers.ts).
  const marker =
    repo === undefined || options.snapshot === false
      ? undefined
      : StepMarker.open(repo.gitDir, snapshotRefDir(snapshotRef(agentId, 0, journalKey(options.root, repo))));
  let appended: { journal: Journal; row: StepRow };
  try {
    // One lock cycle: the step is checked before anything is created, the chain verified before it is extended.
    appended = Journal.appendTo(journalDirPath, step, options);
  } catch (e) {
    marker?.done();
    if (started !== undefined) deferred?.add(abandonSnapshot(started));
    throw e;
  }
  const { journal, row } = appended;
  marker?.appended(row.seq);
  const result: RecordResult = { row, journal, warnings: [], notes: [] };
  auditStep(result, agentId, options);
  if (options.snapshot === false) return result;
  const finish = (snap: SnapshotInfo | undefined): void => {
    snapshotTaken(result, snap, options.root);
    if (snap !== undefined && repo !== undefined && options.provenance !== false)
      waitForPreviousSnapshot(
        repo.gitDir,
        repo.commonDir,
        snapshotRefDir(snap.ref),
        snap.seq,
        previousRef(snap),
        snap.ref,
        // No longer than the step before's own git may take (a hung writer's add is stopped by then).
        gitTimeoutMs(env, 'STEPCHAIN_SNAPSHOT_TIMEOUT_MS', SNAPSHOT_TIMEOUT_MS),
      );
    recordChanges(result, { ...options, env }, readNamed, repo);
  };
  const failed = (e: unknown): void => {
    result.warnings.push(`step ${row.seq} recorded, but its worktree snapshot failed: ${(e as Error).message}`);
  };
  if (deferred === undefined) {
    try {
      if (inLineFailed !== undefined) throw inLineFailed;
      finish(takeSnapshot(snapshotOptions(options.root, agentId, row, env, readNamed), repo ?? null));
    } catch (e) {
      failed(e);
    } finally {
      marker?.done();
    }
  } else if (startFailed !== undefined) {
    marker?.done();
    failed(startFailed);
  } else if (started === undefined) {
    marker?.done();
    finish(undefined);
  } else {
    // Finished in the order the steps were recorded, whichever add ends first (a process's children are reaped
    // last-started first): a step's changes are told against the previous step's snapshot, written by then.
    const begun = started;
    deferred.snapshots++;
    deferred.add(() =>
      finishSnapshot(begun, snapshotOptions(options.root, agentId, row, env, readNamed))
        .then(finish, failed)
        .catch(failed)
        .finally(() => marker?.done()),
    );
  }
  return result;
}

/** What a step's snapshot is told: the step, and the one read of the configuration naming programs. */
function snapshotOptions(
  root: string,
  agentId: string,
  row: StepRow,
  env: NodeJS.ProcessEnv,
  readNamed: () => string,
): SnapshotOptions {
  return { root, agentId, seq: row.seq, stepHash: row.step_hash, env, readNamed };
}

/** The step's snapshot (undefined: the root is not in a git work tree) into the result, with what it left out said. */
function snapshotTaken(result: RecordResult, snap: SnapshotInfo | undefined, root: string): void {
  const { row, warnings } = result;
  if (snap === undefined) {
    if (row.seq === 0)
      result.notes.push(
        `${root} is not in a git work tree: steps are recorded without worktree snapshots (a fork restores no files)`,
      );
    return;
  }
  result.snapshot = snap;
  // Said, not hidden: a fork from this step would hand out an empty directory where the agent's files were.
  if (snap.nested !== undefined)
    warnings.push(
      `step ${row.seq}: its worktree snapshot holds none of the files of ${someOf(snap.nested)}: a git repository of its own (a submodule or a nested repository) is recorded by its commit only (one with no commit yet, not at all), so a fork from this step restores none of its files or edits`,
    );
  if (snap.unopened !== undefined)
    warnings.push(
      `step ${row.seq}: its worktree snapshot holds none of the files of ${someOf(snap.unopened)}: git could not open ${snap.unopened.length === 1 ? 'that directory' : 'those directories'} (no permission), so a fork from this step restores none of their files`,
    );
}

/** With a snapshot, what the step changed, chained into the run journal of the same id (docs/provenance.md). */
function recordChanges(
  result: RecordResult,
  options: RecordOptions & { env: NodeJS.ProcessEnv },
  readNamed: () => string,
  repo: RepoInfo | undefined,
): void {
  if (result.snapshot === undefined || options.provenance === false) return;
  const { row, warnings } = result;
  try {
    const changes = recordStepChanges(result.snapshot, {
      root: options.root,
      env: options.env,
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

/** docs/format.md §5: the step mirrored into the HMAC audit chain (best-effort; the row stands either way). */
function auditStep(result: RecordResult, agent: string, options: RecordOptions): void {
  const { row } = result;
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
  if (audited !== undefined) result.warnings.push(`step ${row.seq} recorded, but ${audited}`);
}

/** A snapshot's first half, begun before its step is appended (`startSnapshot`), or why it could not begin. */
interface BegunSnapshot {
  root: string;
  env: NodeJS.ProcessEnv;
  repo: RepoInfo | undefined;
  readNamed: () => string;
  /** Undefined (and no failure): the root is not in a git work tree. */
  started?: StartedSnapshot;
  failed?: unknown;
}

function beginSnapshot(root: string, env: NodeJS.ProcessEnv): BegunSnapshot {
  const begun: BegunSnapshot = { root, env, repo: undefined, readNamed: namedConfigOnce(root, env, () => begun.repo) };
  try {
    begun.repo = repoInfo(root, env);
    const started = startSnapshot({ root, env, readNamed: begun.readNamed }, begun.repo);
    if (started !== undefined) begun.started = started;
  } catch (e) {
    begun.failed = e ?? new Error('the snapshot did not start');
  }
  return begun;
}

/**
 * The snapshots of a process's steps that finish after their steps are recorded (`RecordOptions.deferSnapshots`):
 * each one's work runs in the order handed over, and `settled` resolves when all of it is done. Nothing handed
 * over rejects: a failure is a line of the step's warnings.
 */
export class DeferredSnapshots {
  private chain: Promise<void> = Promise.resolve();
  /** How many steps' snapshots were handed over to be finished (a step recorded outside git hands none). */
  snapshots = 0;
  /**
   * Starts the snapshot of a step about to be recorded under `root` (with `env`, the very object the recording is
   * given), before what the caller still has to read to know the step: the next step recorded with this queue takes
   * it (recordStep) when it is of that root and env and has a snapshot, and drops it otherwise (a later step would
   * have held the work tree as it was before); one no step took is dropped when the rest has settled, or when
   * another is started (kept, the next step took the work tree as it was at the first start). The agent waits on its
   * hook, so the work tree it records is the same either way.
   */
  startEarly(root: string, env: NodeJS.ProcessEnv): void {
    const before = EARLY.get(this)?.started;
    if (before !== undefined) this.add(abandonSnapshot(before));
    EARLY.set(this, beginSnapshot(root, env));
  }

  /**
   * Work to wait for, after all that was handed over before it: a function is started only once the work before it
   * is done (a promise already runs, and is only waited for in order).
   */
  add(work: Promise<unknown> | (() => Promise<unknown>)): void {
    const previous = this.chain;
    this.chain = previous
      .then(() => (typeof work === 'function' ? work() : work))
      .then(
        () => undefined,
        () => undefined,
      );
  }

  /** `then` once every work handed over so far has settled (synchronous, in order). */
  after(then: () => void): void {
    this.chain = this.chain.then(then);
  }

  /** Resolves when every work handed over is done (a snapshot started early that no step took, dropped). */
  settled(): Promise<void> {
    const unused = EARLY.get(this)?.started;
    EARLY.delete(this);
    if (unused !== undefined) this.add(abandonSnapshot(unused));
    return this.chain;
  }
}

/** The snapshot each DeferredSnapshots started early (`startEarly`), until a step takes it or it is dropped. */
const EARLY = new WeakMap<DeferredSnapshots, BegunSnapshot>();

/**
 * The snapshot started early, for the step being recorded with `deferred` (undefined: none). It is the next step's
 * only: one of another root or env, or one without a snapshot, drops it. Kept, a later step took the work tree as it
 * was before the steps between, and its snapshot and changes missed what they changed.
 */
function takeEarly(
  deferred: DeferredSnapshots,
  root: string,
  env: NodeJS.ProcessEnv,
  snapshot: boolean,
): BegunSnapshot | undefined {
  const early = EARLY.get(deferred);
  if (early === undefined) return undefined;
  EARLY.delete(deferred);
  if (snapshot && early.root === root && early.env === env) return early;
  if (early.started !== undefined) deferred.add(abandonSnapshot(early.started));
  return undefined;
}
