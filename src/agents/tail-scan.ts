import { readRange } from '../util/fs';

/**
 * Finding the last line of an agent's JSONL transcript that answers a question, reading backwards from the end
 * (so the cost does not grow with the session) and no further back than `window` bytes. Only lines that contain
 * `needle` (a call id, as JSON) are parsed. Shared by every agent whose hook looks something up in its transcript
 * (Claude Code's model of a tool call, Codex's exit code).
 */
const CHUNK = 64 << 10;

/** How far back from the end a hook looks by default. */
export const TAIL_WINDOW = 4 << 20;

/** A JSON object line, or undefined. */
export function parseObjectLine(line: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(line);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The first answer `visit` gives for the lines of the file open at `fd` (`size` bytes) that contain `needle`, the
 * last line first. A torn line at the very end is offered too (it does not parse, so it answers nothing).
 */
export function findInTail<T>(
  fd: number,
  size: number,
  needle: string,
  visit: (entry: Record<string, unknown>) => T | undefined,
  window = TAIL_WINDOW,
): T | undefined {
  const bytes = Buffer.from(needle);
  const stop = Math.max(0, size - window);
  let end = size;
  let carry = Buffer.alloc(0); // a line whose beginning is further back
  while (end > stop) {
    const start = Math.max(stop, end - CHUNK);
    const buf = Buffer.concat([readRange(fd, start, end - start), carry]);
    // The first piece may be the tail of a line that starts before `start`: it waits for the rest.
    const first = start > 0 ? buf.indexOf(0x0a) : -1;
    if (start > 0 && first < 0) {
      carry = buf;
      end = start;
      continue;
    }
    carry = start > 0 ? buf.subarray(0, first) : Buffer.alloc(0);
    const whole = buf.subarray(first + 1);
    // Most chunks do not mention the needle at all: only those that do are split into lines.
    for (let at = whole.lastIndexOf(bytes); at >= 0;) {
      const lineStart = whole.lastIndexOf(0x0a, at) + 1;
      let lineEnd = whole.indexOf(0x0a, at);
      if (lineEnd < 0) lineEnd = whole.length;
      const entry = parseObjectLine(whole.subarray(lineStart, lineEnd).toString('utf8'));
      const answer = entry === undefined ? undefined : visit(entry);
      if (answer !== undefined) return answer;
      at = lineStart === 0 ? -1 : whole.lastIndexOf(bytes, lineStart - 1);
    }
    end = start;
  }
  return undefined;
}

/**
 * Characters every JSON writer an agent uses writes as themselves inside a string (JSON.stringify, Python's json,
 * serde, Go's encoding/json): printable ASCII but `"` and `\` (always escaped), `/` (escaped by some), `<`, `>`,
 * `&` (escaped by Go's). Anything else may come out as an escape.
 */
const VERBATIM_RUN = /[\x20-\x21\x23-\x25\x27-\x2e\x30-\x3b\x3d\x3f-\x5b\x5d-\x7e]+/g;

/**
 * The longest run of verbatim characters in the strings (member names included) of `v`: the bytes any line that
 * holds `v` as JSON holds, however its writer spaced or escaped the rest (numbers are not looked at: `1e2` is
 * `100`). Undefined when `v` has none (no strings, or only characters a writer may escape): the caller then reads
 * every line.
 */
export function verbatimNeedle(v: unknown): Buffer | undefined {
  let best = '';
  const visit = (x: unknown): void => {
    if (typeof x === 'string') {
      for (const run of x.match(VERBATIM_RUN) ?? []) if (run.length > best.length) best = run;
    } else if (Array.isArray(x)) x.forEach(visit);
    else if (x instanceof Map) members(x.entries());
    // Plain records only: a class's fields (a JsonFloat's `value`) are no member names of the JSON.
    else if (typeof x === 'object' && x !== null && [Object.prototype, null].includes(Object.getPrototypeOf(x)))
      members(Object.entries(x));
  };
  const members = (entries: Iterable<[unknown, unknown]>): void => {
    for (const [k, y] of entries) {
      visit(k);
      visit(y);
    }
  };
  visit(v);
  return best === '' ? undefined : Buffer.from(best, 'latin1');
}

/** The lines of `buf` (split at `\n`) that contain one of `needles`, each once, in the file's order. */
export function linesContaining(buf: Buffer, needles: readonly Buffer[]): Buffer[] {
  const starts = new Map<number, number>(); // a line's start -> its end
  for (const needle of needles)
    for (let at = buf.indexOf(needle); at >= 0;) {
      const start = buf.lastIndexOf(0x0a, at) + 1;
      let end = buf.indexOf(0x0a, at);
      if (end < 0) end = buf.length;
      starts.set(start, end);
      at = end >= buf.length ? -1 : buf.indexOf(needle, end + 1);
    }
  return [...starts.keys()].sort((a, b) => a - b).map((start) => buf.subarray(start, starts.get(start)));
}

/** The needle of a string written as itself (all of it verbatim), quoted as JSON writes it; else undefined. */
export function quotedNeedle(s: string): Buffer | undefined {
  return verbatimNeedle(s)?.length === s.length ? Buffer.from(JSON.stringify(s), 'latin1') : undefined;
}

/**
 * The last `window` bytes of the file open at `fd` (`size` bytes), whole lines only: a window that starts
 * mid-line drops that line.
 */
export function tailWindow(fd: number, size: number, window: number): Buffer {
  const from = Math.max(0, size - window);
  const buf = readRange(fd, from, size - from);
  return from > 0 ? buf.subarray(buf.indexOf(0x0a) + 1) : buf;
}
