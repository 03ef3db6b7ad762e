import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, openSync, rmdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { acquireLock } from '../util/lock';
import { auditEvent, operatorActor } from '../audit';
import { isJsonObject, JsonParseError, parseBytes, prettySorted, type JsonObject, type JsonValue } from '../canonical';
import { asStepchainError, InputError, IntegrityError } from '../errors';
import {
  Cas,
  casDir,
  JOURNAL_FILE,
  journalDir,
  journalFile,
  readVerifiedJournal,
  runtimeDir,
  type ReadJournal,
} from '../journal';
import { findTombstone } from '../journal/tombstone';
import { ensureDir, fsyncDir, lexists, writeAll } from '../util/fs';
import { sha256Hex } from '../util/hash';
import { assertSafeId } from '../util/ids';
import { pausePoint } from '../util/pause';
import { GitCommandError, gitText } from '../git/exec';
import { removeIntent, writeIntent } from './pending';
import { branchExists, requireRepo, updateRefs, type RepoInfo } from '../git/repo';
import { journalKey, listSnapshots, snapshotRef, type SnapshotInfo } from '../git/snapshot';
import { readRegularFile } from '../util/nofollow';
import { plural } from '../util/words';

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

export const FORK_ID = /^fork-(?:[a-z0-9-]+-)?[0-9]{8}-[0-9]{6}-[0-9a-f]{6}$/;

/** A label as it appears in a fork id: lowercase letters, digits and single dashes, at most 40 characters. */
export function labelSlug(label: string): string {
  return label
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
}

/** `fork-[<label slug>-]<YYYYMMDD-HHMMSS>-<6 hex>` (UTC). */
export function newForkId(label?: string, now: Date = new Date()): string {
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  const stamp = `${p(now.getUTCFullYear(), 4)}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}-${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}`;
  const slug = label === undefined ? '' : labelSlug(label);
  return `fork-${slug ? `${slug}-` : ''}${stamp}-${randomBytes(3).toString('hex')}`;
}

export function worktreesDir(root: string): string {
  return path.join(root, '.sdd', 'worktrees');
}

/** `<root>/.sdd/worktrees/<fork_id>`. */
export function forkWorktreePath(root: string, forkId: string): string {
  return path.join(worktreesDir(root), assertSafeId(forkId, 'fork id'));
}

/** `fork/<parent branch or "session">/<fork_id>`. */
export function forkBranchName(parentBranch: string | undefined, forkId: string): string {
  return `fork/${parentBranch ?? 'session'}/${forkId}`;
}

export function sessionsDir(root: string): string {
  return path.join(runtimeDir(root), 'sessions');
}

/** `<root>/.sdd/runtime/sessions/<session>.json`. */
export function sessionFile(root: string, sessionId: string): string {
  return path.join(sessionsDir(root), `${assertSafeId(sessionId, 'session id')}.json`);
}

/** A session file's JSON object, or undefined when there is none. */
export function readSessionFile(file: string): JsonObject | undefined {
  const bytes = readRegularFile(file);
  if (bytes === undefined) return undefined;
  let v: JsonValue;
  try {
    v = parseBytes(bytes);
  } catch (e) {
    if (e instanceof JsonParseError) throw new IntegrityError(`${file}: session file is not JSON: ${e.message}`);
    throw e;
  }
  if (!isJsonObject(v)) throw new IntegrityError(`${file}: session file is not a JSON object`);
  return v;
}

/** Writes a new file durably (refusing to overwrite one). */
function writeNewFile(file: string, data: string | Uint8Array): void {
  ensureDir(path.dirname(file));
  const fd = openSync(file, 'wx', 0o644); // O_EXCL: never through a link in its place
  try {
    writeAll(fd, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  fsyncDir(path.dirname(file));
}

const NEWLINE = Buffer.from('\n');

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

/** The snapshot of `seq` for a session, but only if it is the snapshot of *this* step (same step_hash). */
function matchingSnapshot(snaps: Map<number, SnapshotInfo>, seq: number, stepHash: string): SnapshotInfo | undefined {
  const s = snaps.get(seq);
  return s !== undefined && s.step_hash === stepHash ? s : undefined;
}

/**
 * Gives the fork the blobs of the steps it inherits, so the fork is whole on its own (`show`, `export`,
 * `receipt verify --require-blobs` in the fork see them). Copied, never hard-linked: the fork's CAS lies in
 * a worktree an agent may write, and a hard link would let it rewrite the parent's blob in place. Each
 * blob is checked against its digest before it is stored. Returns the digests that could not be copied.
 */
function copyPrefixBlobs(root: string, worktree: string, entries: ReadJournal['entries']): string[] {
  const from = new Cas(casDir(root), false);
  const to = new Cas(casDir(worktree));
  const missing: string[] = [];
  const seen = new Set<string>();
  for (const e of entries)
    for (const d of e.row.blob_refs) {
      if (seen.has(d)) continue;
      seen.add(d);
      const bytes = from.get(d);
      if (bytes === undefined || sha256Hex(bytes) !== d) missing.push(d);
      else to.put(bytes);
    }
  return missing;
}

/** Everything a fork is made from, checked before anything is created. */
interface ForkPlan {
  env: NodeJS.ProcessEnv;
  root: string;
  sessionId: string;
  forkId: string;
  fromStep: number | undefined;
  label: string | null;
  repo: RepoInfo;
  parentSession: JsonObject | undefined;
  /** The parent's verified journal (when it has one). */
  parent: ReadJournal | undefined;
  /** The verified rows up to `fromStep`, each "\n"-terminated: the fork's journal. */
  prefix: Buffer | undefined;
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
    parentSide.parent,
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

/** The parent session: its session file, its journal (which must verify, fail-closed), the prefix to seed. */
function readParent(
  root: string,
  sessionId: string,
  fromStep: number | undefined,
): Pick<ForkPlan, 'parentSession' | 'parent' | 'prefix' | 'parentStepHash'> {
  const parentJournal = journalFile(root, sessionId);
  const parentSessionFile = sessionFile(root, sessionId);
  const hasJournal = existsSync(parentJournal);
  const parentSession = readSessionFile(parentSessionFile);
  if (!hasJournal && parentSession === undefined) {
    throw new InputError(
      `no session ${JSON.stringify(sessionId)} under ${root} (looked for ${parentJournal} and ${parentSessionFile})`,
    );
  }
  if (fromStep !== undefined && !hasJournal)
    throw new InputError(
      `session ${JSON.stringify(sessionId)} has no journal (looked for ${parentJournal})`,
      'fromStep',
    );
  // The parent chain must verify (fail-closed), with or without --from-step.
  const parent: ReadJournal | undefined = hasJournal ? readVerifiedJournal(parentJournal) : undefined;
  if (fromStep === undefined) return { parentSession, parent, prefix: undefined, parentStepHash: null };
  const steps = parent!.steps;
  if (fromStep >= steps) {
    throw new InputError(
      `${parentJournal}: step ${fromStep} is out of range (the journal has ${plural(steps, 'step')}${steps > 0 ? `, 0..${steps - 1}` : ''})`,
    );
  }
  // The verified rows' own bytes (so what is seeded is what was verified), each "\n"-terminated.
  const prefix = Buffer.concat(parent!.entries.slice(0, fromStep + 1).flatMap((e) => [e.bytes, NEWLINE]));
  return { parentSession, parent, prefix, parentStepHash: parent!.entries[fromStep]!.row.step_hash };
}

/** The snapshot the fork's files come from (said in `warnings` when there is none), and those of its prefix. */
function prefixSnapshots(
  root: string,
  sessionId: string,
  fromStep: number | undefined,
  parent: ReadJournal | undefined,
  env: NodeJS.ProcessEnv,
  warnings: string[],
  /** The commit the fork's files come from instead (a replay starts from the run's first files). */
  restoreCommit?: string,
): { restored: SnapshotInfo | undefined; copies: SnapshotInfo[] } {
  if (fromStep === undefined) return { restored: undefined, copies: [] };
  const snaps = listSnapshots(root, sessionId, env);
  const restored =
    restoreCommit !== undefined
      ? { ref: '', commit: restoreCommit, agent_id: sessionId, seq: -1, step_hash: '' }
      : matchingSnapshot(snaps, fromStep, parent!.entries[fromStep]!.row.step_hash);
  if (restored === undefined) {
    warnings.push(
      snaps.has(fromStep)
        ? `the snapshot of step ${fromStep} does not match its step_hash; the fork starts at the parent's current commit`
        : `no worktree snapshot of step ${fromStep}; the fork starts at the parent's current commit`,
    );
  }
  // The fork inherits the snapshots of its prefix, so forks of forks restore them too.
  const copies: SnapshotInfo[] = [];
  for (let i = 0; i <= fromStep; i++) {
    const s = matchingSnapshot(snaps, i, parent!.entries[i]!.row.step_hash);
    if (s !== undefined) copies.push(s);
  }
  return { restored, copies };
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
  seedJournal(plan);
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
function seedJournal(plan: ForkPlan): void {
  if (plan.forkJournal === null) return;
  writeNewFile(plan.forkJournal, plan.prefix!);
  const missing = copyPrefixBlobs(plan.root, plan.worktree, plan.parent!.entries.slice(0, plan.fromStep! + 1));
  if (missing.length > 0)
    plan.warnings.push(
      `${plural(missing.length, 'blob')} of the inherited steps ${missing.length === 1 ? 'is' : 'are'} not in the parent's CAS (or do not match their digest) and were not copied: ${missing.join(' ')}`,
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
  const { copies, root, env } = plan;
  if (copies.length === 0) return;
  const key = journalKey(plan.worktree, requireRepo(plan.worktree, env));
  const refs = copies.map((s) => snapshotRef(plan.forkId, s.seq, key));
  // One transaction: all refs are created or none, so the undo is registered after it.
  updateRefs(
    root,
    copies.map((s, i) => `create ${refs[i]} ${s.commit}`),
    env,
  );
  undo.push({
    what: 'snapshot refs',
    run: () =>
      updateRefs(
        root,
        refs.map((r) => `delete ${r}`),
        env,
      ),
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
    { env: plan.env },
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
