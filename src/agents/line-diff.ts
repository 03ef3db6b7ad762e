/**
 * A unified diff of two small texts (a settings file before and after), for
 * showing a person what changed: `-`/`+` lines with a few lines of context in
 * `@@` hunks. Longest common subsequence over lines; texts past `MAX_LINES`
 * are summarised instead (settings files are small).
 */
const MAX_LINES = 4000;

type Op = { kind: ' ' | '-' | '+'; text: string; a: number; b: number };

function ops(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  // lcs[i][j] = LCS length of a[i..] and b[j..], in one flat array.
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] =
        a[i] === b[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
    }
  }
  const out: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push({ kind: ' ', text: a[i]!, a: i, b: j });
      i++;
      j++;
    } else if (j < m && (i === n || lcs[i * w + j + 1]! >= lcs[(i + 1) * w + j]!)) {
      out.push({ kind: '+', text: b[j]!, a: i, b: j });
      j++;
    } else {
      out.push({ kind: '-', text: a[i]!, a: i, b: j });
      i++;
    }
  }
  return out;
}

function split(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** The diff lines (without a trailing newline each); empty when the texts are equal. */
export function unifiedDiff(before: string, after: string, nameA: string, nameB: string, context = 3): string[] {
  if (before === after) return [];
  const a = split(before);
  const b = split(after);
  const head = [`--- ${nameA}`, `+++ ${nameB}`];
  if (a.length > MAX_LINES || b.length > MAX_LINES) return [...head, `(${a.length} lines before, ${b.length} after)`];
  const all = ops(a, b);
  const out = [...head];
  let k = 0;
  while (k < all.length) {
    if (all[k]!.kind === ' ') {
      k++;
      continue;
    }
    // A hunk: from `context` lines before this change to `context` lines after the last change close to it.
    const start = Math.max(0, k - context);
    let end = k;
    for (let q = k; q < all.length; q++) {
      if (all[q]!.kind !== ' ') end = q;
      else if (q - end > 2 * context) break;
    }
    const stop = Math.min(all.length, end + context + 1);
    const slice = all.slice(start, stop);
    const aStart = slice[0]!.a;
    const bStart = slice[0]!.b;
    const aLen = slice.filter((o) => o.kind !== '+').length;
    const bLen = slice.filter((o) => o.kind !== '-').length;
    out.push(`@@ -${aLen === 0 ? aStart : aStart + 1},${aLen} +${bLen === 0 ? bStart : bStart + 1},${bLen} @@`);
    for (const o of slice) out.push(`${o.kind}${o.text}`);
    k = stop;
  }
  return out;
}
