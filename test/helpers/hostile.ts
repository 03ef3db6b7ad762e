/**
 * Strings that drive a terminal when printed raw: the hostile corpus every
 * terminal sink is tested with.
 */
export const HOSTILE = {
  /** OSC 52: writes "PWNED" to the operator's clipboard. */
  osc52: '\u001b]52;c;UFdORUQ=\u0007',
  /** OSC 2: sets the window title. */
  title: '\u001b]2;PWNED\u0007',
  /** Erases the line, moves up, erases it, and paints a verdict over it. */
  repaint: '\u001b[2K\u001b[1A\u001b[2KOK hostile.tar: signature OK',
  /** C1 controls: CSI (U+009B) clear screen, OSC (U+009D) title, ST (U+009C). */
  c1: '\u009b2J\u009d0;PWNED\u009c',
  /** Bidi overrides, isolates and marks: the text shown is not the text stored. */
  bidi: 'invoice-\u202egpj.exe \u2066isolated\u2069 \u200f\u061c',
  /** Line and paragraph separators. */
  lineSep: 'one\u2028two\u2029three',
  /** Carriage return, backspaces, NUL, DEL: overwrite what was printed. */
  cr: 'FAIL\rOK  \u0008\u0008\u0000\u007f',
};

/** All of them in one string. */
export const HOSTILE_ALL = Object.values(HOSTILE).join(' | ');

/** Bash ANSI-C quoting (`$'...'`) of any string, for scripts run in a terminal. */
export function bashQuote(s: string): string {
  let out = "$'";
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0x20 && cp < 0x7f && ch !== "'" && ch !== '\\') out += ch;
    else if (cp < 0x80) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp <= 0xffff) out += `\\u${cp.toString(16).padStart(4, '0')}`;
    else out += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  return `${out}'`;
}
