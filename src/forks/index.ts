export { createFork, forkJsonDocument } from './fork';
export {
  FORK_ID,
  forkBranchName,
  forkWorktreePath,
  labelSlug,
  newForkId,
  readSessionFile,
  sessionFile,
  sessionsDir,
  worktreesDir,
} from './names';
export type { ForkBlock, ForkOptions, ForkResult } from './fork';
export { drawForks, flattenForks, forksMermaid, listForks } from './tree';
export type { ForkNode } from './tree';
export { removeFork } from './remove';
export type { RemoveForkOptions, RemoveForkResult } from './remove';
