/**
 * A limit as the API takes one (`maxBytes`, `maxDigests`): a non-negative integer, or Infinity (no limit, said
 * outright). Anything else is a TypeError naming the option: NaN (an unset option read as a number) compared as no
 * limit at all, and sized a digest set to NaN slots.
 */
export function checkLimit(value: number, name: string): void {
  if (!(value === Infinity || (Number.isSafeInteger(value) && value >= 0)))
    throw new TypeError(`${name}: expected a non-negative integer (or Infinity), got ${String(value)}`);
}
