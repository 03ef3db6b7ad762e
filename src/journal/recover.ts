import { IntegrityError } from '../errors';
import { ZERO_HASH } from '../util/hash';
import type { RollbackFault } from '../util/rollback';

/** Where a journal's valid chain ends, and what (if anything) lies after it. */
export interface RecoveredTail {
  /** Byte offset the accepted part of the file ends at (the next row goes there). */
  validEnd: number;
  head: string;
  steps: number;
  /** A final row that verifies but lacks its line ending (writer killed just before it): the newline goes here. */
  unterminatedRowEnd?: number;
  /** Bytes from here to the end are a torn write (to move aside and truncate). */
  tornFrom?: number;
}

/**
 * A verified prefix: `offset` bytes (ending at a line ending) holding `steps`
 * rows ending at `head`.
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
    // `--json` lists the fault like every other refusal over a broken chain.
    this.details = [{ file, line, kind, message: detail }];
  }
}

/**
 * Refusal to extend a journal that holds less than an authenticated checkpoint
 * (or this writer) verified there (docs/journal.md, "Rollback"). Exit 1.
 */
export class JournalRollbackError extends IntegrityError {
  override name = 'JournalRollbackError';
  constructor(
    readonly file: string,
    readonly fault: RollbackFault,
  ) {
    super(
      `${file}: rollback: ${fault.message}; refusing to append. ` +
        `Remedy: restore the journal from a copy; to give up its history instead, move it aside (mv ${file} ${file}.rolled-back) ` +
        `so a fresh chain can start, and keep it for \`stepchain verify\``,
    );
  }
}
