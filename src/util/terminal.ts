/**
 * The one sanitiser for text bound for a terminal. Journals, receipts, run
 * journals, audit logs, git and the file system are all data from strangers:
 * a byte of theirs must never drive the operator's terminal. Every character
 * that a terminal acts on instead of showing is replaced by a visible escape:
 *
 * - C0 controls and DEL (ESC starts CSI cursor moves and erases, OSC 52 writes
 *   the clipboard, OSC 0/2 the window title; CR and BS overwrite a line);
 * - C1 controls U+0080..U+009F (U+009B is a one-character CSI for some terminals);
 * - bidirectional overrides, embeddings, isolates and marks (U+202A..U+202E,
 *   U+2066..U+2069, U+200E, U+200F, U+061C), which reorder what is shown;
 * - U+2028 and U+2029 (line and paragraph separators);
 * - text a terminal shows as nothing: the zero-width space, the word joiner and invisible operators
 *   (U+200B, U+2060..U+2064), the BOM (U+FEFF) and the tag characters U+E0000..U+E007F, invisible text a model
 *   reads and the operator does not ("ASCII smuggling"). The zero-width joiner and non-joiner stay (emoji
 *   sequences and several scripts need them).
 *
 * `\x1b` for a byte, `\u202e` above U+00FF, `\u{e0041}` above U+FFFF. A tab becomes two spaces (its width
 * is the terminal's choice). Applied at every sink: CommandIO's out/err, the
 * interactive screen painter, and the formatting of each data field.
 */

const UNSAFE =
  /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|\udb40[\udc00-\udc7f]/g;
const UNSAFE_BUT_NEWLINE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|\udb40[\udc00-\udc7f]/g;

function visible(c: string): string {
  if (c === '\n') return '\\n';
  const code = c.codePointAt(0)!;
  if (code > 0xffff) return `\\u{${code.toString(16)}}`;
  return code > 0xff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\x${code.toString(16).padStart(2, '0')}`;
}

export interface SanitizeOptions {
  /**
   * `escape` (default): a newline is shown as `\n`, so a value stays on its
   * line. `keep`: newlines pass (for text the program itself laid out in lines).
   */
  newlines?: 'escape' | 'keep';
}

/** `s` with every character a terminal would act on made visible (see the module comment). */
export function sanitize(s: string, options: SanitizeOptions = {}): string {
  const re = options.newlines === 'keep' ? UNSAFE_BUT_NEWLINE : UNSAFE;
  return s.replace(re, visible).replace(/\t/g, '  ');
}
