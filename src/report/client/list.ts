import type { JsonValue } from '../../canonical';
import { renderDetail } from './detail';
import { cutText, fieldText } from './display';
import { el, fmtInt } from './dom';
import { textOf, type ReportState } from './state';
import type { PageEntry } from './verifier';

/** The step list: virtual (only the visible rows exist in the DOM), filtered by the search and "only faults". */

/** A list row's height in pixels (the page's CSS says the same). */
export const ROW_H = 26;

/** An entry's lower-cased search text (built once per entry). */
function haystack(state: ReportState, i: number): string {
  const { hay } = state.list;
  let h = hay[i];
  if (h === undefined) {
    const e = state.entries[i]!;
    const r = e.row;
    h = (
      r === null
        ? `line ${e.line} ${textOf(state, e)}`
        : `#${r.seq} ${fieldText(r.model)} ${fieldText(r.prompt)} ${fieldText(r.tool_call)} ${fieldText(r.tool_result)} ${r.step_hash}`
    ).toLowerCase();
    hay[i] = h;
  }
  return h;
}

function matches(state: ReportState, i: number): boolean {
  const e = state.entries[i]!;
  if (state.ui.onlyFaults.checked && e.faults.length === 0) return false;
  return state.list.filterText === '' || haystack(state, i).includes(state.list.filterText);
}

/** Refilters every entry (the filter changed), keeping the selected entry selected when it still shows. */
export function rebuildView(state: ReportState): void {
  const l = state.list;
  const current = l.sel >= 0 ? l.view[l.sel] : undefined;
  l.view = [];
  for (let i = 0; i < state.entries.length; i++) if (matches(state, i)) l.view.push(i);
  l.sel = current === undefined ? (l.view.length > 0 ? 0 : -1) : l.view.indexOf(current);
  if (l.sel < 0 && l.view.length > 0) l.sel = 0;
  renderList(state, true);
  renderDetail(state);
}

/** Adds the entries verified since `from` to the view. */
export function extendView(state: ReportState, from: number): void {
  const l = state.list;
  for (let i = from; i < state.entries.length; i++) if (matches(state, i)) l.view.push(i);
  if (l.sel < 0 && l.view.length > 0) {
    l.sel = 0;
    renderDetail(state);
  }
}

function labelOf(state: ReportState, e: PageEntry): { n: string; text: string } {
  const r = e.row;
  if (r === null) return { n: `L${e.line}`, text: `malformed line: ${cutText(textOf(state, e), 80)}` };
  const call = r.tool_call;
  const name =
    call !== null && typeof call === 'object' && !Array.isArray(call) && !(call instanceof Map)
      ? (call as Record<string, JsonValue>).name
      : undefined;
  const tool = typeof name === 'string' ? `${name} · ` : '';
  const p = r.prompt === null ? '' : fieldText(r.prompt);
  return { n: `#${r.seq}`, text: `${tool}${cutText(p, 120)}` };
}

/** A new list row for view position `v`. */
function listRow(state: ReportState, v: number, idx: number): HTMLElement {
  const { doc } = state;
  const e = state.entries[idx]!;
  const row = el(doc, 'div', 'item');
  row.dataset.entry = String(idx);
  row.dataset.view = String(v);
  row.style.top = `${v * ROW_H}px`;
  const { n, text } = labelOf(state, e);
  row.append(
    el(doc, 'span', 'n', n),
    el(doc, 'span', 'mark', e.faults.length > 0 ? '✗' : '✓'),
    el(doc, 'span', 'label', text),
  );
  if (e.faults.length > 0) row.classList.add('faulty');
  return row;
}

/** Renders the rows in and near the visible part of the list (`force`: rebuild them all). */
export function renderList(state: ReportState, force = false): void {
  const { ui, verifier } = state;
  const l = state.list;
  ui.spacer.style.height = `${l.view.length * ROW_H}px`;
  const top = ui.list.scrollTop;
  const first = Math.max(0, Math.floor(top / ROW_H) - 10);
  const last = Math.min(l.view.length, Math.ceil((top + ui.list.clientHeight) / ROW_H) + 10);
  const next = new Map<number, HTMLElement>();
  for (let v = first; v < last; v++) {
    const idx = l.view[v]!;
    let row = force ? undefined : l.rendered.get(v);
    if (row !== undefined && row.dataset.entry !== String(idx)) row = undefined;
    if (row === undefined) {
      row = listRow(state, v, idx);
      l.rendered.delete(v);
    }
    row.classList.toggle('selected', v === l.sel);
    row.setAttribute('aria-selected', v === l.sel ? 'true' : 'false');
    next.set(v, row);
  }
  for (const [, old] of l.rendered) old.remove();
  for (const [, r] of next) if (r.parentNode !== ui.spacer) ui.spacer.append(r);
  l.rendered = next;
  ui.count.textContent = `${fmtInt(l.view.length)} of ${fmtInt(verifier.total)} lines${state.entries.length < verifier.total ? ' (verifying…)' : ''}`;
  const pos = state.doc.getElementById('detail-position');
  if (pos)
    pos.textContent = l.sel >= 0 && l.view.length > 0 ? `${fmtInt(l.sel + 1)} / ${fmtInt(l.view.length)} shown` : '';
}

function scrollIntoView(state: ReportState): void {
  const { list } = state.ui;
  const { sel } = state.list;
  if (sel < 0) return;
  const y = sel * ROW_H;
  if (y < list.scrollTop) list.scrollTop = y;
  else if (y + ROW_H > list.scrollTop + list.clientHeight) list.scrollTop = y + ROW_H - list.clientHeight;
}

/** Selects view position `v` (clamped) and shows it. */
export function select(state: ReportState, v: number): void {
  const l = state.list;
  if (l.view.length === 0) return;
  l.sel = Math.max(0, Math.min(l.view.length - 1, v));
  scrollIntoView(state);
  renderList(state);
  renderDetail(state);
}

/** Selects the entry of journal line `line`, clearing the filter first if one is set. */
export function jumpToLine(state: ReportState, line: number): void {
  const { ui } = state;
  if (state.list.filterText !== '' || ui.onlyFaults.checked) {
    ui.search.value = '';
    state.list.filterText = '';
    ui.onlyFaults.checked = false;
    rebuildView(state);
  }
  const idx = state.entries.findIndex((e) => e.line === line);
  const v = idx < 0 ? -1 : state.list.view.indexOf(idx);
  if (v >= 0) select(state, v);
}

/** Scrolling renders the rows that came into view; a click selects a row. */
export function bindList(state: ReportState): void {
  const { list } = state.ui;
  list.addEventListener('scroll', () => renderList(state));
  list.addEventListener('click', (ev) => {
    const item = (ev.target as HTMLElement).closest('.item') as HTMLElement | null;
    if (item?.dataset.view !== undefined) {
      state.list.userMoved = true;
      select(state, Number(item.dataset.view));
    }
  });
}
