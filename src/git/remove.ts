import { existsSync } from 'node:fs';
import { InputError, IntegrityError } from '../errors';
import { assertSafeId } from '../util/ids';
import { gitAt, porcelain } from './exec';
import { branchExists, listRefs, requireRepo, resolveRef, updateRefs } from './repo';
import { SNAPSHOT_PATHSPEC, SNAPSHOT_REF_PREFIX } from './snapshot';
import { flattenForks, listForks } from './tree';

export interface RemoveForkOptions {
  /** Remove even with uncommitted changes in the fork's worktree. */
  force?: boolean;
  env?: NodeJS.ProcessEnv;
}

export interface RemoveForkResult {
  fork_session_id: string;
  worktree: string;
  branch: string | null;
  /** Where the deleted branch pointed (to recover it: `git branch <name> <commit>`). */
  branch_commit: string | null;
  removed_snapshot_refs: number;
}

/**
 * `stepchain fork rm`: removes a fork's worktree, its branch and its snapshot
 * refs (`refs/stepchain/snapshots/<fork_id>/*`). Refuses (IntegrityError) a
 * fork with uncommitted changes unless forced, and a fork that has forks of its
 * own (their worktrees live inside its worktree).
 */
export async function removeFork(
  root: string,
  forkId: string,
  options: RemoveForkOptions = {},
): Promise<RemoveForkResult> {
  const env = options.env ?? process.env;
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
  const git = gitAt(root, env);
  if (!node.missing && existsSync(node.worktree)) {
    const args = ['status', '--porcelain', '--untracked-files=all', '--', ...SNAPSHOT_PATHSPEC];
    const dirty = (await porcelain(args, () => gitAt(node.worktree, env).raw(args)))
      .split('\n')
      .filter((l) => l.trim() !== '');
    if (dirty.length > 0 && !options.force) {
      throw new IntegrityError(
        `fork ${forkId} has uncommitted changes in ${node.worktree} (${dirty.length} path${dirty.length === 1 ? '' : 's'}, e.g. ${dirty[0]!.slice(3)}): commit them or use --force`,
      );
    }
    const rm = ['worktree', 'remove', '--force', node.worktree];
    await porcelain(rm, () => git.raw(rm));
  } else {
    const prune = ['worktree', 'prune'];
    await porcelain(prune, () => git.raw(prune));
  }
  let branchCommit: string | null = null;
  if (node.branch !== null && branchExists(root, node.branch, env)) {
    branchCommit = resolveRef(root, `refs/heads/${node.branch}`, env) ?? null;
    const del = ['branch', '-D', node.branch];
    await porcelain(del, () => git.deleteLocalBranch(node.branch!, true));
  }
  const refs = listRefs(root, `${SNAPSHOT_REF_PREFIX}/${forkId}/`, env);
  updateRefs(
    root,
    refs.map((r) => `delete ${r.ref} ${r.commit}`),
    env,
  );
  return {
    fork_session_id: forkId,
    worktree: node.worktree,
    branch: node.branch,
    branch_commit: branchCommit,
    removed_snapshot_refs: refs.length,
  };
}
