import { closeSync, openSync, readSync } from 'node:fs';
import { scanSlices } from './parallel';
import { JournalRecoveryError, type ChainState, type RecoveredTail } from './recover';
import { noRowsFault } from './no-rows';
import { stitchRecovery } from './stitch';
import { READ_FLAGS } from '../util/nofollow';

export { printTornTailNotice, type TornTailMoved } from '../util/chain-file';

/**
 * Recovery on open (docs/journal.md, "Recovery on open"): `checkTail` judges
 * the bytes from a verified prefix `from` to `size` (the whole file from
 * GENESIS, or only what was appended since a trusted checkpoint) and throws
 * JournalRecoveryError, naming the file and line, on anything but valid rows
 * and a torn tail. The writer (src/util/chain-file.ts) then finishes a row's
 * lost newline or moves a torn tail aside, and says so.
 */
export function checkTail(file: string, from: ChainState, size: number, env?: NodeJS.ProcessEnv): RecoveredTail {
  const slices = scanSlices({ kind: 'file', path: file }, from.offset, size, { strict: false, recovery: true }, env);
  const t = stitchRecovery(file, slices, from, size, () =>
    from.offset === 0 ? 0 : countLinesInFile(file, from.offset),
  );
  // Never extend what verify rejects: what stays once a torn tail is set aside must not be blank lines alone.
  refuseNoRows(file, t.tornFrom ?? t.validEnd, t.steps);
  return t;
}

/**
 * The rule verify applies to a journal without rows (src/journal/no-rows.ts),
 * applied to the `bytes` an append would extend: only blank lines are refused.
 */
export function refuseNoRows(file: string, bytes: number, steps: number): void {
  const f = noRowsFault({ bytes, steps, malformedLines: false });
  if (f !== undefined) throw new JournalRecoveryError(file, 1, f.kind, `${f.message}: the file holds only blank lines`);
}

/** countLines over the first `to` bytes of a file (read in blocks). */
function countLinesInFile(path: string, to: number): number {
  const fd = openSync(path, READ_FLAGS);
  try {
    const block = Buffer.allocUnsafe(1 << 20);
    let n = 0;
    let prevCr = false;
    for (let pos = 0; pos < to;) {
      const got = readSync(fd, block, 0, Math.min(block.length, to - pos), pos);
      if (got === 0) break;
      for (let i = 0; i < got; i++) {
        const c = block[i];
        // A \n ends a line (with a \r before it, one line); a \r followed by anything else ends one too.
        if (c === 0x0a || prevCr) n++;
        prevCr = c === 0x0d;
      }
      pos += got;
    }
    return prevCr ? n + 1 : n;
  } finally {
    closeSync(fd);
  }
}
