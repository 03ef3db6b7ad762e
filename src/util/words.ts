/**
 * Counting words in messages, one rule everywhere (the CLI, the Action, the
 * report page, the terminal viewer): "1 step", "2 steps", "0 steps".
 */
import { hiddenPattern, unicodeEscape } from './hidden-chars';

/** The word for `n` things: `one` for exactly one, else `many` (default `one` + "s"). */
export function pluralWord(n: number, one: string, many = `${one}s`): string {
  return n === 1 ? one : many;
}

/** `n` and its word: `plural(2, 'step')` is "2 steps", `plural(1, 'entry', 'entries')` "1 entry". */
export function plural(n: number, one: string, many?: string): string {
  return `${n} ${pluralWord(n, one, many)}`;
}

/**
 * Items for one line of a message: the first `max` joined with `sep`, then how many more there are ("a, b and
 * 99,990 more"). A warning names what it is about, never every one of 100,000 things (one line of 6 MB).
 */
export function someOf(items: readonly string[], sep = ', ', max = 10): string {
  if (items.length <= max) return items.join(sep);
  return `${items.slice(0, max).join(sep)} and ${(items.length - max).toLocaleString('en-US')} more`;
}

/** A byte count for people: "512 B", "1.5 KiB", "3.0 MiB". */
export function formatSize(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

// Shown as `\uXXXX` (`\u{XXXXX}` above U+FFFF): C0 controls, DEL, the zero-width joiner and non-joiner (invisible between
// ids side by side in a table) and the characters every sink shows escaped (./hidden-chars.ts).
const INVISIBLE = hiddenPattern(String.raw`\u0000-\u001f\u007f\u200c\u200d`);

/** Invisible and direction-changing characters shown as `\uXXXX` (for Markdown and Mermaid; the terminal has its own). */
export function visible(s: string): string {
  return s.replace(INVISIBLE, unicodeEscape);
}

/** At most `max` code points, with an ellipsis. */
export function clip(s: string, max: number): string {
  const cps = Array.from(s);
  return cps.length <= max ? s : `${cps.slice(0, max - 1).join('')}…`;
}
