import type { JsonValue } from '../canonical';
import type { JournalDiff } from './diff';
import { entryAt, stepBlobs, stepBody, type BlobInfo } from './body';
import { storedRow, type ReplaySource } from './source';
import { signatureText } from './screen';
import { stepSummary, type StepSummary } from './step';
import { displayWidth, fit, preview, sanitize, shortHash, truncate } from './text';

/** The non-interactive outputs of `replay`, `show` and `diff`: plain lines and JSON documents. */

function statusLine(source: ReplaySource): string {
  const what = source.kind === 'receipt' ? `receipt ${source.file}` : source.file;
  const extra = source.kind === 'receipt' ? `${source.redacted ? ', redacted' : ''}${signatureText(source)}` : '';
  return `${sanitize(source.agentId)}: ${source.steps} step${source.steps === 1 ? '' : 's'}, head ${source.head_hash}, chain verified (${sanitize(what)}${extra})`;
}

/** The steps as a table (seq, time, model, tool, short step hash, prompt preview), first `limit` steps. */
export function stepTable(source: ReplaySource, limit?: number): string[] {
  const rows = source.entries.slice(0, limit ?? source.entries.length).map(stepSummary);
  // Widths by reduce, not Math.max(...rows): a journal can have more rows than a call has arguments.
  const widest = (min: number, f: (r: StepSummary) => number): number => rows.reduce((m, r) => Math.max(m, f(r)), min);
  const seqW = widest(3, (r) => String(r.seq).length);
  const modelW = Math.min(
    28,
    widest(5, (r) => displayWidth(r.model)),
  );
  const toolW = Math.min(
    16,
    widest(4, (r) => displayWidth(r.tool)),
  );
  const head = `${'seq'.padStart(seqW)}  ${fit('time (UTC)', 20)}  ${fit('model', modelW)}  ${fit('tool', toolW)}  ${fit('step', 12)}  prompt`;
  const out = [statusLine(source), '', head];
  for (const r of rows) {
    out.push(
      `${String(r.seq).padStart(seqW)}  ${fit(r.time.slice(0, 19).replace('T', ' '), 20)}  ${fit(r.model, modelW)}  ${fit(r.tool, toolW)}  ${shortHash(r.step_hash)}  ${truncate(r.prompt, 60)}`,
    );
  }
  if (rows.length < source.steps)
    out.push(
      `… ${source.steps - rows.length} more step${source.steps - rows.length === 1 ? '' : 's'} (--limit ${rows.length})`,
    );
  return out;
}

/** `replay --json`: `{agent_id, head_hash, steps, entries}`, rows exactly as stored; `steps` counts them all. */
export function replayDocument(
  source: ReplaySource,
  limit?: number,
): { agent_id: string; head_hash: string; steps: number; entries: JsonValue[] } {
  return {
    agent_id: source.agentId,
    head_hash: source.head_hash,
    steps: source.steps,
    entries: source.entries.slice(0, limit ?? source.entries.length).map(storedRow),
  };
}

/** One step in full, as lines (nothing cut). */
export function showLines(source: ReplaySource, seq: number): string[] {
  const e = entryAt(source, seq);
  const out = [statusLine(source), '', `seq ${e.row.seq} (step ${e.row.seq + 1} of ${source.steps})`];
  for (const l of stepBody(source, seq, { width: 100, expanded: true, wrapLines: false, showFile: true }).lines)
    out.push(l.text);
  const blobs = stepBlobs(source, e);
  if (blobs.length > 0) {
    out.push('', `blobs (from ${sanitize(source.blobs.where)}):`);
    for (const b of blobs) {
      out.push(`  ${b.digest}${b.input ? '  (input)' : ''}`);
      if (!b.present) out.push('    MISSING: not in the store');
      else {
        out.push(`    ${b.size} bytes${b.binary ? ', binary' : ''}`);
        if (b.preview !== null)
          for (const l of b.preview.replace(/\n$/, '').split('\n').slice(0, 6)) out.push(`    | ${sanitize(l)}`);
      }
    }
  }
  return out;
}

export interface ShowDocument {
  agent_id: string;
  head_hash: string;
  steps: number;
  seq: number;
  line: number;
  entry: JsonValue;
  blobs: BlobInfo[];
}

/** `show --json`: the row as stored, its 1-based line, and its blobs. */
export function showDocument(source: ReplaySource, seq: number): ShowDocument {
  const e = entryAt(source, seq);
  return {
    agent_id: source.agentId,
    head_hash: source.head_hash,
    steps: source.steps,
    seq: e.row.seq,
    line: e.line,
    entry: storedRow(e),
    blobs: stepBlobs(source, e),
  };
}

/** `diff` as lines: the verdict, then the fields that differ at the divergence. */
export function diffLines(d: JournalDiff, leftName: string, rightName: string): string[] {
  const l = sanitize(leftName);
  const r = sanitize(rightName);
  if (!d.diverged) return [`same: ${l} and ${r} have the same ${d.left_steps} steps (head ${d.left_head})`];
  if (d.reason === 'length_mismatch') {
    const longer = d.left_steps > d.right_steps ? l : r;
    return [
      `diverged at step ${d.seq}: length_mismatch (${l} has ${d.left_steps} steps, ${r} has ${d.right_steps})`,
      `  the first ${d.seq} steps are the same; ${longer} goes on`,
    ];
  }
  const out = [
    `diverged at step ${d.seq}: ${d.fields_changed.join(', ') || 'step_hash'} ${d.fields_changed.length > 1 ? 'differ' : 'differs'}`,
  ];
  const get = (v: JsonValue, k: string): JsonValue => (v instanceof Map ? (v.get(k) ?? null) : null);
  for (const f of d.fields_changed) {
    out.push(`  ${f}:`);
    out.push(`    - ${truncate(preview(get(d.left, f)), 200)}`);
    out.push(`    + ${truncate(preview(get(d.right, f)), 200)}`);
  }
  out.push(`  left  ${l}: step_hash ${String(get(d.left, 'step_hash'))}`);
  out.push(`  right ${r}: step_hash ${String(get(d.right, 'step_hash'))}`);
  return out;
}
