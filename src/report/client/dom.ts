/** DOM and number-formatting helpers the report page's parts share. */
import { formatSize, pluralWord } from '../../util/words';
import { shownText } from './display';

/** The page element `#id` (the page template holds every one: a missing one is a broken page). */
export function byId(doc: Document, id: string): HTMLElement {
  const e = doc.getElementById(id);
  if (e === null) throw new Error(`page element #${id} is missing`);
  return e;
}

/**
 * A new element with an optional class and text (always `textContent`: journal text is untrusted; and through
 * `shownText`, so a control, bidi or invisible character in it is shown as its escape, never obeyed).
 */
export function el<K extends keyof HTMLElementTagNameMap>(
  doc: Document,
  tag: K,
  cls?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const e = doc.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = shownText(text);
  return e;
}

/** Appends a `<dt>k</dt><dd>v</dd>` pair to a definition list; returns the `<dd>`. */
export function addMeta(dl: HTMLElement, k: string, v: string, cls?: string): HTMLElement {
  const doc = dl.ownerDocument;
  const dd = el(doc, 'dd', cls, v);
  dl.append(el(doc, 'dt', undefined, k), dd);
  return dd;
}

export const fmtInt = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

export const fmtSize = formatSize;

export const plural = (n: number, one: string, many?: string): string => `${fmtInt(n)} ${pluralWord(n, one, many)}`;
