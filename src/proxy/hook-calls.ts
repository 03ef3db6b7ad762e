import { readVerifiedJournal } from '../journal';
import { scanChunk } from '../journal/chunk';
import { toolCallIds } from '../runs/exchange-links';
import { GrownFiles } from '../util/grown-file';
import { ZERO_HASH } from '../util/hash';

/** The verified hook steps that name each tool call id: every step naming it, in the journal's order. */
export type HookCalls = Map<string, { seq: number; step_hash: string }[]>;

/** What a walk of a hook journal's lines has made of them: the chain where it stopped, and the ids found. */
interface Calls {
  steps: number;
  prev: string | null;
  calls: HookCalls;
}

/** Per hook journal, for the life of the process (a recording's append worker links after every exchange). */
const grown = new GrownFiles<Calls>(() => ({ steps: 0, prev: ZERO_HASH, calls: new Map() }), walkCalls);

/**
 * The tool-call ids of a hook journal's steps, read as the journal grows (GrownFiles): `record` links each exchange
 * to the hook steps that ran its calls right after appending it, and reading the whole hook journal each time cost
 * 784 ms per exchange at 10,000 hook steps (every row parsed, for every exchange: quadratic over a session). Only the
 * lines appended since the last look are walked, seeded with the chain as it stood (their first row must link to the
 * last one read); anything else: read again from its start, whole and verified (readVerifiedJournal: a journal that
 * does not verify throws, as it always did). What is linked is checked again against the whole verified journals by
 * `run verify` and `check` (docs/record.md).
 */
export function hookCallsOf(file: string): HookCalls {
  const looked = grown.look(file);
  if (looked === null) return new Map();
  if (looked !== undefined) return looked.calls;
  const calls: HookCalls = new Map();
  for (const { row } of readVerifiedJournal(file).entries) addCalls(calls, row);
  return calls;
}

/** Forgets what was read (tests compare a look that walks on with one from the start). */
export function forgetHookCalls(): void {
  grown.forget();
}

/** Walks whole lines appended to a hook journal, seeded with the chain as it stood; false when one does not hold. */
function walkCalls(bytes: Buffer, k: Calls, at: number): boolean {
  const found: { seq: number; step_hash: string; ids: string[] }[] = [];
  const s = scanChunk(
    bytes,
    0,
    bytes.length,
    at,
    { strict: false },
    { steps: k.steps, prevHash: k.prev },
    (_l, _v, row) => {
      if (row !== undefined) found.push({ seq: row.seq, step_hash: row.step_hash, ids: toolCallIds(row.tool_call) });
    },
  );
  if (s.faults.list.length > 0 || s.faults.omitted > 0 || s.rows !== found.length) return false;
  for (const f of found) for (const id of f.ids) addId(k.calls, id, f.seq, f.step_hash);
  k.steps += s.rows;
  if (s.last !== undefined) k.prev = s.last.step_hash;
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
