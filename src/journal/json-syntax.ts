import { pyStrip } from './lines';
import { jsonStringEnd } from '../canonical/string-syntax';

const lenient = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?/y;

/**
 * Whether a line is JSON text at all, in Python's `json` grammar, whatever its
 * nesting depth, integer sizes, byte-order mark or UTF-8 validity. A writer
 * killed mid-write leaves a prefix of a row, which never is: so only a line for
 * which this is false may be a torn tail (docs/journal.md, "Recovery on open");
 * one for which it is true is a row, or a tamper. Iterative: no stack to exhaust.
 */
export function parsesAsJson(bytes: Uint8Array): boolean {
  let text = lenient.decode(bytes);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  text = pyStrip(text);
  let i = 0;
  const n = text.length;
  const ws = (): void => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else break;
    }
  };
  const word = (w: string): boolean => {
    if (!text.startsWith(w, i)) return false;
    i += w.length;
    return true;
  };
  /** A string literal at i (its grammar, whatever its length: ../canonical/string-syntax.ts). */
  const string = (): boolean => {
    const close = jsonStringEnd(text, i);
    if (close < 0) return false;
    i = close + 1;
    return true;
  };
  const sticky = (re: RegExp): boolean => {
    re.lastIndex = i;
    if (!re.test(text)) return false;
    i = re.lastIndex;
    return true;
  };
  /** A scalar, or the opening of a container (pushed). */
  const stack: number[] = [];
  const value = (): boolean => {
    ws();
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) {
      stack.push(c);
      i++;
      return true;
    }
    if (c === 0x22) return string();
    if (c === 0x2d && text.startsWith('-Infinity', i)) return word('-Infinity');
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return sticky(NUMBER);
    return word('null') || word('true') || word('false') || word('NaN') || word('Infinity');
  };
  // States: expecting a value, or inside a container just after an opening or a value.
  if (!value()) return false;
  let justOpened = stack.length > 0;
  while (stack.length > 0) {
    ws();
    const top = stack[stack.length - 1];
    const close = top === 0x7b ? 0x7d : 0x5d;
    const c = text.charCodeAt(i);
    if (c === close) {
      i++;
      stack.pop();
      justOpened = false;
      continue;
    }
    if (!justOpened) {
      if (c !== 0x2c) return false;
      i++;
      ws();
    }
    if (top === 0x7b) {
      ws();
      if (text.charCodeAt(i) !== 0x22 || !string()) return false;
      ws();
      if (text.charCodeAt(i) !== 0x3a) return false;
      i++;
    }
    const depth = stack.length;
    if (!value()) return false;
    justOpened = stack.length > depth;
  }
  ws();
  return i === n;
}
