import { gitSync, namedConfigOnce } from './exec';
import { configValues, filesAsGitWrites } from './loose';
import { addPackedRefs, removePackedRefs, type RefValue } from './packed-refs-write';
import { updateRefs, type RepoInfo } from './repo';

export type { RefValue } from './packed-refs-write';

/**
 * Refs made and removed by the thousand (a fork copies one snapshot ref per inherited step, and `fork rm` removes
 * them): in one rewrite of `packed-refs` where the repository keeps refs as git 2.x does (./packed-refs-write.ts),
 * else by git in one transaction. Fewer refs than BATCH_AT_LEAST are always git's, as loose refs.
 */
const BATCH_AT_LEAST = 256;

/** Whether the repository's refs are files as git 2.x keeps them (its configuration read once, maybe in-process). */
function plainRefStore(repo: RepoInfo, env: NodeJS.ProcessEnv | undefined): boolean {
  try {
    return filesAsGitWrites(configValues(namedConfigOnce(repo.top, env, () => repo)()));
  } catch {
    return false;
  }
}

/**
 * Whether every ref names a commit git finds. git update-ref refuses an object it does not have (and a non-commit
 * under refs/heads/), and packed-refs written with git's `fully-peeled` trait says that a record without a peel
 * line names no tag: a record written here for an annotated tag would have git take it for unpeelable (show-ref
 * -d, and every pack-refs after, copy that). Anything else is git's to write. One `git cat-file` for them all.
 */
function allCommits(repo: RepoInfo, refs: readonly RefValue[], env: NodeJS.ProcessEnv | undefined): boolean {
  const oids = [...new Set(refs.map((r) => r.oid))];
  try {
    const out = gitSync(repo.top, ['cat-file', '--batch-check=%(objecttype)'], { env, input: `${oids.join('\n')}\n` });
    const types = out.split('\n');
    return types.length === oids.length + 1 && types.slice(0, -1).every((t) => t === 'commit');
  } catch {
    return false;
  }
}

/** Creates `refs`, all new, all or none (a ref that exists, or is in the way of one, fails the whole: git says why). */
export function createRefs(repo: RepoInfo, refs: readonly RefValue[], env?: NodeJS.ProcessEnv): void {
  if (refs.length === 0) return;
  if (
    refs.length >= BATCH_AT_LEAST &&
    plainRefStore(repo, env) &&
    allCommits(repo, refs, env) &&
    addPackedRefs(repo.commonDir, refs)
  )
    return;
  updateRefs(
    repo.top,
    refs.map((r) => `create ${r.ref} ${r.oid}`),
    env,
  );
}

/** Every ref under `prefix` (`refs/.../`) and the object it names, without reading the objects. */
export function listRefValues(dir: string, prefix: string, env?: NodeJS.ProcessEnv): RefValue[] {
  const out = gitSync(dir, ['for-each-ref', '--format=%(objectname) %(refname)', prefix], { env });
  return out
    .split('\n')
    .filter((l) => l.length > 41)
    .map((l) => ({ oid: l.slice(0, 40), ref: l.slice(41) }));
}

/**
 * Deletes every ref under `prefix`, each only if it still names what it was read to name; returns how many there
 * were. Packed ones in one rewrite of `packed-refs` (see createRefs), the rest (loose ones) by git.
 */
export function deleteRefsUnder(repo: RepoInfo, prefix: string, env?: NodeJS.ProcessEnv): number {
  const refs = listRefValues(repo.top, prefix, env);
  const removed =
    refs.length >= BATCH_AT_LEAST && plainRefStore(repo, env) ? removePackedRefs(repo.commonDir, refs) : false;
  // What is left: every ref when nothing was removed here, else what git still lists (the loose ones), each only
  // if it was listed at first and with the value read then: a ref another process made, or moved, since is not
  // ours to delete (git refuses the old value; the value listed now would delete the other's update).
  const read = new Map(refs.map((r) => [r.ref, r.oid]));
  const left =
    removed === false || removed.length === 0
      ? refs
      : listRefValues(repo.top, prefix, env).flatMap((r) => {
          const oid = read.get(r.ref);
          return oid === undefined ? [] : [{ ref: r.ref, oid }];
        });
  updateRefs(
    repo.top,
    left.map((r) => `delete ${r.ref} ${r.oid}`),
    env,
  );
  return refs.length;
}
