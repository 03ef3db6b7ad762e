/**
 * Where UTF-8 stops being valid, as a 1-based column in UTF-16 units (what every other parse error reports: the
 * column of the character reading stopped at), by the decoder's own rules (the WHATWG UTF-8 decoder, which
 * `TextDecoder` with `fatal` is): the column just after the valid text before the first invalid sequence, or
 * undefined when there is none. Only called once decoding has failed, so a slow byte loop costs nothing on the
 * way that matters.
 */
export function invalidUtf8Column(bytes: Uint8Array): number | undefined {
  let units = 0;
  for (let i = 0; i < bytes.length;) {
    const n = sequenceLength(bytes, i);
    if (n === 0) return units + 1;
    units += n === 4 ? 2 : 1; // four bytes are a code point past U+FFFF: a surrogate pair
    i += n;
  }
  return undefined;
}

const isCont = (b: number | undefined): boolean => b !== undefined && b >= 0x80 && b <= 0xbf;

/** The length of the well-formed sequence at `i`, or 0 when it is not one (cut short, overlong, a surrogate, past U+10FFFF). */
function sequenceLength(bytes: Uint8Array, i: number): number {
  const b = bytes[i]!;
  if (b < 0x80) return 1;
  const second = bytes[i + 1];
  if (b >= 0xc2 && b <= 0xdf) return isCont(second) ? 2 : 0;
  if (b >= 0xe0 && b <= 0xef) {
    const [lo, hi] = b === 0xe0 ? [0xa0, 0xbf] : b === 0xed ? [0x80, 0x9f] : [0x80, 0xbf];
    return second !== undefined && second >= lo && second <= hi && isCont(bytes[i + 2]) ? 3 : 0;
  }
  if (b >= 0xf0 && b <= 0xf4) {
    const [lo, hi] = b === 0xf0 ? [0x90, 0xbf] : b === 0xf4 ? [0x80, 0x8f] : [0x80, 0xbf];
    const ok = second !== undefined && second >= lo && second <= hi && isCont(bytes[i + 2]) && isCont(bytes[i + 3]);
    return ok ? 4 : 0;
  }
  return 0; // a continuation byte with no lead, C0, C1, F5-FF
}
