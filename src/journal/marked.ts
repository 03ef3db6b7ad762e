/** A search for the lines holding a value as a JSON string, and what their rows said so far (MarkedRows). */
export interface MarkSearch {
  value: string;
  /** The value's JSON text after its opening quote. */
  tail: Buffer;
  fields: Set<string>;
  blobRefs: boolean;
}

export const markSearch = (value: string): MarkSearch => ({
  value,
  tail: Buffer.from(JSON.stringify(value).slice(1)),
  fields: new Set(),
  blobRefs: false,
});

/**
 * Where the next `"<value>` is in `buf`, at or after `from`: the offset of `tail` (the value's JSON text after its
 * opening quote) where a quote precedes it, or -1. Searched for without the quote, from the first of its first byte
 * (`<` for the redaction mark, rare in JSON text: one memchr over bytes that hold none), then checked: a search
 * from `"` would stop at every string.
 */
export function nextQuoted(buf: Buffer, tail: Buffer, from = 0): number {
  const first = buf.indexOf(tail[0]!, Math.max(from, 1));
  if (first < 0) return -1;
  for (let at = buf.indexOf(tail, first); at >= 1; at = buf.indexOf(tail, at + 1)) if (buf[at - 1] === 0x22) return at;
  return -1;
}
