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
