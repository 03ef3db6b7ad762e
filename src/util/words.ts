/**
 * Counting words in messages, one rule everywhere (the CLI, the Action, the
 * report page, the terminal viewer): "1 step", "2 steps", "0 steps".
 */

/** The word for `n` things: `one` for exactly one, else `many` (default `one` + "s"). */
export function pluralWord(n: number, one: string, many = `${one}s`): string {
  return n === 1 ? one : many;
}

/** `n` and its word: `plural(2, 'step')` is "2 steps", `plural(1, 'entry', 'entries')` "1 entry". */
export function plural(n: number, one: string, many?: string): string {
  return `${n} ${pluralWord(n, one, many)}`;
}

/** A byte count for people: "512 B", "1.5 KiB", "3.0 MiB". */
export function formatSize(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

// Shown as `\uXXXX`: C0/C1 controls, DEL, line/paragraph separators, bidi controls and marks, zero-width characters,
// the word joiner and invisible operators, BOM; tag characters (invisible text) as `\u{e0041}`.
const INVISIBLE =
  /[\u0000-\u001f\u007f-\u009f\u061c\u2028\u2029\u202a-\u202e\u2066-\u2069\u200b-\u200f\u2060-\u2064\ufeff]|\udb40[\udc00-\udc7f]/g;

/** Invisible and direction-changing characters shown as `\uXXXX` (for Markdown and Mermaid; the terminal has its own). */
export function visible(s: string): string {
  return s.replace(INVISIBLE, (c) => {
    const cp = c.codePointAt(0)!;
    return cp > 0xffff ? `\\u{${cp.toString(16)}}` : `\\u${cp.toString(16).padStart(4, '0')}`;
  });
}

/** At most `max` code points, with an ellipsis. */
export function clip(s: string, max: number): string {
  const cps = Array.from(s);
  return cps.length <= max ? s : `${cps.slice(0, max - 1).join('')}…`;
}
