import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { JsonValue } from '../../src/canonical';
import { computeStepHash, encodeRow, type StepRow } from '../../src/journal';
import { ZERO_HASH } from '../../src/util/hash';

/** What a synthetic step says; the chain (hashes, seq, links) is filled in. */
export interface SyntheticStep {
  model: string | null;
  prompt: JsonValue;
  tool_call: JsonValue;
  tool_result: JsonValue;
  ts: number;
}

/**
 * A journal of `n` chained steps written directly as canonical rows, without the library's append (fast, for
 * large journals); step `seq` says what `step(seq)` gives, its input hash is all zeros and it has no blobs.
 */
export function writeSyntheticJournal(file: string, n: number, step: (seq: number) => SyntheticStep): void {
  const lines: string[] = [];
  let prev = ZERO_HASH;
  for (let seq = 0; seq < n; seq++) {
    const { ts, ...said } = step(seq);
    const fields = { prev_hash: prev, input_hash: ZERO_HASH, ...said };
    const row: StepRow = { ...fields, blob_refs: [], seq, step_hash: computeStepHash(fields), ts };
    lines.push(encodeRow(row));
    prev = row.step_hash;
  }
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${lines.join('\n')}\n`);
}

/** What verify reports of a journal that holds: `steps` steps ending at `head_hash`, and no fault. */
export function verifiedClean(head_hash: string, steps: number): Record<string, unknown> {
  return { ok: true, head_hash, steps, errors: [], fault_count: 0, errors_omitted: 0 };
}
