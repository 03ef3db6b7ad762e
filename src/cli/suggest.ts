import { compareCodePoints } from '../canonical';

/**
 * "Did you mean": the closest known word to a typo, by edit distance
 * (Damerau-Levenshtein, optimal string alignment: an insertion, deletion,
 * substitution or swap of two neighbours costs 1), so `verfy` finds `verify`
 * and `--promt` finds `--prompt`.
 */

/** The edit distance between two strings (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const m = a.length;
  const n = b.length;
  // Three rolling rows: the swap rule looks two rows back.
  let prev2 = new Array<number>(n + 1).fill(0);
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  for (let i = 1; i <= m; i++) {
    const cur = new Array<number>(n + 1).fill(0);
    cur[0] = i;
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      cur[j] = d;
    }
    prev2 = prev;
    prev = cur;
  }
  return prev[n]!;
}

/**
 * The known words closest to `word`, nearest first: within a third of the
 * word's length (at least 1, at most 3 edits), or a known word that starts
 * with it (`rec` for `record`). Empty when nothing is close.
 */
export function closest(word: string, known: Iterable<string>, max = 3): string[] {
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  const scored: { w: string; d: number }[] = [];
  for (const w of new Set(known)) {
    if (w === word) continue;
    const d = editDistance(word.toLowerCase(), w.toLowerCase());
    if (d <= limit) scored.push({ w, d });
    else if (word.length >= 2 && w.startsWith(word)) scored.push({ w, d: limit + 1 });
  }
  scored.sort((x, y) => x.d - y.d || compareCodePoints(x.w, y.w));
  // Only the nearest: `--promt` is `--prompt`, not also `--root`.
  const best = scored[0]?.d;
  return scored
    .filter((s) => s.d === best)
    .slice(0, max)
    .map((s) => s.w);
}

/** `; did you mean "x"?` (or `"x" or "y"`), or '' when nothing is close. */
export function didYouMean(
  word: string,
  known: Iterable<string>,
  quote: (w: string) => string = (w) => `"${w}"`,
): string {
  const c = closest(word, known, 2);
  if (c.length === 0) return '';
  return `; did you mean ${c.map(quote).join(' or ')}?`;
}
