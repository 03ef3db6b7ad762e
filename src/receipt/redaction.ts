import type { StepRow } from '../journal';
import { scanChunk } from '../journal/chunk';

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
