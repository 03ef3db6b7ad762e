import { InputError, IntegrityError } from '../errors';
import type { Fault } from './chain';
import { readJournalFile, type JournalEntry, type ReadJournal, type VerifyOptions } from './verify';

/** `file:line: kind: message` for one fault. */
export function describeFault(file: string, f: Fault): string {
  return `${f.line === null ? file : `${file}:${f.line}`}: ${f.kind}: ${f.message}`;
}

/**
 * Reads a journal for display or use: verified first, so a tampered chain is never
 * laid out as if it were intact. Throws IntegrityError naming the first fault.
 */
export function readVerifiedJournal(file: string, options: VerifyOptions = {}): ReadJournal {
  const r = readJournalFile(file, options);
  if (!r.ok) {
    const more = r.errors.length > 1 ? ` (and ${r.errors.length - 1} more fault${r.errors.length > 2 ? 's' : ''})` : '';
    throw new IntegrityError(`${describeFault(file, r.errors[0]!)}${more}`);
  }
  return r;
}

/** Steps `[a..b]` (inclusive, 0-based seqs) of a verified journal. */
export function readWindow(file: string, a: number, b: number): JournalEntry[] {
  const r = readVerifiedJournal(file);
  if (!Number.isInteger(a) || !Number.isInteger(b) || a < 0 || b < a)
    throw new InputError(`bad step window [${a}..${b}]`);
  if (b >= r.steps)
    throw new InputError(`${file}: step ${b} is out of range (the journal has ${r.steps} steps, 0..${r.steps - 1})`);
  return r.entries.slice(a, b + 1);
}

/** One step of a verified journal. */
export function readStep(file: string, seq: number): JournalEntry {
  return readWindow(file, seq, seq)[0]!;
}

/** The verified head hash. */
export function journalHead(file: string): string {
  return readVerifiedJournal(file).head_hash;
}
