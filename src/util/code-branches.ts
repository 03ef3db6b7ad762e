/**
 * Branches of the library's code that a run takes in some places and not in others, noted as it takes them, for the
 * bin's code cache (src/cli/code-path.ts names a hook call's path by them too). A cache holds the functions its
 * path's first run compiled: a path named by the agent and the event alone, first run in a repository without packs,
 * left every later call in one with packs (git's automatic gc packs a repository a few thousand steps into a
 * session) compiling the reading of packs anew, ~2 ms of CPU a hook call (a cache made before the gc against one
 * made after it, 41 interleaved calls in the packed repository, twice).
 */
const taken = new Set<string>();

/** Notes that this run took branch `name` (a word). */
export function noteBranch(name: string): void {
  taken.add(name);
}

/** The branches this run took, in name order. */
export function branchesTaken(): string[] {
  return [...taken].sort();
}
