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
