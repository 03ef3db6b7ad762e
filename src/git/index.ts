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
  ensureCommit,
  forkPoints,
  isAncestor,
  headCommit,
  listBlobsAtCommit,
  parentsOf,
  prefetchBlobs,
  readBlobs,
  readFilesAtCommit,
  resolveCommit,
} from './commits';
export type { TreeBlob } from './commits';
export { committedEntries, GITLINK } from './head-tree';
export type { CommittedEntry } from './head-tree';
