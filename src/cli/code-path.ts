/**
 * The path a run of a small entry took through its program (the hook entry: the agent and the event; the verify
 * entry: which of its two commands), for the bin's code cache (scripts/build-launcher.mjs): a cache holds the
 * functions its runs compiled, so one written by a run of another path (a session's first hook call is its
 * SessionStart) left every later tool call compiling the rest of its path anew, ~9-11 ms of each (measured,
 * Dec 7). The launcher asks the program's `codeCachePath` export at exit and, for a path its cache has not seen,
 * writes the cache again: the code already in it (V8 keeps what it read) and this run's.
 */
let taken: string | undefined;

/** Names the path this run took (a few printable words; the last named counts). */
export function noteCodePath(path: string): void {
  taken = path;
}

/**
 * The path this run took, as noted, and how it ended when not with 0 (undefined: none noted): a run that failed early
 * (no such journal, a payload that does not parse) compiled little of its path, and named as a run that did not
 * fail, its cache would keep that little for every later run of the path.
 */
export function codeCachePath(): string | undefined {
  const code = process.exitCode;
  return taken === undefined || code === undefined || code === 0 || code === '0' ? taken : `${taken} (exit ${code})`;
}
