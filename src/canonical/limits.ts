/**
 * The one nesting limit for every JSON value stepchain reads or writes: at most
 * this many arrays and objects open at once (`[]` is 1 level, `[[]]` 2). Writers
 * refuse deeper values and readers report them as faults, so no walk over a value
 * ever runs out of stack. It stays below what the reference can read back: its
 * `json.loads` and `json.dumps` recurse once per level under Python's default
 * recursion limit of 1,000 frames (Python 3.11 reads 994 levels from a script's
 * top level), and a row's line and its hashed payload are each one level deeper
 * than the deepest field, so 900 leaves the reference about 90 frames of its own
 * call stack (see docs/journal.md).
 */
export const MAX_NESTING = 900;
