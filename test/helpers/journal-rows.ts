import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
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

/**
 * `writeSyntheticJournal` for journals of tens of MB: each row's hashed payload and line are written out with
 * JSON.stringify, which is the canonical encoding of what such steps hold (ASCII strings without escapes, small
 * integers, null, objects whose keys the step gives in sorted order, a `ts` JavaScript prints as Python does), and
 * every `checkEvery`th row (the first included) is checked against computeStepHash and encodeRow, throwing where
 * they differ: calling them for every row was most of the CPU of the files that write such journals. Written
 * `batch` rows at a time (the writer holds no more), to a file it creates or truncates. Returns the head.
 */
export function writeSyntheticJournalFast(
  file: string,
  n: number,
  step: (seq: number) => SyntheticStep,
  { checkEvery = 10_000, batch = 1000 }: { checkEvery?: number; batch?: number } = {},
): string {
  mkdirSync(path.dirname(file), { recursive: true });
  const fd = openSync(file, 'w');
  let prev = ZERO_HASH;
  try {
    let lines: string[] = [];
    for (let seq = 0; seq < n; seq++) {
      const { ts, ...said } = step(seq);
      const j = JSON.stringify;
      const head = `"input_hash":"${ZERO_HASH}","model":${j(said.model)},"prev_hash":"${prev}","prompt":${j(said.prompt)}`;
      const call = `"tool_call":${j(said.tool_call)},"tool_result":${j(said.tool_result)}`;
      const stepHash = createHash('sha256').update(`{${head},${call}}`).digest('hex');
      const line = `{"blob_refs":[],${head},"seq":${seq},"step_hash":"${stepHash}",${call},"ts":${Number.isInteger(ts) ? `${ts}.0` : ts}}`;
      if (seq % checkEvery === 0) {
        const fields = { prev_hash: prev, input_hash: ZERO_HASH, ...said };
        const row: StepRow = { ...fields, blob_refs: [], seq, step_hash: computeStepHash(fields), ts };
        if (encodeRow(row) !== line)
          throw new Error(`row ${seq} written out is not encodeRow's: ${line.slice(0, 300)}`);
      }
      lines.push(line);
      prev = stepHash;
      if (lines.length === batch) {
        writeSync(fd, `${lines.join('\n')}\n`);
        lines = [];
      }
    }
    if (lines.length > 0) writeSync(fd, `${lines.join('\n')}\n`);
  } finally {
    closeSync(fd);
  }
  return prev;
}

/** What verify reports of a journal that holds: `steps` steps ending at `head_hash`, and no fault. */
export function verifiedClean(head_hash: string, steps: number): Record<string, unknown> {
  return { ok: true, head_hash, steps, errors: [], fault_count: 0, errors_omitted: 0 };
}
