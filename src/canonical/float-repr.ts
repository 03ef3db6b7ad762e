/**
 * Python's `repr(float)`: the shortest digits that round-trip (JavaScript's
 * `Number#toString` picks the same digits: shortest, then closest), laid out the
 * Python way: fixed notation when the first digit's decimal exponent is in
 * [-4, 16), scientific otherwise, always a fractional part in fixed notation.
 */
export function pythonFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  const s = String(Math.abs(x));
  const ei = s.indexOf('e');
  const mantissa = ei < 0 ? s : s.slice(0, ei);
  const shift = ei < 0 ? 0 : Number(s.slice(ei + 1));
  const dot = mantissa.indexOf('.');
  const intPart = dot < 0 ? mantissa : mantissa.slice(0, dot);
  const all = dot < 0 ? mantissa : intPart + mantissa.slice(dot + 1);
  let lead = 0;
  while (lead < all.length - 1 && all.charCodeAt(lead) === 48) lead++;
  let end = all.length;
  while (end > lead + 1 && all.charCodeAt(end - 1) === 48) end--;
  const digits = all.slice(lead, end);
  // Decimal exponent of the first significant digit.
  const exp = intPart.length + shift - lead - 1;
  if (exp >= -4 && exp < 16) {
    if (exp >= 0) {
      const whole = digits.length > exp + 1 ? digits.slice(0, exp + 1) : digits.padEnd(exp + 1, '0');
      const frac = digits.length > exp + 1 ? digits.slice(exp + 1) : '0';
      return `${sign}${whole}.${frac}`;
    }
    return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  }
  const m = digits.length === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
  const e = `${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return `${sign}${m}e${e}`;
}

/**
 * `pythonFloatRepr(Number(token)) === token`, without building the repr for the
 * common token: JavaScript's `String(x)` has the same shortest digits, and lays
 * them out the same way as Python where Python writes fixed notation with a
 * fraction (1e-4 <= |x| < 1e16, both exact doubles, and x not integral). Any
 * other token (exponent form, an integral float, zero) is judged by the repr.
 */
export function isPythonFloatRepr(token: string): boolean {
  const x = Number(token);
  const a = Math.abs(x);
  if (a >= 1e-4 && a < 1e16 && !Number.isInteger(x) && token.indexOf('e') < 0) return String(x) === token;
  return pythonFloatRepr(x) === token;
}
