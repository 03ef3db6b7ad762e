import { closeSync, fstatSync } from 'node:fs';
import { readVerifiedJournal } from '../journal';
import { scanChunk } from '../journal/chunk';
import { toolCallIds } from '../runs/exchange-links';
import { readRange } from '../util/fs';
import { ZERO_HASH } from '../util/hash';
import { openRegularFile } from '../util/nofollow';

/** The verified hook steps that name each tool call id: every step naming it, in the journal's order. */
export type HookCalls = Map<string, { seq: number; step_hash: string }[]>;

/** What was read of a hook journal: up to where, the chain there, the ids found, and the bytes that end it. */
interface Read {
  dev: bigint;
  ino: bigint;
  size: number;
  steps: number;
  prev: string | null;
  /** The last bytes read (up to TAIL_BYTES): still there, unchanged, or the journal is read again from its start. */
  tail: Buffer;
  calls: HookCalls;
}

const TAIL_BYTES = 256;
/** Per hook journal, for the life of the process (a recording's append worker links after every exchange). */
const known = new Map<string, Read>();

/**
 * The tool-call ids of a hook journal's steps, read as the journal grows: `record` links each exchange to the hook
 * steps that ran its calls right after appending it, and reading the whole hook journal each time cost 784 ms per
 * exchange at 10,000 hook steps (every row parsed, for every exchange: quadratic over a session). Only the lines
 * appended since the last look are walked, seeded with the chain as it stood (their first row must link to the last
 * one read); the journal replaced, cut, its last bytes read changed, or new lines that do not verify: read again
 * from its start, whole and verified (readVerifiedJournal: a journal that does not verify throws, as it always
 * did). A line still being written (no newline yet) waits for the next look. What is linked is checked again against
 * the whole verified journals by `run verify` and `check` (docs/record.md).
 */
export function hookCallsOf(file: string): HookCalls {
  const opened = openRegularFile(file);
  if (opened === undefined) return new Map();
  try {
    const st = fstatSync(opened.fd, { bigint: true });
    const k = known.get(file);
    if (k !== undefined && k.dev === st.dev && k.ino === st.ino && opened.size >= k.size && tailHolds(opened.fd, k))
      if (walkOn(opened.fd, opened.size, k)) return k.calls;
    const fresh: Read = {
      dev: st.dev,
      ino: st.ino,
      size: 0,
      steps: 0,
      prev: ZERO_HASH,
      tail: Buffer.alloc(0),
      calls: new Map(),
    };
    if (walkOn(opened.fd, opened.size, fresh)) {
      known.set(file, fresh);
      return fresh.calls;
    }
  } finally {
    closeSync(opened.fd);
  }
  // Lines that do not verify as an append to what was read: the whole journal, verified, says why (or reads).
  known.delete(file);
  const calls: HookCalls = new Map();
  for (const { row } of readVerifiedJournal(file).entries) addCalls(calls, row);
  return calls;
}

/** Forgets what was read (tests compare a look that walks on with one from the start). */
export function forgetHookCalls(): void {
  known.clear();
}

function tailHolds(fd: number, k: Read): boolean {
  return readRange(fd, k.size - k.tail.length, k.tail.length).equals(k.tail);
}

/** Walks k's journal from k.size to its last newline before `size`, seeded; false when a line does not hold. */
function walkOn(fd: number, size: number, k: Read): boolean {
  if (size === k.size) return true;
  const bytes = readRange(fd, k.size, size - k.size);
  const end = bytes.lastIndexOf(0x0a) + 1;
  if (end === 0) return true; // one line still being written
  const found: { seq: number; step_hash: string; ids: string[] }[] = [];
  const s = scanChunk(bytes, 0, end, k.size, { strict: false }, { steps: k.steps, prevHash: k.prev }, (_l, _v, row) => {
    if (row !== undefined) found.push({ seq: row.seq, step_hash: row.step_hash, ids: toolCallIds(row.tool_call) });
  });
  if (s.faults.list.length > 0 || s.faults.omitted > 0 || s.rows !== found.length) return false;
  for (const f of found) for (const id of f.ids) addId(k.calls, id, f.seq, f.step_hash);
  k.steps += s.rows;
  if (s.last !== undefined) k.prev = s.last.step_hash;
  k.size += end;
  k.tail = Buffer.from(bytes.subarray(Math.max(0, end - TAIL_BYTES), end));
  return true;
}

function addCalls(
  calls: HookCalls,
  row: { seq: number; step_hash: string; tool_call: Parameters<typeof toolCallIds>[0] },
): void {
  for (const id of toolCallIds(row.tool_call)) addId(calls, id, row.seq, row.step_hash);
}

function addId(calls: HookCalls, id: string, seq: number, step_hash: string): void {
  const list = calls.get(id);
  if (list === undefined) calls.set(id, [{ seq, step_hash }]);
  else list.push({ seq, step_hash });
}
