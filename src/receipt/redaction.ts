import type { StepRow } from '../journal';
import { markedRows } from '../journal/chunk';

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

/** The marker as JSON without its opening quote: searched for from its first byte, `<`, rare in JSON text. */
const MARK_TAIL = Buffer.from(JSON.stringify(REDACTED).slice(1));

/**
 * Whether `bytes` hold the marker as a JSON string (`"<<redacted>>"`), the bytes a row that holds it canonically
 * has. Searched for without its opening quote, then checked: a search that starts from `"` stops at every string
 * of the journal (8x slower on a receipt's rows); and from the first `<` only (one memchr over bytes that hold
 * none, half the search's time).
 */
export function holdsRedactionMark(bytes: Buffer): boolean {
  const lt = bytes.indexOf(0x3c, 1);
  if (lt < 0) return false;
  for (let at = bytes.indexOf(MARK_TAIL, lt); at >= 1; at = bytes.indexOf(MARK_TAIL, at + 1))
    if (bytes[at - 1] === 0x22) return true;
  return false;
}

/**
 * `redactedFields` of a journal's bytes, given whether any step lists a blob
 * (then none: the search is skipped); rows are parsed only when the marker
 * appears at all.
 */
export function redactedFieldsOf(journal: Buffer, anyBlobRefs: boolean): RedactField[] {
  if (anyBlobRefs || !holdsRedactionMark(journal)) return [];
  // The lines holding the mark are read (a receipt's walk reads the same lines: MarkedRows).
  const marked = markedRows(journal, REDACTED);
  return marked.blobRefs ? [] : REDACTABLE_FIELDS.filter((f) => marked.fields.includes(f));
}
