import type { JsonValue } from '../canonical';
import { entriesOf, isObj, same, valueChanges, type FieldChange } from './changes';
import type { JournalEntry, StepList, StepRow } from '../journal';
import { isoTime, preview, sanitize } from './text';

/**
 * The step model shared by the terminal replay and the HTML report: what a step
 * shows, what changed since the previous one, and search across steps.
 */

/** The fields an operator reads, in display order. */
export const CONTENT_FIELDS = ['model', 'prompt', 'tool_call', 'tool_result', 'blob_refs', 'input_hash'] as const;
export type ContentField = (typeof CONTENT_FIELDS)[number];

export type { FieldChange } from './changes';

/**
 * What changed from `prev` to `cur`, field by field, descending into objects.
 * Hashes, seq and time always change and are not listed; `prev` undefined
 * (the first step) gives no changes.
 */
export function stepChanges(prev: StepRow | undefined, cur: StepRow): FieldChange[] {
  if (prev === undefined) return [];
  const out: FieldChange[] = [];
  for (const f of CONTENT_FIELDS) out.push(...valueChanges(f, prev[f] as JsonValue, cur[f] as JsonValue));
  return out;
}

/** The content fields whose values differ between two rows (not descending). */
export function fieldsChanged(a: StepRow, b: StepRow): ContentField[] {
  return CONTENT_FIELDS.filter((f) => !same(a[f] as JsonValue, b[f] as JsonValue));
}

/** The tool a step called: `tool_call.name` when there is one, else a preview. */
export function toolName(row: Pick<StepRow, 'tool_call'>): string {
  const tc = row.tool_call;
  if (tc === null) return '';
  if (typeof tc === 'string') return tc;
  if (isObj(tc)) {
    const name = new Map(entriesOf(tc)).get('name');
    if (typeof name === 'string') return name;
  }
  return preview(tc);
}

/** A one-line summary of a step for tables. */
export interface StepSummary {
  seq: number;
  time: string;
  model: string;
  tool: string;
  step_hash: string;
  prompt: string;
}

export function stepSummary(e: JournalEntry): StepSummary {
  return rowSummary(e.row);
}

/** stepSummary of the fields it reads (a table reads only those of a canonical row: VerifiedSteps.rewritable). */
export function rowSummary(
  r: Pick<StepRow, 'seq' | 'ts' | 'model' | 'prompt' | 'tool_call' | 'step_hash'>,
): StepSummary {
  return {
    seq: r.seq,
    time: isoTime(r.ts),
    model: r.model === null ? '' : preview(r.model),
    tool: sanitize(toolName(r)),
    step_hash: r.step_hash,
    prompt: r.prompt === null ? '' : preview(r.prompt),
  };
}

const searchText = new WeakMap<JournalEntry, string>();

/** Everything searchable in a step, lower-cased (cached per entry). */
export function stepSearchText(e: JournalEntry): string {
  let t = searchText.get(e);
  if (t === undefined) {
    const r = e.row;
    t = [
      String(r.seq),
      preview(r.model),
      preview(r.prompt),
      preview(r.tool_call),
      preview(r.tool_result),
      r.step_hash,
      r.prev_hash,
      r.input_hash,
      ...r.blob_refs,
    ]
      .join('\n')
      .toLowerCase();
    searchText.set(e, t);
  }
  return t;
}

/** Whether a step matches a search (case-insensitive substring of its fields). */
export function stepMatches(e: JournalEntry, query: string): boolean {
  return query.length > 0 && stepSearchText(e).includes(query.toLowerCase());
}

/**
 * The index of the next step matching `query`, after `from` going forward (or
 * before it going backward), wrapping around; `from` itself is tried last.
 * Returns -1 when no step matches.
 */
export function findStep(entries: StepList, query: string, from: number, direction: 1 | -1 = 1): number {
  return query.length === 0 ? -1 : nextMatch(matchingSteps(entries, query), from, direction);
}

/** findStep among the matching steps already found (`matchingSteps`, in order). */
export function nextMatch(matches: readonly number[], from: number, direction: 1 | -1): number {
  if (matches.length === 0) return -1;
  if (direction === 1) return matches.find((m) => m > from) ?? matches[0]!;
  for (let k = matches.length - 1; k >= 0; k--) if (matches[k]! < from) return matches[k]!;
  return matches[matches.length - 1]!;
}

/** The indexes of all matching steps among the first `n` (for "match i of n"). */
export function matchingSteps(entries: StepList, query: string, n = entries.length): number[] {
  const out: number[] = [];
  for (let i = 0; i < Math.min(n, entries.length); i++) if (stepMatches(entries.at(i)!, query)) out.push(i);
  return out;
}
