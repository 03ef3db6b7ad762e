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

/**
 * The longest line (between newlines, its terminator not counted) stepchain reads, in bytes: the longest string
 * Node.js holds (V8's String::kMaxLength on 64-bit, 2^29 - 24 characters), so that every line read decodes. A
 * longer line is one malformed line, said so, and never held in memory: a walk skips over it (the reference reads it
 * if it has the memory; no row stepchain writes comes near it: blobs are stored apart).
 */
export const MAX_LINE_BYTES = 0x1fffffe8;

/** The fault of a line longer than the longest read (`max`, MAX_LINE_BYTES but in tests). */
export function lineTooLong(bytes: number, max = MAX_LINE_BYTES): string {
  return `line of ${bytes.toLocaleString('en-US')} bytes: longer than the longest line stepchain reads (${max.toLocaleString('en-US')} bytes${max === MAX_LINE_BYTES ? ', the longest string Node.js holds' : ''}); not read`;
}

/**
 * The longest line a receipt's walk holds, in bytes: a longer one is checked as its bytes come (src/journal/long-row.ts)
 * and taken only when it is a canonical row, so a receipt's memory does not grow with its longest line. Lines of up to
 * this many bytes are held (~3 times their size, in the line scanner's memory); stepchain's writers keep rows far
 * below it (payloads are blobs), but a 64 MiB prompt makes a longer one.
 */
export const LONG_LINE_BYTES = 8 * 1024 * 1024;

/** The fault of a line longer than `limit` (LONG_LINE_BYTES but in tests) that is not a canonical row. */
export function longLineRefused(bytes: number, limit = LONG_LINE_BYTES): string {
  return `line of ${bytes.toLocaleString('en-US')} bytes that is not a canonical row: a line longer than ${limit.toLocaleString('en-US')} bytes is taken only as one (it is checked as it is read, never held); not read`;
}
