import type { JsonValue } from '../../canonical';
import { unhashedKeys } from '../../journal/row';
import type { StepRow } from '../../journal/row';
import { valueChanges } from '../../replay/changes';
import { blobPreview } from './blobs';
import { cutText, display, fieldBlock, fieldText, orderedRow, preview, shownText } from './display';
import { addMeta, el, fmtInt, fmtSize } from './dom';
import { textOf, type ReportState } from './state';
import type { PageEntry } from './verifier';

/** The detail pane: the selected line's faults, fields, changes from the step before, blobs and raw text. */

const HASHED_FIELDS = ['model', 'prompt', 'tool_call', 'tool_result'] as const;
/** Characters of a field shown before a "show all" button. */
const MAX_SHOWN = 200000;
/** Changes listed from the previous step before "… N more". */
const MAX_CHANGES = 40;

/** A row's fields as written (key order, exact numbers), for display. */
type ShownRow = ReturnType<typeof orderedRow>;

/** A code block, cut at MAX_SHOWN characters with a button that shows the rest. */
function pre(doc: Document, text: string): HTMLElement {
  const s = shownText(text);
  const p = el(doc, 'pre', 'code');
  if (s.length > MAX_SHOWN) {
    p.textContent = cutText(s, MAX_SHOWN);
    const more = el(doc, 'button', 'more', `show all ${fmtInt(s.length)} characters`);
    more.addEventListener('click', () => {
      p.textContent = s;
    });
    const box = el(doc, 'div');
    box.append(p, more);
    return box;
  }
  p.textContent = s;
  return p;
}

/** The previous well-formed row before entry `idx`. */
function previousRow(state: ReportState, idx: number): PageEntry | null {
  for (let j = idx - 1; j >= 0; j--) if (state.entries[j]!.row !== null) return state.entries[j]!;
  return null;
}

/** Shows the selected entry (or why there is none). */
export function renderDetail(state: ReportState): void {
  const { doc, entries } = state;
  const { detail } = state.ui;
  const { view, sel } = state.list;
  detail.textContent = '';
  if (sel < 0 || view.length === 0) {
    const why =
      state.verifier.total === 0
        ? 'The journal has no lines.'
        : entries.length === 0
          ? 'Verifying…'
          : 'No step matches the search.';
    detail.append(el(doc, 'p', 'note', why));
    return;
  }
  const idx = view[sel]!;
  const e = entries[idx]!;
  const r = e.row;
  const text = textOf(state, e);
  detailHeading(state, e);
  if (r === null) {
    detail.append(el(doc, 'h3', undefined, 'Raw line'), pre(doc, text));
    return;
  }
  const shown = orderedRow(text);
  detail.append(stepFields(state, idx, r, shown));
  unverifiedKeys(state, shown);
  for (const k of ['prompt', 'tool_call', 'tool_result'] as const) {
    const v = shown?.get(k) ?? r[k];
    detail.append(el(doc, 'h3', undefined, k), pre(doc, fieldBlock(v)));
  }
  blobRefs(state, r.blob_refs);
  stepFiles(state, r);
  const raw = el(doc, 'details');
  raw.append(el(doc, 'summary', undefined, 'raw line'), pre(doc, text));
  detail.append(raw);
}

/** The heading (step or line, its position in the list) and the line's faults or its ✓. */
function detailHeading(state: ReportState, e: PageEntry): void {
  const { doc } = state;
  const { detail } = state.ui;
  const h = el(doc, 'h2');
  const position = el(doc, 'span', 'dim');
  position.id = 'detail-position';
  position.textContent = `${fmtInt(state.list.sel + 1)} / ${fmtInt(state.list.view.length)} shown`;
  h.append(
    el(doc, 'span', undefined, e.row === null ? `Line ${e.line} ` : `Step ${e.row.seq} `),
    el(doc, 'span', 'dim', `line ${e.line} · `),
    position,
  );
  detail.append(h);
  detail.dataset.line = String(e.line);
  if (e.faults.length > 0) {
    const ul = el(doc, 'ul', 'faults');
    for (const f of e.faults) ul.append(el(doc, 'li', undefined, `line ${e.line}: ${f.kind}: ${f.message}`));
    detail.append(ul);
  } else if (e.row !== null) {
    detail.append(el(doc, 'p', 'okline', '✓ step hash recomputed in this browser and linked to the previous step'));
  }
}

/** Time, model and hashes, and what changed from the previous well-formed row. */
function stepFields(state: ReportState, idx: number, r: StepRow, shown: ShownRow): HTMLElement {
  const field = (k: string): JsonValue | undefined => (shown === null ? undefined : shown.get(k));
  const e = state.entries[idx]!;
  const dl = el(state.doc, 'dl', 'meta');
  const ts = r.ts;
  const tsDate = Number.isFinite(ts) && Math.abs(ts) < 8.64e12 ? new Date(ts * 1000).toISOString() : '';
  addMeta(dl, 'Time', `${tsDate} (ts ${display(field('ts') ?? null)})`);
  addMeta(dl, 'Model', fieldText(field('model') ?? r.model));
  addMeta(dl, 'Input hash', r.input_hash, 'hash');
  addMeta(dl, 'Prev hash', r.prev_hash, 'hash');
  addMeta(dl, 'Step hash', r.step_hash, 'hash');
  if (e.computed !== r.step_hash) addMeta(dl, 'Recomputed', e.computed ?? '', 'hash badtext');
  const prev = previousRow(state, idx);
  if (prev !== null && prev.row !== null) {
    const changes = changesFrom(orderedRow(textOf(state, prev)), prev.row, field, r);
    const listed =
      changes.length > MAX_CHANGES
        ? [...changes.slice(0, MAX_CHANGES), `… ${changes.length - MAX_CHANGES} more`]
        : changes;
    const dd = addMeta(dl, 'Changed', listed.length > 0 ? listed.join('\n') : 'nothing but the hashes and time');
    dd.classList.add('changed');
  }
  return dl;
}

/**
 * What changed from the previous row, value by value (into objects, as the terminal replay shows it:
 * src/replay/changes.ts), with both values.
 */
function changesFrom(
  before: ShownRow,
  prev: StepRow,
  field: (k: string) => JsonValue | undefined,
  r: StepRow,
): string[] {
  const changes: string[] = [];
  const shown = (v: JsonValue | undefined): string => {
    const t = preview(fieldText(v), 120);
    return t === '' ? '""' : t;
  };
  for (const k of HASHED_FIELDS) {
    for (const c of valueChanges(k, before?.get(k) ?? prev[k], field(k) ?? r[k])) {
      if (c.kind === 'added') changes.push(`+ ${c.path}: ${shown(c.after)}`);
      else if (c.kind === 'removed') changes.push(`- ${c.path}: ${shown(c.before)}`);
      else changes.push(`${c.path}: ${shown(c.before)} → ${shown(c.after)}`);
    }
  }
  return changes;
}

/**
 * Keys outside the ten: no hash covers them, so they are set apart, never shown as part of the step
 * (textContent only: a key or value is data, never markup).
 */
function unverifiedKeys(state: ReportState, shown: ShownRow): void {
  const { doc } = state;
  const extra = shown === null ? [] : unhashedKeys(shown.keys());
  if (shown === null || extra.length === 0) return;
  const box = el(doc, 'div', 'unverified');
  box.append(
    el(doc, 'h3', 'warn', 'Unverified: keys outside the hashed row'),
    el(
      doc,
      'p',
      'note',
      'No step hash covers these keys: anyone who could write the journal could have added or changed them without breaking the chain. They are not part of the verified step.',
    ),
  );
  const udl = el(doc, 'dl', 'meta');
  for (const k of extra) {
    const v = shown.get(k)!;
    udl.append(el(doc, 'dt', 'warn', k), el(doc, 'dd', undefined, fieldBlock(v)));
  }
  box.append(udl);
  state.ui.detail.append(box);
  state.ui.detail.dataset.unverified = extra.join(',');
}

/** The step's blob references, with size, embedding and a preview of embedded ones. */
/** The files the step changed (docs/provenance.md), when the generator found a verified record naming this step. */
function stepFiles(state: ReportState, r: StepRow): void {
  const rec = state.data.step_files?.find((s) => s.seq === r.seq && s.step_hash === r.step_hash);
  if (rec === undefined) return;
  const { doc } = state;
  state.ui.detail.append(el(doc, 'h3', undefined, `files changed (${rec.files.length})`));
  const ul = el(doc, 'ul', 'refs');
  ul.setAttribute('data-step-files', String(r.seq));
  for (const f of rec.files) {
    const li = el(doc, 'li');
    li.append(
      el(doc, 'code', undefined, f.path),
      el(doc, 'span', 'dim', f.blob === null ? ' deleted' : ` blob ${f.blob} · mode ${f.mode ?? ''}`),
    );
    ul.append(li);
  }
  state.ui.detail.append(ul);
}

function blobRefs(state: ReportState, refs: readonly string[]): void {
  const { doc } = state;
  const { detail } = state.ui;
  detail.append(el(doc, 'h3', undefined, `blob_refs (${refs.length})`));
  if (refs.length === 0) return;
  const ul = el(doc, 'ul', 'refs');
  for (const d of refs) {
    const li = el(doc, 'li');
    const b = state.blobByDigest.get(d);
    li.append(
      el(doc, 'code', 'hash', d),
      el(
        doc,
        'span',
        'dim',
        b === undefined
          ? ' (not bundled)'
          : b.size === null
            ? ' (not found)'
            : ` ${fmtSize(b.size)}${b.b64 === undefined ? ` · not embedded: ${b.skipped ?? ''}` : ''}`,
      ),
    );
    if (b?.b64 !== undefined) li.append(blobPreview(doc, b));
    ul.append(li);
  }
  detail.append(ul);
}
