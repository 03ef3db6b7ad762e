import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { InputError } from '../errors';
import { nulRecords } from '../util/nul-records';

/**
 * The command line is read as UTF-8 text. Node.js decodes each argument from its bytes and puts U+FFFD for bytes
 * that are not UTF-8, so a file named `x<0xfe>.tar` arrives as `x\uFFFD.tar`: another name, which then is "no such
 * file" (true, but not why), and a note or a prompt would be recorded with other characters than were given. Such an
 * argument is refused, naming it by its bytes. Only a command line that holds a U+FFFD is looked at again, in the
 * bytes the kernel keeps (/proc/self/cmdline); where there are none to read, a U+FFFD typed as such and one Node.js
 * put for a lost byte cannot be told apart, and the command line is taken as decoded.
 *
 * `argv` is the process's (`process.argv`: the program, the script, then the arguments, the last of the kernel's).
 */
export function assertCommandLineText(argv: readonly string[] = process.argv): void {
  if (!argv.some((a) => a.includes('\uFFFD'))) return;
  const raw = kernelCommandLine();
  if (raw === undefined) return;
  const args = argv.slice(2);
  // The kernel's list also holds Node's own options: the arguments are its last ones.
  const tail = raw.slice(raw.length - args.length);
  if (tail.length !== args.length || tail.some((b, k) => b.toString('utf8') !== args[k])) return; // not this argv
  const bad = tail.findIndex((b) => !isUtf8(b));
  if (bad < 0) return;
  throw new InputError(
    `argument ${bad + 1} of the command line is not UTF-8 (${byteText(tail[bad]!)}): stepchain reads its command ` +
      'line as UTF-8 text and would take it for another name or text (Node.js reads such bytes as U+FFFD); give it in UTF-8',
  );
}

/** This process's arguments as the kernel keeps them (NUL after each), or undefined where it does not tell. */
function kernelCommandLine(): Buffer[] | undefined {
  try {
    return nulRecords(readFileSync('/proc/self/cmdline'));
  } catch {
    return undefined;
  }
}

/** Bytes as printable ASCII, any other byte (and a backslash or quote) escaped `\xNN`, cut past 120 characters. */
function byteText(b: Buffer): string {
  let s = '';
  for (const c of b.subarray(0, 120))
    s +=
      c >= 0x20 && c < 0x7f && c !== 0x5c && c !== 0x27
        ? String.fromCharCode(c)
        : `\\x${c.toString(16).padStart(2, '0')}`;
  return `'${s}'${b.length > 120 ? ` (${b.length} bytes)` : ''}`;
}
