export { GitCommandError, gitSync, gitText } from './exec';
export { isRefComponent, repoInfo, requireRepo } from './repo';
export type { RepoInfo } from './repo';
export {
  journalKey,
  listSnapshots,
  parseSnapshotMessage,
  readSnapshot,
  SNAPSHOT_PATHSPEC,
  SNAPSHOT_REF_PREFIX,
  snapshotRef,
  snapshotRefFor,
  takeSnapshot,
} from './snapshot';
export type { SnapshotInfo, SnapshotOptions } from './snapshot';
export {
  createFork,
  FORK_ID,
  forkBranchName,
  forkJsonDocument,
  forkWorktreePath,
  labelSlug,
  newForkId,
  readSessionFile,
  sessionFile,
  sessionsDir,
  worktreesDir,
} from './fork';
export type { ForkBlock, ForkOptions, ForkResult } from './fork';
export { drawForks, flattenForks, forksMermaid, listForks } from './tree';
export type { ForkNode } from './tree';
export { removeFork } from './remove';
export type { RemoveForkOptions, RemoveForkResult } from './remove';
