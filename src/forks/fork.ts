import { closeSync, existsSync, fsyncSync, openSync, rmdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { acquireLock } from '../util/lock';
import { auditEvent, auditOptions, operatorActor } from '../audit';
import { prettySorted, type JsonObject, type JsonValue } from '../canonical';
import { asStepchainError, InputError, IntegrityError } from '../errors';
import { JOURNAL_FILE, journalDir, type TornTailMoved } from '../journal';
import { findTombstone } from '../journal/tombstone';
import { ensureDir, fsyncDir, lexists, writeAll } from '../util/fs';
import { PRIVATE_FILE_MODE } from '../util/modes';
import { assertSafeId } from '../util/ids';
import { pausePoint } from '../util/pause';
import { GitCommandError, gitText } from '../git/exec';
import { removeIntent, writeIntent } from './pending';
import { forkBranchName, forkWorktreePath, newForkId, sessionFile, worktreesDir } from './names';
import { copyPrefixBlobs, prefixSnapshots, readParent } from './prefix';
import { branchExists, requireRepo, type RepoInfo } from '../git/repo';
import { createRefs, deleteRefsUnder } from '../git/ref-batch';
import { journalKey, SNAPSHOT_REF_PREFIX, snapshotRef, type SnapshotInfo } from '../git/snapshot';
import { plural, someOf } from '../util/words';

/**
 * Fork-from-step (docs/format.md §4): a sibling git worktree on a new branch, seeded with
 * the parent's verified journal prefix and a session file whose `fork` block
 * says where it came from. With a per-step snapshot of step N the worktree's
 * files are those of step N; without one it starts at the parent's commit.
 *
 * Nothing is left behind on failure: every check runs before anything is
 * created, and what was created is undone in reverse order if a later step fails.
 * A creator killed midway cannot undo anything, so the intent is written first
 * (`.sdd/worktrees/<fork_id>.pending.json`, see ./pending.ts) and removed last:
 * `stepchain forks` shows such a half-made fork and `stepchain fork rm` removes it.
 */

export interface ForkOptions {
  /** The parent's project root (its journal is `<root>/.sdd/runtime/journal/<session>/`). */
  root: string;
  /** The parent session (agent) id. */
  sessionId: string;
  /** Fork after this step (0-based, inclusive): the fork's journal is the parent's `[0..fromStep]`. */
  fromStep?: number;
  label?: string;
  env?: NodeJS.ProcessEnv;
  /** The fork id to use instead of a fresh one (tools and tests); validated like any id. */
  forkId?: string;
  /** The clock (default now). */
  now?: Date;
  /**
   * The commit whose files the fork starts with, instead of step N's snapshot: a replay re-runs the agent from
   * the files its recorded run started with (see src/proxy/fork-replay.ts).
   */
  restoreCommit?: string;
  /** Told whenever a torn tail of the audit log is moved aside (default: one line on stderr). */
  onTornTail?: (m: TornTailMoved) => void;
}

/** What `stepchain fork --json` prints, plus what the library caller may want. */
export interface ForkResult {
  fork_session_id: string;
  fork_branch: string;
  fork_worktree: string;
  fork_commit: string;
  from_step: number | null;
  parent_step_hash: string | null;
  snapshot_path: string;
  parent_session_id: string;
  /** The snapshot commit the files were restored from (null: the parent's current commit). */
  restored_from_snapshot: string | null;
  /** The fork's journal file (null for a session-level fork). */
  journal_path: string | null;
  warnings: string[];
}

/** The `fork` block of a fork's session file. */
export interface ForkBlock {
  parent_session_id: string;
  label: string | null;
  branch: string;
  branched_from_commit: string;
  from_step?: number;
  parent_step_hash?: string;
  restored_from_snapshot?: string | null;
  parent_branch: string | null;
  parent_commit: string;
  parent_root: string;
  worktree: string;
  created_at: string;
}

/** Writes a new file durably (refusing to overwrite one), owner-only: a journal prefix, a session snapshot. */
function writeNewFile(file: string, data: string | Uint8Array): void {
  ensureDir(path.dirname(file));
  const fd = openSync(file, 'wx', PRIVATE_FILE_MODE); // O_EXCL: never through a link in its place
  try {
    writeAll(fd, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  fsyncDir(path.dirname(file));
}

/** The directories `mkdir -p` would create for `dir`, outermost first. */
function missingDirs(dir: string): string[] {
  const out: string[] = [];
  for (let d = path.resolve(dir); !existsSync(d); d = path.dirname(d)) {
    out.unshift(d);
    if (path.dirname(d) === d) break;
  }
  return out;
}

interface Undo {
  what: string;
  run: () => Promise<void> | void;
}

/** Everything a fork is made from, checked before anything is created. */
interface ForkPlan {
  env: NodeJS.ProcessEnv;
  onTornTail: ((m: TornTailMoved) => void) | undefined;
  root: string;
  sessionId: string;
  forkId: string;
  fromStep: number | undefined;
  label: string | null;
  repo: RepoInfo;
  parentSession: JsonObject | undefined;
  /** The verified rows up to `fromStep`, each "\n"-terminated: the fork's journal. */
  prefix: Buffer | undefined;
  prefixHashes: string[];
  prefixRefs: string[];
  parentStepHash: string | null;
  /** The snapshot of `fromStep` the fork's files come from, and every snapshot of its prefix (copied to the fork). */
  restored: SnapshotInfo | undefined;
  copies: SnapshotInfo[];
  base: string;
  worktree: string;
  branch: string;
  branchBefore: boolean;
  forkJournal: string | null;
  snapshotPath: string;
  createdAt: string;
  warnings: string[];
}

/** Creates a fork. Throws InputError / IntegrityError (one line) and leaves nothing behind on failure. */
export async function createFork(options: ForkOptions): Promise<ForkResult> {
  // 1. Everything is checked before anything is created.
  const plan = planFork(options);
  // 2. Create, remembering how to undo each step.
  const undo: Undo[] = [];
  try {
    await makeFork(plan, undo);
  } catch (e) {
    throw await undoFork(plan, undo, e);
  }
  auditFork(plan);
  const { forkId, branch, worktree, base, fromStep, parentStepHash, snapshotPath, sessionId, restored } = plan;
  return {
    fork_session_id: forkId,
    fork_branch: branch,
    fork_worktree: worktree,
    fork_commit: base,
    from_step: fromStep ?? null,
    parent_step_hash: parentStepHash,
    snapshot_path: snapshotPath,
    parent_session_id: sessionId,
    restored_from_snapshot: restored?.commit ?? null,
    journal_path: plan.forkJournal,
    warnings: plan.warnings,
  };
}

/** The options checked, the parent read and verified, the fork's place and base decided. */
function planFork(options: ForkOptions): ForkPlan {
  const env = options.env ?? process.env;
  const root = path.resolve(options.root);
  const sessionId = assertSafeId(options.sessionId, 'session id');
  const forkId =
    options.forkId === undefined ? newForkId(options.label, options.now) : assertSafeId(options.forkId, 'fork id');
  const fromStep = options.fromStep;
  if (fromStep !== undefined && (!Number.isSafeInteger(fromStep) || fromStep < 0)) {
    throw new InputError(`expected a non-negative integer, got ${fromStep}`, 'fromStep');
  }
  const label = options.label ?? null;
  if (label !== null && /[\x00-\x1f\x7f]/.test(label))
    throw new InputError('control characters are not allowed', 'label');
  if (!existsSync(root)) throw new InputError(`${root}: no such directory`);
  const repo: RepoInfo = requireRepo(root, env);
  const parentSide = readParent(root, sessionId, fromStep);
  const warnings: string[] = [];
  const { restored, copies } = prefixSnapshots(
    root,
    sessionId,
    fromStep,
    parentSide.prefixHashes,
    env,
    warnings,
    options.restoreCommit,
  );
  const base = restored?.commit ?? repo.head;
  if (base === undefined)
    throw new IntegrityError(`${repo.top}: the repository has no commit yet to branch a fork from`);
  const worktree = forkWorktreePath(root, forkId);
  const branch = forkBranchName(repo.branch, forkId);
  // lstat, not exists: a dangling link in its place would have git create the worktree where it points.
  if (lexists(worktree)) throw new IntegrityError(`${worktree}: already exists; refusing to fork over it`);
  const tomb = findTombstone(root, forkId);
  if (tomb !== undefined)
    throw new IntegrityError(`fork id ${forkId} belonged to a removed fork (tombstone ${tomb}); choose another id`);
  return {
    env,
    onTornTail: options.onTornTail,
    root,
    sessionId,
    forkId,
    fromStep,
    label,
    repo,
    ...parentSide,
    restored,
    copies,
    base,
    worktree,
    branch,
    branchBefore: branchExists(root, branch, env),
    forkJournal: fromStep === undefined ? null : path.join(journalDir(worktree, forkId), JOURNAL_FILE),
    snapshotPath: sessionFile(worktree, forkId),
    createdAt: (options.now ?? new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    warnings,
  };
}

/** Makes the fork step by step, pushing how to undo each step onto `undo` before (or as) it is taken. */
async function makeFork(plan: ForkPlan, undo: Undo[]): Promise<void> {
  const { root, env } = plan;
  makeWorktreesDir(root, undo);
  const intent = writeIntent(worktreesDir(root), {
    fork_session_id: plan.forkId,
    parent_session_id: plan.sessionId,
    worktree: plan.worktree,
    branch: plan.branch,
    branch_existed: plan.branchBefore,
    base: plan.base,
    from_step: plan.fromStep ?? null,
    created_at: plan.createdAt,
  });
  // Kept when another undo fails, so `fork rm` can finish the cleanup.
  undo.push({ what: 'intent', run: () => removeIntent(intent) });
  pausePoint('fork:after-intent', env);
  await addWorktree(plan, undo);
  pausePoint('fork:after-worktree', env);
  await seedJournal(plan);
  pausePoint('fork:after-journal', env);
  writeForkSession(plan);
  pausePoint('fork:after-session', env);
  copySnapshotRefs(plan, undo);
  pausePoint('fork:after-refs', env);
  removeIntent(intent);
}

/** `<root>/.sdd/worktrees/`, and the undo that removes what it made (only if still empty). */
function makeWorktreesDir(root: string, undo: Undo[]): void {
  const dirs = missingDirs(worktreesDir(root));
  ensureDir(worktreesDir(root));
  undo.push({
    what: 'directories',
    run: () => {
      for (const d of [...dirs].reverse()) {
        try {
          rmdirSync(d); // only if still empty: a concurrent fork may be using it
        } catch {
          /* not empty or gone */
        }
      }
    },
  });
}

/** The fork's branch and worktree at its base, its files checked out. */
async function addWorktree(plan: ForkPlan, undo: Undo[]): Promise<void> {
  const { root, env, branch, worktree, branchBefore } = plan;
  undo.push({
    what: 'branch',
    run: async () => {
      if (!branchBefore && branchExists(root, branch, env)) await gitText(root, ['branch', '-D', branch], env);
    },
  });
  undo.push({
    what: 'worktree',
    run: async () => {
      if (!existsSync(worktree)) return; // git cleans up after its own failed add
      try {
        await gitText(root, ['worktree', 'remove', '--force', '--force', worktree], env);
      } catch {
        rmSync(worktree, { recursive: true, force: true });
        await gitText(root, ['worktree', 'prune'], env);
      }
    },
  });
  // The files are checked out by a git command of our own run in the new worktree, not by the one `worktree add`
  // starts: configuration is read where a command runs, and an include only the new worktree's branch or git dir
  // matches (`includeIf "onbranch:fork/**"`) could name a filter that the pins, read here, never saw.
  // One `worktree add` at a time per repository: git reads every registered worktree while it adds one, and fails
  // on another process's half-written entry ("failed to read .git/worktrees/<id>/commondir").
  const release = acquireLock(path.join(plan.repo.commonDir, 'stepchain-worktree-add.lock'));
  try {
    release.heartbeat();
    await gitText(root, ['worktree', 'add', '--quiet', '--no-checkout', '-b', branch, worktree, plan.base], env);
  } finally {
    release();
  }
  await gitText(worktree, ['read-tree', '-u', '--reset', 'HEAD'], env);
}

/** The fork's journal: the parent's verified prefix, with the blobs it names. */
async function seedJournal(plan: ForkPlan): Promise<void> {
  if (plan.forkJournal === null) return;
  writeNewFile(plan.forkJournal, plan.prefix!);
  const missing = await copyPrefixBlobs(plan.root, plan.worktree, plan.prefixRefs);
  if (missing.length > 0)
    plan.warnings.push(
      `${plural(missing.length, 'blob')} of the inherited steps ${missing.length === 1 ? 'is' : 'are'} not in the parent's CAS (or do not match their digest) and were not copied: ${someOf(missing, ' ')}`,
    );
}

/** The fork's session file: the parent's, under the fork's id, with the fork block. */
function writeForkSession(plan: ForkPlan): void {
  const { fromStep, base, repo } = plan;
  const block: ForkBlock = {
    parent_session_id: plan.sessionId,
    label: plan.label,
    branch: plan.branch,
    branched_from_commit: base,
    ...(fromStep === undefined
      ? {}
      : {
          from_step: fromStep,
          parent_step_hash: plan.parentStepHash!,
          restored_from_snapshot: plan.restored?.commit ?? null,
        }),
    parent_branch: repo.branch ?? null,
    parent_commit: repo.head ?? base,
    parent_root: plan.root,
    worktree: plan.worktree,
    created_at: plan.createdAt,
  };
  const session: JsonObject = {
    ...(plan.parentSession ?? {}),
    session_id: plan.forkId,
    fork: block as unknown as JsonValue,
  };
  writeNewFile(plan.snapshotPath, `${prettySorted(session)}\n`);
}

/** The prefix's snapshots under the fork's own journal key: the fork's appends (from its worktree) find and extend them. */
function copySnapshotRefs(plan: ForkPlan, undo: Undo[]): void {
  const { copies, env } = plan;
  if (copies.length === 0) return;
  const key = journalKey(plan.worktree, requireRepo(plan.worktree, env));
  // All refs are created or none, so the undo is registered after (the fork's id is new: its refs are these).
  createRefs(
    plan.repo,
    copies.map((s) => ({ ref: snapshotRef(plan.forkId, s.seq, key), oid: s.commit })),
    env,
  );
  undo.push({
    what: 'snapshot refs',
    run: () => void deleteRefsUnder(plan.repo, `${SNAPSHOT_REF_PREFIX}/${plan.forkId}/`, env),
  });
}

/** Undoes what was made (newest first) and returns the one-line error that says what failed and what was left. */
async function undoFork(plan: ForkPlan, undo: Undo[], e: unknown): Promise<Error> {
  const failures: string[] = [];
  for (const u of [...undo].reverse()) {
    if (u.what === 'intent' && failures.length > 0) continue;
    try {
      await u.run();
    } catch (ue) {
      failures.push(`${u.what}: ${(ue as Error).message.split('\n')[0]}`);
    }
  }
  const known = asStepchainError(e);
  const why =
    known !== undefined
      ? known.message
      : e instanceof GitCommandError
        ? e.message
        : `${(e as Error).message.split('\n')[0]}`;
  const rolled =
    failures.length === 0
      ? 'nothing was left behind'
      : `rollback incomplete (${failures.join('; ')}); \`stepchain forks\` lists the half-made fork and \`stepchain fork rm ${plan.forkId}\` removes it`;
  // The environment at fault (a full disk, a read-only mount) is exit 2, as everywhere; anything else a refusal.
  const message = `fork ${plan.sessionId}: ${why}; ${rolled}`;
  return known?.exitCode === 2 ? new InputError(message) : new IntegrityError(message);
}

/** docs/format.md §5: mirror the fork into the audit chain (best-effort; the fork stands either way). */
function auditFork(plan: ForkPlan): void {
  const audited = auditEvent(
    plan.root,
    'replay.fork',
    {
      actor: operatorActor(plan.env),
      resource_type: 'session',
      resource_id: plan.forkId,
      details: {
        parent: plan.sessionId,
        child: plan.forkId,
        from_step: plan.fromStep ?? null,
        parent_step_hash: plan.parentStepHash,
        branch: plan.branch,
      },
    },
    auditOptions(plan.env, undefined, plan.onTornTail),
  );
  if (audited !== undefined) plan.warnings.push(`fork ${plan.forkId} created, but ${audited}`);
}

/** The `--json` document of `stepchain fork`: exactly these keys. */
export function forkJsonDocument(r: ForkResult): Record<string, JsonValue> {
  return {
    fork_session_id: r.fork_session_id,
    fork_branch: r.fork_branch,
    fork_worktree: r.fork_worktree,
    fork_commit: r.fork_commit,
    from_step: r.from_step,
    parent_step_hash: r.parent_step_hash,
    snapshot_path: r.snapshot_path,
    parent_session_id: r.parent_session_id,
  };
}
