/**
 * Which lines of `b` are lines of `a` kept (blame's question): the common
 * prefix and suffix, and a longest common subsequence of the lines between.
 * The table of the middle is bounded (MAX_CELLS): a middle larger than that is
 * taken as all new, which can only give a line to a later version, never keep
 * one that changed.
 */
const MAX_CELLS = 4_000_000;

/** For each line of `b`, the index of the line of `a` it is kept from, or -1 when it is new in `b`. */
export function matchLines(a: readonly string[], b: readonly string[]): number[] {
  const out = new Array<number>(b.length).fill(-1);
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) {
    out[pre] = pre;
    pre++;
  }
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) {
    out[b.length - 1 - suf] = a.length - 1 - suf;
    suf++;
  }
  const n = a.length - pre - suf;
  const m = b.length - pre - suf;
  if (n === 0 || m === 0 || n * m > MAX_CELLS) return out;
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i * w + j] =
        a[pre + i] === b[pre + j]
          ? lcs[(i + 1) * w + j + 1]! + 1
          : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[pre + i] === b[pre + j]) {
      out[pre + j] = pre + i;
      i++;
      j++;
    } else if (lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!) i++;
    else j++;
  }
  return out;
}

/** A text's lines as blame counts them (a final newline ends the last line, it does not start another). */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}
