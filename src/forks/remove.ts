import { existsSync, rmdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { InputError, IntegrityError } from '../errors';
import { JOURNAL_FILE, journalDir } from '../journal';
import { forkParentRoot, tombstoneFile, writeTombstone } from '../journal/tombstone';
import { assertSafeId } from '../util/ids';
import { acquireLock, liveLockHolder, type LockHandle } from '../util/lock';
import { GitCommandError, gitText } from '../git/exec';
import { isForkBranchOf, readSessionFile, sessionFile, worktreesDir } from './names';
import { isJsonObject } from '../canonical';
import { pendingFile, readIntents, removeIntent } from './pending';
import { branchExists, requireRepo, resolveRef } from '../git/repo';
import { deleteRefsUnder } from '../git/ref-batch';
import { SNAPSHOT_PATHSPEC, SNAPSHOT_REF_PREFIX } from '../git/snapshot';
import { flattenForks, listForks, type ForkNode } from './tree';
import { refuseLinkedStoreDirs } from '../util/nofollow';
import { plural } from '../util/words';
import { readForkJournal } from './since';

export interface RemoveForkOptions {
  /**
   * Remove even with steps recorded since the fork point, a writer holding
   * its journal's lock, a journal that does not verify, uncommitted changes,
   * or a creation still in progress.
   */
  force?: boolean;
  /**
   * Leave a tombstone (default true). False only to undo a fork nobody has used
   * yet (a `fork --resume` that failed after creating it), so its id may be made again.
   */
  tombstone?: boolean;
  env?: NodeJS.ProcessEnv;
}

export interface RemoveForkResult {
  fork_session_id: string;
  worktree: string;
  branch: string | null;
  /** Where the deleted branch pointed (to recover it: `git branch <name> <commit>`). */
  branch_commit: string | null;
  removed_snapshot_refs: number;
  /** Steps the fork's journal held, and how many of them were recorded after the fork point (null: no journal). */
  steps: number | null;
  steps_since: number | null;
  /** The tombstone left in the parent's `.sdd/runtime/tombstones/` (appends naming the fork are refused). */
  tombstone: string | null;
  /** The fork's creation had not finished (a half-made fork). */
  incomplete: boolean;
}

/** Lock timeout for `fork rm`: a live writer is refused at once, so this only covers a handover. */
const RM_LOCK_TIMEOUT_MS = 5000;

function refuse(forkId: string, why: string): never {
  throw new IntegrityError(`fork ${forkId}: ${why}; nothing was removed (use --force to remove it anyway)`);
}

/**
 * `stepchain fork rm`: removes a fork's worktree, its branch and its snapshot
 * refs (`refs/stepchain/snapshots/<fork_id>/*`), and leaves a tombstone in the
 * parent's `.sdd/runtime/tombstones/` so later appends naming the fork are
 * refused rather than starting a fresh chain. Unless forced, it refuses
 * (IntegrityError, exit 1) a fork whose journal has steps recorded since the
 * fork point or does not verify, one whose journal lock a live writer holds,
 * one with uncommitted changes, and one still being created. It holds the
 * journal's lock from the check to the removal, so no append slips in between.
 * It always refuses a fork that has forks of its own (their worktrees live
 * inside its worktree). A half-made fork (creation interrupted) is removed as
 * far as it was made, per its intent file.
 */
export async function removeFork(
  root: string,
  forkId: string,
  options: RemoveForkOptions = {},
): Promise<RemoveForkResult> {
  const env = options.env ?? process.env;
  const force = options.force === true;
  assertSafeId(forkId, 'fork id');
  requireRepo(root, env);
  const node = flattenForks(await listForks(root, env)).find((n) => n.fork_session_id === forkId);
  if (node === undefined)
    throw new InputError(`no fork ${JSON.stringify(forkId)} in this repository (see \`stepchain forks\`)`);
  if (node.children.length > 0) {
    throw new IntegrityError(
      `fork ${forkId} has forks of its own (${node.children.map((c) => c.fork_session_id).join(', ')}): remove them first`,
    );
  }
  if (node.creator_pid !== null && !force) refuse(forkId, `it is being created right now (pid ${node.creator_pid})`);
  // A lock is git's "keep this worktree" (its owner's, on removable media, ...): asked before anything is removed.
  if (node.locked !== null && !force)
    refuse(
      forkId,
      `git keeps its worktree locked${node.locked ? ` (${JSON.stringify(node.locked)})` : ''}: \`git worktree unlock ${node.worktree}\` first`,
    );

  // Nothing is removed, locked or read through a link planted on the way to the fork (src/util/nofollow.ts).
  refuseLinkedStoreDirs(node.worktree);
  const jdir = journalDir(node.worktree, forkId);
  const jfile = path.join(jdir, JOURNAL_FILE);
  let lock: LockHandle | undefined;
  if (!node.missing && existsSync(jdir)) {
    const holder = liveLockHolder(`${jfile}.lock`);
    if (holder !== undefined && !force)
      refuse(forkId, `a writer is recording into it (its journal lock is held by ${holder})`);
    if (holder === undefined) {
      lock = acquireLock(`${jfile}.lock`, { timeoutMs: RM_LOCK_TIMEOUT_MS });
      lock.heartbeat();
    }
  }
  // Run from inside the fork being removed, git must not be run from there once its worktree is gone.
  const parentRoot = forkParentRoot(node.worktree)?.parent;
  const rel = path.relative(node.worktree, root);
  const inside = rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  const base = inside && parentRoot !== undefined ? parentRoot : root;
  try {
    return await removeLocked(base, node, force, env, jfile, options.tombstone !== false);
  } catch (e) {
    // What git refused (a worktree it will not remove, a branch checked out elsewhere) is one line naming the fork.
    if (e instanceof GitCommandError) throw new IntegrityError(`fork ${forkId}: ${e.message}`);
    throw e;
  } finally {
    lock?.();
  }
}

/**
 * Refuses to remove a fork whose worktree holds uncommitted changes. -z: a path holding a newline is one entry (a
 * rename's source path follows its entry; skip it). A submodule's work tree is not looked into (`dirty`): its
 * configuration is another repository's; a moved submodule commit still counts. (Forced, nothing runs in the
 * worktree: its .git may no longer be stepchain's to trust.)
 */
async function refuseUncommitted(node: ForkNode, env: NodeJS.ProcessEnv): Promise<void> {
  const args = [
    'status',
    '--porcelain',
    '-z',
    '--untracked-files=all',
    '--ignore-submodules=dirty',
    '--',
    ...SNAPSHOT_PATHSPEC,
  ];
  const fields = (await gitText(node.worktree, args, env)).split('\0');
  const dirty: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (f.length < 4) continue;
    dirty.push(f);
    if (f[0] === 'R' || f[0] === 'C') i++;
  }
  if (dirty.length > 0)
    throw new IntegrityError(
      `fork ${node.fork_session_id} has uncommitted changes in ${node.worktree} (${plural(dirty.length, 'path')}, e.g. ${JSON.stringify(dirty[0]!.slice(3))}): commit them or use --force`,
    );
}

/**
 * The branch the fork was created on (`fork/<parent branch>/<fork_id>`), from its intent, its session file or
 * what its worktree has checked out, whichever names one of that shape; null when none does. The worktree's
 * agent may have checked out another branch (a user's `feature`) or written another name into its session file:
 * such a branch is not the fork's and is never deleted (it stays, as it was, once the worktree is gone).
 */
function forkOwnBranch(node: ForkNode, intentBranch: string | undefined): string | null {
  let recorded: string | undefined;
  if (!node.missing) {
    try {
      const block = readSessionFile(sessionFile(node.worktree, node.fork_session_id))?.fork;
      if (block !== undefined && isJsonObject(block) && typeof block.branch === 'string') recorded = block.branch;
    } catch {
      recorded = undefined; // an unreadable session file names nothing; the other sources still may
    }
  }
  const candidates = [intentBranch, recorded, node.branch ?? undefined];
  return candidates.find((b): b is string => b !== undefined && isForkBranchOf(b, node.fork_session_id)) ?? null;
}

async function removeLocked(
  root: string,
  node: ForkNode,
  force: boolean,
  env: NodeJS.ProcessEnv,
  jfile: string,
  leaveTombstone: boolean,
): Promise<RemoveForkResult> {
  const forkId = node.fork_session_id;
  const parent = forkParentRoot(node.worktree);
  const intent =
    parent === undefined
      ? undefined
      : readIntents(worktreesDir(parent.parent)).find((i) => i.intent.fork_session_id === forkId);
  // Only a creation its intent still describes may hold files nobody made (checked out half-way, or not at all).
  // A worktree that is merely without its session file (its agent ran `git clean -fdx`, removing .sdd/) is judged
  // as any fork: its changes are someone's work.
  const halfMade = intent !== undefined;
  if (!node.missing && existsSync(node.worktree) && !halfMade && !force) await refuseUncommitted(node, env);

  let steps: number | null = null;
  let head: string | null = null;
  let since: number | null = null;
  if (!node.missing && existsSync(jfile)) {
    // What is the fork's own is what its journal does not share with its parent's (since.ts), not what its session
    // file (which the fork's agent writes) says its fork point was; a disagreement is refused.
    const j = readForkJournal(jfile, node.worktree, forkId, node.parent_session_id, node.from_step);
    const v = j.result;
    steps = v.steps;
    head = v.head_hash;
    since = j.progress?.since ?? steps;
    if (!force && !v.ok) refuse(forkId, `its journal ${jfile} does not verify (see \`stepchain verify ${jfile}\`)`);
    if (!force && j.progress?.disputed) refuse(forkId, j.progress.disputed);
    if (!force && since > 0) {
      refuse(
        forkId,
        `${since} step${since === 1 ? ' was' : 's were'} recorded since the fork point (${jfile}, head ${head}); keep them (stepchain export ${jfile} ...)`,
      );
    }
  }
  let branchCommit: string | null = null;
  const branch = forkOwnBranch(node, intent?.intent.branch);
  const keepBranch = intent?.intent.branch_existed === true;
  if (branch !== null && !keepBranch && branchExists(root, branch, env))
    branchCommit = resolveRef(root, `refs/heads/${branch}`, env) ?? null;

  // The tombstone first: from here on an append naming this fork is refused.
  const hadTombstone = parent !== undefined && existsSync(tombstoneFile(parent.parent, forkId));
  const tombstone =
    parent === undefined || !leaveTombstone
      ? null
      : writeTombstone(parent.parent, {
          fork_session_id: forkId,
          removed_at: new Date().toISOString(),
          worktree: node.worktree,
          branch,
          branch_commit: branchCommit,
          steps,
          head_hash: head,
          forced: force,
        });

  if (!node.missing && existsSync(node.worktree)) {
    // Twice forced: a half-made worktree may still be locked by git ("initializing"), and a locked one is removed
    // only when forced (refused above otherwise).
    const twice = node.incomplete || node.locked !== null;
    const rm = ['worktree', 'remove', '--force', ...(twice ? ['--force'] : []), node.worktree];
    try {
      await gitText(root, rm, env);
    } catch (e) {
      // Forced past a live writer (it holds no lock of ours): an append already under way can add a file while
      // git empties a directory ("Directory not empty"). The tombstone refuses the next ones; remove what is left,
      // retrying such a race, then `worktree prune` below forgets it.
      if (!node.incomplete && !force) {
        // Nothing was removed: neither is the fork marked removed.
        if (tombstone !== null && !hadTombstone) rmSync(tombstone, { force: true });
        throw e;
      }
      rmSync(node.worktree, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
    }
  }
  // `prune` keeps a locked worktree's entry, whose directory is gone by now (or was, when the fork was found).
  if (node.locked !== null && !existsSync(node.worktree))
    await gitText(root, ['worktree', 'unlock', node.worktree], env).catch(() => undefined); // unlocked meanwhile
  const prune = ['worktree', 'prune'];
  await gitText(root, prune, env);
  if (branch !== null && !keepBranch && branchExists(root, branch, env)) {
    const del = ['branch', '-D', branch];
    await gitText(root, del, env);
  }
  const removedRefs = deleteRefsUnder(requireRepo(root, env), `${SNAPSHOT_REF_PREFIX}/${forkId}/`, env);
  if (parent !== undefined) {
    removeIntent(pendingFile(worktreesDir(parent.parent), forkId));
    try {
      rmdirSync(worktreesDir(parent.parent)); // only when empty: the last fork of this root is gone
    } catch {
      /* other forks live there */
    }
  }
  return {
    fork_session_id: forkId,
    worktree: node.worktree,
    branch,
    branch_commit: branchCommit,
    removed_snapshot_refs: removedRefs,
    steps,
    steps_since: since,
    tombstone,
    incomplete: node.incomplete,
  };
}
