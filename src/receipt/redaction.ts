import type { StepRow } from '../journal';
import { nextQuoted, scanChunk } from '../journal/chunk';

/** The fields a redaction policy may replace (docs/format.md §3). */
export const REDACTABLE_FIELDS = ['prompt', 'model', 'tool_call', 'tool_result'] as const;
export type RedactField = (typeof REDACTABLE_FIELDS)[number];
export const DEFAULT_REDACT: readonly RedactField[] = ['prompt', 'tool_result'];
export const REDACTED = '<<redacted>>';

/**
 * The redactable fields some row holds as `<<redacted>>` at its top level, in a
 * chain whose steps list no blobs (publish empties every `blob_refs`): the mark
 * of a published receipt (docs/receipts.md, "What is and is not signed").
 */
export function redactedFields(rows: Iterable<StepRow>): RedactField[] {
  const found = new Set<RedactField>();
  for (const r of rows) {
    if (r.blob_refs.length > 0) return [];
    for (const f of REDACTABLE_FIELDS) if (r[f] === REDACTED) found.add(f);
  }
  return REDACTABLE_FIELDS.filter((f) => found.has(f));
}

/** The marker as JSON without its opening quote (nextQuoted). */
const MARK_TAIL = Buffer.from(JSON.stringify(REDACTED).slice(1));

/**
 * Whether `bytes` hold the marker as a JSON string (`"<<redacted>>"`), the bytes a row that holds it canonically
 * has (the search a journal walk makes for its marked lines, `markedValue`).
 */
export function holdsRedactionMark(bytes: Buffer): boolean {
  return nextQuoted(bytes, MARK_TAIL) >= 0;
}

/**
 * `redactedFields` of a journal's bytes; `anyBlobRefs` true when the caller knows some step lists a blob (then none:
 * the search is skipped). Without it the rows decide, as they do in a receipt's walk (JournalWalker): the lines
 * holding the mark are read for it (MarkedRows), and every row's blob refs are collected, so a chain some step of
 * which lists a blob is never taken for a published one (publish empties every blob_refs).
 */
export function redactedFieldsOf(journal: Buffer, anyBlobRefs = false): RedactField[] {
  if (anyBlobRefs || !holdsRedactionMark(journal)) return [];
  const s = scanChunk(journal, 0, journal.length, 0, { strict: false, collectRefs: true, markedValue: REDACTED });
  const marked = s.marked ?? { fields: [], blobRefs: false };
  if (marked.blobRefs || (s.refs?.length ?? 0) > 0) return [];
  return REDACTABLE_FIELDS.filter((f) => marked.fields.includes(f));
}
