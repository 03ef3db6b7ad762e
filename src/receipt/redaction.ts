import { readJournalBytes, type StepRow } from '../journal';

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

const REDACTED_JSON = Buffer.from(JSON.stringify(REDACTED));

/**
 * `redactedFields` of a journal's bytes, given whether any step lists a blob
 * (then none: the search is skipped); rows are parsed only when the marker
 * appears at all.
 */
export function redactedFieldsOf(journal: Buffer, anyBlobRefs: boolean): RedactField[] {
  if (anyBlobRefs || !journal.includes(REDACTED_JSON)) return [];
  return redactedFields(readJournalBytes(journal).entries.map((e) => e.row));
}
