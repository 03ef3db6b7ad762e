import { decodeUtf8 as strictUtf8 } from '../../canonical';
import type { ReportBlob } from './data';
import { byId, el, fmtInt, fmtSize, plural } from './dom';
import { sha256Hex } from './hash';
import { base64Bytes } from './signature';
import type { ReportState } from './state';

/** The blobs section (a summary by status, then the rows a page at a time), blob previews, and the digest check. */

/** Blob rows shown at a time (a run can reference tens of thousands). */
const BLOB_PAGE = 100;

/** A blob's preview, filled in when first opened: text, or the first bytes as hex. */
export function blobPreview(doc: Document, b: ReportBlob): HTMLElement {
  const det = el(doc, 'details', 'preview');
  det.append(el(doc, 'summary', undefined, 'preview'));
  let filled = false;
  det.addEventListener('toggle', () => {
    if (filled || !det.open) return;
    filled = true;
    det.append(el(doc, 'pre', 'code', previewText(base64Bytes(b.b64 ?? ''))));
  });
  return det;
}

function previewText(bytes: Uint8Array): string {
  const head = bytes.subarray(0, 4096);
  let binary: boolean;
  let textPreview = '';
  try {
    textPreview = strictUtf8(head);
    binary = /[\u0000-\u0008\u000e-\u001f]/.test(textPreview);
  } catch {
    // A multi-byte character cut at 4 KiB is still text; anything else is binary.
    try {
      textPreview = strictUtf8(head.subarray(0, Math.max(0, head.length - 3)));
      binary = bytes.length <= 4096;
    } catch {
      binary = true;
    }
  }
  if (binary) {
    let hex = '';
    for (let i = 0; i < Math.min(512, bytes.length); i++)
      hex += bytes[i]!.toString(16).padStart(2, '0') + (i % 16 === 15 ? '\n' : ' ');
    textPreview = `binary, first ${Math.min(512, bytes.length)} bytes:\n${hex}`;
  } else if (bytes.length > 4096) textPreview += `\n… (${fmtSize(bytes.length)} in all)`;
  return textPreview;
}

function blobStatusText(state: ReportState, b: ReportBlob): string {
  if (b.b64 === undefined) return `not embedded: ${b.skipped ?? 'unknown'}`;
  const c = state.blobs.checked.get(b.digest);
  return c === undefined
    ? 'embedded (digest not checked yet)'
    : c === true
      ? 'embedded, digest verified ✓'
      : `digest MISMATCH: bytes hash to ${c}`;
}

/** The blobs section (shown only when the run references blobs). */
export function renderBlobSection(state: ReportState): void {
  const { doc, data } = state;
  if (data.blobs.length === 0) return;
  const sec = byId(doc, 'blobs');
  sec.hidden = false;
  const summary = el(doc, 'p', 'note');
  summary.id = 'blob-summary';
  state.blobs.summary = summary;
  const table = el(doc, 'table', 'blobs');
  const more = el(doc, 'button', 'more');
  more.id = 'blob-more';
  let shownRows = 0;
  const addRows = (n: number): void => {
    const stop = Math.min(data.blobs.length, shownRows + n);
    for (; shownRows < stop; shownRows++) table.append(blobRow(state, data.blobs[shownRows]!));
    const left = data.blobs.length - shownRows;
    more.hidden = left === 0;
    more.textContent = `show ${fmtInt(Math.min(BLOB_PAGE, left))} more (${fmtInt(left)} not shown)`;
  };
  more.addEventListener('click', () => addRows(BLOB_PAGE));
  const thead = el(doc, 'tr');
  for (const t of ['digest', 'size', 'status', '']) thead.append(el(doc, 'th', undefined, t));
  table.append(thead);
  sec.append(summary, table, more);
  addRows(BLOB_PAGE);
  renderBlobs(state);
}

function blobRow(state: ReportState, b: ReportBlob): HTMLElement {
  const { doc } = state;
  const tr = el(doc, 'tr');
  const st = el(doc, 'td', undefined, blobStatusText(state, b));
  state.blobs.statusCells.set(b.digest, st);
  const pv = el(doc, 'td');
  if (b.b64 !== undefined) pv.append(blobPreview(doc, b));
  tr.append(el(doc, 'td', 'hash', b.digest), el(doc, 'td', undefined, b.size === null ? '-' : fmtSize(b.size)), st, pv);
  return tr;
}

/** Updates the blob summary and the shown rows' status (nothing without a blobs section). */
export function renderBlobs(state: ReportState): void {
  const { data } = state;
  const { checked, summary, statusCells } = state.blobs;
  if (summary === null) return;
  const counts = new Map<string, number>();
  for (const b of data.blobs) {
    const s =
      b.b64 === undefined
        ? `not embedded: ${b.skipped ?? 'unknown'}`
        : checked.get(b.digest) === undefined
          ? 'embedded, not checked yet'
          : checked.get(b.digest) === true
            ? 'embedded, digest verified'
            : 'embedded, digest MISMATCH';
    counts.set(s, (counts.get(s) ?? 0) + 1);
  }
  const embedded = data.blobs.filter((b) => b.b64 !== undefined).length;
  summary.textContent =
    `${plural(data.blobs.length, 'referenced blob')}: ${fmtInt(embedded)} embedded (cap ${fmtSize(data.blob_caps.per_blob)} each, ${fmtSize(data.blob_caps.total)} in all). ` +
    [...counts].map(([s, n]) => `${fmtInt(n)} ${s}`).join('; ') +
    '.';
  for (const [d, cell] of statusCells) {
    const b = state.blobByDigest.get(d)!;
    cell.textContent = blobStatusText(state, b);
    cell.className = checked.get(d) !== undefined && checked.get(d) !== true ? 'badtext' : '';
  }
}

/** Checks one embedded blob's bytes against its digest. */
export function checkBlob(state: ReportState, b: ReportBlob): void {
  const got = sha256Hex(base64Bytes(b.b64 ?? ''));
  if (got === b.digest) state.blobs.checked.set(b.digest, true);
  else {
    state.blobs.checked.set(b.digest, got);
    state.blobs.faults.push({ line: null, kind: 'blob_digest_mismatch', message: `blob ${b.digest} hashes to ${got}` });
  }
}
