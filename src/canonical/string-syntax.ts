/**
 * JSON's string literal, as Python's `json.loads` reads one (strict: no raw control characters): the one grammar of
 * a string the parser (./parse.ts) and the journal's torn-tail check (src/journal/json-syntax.ts) both follow. A
 * loop, not a regular expression: a pattern with a repeated alternation runs out of the engine's stack on a string
 * of millions of escapes, and a check that gives up has no answer to give.
 */

/** The letter after a backslash of a short escape: `"` `\` `/` `b` `f` `n` `r` `t`. */
const SHORT_ESCAPE_LETTER = new Uint8Array(0x80);
for (const c of '"\\/bfnrt') SHORT_ESCAPE_LETTER[c.charCodeAt(0)] = 1;

const isHex = (c: number): boolean => (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);

/**
 * Where the string literal opening at `open` (its `"`) closes: the index of its closing quote, or, when it is no
 * string literal, `-1 - at` with `at` where it fails (see jsonStringFault).
 */
export function jsonStringEnd(text: string, open: number): number {
  const n = text.length;
  let i = open + 1;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i;
    if (c < 0x20) return -1 - i;
    if (c !== 0x5c) {
      i++;
      continue;
    }
    const e = text.charCodeAt(i + 1);
    if (e === 0x75) {
      for (let k = i + 2; k < i + 6; k++) if (!isHex(text.charCodeAt(k))) return -1 - i;
      i += 6;
    } else if (e < 0x80 && SHORT_ESCAPE_LETTER[e] === 1) i += 2;
    else return -1 - i;
  }
  return -1 - n;
}

/**
 * Why a string literal fails at `at` (what jsonStringEnd returned, `-1 - at`), in the words Python uses (its column
 * can differ: it points at the `u` of a bad `\uXXXX`, and names one that ends the text an invalid escape).
 */
export function jsonStringFault(text: string, at: number): string {
  // A backslash that ends the text is the string's missing end, as Python names it.
  if (at >= text.length || (at + 1 === text.length && text.charCodeAt(at) === 0x5c)) return 'unterminated string';
  if (text.charCodeAt(at) < 0x20) return 'invalid control character in string';
  return text.charCodeAt(at + 1) === 0x75 ? 'invalid \\uXXXX escape' : 'invalid escape';
}
