import { IntegrityError } from '../errors';
import { ZERO_HASH } from '../util/hash';

/** Where a journal's valid chain ends, and what (if anything) lies after it. */
export interface RecoveredTail {
  /** Byte offset just past the last valid row's newline (its end, when unterminated). */
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
