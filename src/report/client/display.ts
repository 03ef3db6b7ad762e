import { hiddenPattern, isHidden, unicodeEscape } from '../../util/hidden-chars';
import {
  bareText,
  canonicalOfRead,
  JsonFloat,
  parse,
  pythonFloatRepr,
  SHORT_ESCAPES,
  type JsonValue,
} from '../../canonical';

/**
 * How the page shows values: readable JSON in the order the journal wrote the
 * keys (a line is re-read with `objects: 'map'` for that), indented, non-ASCII
 * kept, exact numbers (`1.0` stays `1.0`, big integers whole). For display only:
 * hashes are computed by src/journal over the canonical form.
 */

const SHOWN_CONTROLS = hiddenPattern(String.raw`\u0000-\u0008\u000b-\u001f\u007f`);

/**
 * Journal text as the page shows it (a prompt, a raw line, a path): line breaks and tabs kept, every other control
 * and every character of the shared list (src/util/hidden-chars.ts) made visible, so a value can neither hide text nor reorder what is shown around it.
 */
export function shownText(s: string): string {
  return s.replace(SHOWN_CONTROLS, unicodeEscape);
}

/** A JSON string literal that keeps printable non-ASCII and escapes what a screen would hide. */
export function displayString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const hi = c >= 0xd800 && c <= 0xdbff;
    const lo = c >= 0xdc00 && c <= 0xdfff;
    if (hi && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff) {
      const pair = s.slice(i, i + 2);
      // A hidden pair (a tag character) as its two escapes, as JSON writes a pair.
      out += isHidden(pair) ? `\\u${c.toString(16)}\\u${s.charCodeAt(i + 1).toString(16)}` : pair;
      i++;
    } else if (SHORT_ESCAPES[c] !== undefined) out += SHORT_ESCAPES[c];
    else if (c < 0x20 || c === 0x7f || hi || lo || isHidden(s[i]!)) out += `\\u${c.toString(16).padStart(4, '0')}`;
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

/** A field as text: a string as itself (quoted when bare it reads as another value: bareText), anything else as one-line JSON. */
export function fieldText(v: JsonValue | undefined): string {
  return v === undefined ? '' : typeof v === 'string' ? bareText(v) : display(v, 0);
}

/** A field as the detail pane shows it: a string as itself (bareText), anything else as indented JSON. */
export function fieldBlock(v: JsonValue): string {
  return typeof v === 'string' ? bareText(v) : display(v);
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

/**
 * The first `max` UTF-16 units of `s`, one fewer when the cut would split a surrogate pair: half an emoji or a tag
 * character showed as U+FFFD at the end of a cut preview.
 */
export function cutText(s: string, max: number): string {
  if (s.length <= max) return s;
  const last = s.charCodeAt(max - 1);
  return s.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/** At most `max` characters of one-line text, with an ellipsis when cut. */
export function preview(s: string, max: number): string {
  return s.length <= max ? s : `${cutText(s, max - 1)}…`;
}
