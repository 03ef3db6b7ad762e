/**
 * The one list of characters that text from strangers (journals, receipts, reports, payloads, paths) must never put
 * before a reader as themselves, whatever the sink: the terminal (./terminal.ts), Markdown and Mermaid (./words.ts)
 * and the HTML report (src/report/client/display.ts) each show them as an escape. Beyond C0 controls and DEL, which
 * each sink treats its own way (the terminal keeps a newline it laid out itself, the page keeps line breaks and tabs,
 * Markdown keeps none), they are:
 *
 * - C1 controls U+0080..U+009F (U+009B is a one-character CSI for some terminals);
 * - bidirectional overrides, embeddings, isolates and marks (U+202A..U+202E, U+2066..U+2069, U+200E, U+200F,
 *   U+061C), which reorder what is shown around them ("Trojan Source");
 * - U+2028 and U+2029 (line and paragraph separators);
 * - what is shown as nothing: the zero-width space, the word joiner and invisible operators (U+200B,
 *   U+2060..U+2064), the BOM (U+FEFF) and the tag characters U+E0000..U+E007F, invisible text a model reads and a
 *   reader does not ("ASCII smuggling").
 *
 * The zero-width joiner and non-joiner are not in the list: emoji sequences and several scripts need them (Markdown,
 * where ids stand side by side in tables, escapes them too, see ./words.ts).
 */
const HIDDEN = String.raw`[\u0080-\u009f\u061c\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|\udb40[\udc00-\udc7f]`;

/** A global pattern for the hidden characters and those of `alsoClass` (a character class body: a sink's controls). */
export function hiddenPattern(alsoClass: string): RegExp {
  return new RegExp(`[${alsoClass}]|${HIDDEN}`, 'g');
}

const ONE_HIDDEN = new RegExp(`^(?:${HIDDEN})$`);

/** Whether the single character (one code unit, or a surrogate pair) `c` is in the list. */
export function isHidden(c: string): boolean {
  return ONE_HIDDEN.test(c);
}

/** `\uXXXX`, or `\u{XXXXX}` above U+FFFF: how a hidden character is shown. */
export function unicodeEscape(c: string): string {
  const cp = c.codePointAt(0)!;
  return cp > 0xffff ? `\\u{${cp.toString(16)}}` : `\\u${cp.toString(16).padStart(4, '0')}`;
}
