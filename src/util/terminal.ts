/**
 * The one sanitiser for text bound for a terminal. Journals, receipts, run
 * journals, audit logs, git and the file system are all data from strangers:
 * a byte of theirs must never drive the operator's terminal. Every character
 * that a terminal acts on instead of showing is replaced by a visible escape:
 *
 * - C0 controls and DEL (ESC starts CSI cursor moves and erases, OSC 52 writes
 *   the clipboard, OSC 0/2 the window title; CR and BS overwrite a line);
 * - C1 controls, bidirectional controls, line and paragraph separators and what is shown as nothing:
 *   the list every sink shares (./hidden-chars.ts).
 *
 * `\x1b` for a byte, `\u202e` above U+00FF, `\u{e0041}` above U+FFFF. A tab becomes two spaces (its width
 * is the terminal's choice). Applied at every sink: CommandIO's out/err, the
 * interactive screen painter, and the formatting of each data field.
 */
import { hiddenPattern, unicodeEscape } from './hidden-chars';

const UNSAFE = hiddenPattern(String.raw`\u0000-\u0008\u000a-\u001f\u007f`);
const UNSAFE_BUT_NEWLINE = hiddenPattern(String.raw`\u0000-\u0008\u000b-\u001f\u007f`);

function visible(c: string): string {
  if (c === '\n') return '\\n';
  const code = c.charCodeAt(0);
  return code > 0xff ? unicodeEscape(c) : `\\x${code.toString(16).padStart(2, '0')}`;
}

export interface SanitizeOptions {
  /**
   * `escape` (default): a newline is shown as `\n`, so a value stays on its
   * line. `keep`: newlines pass (for text the program itself laid out in lines).
   */
  newlines?: 'escape' | 'keep';
}

/** `s` with every character a terminal would act on made visible (see the module comment). */
export function sanitize(s: string, options: SanitizeOptions = {}): string {
  const keep = options.newlines === 'keep';
  // Printable ASCII (and a kept newline) is what nothing replaces: one test, not two replaces (a table of a million
  // rows sanitises each field, then each line).
  if ((keep ? PRINTABLE_OR_NEWLINE : PRINTABLE).test(s)) return s;
  return s.replace(keep ? UNSAFE_BUT_NEWLINE : UNSAFE, visible).replace(/\t/g, '  ');
}

const PRINTABLE = /^[\x20-\x7e]*$/;
const PRINTABLE_OR_NEWLINE = /^[\x20-\x7e\n]*$/;

/** The longest line a problem is told in (a path is at most 4,096 bytes; a message quotes it with room to spare). */
export const MAX_PROBLEM_LINE = 8192;

/**
 * `line` cut to at most `max` characters: its start and its end, and how much was cut between them. A message that
 * quotes a value from a stranger (a 5 MB session id) stays one readable line, and keeps what it says after the value.
 */
export function clipLine(line: string, max = MAX_PROBLEM_LINE): string {
  if (line.length <= max) return line;
  const tail = Math.floor(max / 4);
  let head = max - tail - 40;
  let end = line.length - tail;
  // Never between the halves of a surrogate pair.
  if (/[\ud800-\udbff]/.test(line[head - 1]!)) head--;
  if (/[\udc00-\udfff]/.test(line[end]!)) end++;
  return `${line.slice(0, head)} [... ${(end - head).toLocaleString('en')} characters cut ...] ${line.slice(end)}`;
}
