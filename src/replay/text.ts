import { encode, isJsonObject, JsonFloat, type JsonValue } from '../canonical';

/**
 * Text helpers for terminal output. A journal is untrusted input: control
 * characters (ESC above all) are made visible so a row can never drive the
 * operator's terminal, and widths are counted in columns, not UTF-16 units.
 */

/** Replaces C0/C1 controls and DEL by visible escapes (`\x1b`); tabs become two spaces. */
export function sanitize(s: string): string {
  return s
    .replace(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => {
      const code = c.charCodeAt(0);
      if (c === '\n') return '\\n';
      return code > 0xff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\x${code.toString(16).padStart(2, '0')}`;
    })
    .replace(/\t/g, '  ');
}

function isZeroWidth(cp: number): boolean {
  return (
    (cp >= 0x0300 && cp <= 0x036f) ||
    (cp >= 0x1ab0 && cp <= 0x1aff) ||
    (cp >= 0x1dc0 && cp <= 0x1dff) ||
    (cp >= 0x20d0 && cp <= 0x20ff) ||
    (cp >= 0xfe00 && cp <= 0xfe0f) ||
    (cp >= 0xfe20 && cp <= 0xfe2f) ||
    cp === 0x200b ||
    cp === 0x200c ||
    cp === 0x200d ||
    cp === 0xfeff ||
    (cp >= 0xe0100 && cp <= 0xe01ef)
  );
}

function isWide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0x303e) ||
    (cp >= 0x3041 && cp <= 0x33ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xa000 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}

/** Columns a code point takes in a terminal (0, 1 or 2). */
export function charWidth(cp: number): number {
  if (isZeroWidth(cp)) return 0;
  return isWide(cp) ? 2 : 1;
}

/** Columns a (sanitized) string takes. */
export function displayWidth(s: string): number {
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

/** Splits one line into pieces of at most `width` columns (one pass: fields can be megabytes). */
export function wrap(s: string, width: number): string[] {
  if (width <= 0) return [s];
  const out: string[] = [];
  let start = 0;
  let w = 0;
  let i = 0;
  while (i < s.length) {
    const cp = s.codePointAt(i)!;
    const len = cp > 0xffff ? 2 : 1;
    const cw = charWidth(cp);
    if (w + cw > width && i > start) {
      out.push(s.slice(start, i));
      start = i;
      w = 0;
    }
    w += cw;
    i += len;
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
  if (typeof v === 'string') return v.split('\n').map(sanitize);
  const compact = sanitize(compactJson(v));
  if (displayWidth(compact) <= width && !hasMultilineString(v)) return [compact];
  return prettyJson(v).map(sanitize);
}

/** A one-line preview of a value (strings without quotes). */
export function preview(v: JsonValue): string {
  return sanitize(typeof v === 'string' ? v : compactJson(v));
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
