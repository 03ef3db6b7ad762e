import { gitSync } from '../git/exec';
import { isRefComponent, repoInfo } from '../git/repo';
import { journalKey, SNAPSHOT_REF_PREFIX, takeSnapshot } from '../git/snapshot';

/**
 * The files a recorded run started from: a worktree snapshot taken before the
 * agent starts (so before its first exchange; a step's own snapshot is taken
 * after its tools ran), kept under `refs/stepchain/snapshots/<id>/<key>/start`
 * beside the journal's per-step snapshots (which are numbered, so they never
 * meet it). A replay's fork starts from these files.
 */
export function startRef(root: string, journalId: string, env: NodeJS.ProcessEnv): string | undefined {
  const repo = repoInfo(root, env);
  if (repo === undefined || !isRefComponent(journalId)) return undefined;
  return `${SNAPSHOT_REF_PREFIX}/${journalId}/${journalKey(root, repo)}/start`;
}

export function takeStartSnapshot(
  root: string,
  journalId: string,
  env: NodeJS.ProcessEnv,
): { ref: string; commit: string } | undefined {
  const ref = startRef(root, journalId, env);
  if (ref === undefined) return undefined;
  const snap = takeSnapshot({
    root,
    agentId: journalId,
    seq: 0,
    stepHash: '0'.repeat(64),
    env,
    ref,
    message: `stepchain snapshot: ${journalId} start\n\nagent: ${journalId}\nstart: the files before the first exchange\n`,
  });
  return snap === undefined ? undefined : { ref: snap.ref, commit: snap.commit };
}

/** The commit a start ref holds, or undefined. */
export function readStartCommit(root: string, journalId: string, env: NodeJS.ProcessEnv): string | undefined {
  const ref = startRef(root, journalId, env);
  if (ref === undefined) return undefined;
  try {
    return gitSync(root, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { env }).trim() || undefined;
  } catch {
    return undefined;
  }
}
