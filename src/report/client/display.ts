import { canonicalOfRead, JsonFloat, parse, pythonFloatRepr, SHORT_ESCAPES, type JsonValue } from '../../canonical';

/**
 * How the page shows values: readable JSON in the order the journal wrote the
 * keys (a line is re-read with `objects: 'map'` for that), indented, non-ASCII
 * kept, exact numbers (`1.0` stays `1.0`, big integers whole). For display only:
 * hashes are computed by src/journal over the canonical form.
 */

/**
 * What a screen hides or reorders, beyond C0 controls: C1 controls, bidirectional marks, embeddings, overrides and
 * isolates (which reorder what is shown: "Trojan Source"), the zero-width space, word joiner and invisible
 * operators, the BOM and the tag characters U+E0000..U+E007F (invisible text a model reads and a reader does not).
 * The zero-width joiner and non-joiner stay: emoji sequences and several scripts need them. Shown as `\uXXXX` (`\u{XXXXX}` above U+FFFF), as the
 * terminal (src/util/terminal.ts) and the Markdown (src/util/words.ts) show them.
 */
const HIDDEN =
  /[\u0080-\u009f\u061c\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|\udb40[\udc00-\udc7f]/g;

function hiddenBmp(c: number): boolean {
  return (
    (c >= 0x80 && c <= 0x9f) ||
    c === 0x061c ||
    c === 0x200b ||
    c === 0x200e ||
    c === 0x200f ||
    c === 0x2028 ||
    c === 0x2029 ||
    (c >= 0x202a && c <= 0x202e) ||
    (c >= 0x2060 && c <= 0x2064) ||
    (c >= 0x2066 && c <= 0x2069) ||
    c === 0xfeff
  );
}

function hiddenEscape(c: string): string {
  const cp = c.codePointAt(0)!;
  return cp > 0xffff ? `\\u{${cp.toString(16)}}` : `\\u${cp.toString(16).padStart(4, '0')}`;
}

/**
 * Journal text as the page shows it (a prompt, a raw line, a path): line breaks and tabs kept, every other control
 * and every character in HIDDEN made visible, so a value can neither hide text nor reorder what is shown around it.
 */
export function shownText(s: string): string {
  return s.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, hiddenEscape).replace(HIDDEN, hiddenEscape);
}

/** A JSON string literal that keeps printable non-ASCII and escapes what a screen would hide. */
export function displayString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const hi = c >= 0xd800 && c <= 0xdbff;
    const lo = c >= 0xdc00 && c <= 0xdfff;
    if (hi && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff) {
      const d = s.charCodeAt(i + 1);
      // A tag character (U+E0000..U+E007F) is invisible: its two escapes, as JSON writes a pair.
      out += c === 0xdb40 && d <= 0xdc7f ? `\\udb40\\u${d.toString(16)}` : s.slice(i, i + 2);
      i++;
    } else if (SHORT_ESCAPES[c] !== undefined) out += SHORT_ESCAPES[c];
    else if (c < 0x20 || c === 0x7f || hi || lo || hiddenBmp(c)) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += s[i];
  }
  return `${out}"`;
}

/** Indented JSON (indent 0: one line with `, ` and `: `). A value nested too deep to lay out shows as such. */
export function display(v: JsonValue | undefined, indent = 2): string {
  const walk = (x: JsonValue | undefined, pad: string): string => {
    if (x === undefined) return '(absent)';
    if (typeof x === 'string') return displayString(x);
    if (x instanceof JsonFloat) return pythonFloatRepr(x.value);
    if (x === null || typeof x !== 'object') return canonicalOfRead(x);
    const inner = indent > 0 ? pad + ' '.repeat(indent) : '';
    const sep = indent > 0 ? ',\n' : ', ';
    // Plain loops: one stack frame per level, so display reaches the depth the parser accepts.
    let out = '';
    if (Array.isArray(x)) {
      if (x.length === 0) return '[]';
      for (let i = 0; i < x.length; i++) out += (i > 0 ? sep : '') + inner + walk(x[i], inner);
      return indent > 0 ? `[\n${out}\n${pad}]` : `[${out}]`;
    }
    const pairs = x instanceof Map ? [...x] : Object.entries(x);
    if (pairs.length === 0) return '{}';
    for (let i = 0; i < pairs.length; i++)
      out += `${i > 0 ? sep : ''}${inner}${displayString(pairs[i]![0])}: ${walk(pairs[i]![1], inner)}`;
    return indent > 0 ? `{\n${out}\n${pad}}` : `{${out}}`;
  };
  try {
    return walk(v, '');
  } catch (e) {
    if (e instanceof RangeError) return '(nested too deeply to lay out here: see the raw line)';
    throw e;
  }
}

/** A field as text: a string as itself, anything else as one-line JSON. */
export function fieldText(v: JsonValue | undefined): string {
  return v === undefined ? '' : typeof v === 'string' ? v : display(v, 0);
}

/** The line re-read with its keys in written order (null when it does not parse). */
export function orderedRow(text: string): Map<string, JsonValue> | null {
  try {
    const v = parse(text, { objects: 'map' });
    return v instanceof Map ? v : null;
  } catch {
    return null;
  }
}

/** At most `max` characters of one-line text, with an ellipsis when cut. */
export function preview(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}
