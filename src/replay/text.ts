import { eastAsianWidth } from 'get-east-asian-width';
import { bareText, encode, isJsonObject, JsonFloat, type JsonValue } from '../canonical';
import { sanitize } from '../util/terminal';

export { sanitize };

/**
 * Text helpers for terminal output. A journal is untrusted input: every value
 * goes through the one terminal sanitiser (`src/util/terminal.ts`) so a row can
 * never drive the operator's terminal, and widths are counted in columns, not
 * UTF-16 units.
 */

// Zero-width: combining marks, format characters (ZWJ, ZWSP, BOM...), variation selectors
// and Hangul medial/final jamo, as terminals (wcwidth) count them. From Unicode properties
// the JavaScript engine keeps current, not a hand-made table.
const ZERO_WIDTH = /^(?:\p{Mn}|\p{Me}|\p{Cf})$/u;

/**
 * Columns a code point takes in a terminal (0, 1 or 2): wide and fullwidth
 * characters (CJK, and emoji with emoji presentation such as 🚀 ✅) from the
 * Unicode East Asian Width data (get-east-asian-width); ambiguous ones narrow,
 * as Unicode advises when the context is unknown.
 */
export function charWidth(cp: number): number {
  if (cp < 0x7f) return 1; // the common case, without a lookup
  if ((cp >= 0x1160 && cp <= 0x11ff) || ZERO_WIDTH.test(String.fromCodePoint(cp))) return 0;
  return eastAsianWidth(cp);
}

const BELOW_DEL = /^[\x00-\x7e]*$/;

/** Columns a (sanitized) string takes. */
export function displayWidth(s: string): number {
  if (BELOW_DEL.test(s)) return s.length; // one column each (charWidth), without a walk by code point
  let w = 0;
  for (const ch of s) w += charWidth(ch.codePointAt(0)!);
  return w;
}

/** The longest prefix of `s` that fits in `width` columns. */
export function sliceColumns(s: string, width: number): string {
  let w = 0;
  let out = '';
  for (const ch of s) {
    const cw = charWidth(ch.codePointAt(0)!);
    if (w + cw > width) break;
    w += cw;
    out += ch;
  }
  return out;
}

/** Cuts `s` to `width` columns, ending with `…` when something was cut. */
export function truncate(s: string, width: number): string {
  if (width <= 0) return '';
  if (displayWidth(s) <= width) return s;
  return `${sliceColumns(s, width - 1)}…`;
}

/** Pads (or cuts) `s` to exactly `width` columns. */
export function fit(s: string, width: number): string {
  const t = truncate(s, width);
  return t + ' '.repeat(Math.max(0, width - displayWidth(t)));
}

/**
 * Splits one line into pieces of at most `width` columns, between words: a
 * piece ends after the last space that fits, and only a word longer than a
 * whole line (a hash, a URL) is cut inside. One pass: fields can be megabytes.
 */
export function wrap(s: string, width: number): string[] {
  if (width <= 0) return [s];
  const out: string[] = [];
  let start = 0; // where the current piece starts
  let w = 0; // its width so far
  let word = false; // whether it has a non-space yet (leading indentation is no place to break)
  let breakAt = -1; // just after the last space that follows a word in it
  let widthAtBreak = 0;
  let i = 0;
  while (i < s.length) {
    const cp = s.codePointAt(i)!;
    const len = cp > 0xffff ? 2 : 1;
    const cw = charWidth(cp);
    if (w + cw > width && i > start) {
      if (cp === 0x20 && word) {
        // The space that overflows ends the piece; the next starts after it.
        out.push(s.slice(start, i));
        start = i + 1;
        w = 0;
        word = false;
        breakAt = -1;
        i += 1;
        continue;
      }
      if (breakAt > start) {
        out.push(s.slice(start, breakAt - 1));
        start = breakAt;
        w -= widthAtBreak;
        word = i > breakAt;
      } else {
        out.push(s.slice(start, i));
        start = i;
        w = 0;
        word = false;
      }
      breakAt = -1;
    }
    w += cw;
    i += len;
    if (cp === 0x20) {
      if (word) {
        breakAt = i;
        widthAtBreak = w;
      }
    } else {
      word = true;
    }
  }
  out.push(s.slice(start));
  return out;
}

/** A JSON scalar or compact document for display: exact numbers, unicode kept readable. */
export function compactJson(v: JsonValue): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === null || typeof v !== 'object' || v instanceof JsonFloat) {
    return encode(v, { allowNonFinite: true, sortKeys: false });
  }
  if (Array.isArray(v)) return `[${v.map(compactJson).join(',')}]`;
  const entries = v instanceof Map ? [...v] : Object.entries(v);
  return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${compactJson(x)}`).join(',')}}`;
}

/**
 * An indented JSON rendering for display (2 spaces), one array entry or key per
 * line; a string with newlines is shown as its lines under a `|`.
 */
export function prettyJson(v: JsonValue, indent = ''): string[] {
  const inner = `${indent}  `;
  const isObj = isJsonObject(v) || v instanceof Map;
  if (Array.isArray(v)) {
    if (v.length === 0) return [`${indent}[]`];
    const lines = [`${indent}[`];
    v.forEach((x, i) => {
      const sub = prettyJson(x, inner);
      if (i < v.length - 1) sub[sub.length - 1] += ',';
      for (const l of sub) lines.push(l); // no spread: a value can have 100k+ lines
    });
    lines.push(`${indent}]`);
    return lines;
  }
  if (isObj) {
    const entries = v instanceof Map ? [...v] : Object.entries(v as Record<string, JsonValue>);
    if (entries.length === 0) return [`${indent}{}`];
    const lines = [`${indent}{`];
    entries.forEach(([k, x], i) => {
      const sub = prettyJson(x, inner);
      sub[0] = `${inner}${JSON.stringify(k)}: ${sub[0]!.trimStart()}`;
      if (i < entries.length - 1) sub[sub.length - 1] += ',';
      for (const l of sub) lines.push(l); // no spread: a value can have 100k+ lines
    });
    lines.push(`${indent}}`);
    return lines;
  }
  // A multi-line string reads as its lines (a display, not JSON: marked with `|` as in YAML).
  if (typeof v === 'string' && v.includes('\n')) return [`${indent}|`, ...v.split('\n').map((l) => `${inner}${l}`)];
  return [`${indent}${compactJson(v)}`];
}

function hasMultilineString(v: JsonValue): boolean {
  if (typeof v === 'string') return v.includes('\n');
  if (Array.isArray(v)) return v.some(hasMultilineString);
  if (v instanceof Map) return [...v.values()].some(hasMultilineString);
  if (isJsonObject(v)) return Object.values(v).some(hasMultilineString);
  return false;
}

/**
 * The lines to show for a field value: a string as its text (its own lines), a
 * JSON value compact when it fits in `width` columns and indented otherwise.
 * Every line is sanitized.
 */
export function valueLines(v: JsonValue, width: number): string[] {
  if (typeof v === 'string')
    return bareText(v)
      .split('\n')
      .map((l) => sanitize(l));
  const compact = sanitize(compactJson(v));
  if (displayWidth(compact) <= width && !hasMultilineString(v)) return [compact];
  return prettyJson(v).map((l) => sanitize(l));
}

/** A one-line preview of a value (strings without quotes, unless bare they read as another value: bareText). */
export function preview(v: JsonValue): string {
  return sanitize(typeof v === 'string' ? bareText(v) : compactJson(v));
}

/** `2026-12-02T09:01:02.345Z` for unix seconds (or the number itself when out of range). */
export function isoTime(ts: number): string {
  const d = new Date(ts * 1000);
  return Number.isNaN(d.getTime()) ? String(ts) : d.toISOString();
}

/** The first `n` hex digits of a hash. */
export function shortHash(h: string, n = 12): string {
  return h.slice(0, n);
}
