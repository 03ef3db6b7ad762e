/**
 * Whether JSON bytes may hold `text` inside one of their strings: a sound pre-filter before a parse, never a reason
 * to skip one wrongly. A JSON reader takes `exchange\u005flink` as `exchange_link`, so bytes that hold no plain
 * `text` may still spell it with a `\u` escape: those are parsed too. (The other escapes, `\" \\ \/ \b \f \n \r \t`,
 * spell only those characters: a `text` holding one of them is never ruled out.)
 */
export function mayHoldJsonText(bytes: Buffer | string, text: string): boolean {
  if (/["\\/\u0000-\u001f]/.test(text)) return true;
  return bytes.includes(text) || bytes.includes('\\u');
}
