/**
 * Compares two strings by Unicode code point, as Python compares `str`.
 * JavaScript's default order compares UTF-16 code units, which disagrees once
 * a surrogate pair (code point >= U+10000) meets a BMP character >= U+E000.
 * Lone surrogates compare by their own value, as in Python.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return a.length - b.length;
  const ca = a.charCodeAt(i);
  const cb = b.charCodeAt(i);
  if (ca < 0xd800 && cb < 0xd800) return ca - cb;
  // A low surrogate after a shared high surrogate: step back so the pair is read whole.
  const low = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;
  if (i > 0 && (low(ca) || low(cb))) {
    const prev = a.charCodeAt(i - 1);
    if (prev >= 0xd800 && prev <= 0xdbff) i--;
  }
  return (a.codePointAt(i) ?? 0) - (b.codePointAt(i) ?? 0);
}
