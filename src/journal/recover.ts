import { IntegrityError } from '../errors';
import { ZERO_HASH } from '../util/hash';
import { ChainChecker } from './chain';
import { readRowLine } from './row';
import { forEachLine } from './verify';

/** Where a journal's valid chain ends, and what (if anything) lies after it. */
export interface RecoveredTail {
  /** Byte offset just past the last valid row's newline. */
  validEnd: number;
  head: string;
  steps: number;
  /** A final row that verifies but lacks its newline (writer killed just before it). */
  unterminatedRowEnd?: number;
  /** Bytes after `validEnd` that are a torn write (to move aside and truncate). */
  tornFrom?: number;
}

/**
 * A verified prefix: `offset` bytes holding `steps` rows (one per line, since a
 * recovered journal holds nothing but valid rows) ending at `head`.
 */
export interface ChainState {
  offset: number;
  head: string;
  steps: number;
}

export const GENESIS: ChainState = { offset: 0, head: ZERO_HASH, steps: 0 };

/** Refusal to open: names the file, the line and the remedy. Exit 1. */
export class JournalRecoveryError extends IntegrityError {
  override name = 'JournalRecoveryError';
  constructor(
    readonly file: string,
    readonly line: number,
    readonly kind: string,
    detail: string,
  ) {
    super(
      `${file}:${line}: ${kind}: ${detail}; refusing to append. ` +
        `Remedy: move the journal aside (mv ${file} ${file}.corrupt) so a fresh chain can start, ` +
        `and keep it for \`stepchain verify\``,
    );
  }
}

/**
 * Recovery on open (SPEC §2, fail-closed): revalidate every row of `tail` (the
 * file's bytes from `from.offset` on), chaining onto the verified prefix `from`;
 * take the tip from the last recomputed hash, tolerate only a torn tail.
 * Throws JournalRecoveryError for a parseable row that does not verify, or a
 * malformed line followed by a well-formed row.
 */
export function recoverTail(file: string, tail: Buffer, from: ChainState = GENESIS): RecoveredTail {
  const chain = new ChainChecker();
  chain.prevHash = from.head;
  chain.expectedSeq = from.steps;
  chain.steps = from.steps;
  let validEnd = from.offset;
  let firstBad: { line: number; offset: number; reason: string } | undefined;
  let unterminatedRowEnd: number | undefined;
  forEachLine(tail, (start, end, relLine, terminated) => {
    const line = from.steps + relLine;
    const bytes = tail.subarray(start, end);
    const read = bytes.length === 0 ? undefined : readRowLine(bytes);
    if (read === undefined || read.kind === 'malformed') {
      firstBad ??= { line, offset: from.offset + start, reason: read?.reason ?? 'empty line' };
      return;
    }
    if (firstBad !== undefined) {
      throw new JournalRecoveryError(file, firstBad.line, 'malformed_json', `${firstBad.reason} (interior corruption: a well-formed row follows at line ${line})`);
    }
    const faults = chain.check(line, read.row, read.computedHash);
    if (faults.length > 0) throw new JournalRecoveryError(file, line, faults[0]!.kind, faults[0]!.message);
    if (terminated) validEnd = from.offset + end + 1;
    else unterminatedRowEnd = from.offset + end;
  });
  const result: RecoveredTail = { validEnd, head: chain.steps > 0 ? chain.prevHash : ZERO_HASH, steps: chain.steps };
  if (unterminatedRowEnd !== undefined) result.unterminatedRowEnd = unterminatedRowEnd;
  if (firstBad !== undefined) result.tornFrom = validEnd;
  return result;
}
