import { existsSync, readFileSync, realpathSync, statSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { assertSafeId } from '../util/ids';
import { sha256Hex } from '../util/hash';
import { monotonicMs, sleepMs } from '../util/time';
import { pausePoint } from '../util/pause';
import { cleanLegacySnapshotDirs } from './snapshot-legacy';
import { GitCommandError, gitSync } from './exec';
import { addWorkTree, addWorkTreeAsync, gitlinks, type LeftOut } from './snapshot-nested';
import {
  cleanDeadSnapshotDirs,
  dropSnapshotIndex,
  seedSnapshotIndex,
  type SnapshotIndex,
  SNAPSHOT_INDEX_CONFIG,
  SNAPSHOT_PATHSPEC,
  SNAPSHOT_TIMEOUT_MS,
} from './snapshot-begin';
import { summarizeIndex } from './index-file';
import { parseIndex, writeTreeFromIndex } from './index-tree';
import { commitBody, looseRepo, writeLooseObject, writeLooseRef } from './loose';
import { isRefComponent, listRefs, repoInfo, type RepoInfo } from './repo';

/**
 * Per-step worktree snapshots: after each append, the work tree as it is
 * (tracked files and untracked files that are not ignored, never `.sdd/`) is
 * stored as a commit object under `refs/stepchain/snapshots/<agent>/<key>/<seq>`,
 * where `<key>` names the journal's project within the repository (see
 * `journalKey`), so two journals of the same agent id under different project
 * roots of one repository never overwrite each other's refs. Refs of the
 * earlier layout, `refs/stepchain/snapshots/<agent>/<seq>`, are still read.
 *
 * It is built with a temporary index (GIT_INDEX_FILE in a temporary directory
 * `stepchain-snap-<pid>-<start>-<host>-*` inside the work tree's git dir), so
 * the user's index, HEAD, branches and files are never touched. The temporary
 * index starts as the user's index (read-only use of it: a second name for the
 * file, which git replaces and never writes into, or a copy): its stat cache lets
 * `git add` hash only what changed, which keeps an append on a large repository
 * cheap. With no index yet it starts from HEAD's tree, or empty. Either keeps the
 * index file's mtime (`seedIndexFile`, ./snapshot-begin.ts): git trusts a cached
 * entry only when it is older than the index that holds it.
 */
export const SNAPSHOT_REF_PREFIX = 'refs/stepchain/snapshots';

export { SNAPSHOT_PATHSPEC, SNAPSHOT_TIMEOUT_MS, cleanDeadSnapshotDirs };

export interface SnapshotInfo {
  ref: string;
  commit: string;
  /** The commit's tree (undefined for a snapshot read back from its ref). */
  tree?: string;
  agent_id: string;
  seq: number;
  step_hash: string;
  /** The commit the snapshot was built on (HEAD then; undefined on an unborn branch): a run's first step's changes are since it. */
  parent?: string;
  /**
   * Directories that are git repositories of their own (a submodule, or a nested
   * repository such as `cargo new` makes): git records only their commit, so the
   * snapshot holds none of their files.
   */
  nested?: string[];
  /** Directories git could not open (no permission): none of their files are in the snapshot. */
  unopened?: string[];
}

export interface SnapshotOptions {
  /** The configuration naming programs, read once for the step's git commands (`namedConfigOnce`). */
  readNamed?: () => string;
  /** A directory inside the work tree to snapshot (the journal's project root). */
  root: string;
  agentId: string;
  seq: number;
  stepHash: string;
  env?: NodeJS.ProcessEnv;
  /** Another ref to write than the step's, and the commit message to give (a recording's start snapshot). */
  ref?: string;
  message?: string;
}

/**
 * Which project of the repository a journal belongs to, as a ref component:
 * `j` + 16 hex digits of SHA-256 over the linked worktree's name (empty for
 * the main work tree) and the project root's path relative to its work tree's
 * top. Stable when the repository is moved or cloned; distinct for every
 * project root (a subdirectory, another worktree). Never all digits, so it
 * cannot be taken for a seq of the earlier layout.
 */
export function journalKey(root: string, repo: RepoInfo): string {
  const real = (p: string): string => {
    try {
      return realpathSync.native(p);
    } catch {
      return path.resolve(p);
    }
  };
  const rel = path.relative(real(repo.top), real(root)).split(path.sep).join('/');
  const worktree = real(repo.gitDir) === real(repo.commonDir) ? '' : path.basename(repo.gitDir);
  return `j${sha256Hex(Buffer.from(`${worktree}\0${rel}`, 'utf8')).slice(0, 16)}`;
}

/** The ref of one step's snapshot: per journal with `key` (see journalKey), the earlier shared layout without. */
export function snapshotRef(agentId: string, seq: number, key?: string): string {
  return key === undefined
    ? `${SNAPSHOT_REF_PREFIX}/${agentId}/${seq}`
    : `${SNAPSHOT_REF_PREFIX}/${agentId}/${key}/${seq}`;
}

/** The directory of a journal's snapshot refs, from one of them (`.../<seq>` -> `...`). */
export function snapshotRefDir(ref: string): string {
  return ref.slice(0, ref.lastIndexOf('/'));
}

/** The ref of step `seq` of the journal of `agentId` in the project at `root` (undefined outside git). */
export function snapshotRefFor(
  root: string,
  agentId: string,
  seq: number,
  env?: NodeJS.ProcessEnv,
): string | undefined {
  const repo = repoInfo(root, env);
  return repo === undefined ? undefined : snapshotRef(agentId, seq, journalKey(root, repo));
}

function message(agentId: string, seq: number, stepHash: string): string {
  return `stepchain snapshot: ${agentId} step ${seq}\n\nagent: ${agentId}\nseq: ${seq}\nstep_hash: ${stepHash}\n`;
}

/** The agent, seq and step_hash a snapshot commit's message names (undefined if it is not one). */
export function parseSnapshotMessage(msg: string): { agent_id: string; seq: number; step_hash: string } | undefined {
  const agent = /^agent: (\S+)$/m.exec(msg)?.[1];
  const seq = /^seq: ([0-9]+)$/m.exec(msg)?.[1];
  const hash = /^step_hash: ([0-9a-f]{64})$/m.exec(msg)?.[1];
  if (agent === undefined || seq === undefined || hash === undefined) return undefined;
  return { agent_id: agent, seq: Number(seq), step_hash: hash };
}

const IDENTITY_ERROR = /tell me who you are|auto-detect email|empty ident|no email was given|no name was given/i;

/** `git commit-tree`, with a stepchain identity when git has none configured (e.g. a bare CI runner). */
function commitTree(
  top: string,
  tree: string,
  parent: string | undefined,
  msg: string,
  env: NodeJS.ProcessEnv | undefined,
  timeoutMs: number,
): string {
  const args = ['commit-tree', '--no-gpg-sign', tree, ...(parent === undefined ? [] : ['-p', parent])];
  try {
    return gitSync(top, args, { env, input: msg, timeoutMs }).trim();
  } catch (e) {
    if (!(e instanceof GitCommandError) || !IDENTITY_ERROR.test(e.stderr)) throw e;
    return gitSync(top, ['-c', 'user.name=stepchain', '-c', 'user.email=stepchain@localhost', ...args], {
      env,
      input: msg,
      timeoutMs,
    }).trim();
  }
}

/**
 * Records the snapshot of step `seq`. Returns undefined when `root` is not in a
 * git work tree (nothing to snapshot); throws GitCommandError when git fails or
 * an Error when the agent id cannot be a ref name.
 */
export function takeSnapshot(options: SnapshotOptions, known?: RepoInfo | null): SnapshotInfo | undefined {
  checkAgentId(options.agentId);
  // `known`: the caller's repoInfo of the root (null: not in a git work tree), so it is not asked twice.
  const repo = known === undefined ? repoInfo(options.root, options.env) : (known ?? undefined);
  if (repo === undefined) return undefined;
  const seeded = seedSnapshotIndex(options, repo);
  try {
    const leftOut = addWorkTree(repo.top, SNAPSHOT_INDEX_CONFIG, SNAPSHOT_PATHSPEC, seeded.git);
    return commitSnapshot(options, repo, seeded, leftOut);
  } finally {
    dropSnapshotIndex(seeded);
  }
}

/** A snapshot whose add of the work tree runs while its step is appended (`startSnapshot`). */
export interface StartedSnapshot {
  readonly repo: RepoInfo;
  readonly seeded: SnapshotIndex;
  /** The add: what it left out, or its failure. */
  readonly added: Promise<LeftOut>;
}

/**
 * The first half of takeSnapshot, for a caller that can wait (the hook command): the temporary index seeded and
 * git's add of the work tree started, before the step is appended (the add needs no step, and the agent waits on
 * its hook, so the work tree does not change meanwhile). `finishSnapshot` writes the snapshot once the add is done
 * and the step known, or `abandonSnapshot` drops it. Undefined when the root is not in a git work tree (`repo`
 * undefined); throws as takeSnapshot does, with nothing left behind.
 */
export function startSnapshot(
  options: Pick<SnapshotOptions, 'root' | 'env' | 'readNamed'>,
  repo: RepoInfo | undefined,
): StartedSnapshot | undefined {
  if (repo === undefined) return undefined;
  const seeded = seedSnapshotIndex(options, repo);
  const added = addWorkTreeAsync(repo.top, SNAPSHOT_INDEX_CONFIG, SNAPSHOT_PATHSPEC, seeded.git, seeded.tmp);
  // Handled where it is awaited; never an unhandled rejection meanwhile.
  added.catch(() => undefined);
  return { repo, seeded, added };
}

/** The second half: the snapshot of step `seq` from a started one, once its add is done (its temporary index dropped). */
export async function finishSnapshot(started: StartedSnapshot, options: SnapshotOptions): Promise<SnapshotInfo> {
  try {
    const leftOut = await started.added;
    checkAgentId(options.agentId);
    return commitSnapshot(options, started.repo, started.seeded, leftOut);
  } finally {
    dropSnapshotIndex(started.seeded);
  }
}

/** A started snapshot no step came of: its add waited for (git writes in the temporary directory), then dropped. */
export async function abandonSnapshot(started: StartedSnapshot): Promise<void> {
  try {
    await started.added;
  } catch {
    /* nothing of it is kept */
  } finally {
    dropSnapshotIndex(started.seeded);
  }
}

/** Refuses an agent id that cannot be a ref name (before anything is written). */
function checkAgentId(agentId: string): void {
  assertSafeId(agentId, 'agent id');
  if (!isRefComponent(agentId))
    throw new Error(`agent id ${JSON.stringify(agentId)} cannot be a git ref name component; no snapshot`);
}

/** The tree, the commit and the ref of step `seq`, from the temporary index the work tree was added to. */
function commitSnapshot(
  options: SnapshotOptions,
  repo: RepoInfo,
  seeded: SnapshotIndex,
  leftOut: LeftOut,
): SnapshotInfo {
  const { agentId, seq, stepHash, env } = options;
  // Reading the whole system temp dir on every step (each hook call of an agent is a process) is a cost that grows
  // with the machine's /tmp: the leftovers of earlier releases are looked for on every 100th step, the first included.
  if (seq % 100 === 0) cleanLegacySnapshotDirs();
  const { index, git } = seeded;
  pausePoint('snapshot:after-index', env);
  // The trees, the commit and the ref without git where the repository allows it (./index-tree.ts, ./loose.ts),
  // else git writes them.
  const loose = looseRepo(repo.commonDir, git.readNamed(), env ?? process.env);
  const added = readIndexBytes(index);
  const parsed = added === undefined ? undefined : parseIndex(added);
  const tree =
    (loose && parsed && writeTreeFromIndex(parsed, loose)) ||
    gitSync(repo.top, [...SNAPSHOT_INDEX_CONFIG, 'write-tree'], git).trim();
  const gitlink = parsed?.gitlink ?? (added === undefined ? undefined : summarizeIndex(added)?.gitlink);
  const nested = [...(gitlink === false ? [] : gitlinks(repo.top, git)), ...leftOut.unborn];
  const msg = options.message ?? message(agentId, seq, stepHash);
  const commit =
    (loose && writeLooseObject(loose, 'commit', commitBody(tree, repo.head, loose.ident, nowSeconds(), msg))) ||
    commitTree(repo.top, tree, repo.head, msg, env, git.timeoutMs);
  const ref = options.ref ?? snapshotRef(agentId, seq, journalKey(options.root, repo));
  clearStaleRefLock(repo.commonDir, ref);
  if (!(loose && writeLooseRef(loose, ref, commit)))
    gitSync(repo.top, ['update-ref', '-m', `stepchain snapshot ${agentId} ${seq}`, ref, commit], {
      env,
      timeoutMs: git.timeoutMs,
    });
  return {
    ref,
    commit,
    tree,
    agent_id: agentId,
    seq,
    step_hash: stepHash,
    ...(repo.head === undefined ? {} : { parent: repo.head }),
    ...(nested.length > 0 ? { nested } : {}),
    ...(leftOut.unopened.length > 0 ? { unopened: leftOut.unopened } : {}),
  };
}

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** The bytes of the snapshot's index (in its own temporary directory); undefined when git wrote none. */
function readIndexBytes(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined; // none written (nothing was added to an empty index): git answers
  }
}

/** How long a ref lock may be held before it counts as left by a killed git (git holds one for milliseconds). */
const REF_LOCK_STALE_MS = 2000;

/**
 * A `<ref>.lock` left by a `git update-ref` that was killed makes every later
 * update of that ref fail ("File exists"). The seq being snapshotted was just
 * appended by us under the journal's lock, so a lock on its ref is a leftover
 * unless git is updating it right now: wait for it to go, and remove it once it
 * has been there longer than any live update takes.
 */
function clearStaleRefLock(commonDir: string, ref: string): void {
  const lock = path.join(commonDir, `${ref}.lock`);
  const giveUp = monotonicMs() + 2 * REF_LOCK_STALE_MS; // an mtime in the future must not hold us forever
  for (;;) {
    let age: number;
    try {
      age = Date.now() - statSync(lock).mtimeMs;
    } catch {
      return;
    }
    if (age > REF_LOCK_STALE_MS || monotonicMs() > giveUp) {
      try {
        unlinkSync(lock);
      } catch {
        /* removed meanwhile */
      }
      return;
    }
    sleepMs(100);
    if (!existsSync(lock)) return;
  }
}

/**
 * Every snapshot of the journal of `agentId` in the project at `root`, by seq:
 * its own refs, and for a seq it has none of, a ref of the earlier shared layout
 * (only refs whose commit message is a stepchain snapshot of that agent and seq;
 * a fork still checks the step_hash before using one).
 */
export function listSnapshots(root: string, agentId: string, env?: NodeJS.ProcessEnv): Map<number, SnapshotInfo> {
  assertSafeId(agentId, 'agent id');
  const out = new Map<number, SnapshotInfo>();
  if (!isRefComponent(agentId)) return out;
  const repo = repoInfo(root, env);
  if (repo === undefined) return out;
  const key = journalKey(root, repo);
  const own = `${SNAPSHOT_REF_PREFIX}/${agentId}/${key}/`;
  const legacy = `${SNAPSHOT_REF_PREFIX}/${agentId}/`;
  const found = (prefix: string, r: { ref: string; commit: string; message: string }): SnapshotInfo | undefined => {
    // A fork's inherited refs point at its parent's commits (their message names the parent).
    const m = parseSnapshotMessage(r.message);
    const seqText = r.ref.slice(prefix.length);
    if (m === undefined || !/^[0-9]+$/.test(seqText) || Number(seqText) !== m.seq) return undefined;
    return { ref: r.ref, commit: r.commit, agent_id: agentId, seq: m.seq, step_hash: m.step_hash };
  };
  const older = new Map<number, SnapshotInfo>();
  for (const r of listRefs(root, legacy, env)) {
    if (r.ref.startsWith(own)) {
      const s = found(own, r);
      if (s !== undefined) out.set(s.seq, s);
    } else {
      const s = found(legacy, r); // `<agent>/<seq>` only: another journal's `<agent>/<key>/<seq>` is not a seq
      if (s !== undefined) older.set(s.seq, s);
    }
  }
  for (const [seq, s] of older) if (!out.has(seq)) out.set(seq, s);
  return out;
}

/** The snapshot of one step, or undefined. */
export function readSnapshot(
  root: string,
  agentId: string,
  seq: number,
  env?: NodeJS.ProcessEnv,
): SnapshotInfo | undefined {
  return listSnapshots(root, agentId, env).get(seq);
}
