import { closeSync, openSync, readSync } from 'node:fs';
import { finishLastLine, moveTornTailAside } from '../util/fs';
import { sanitize } from '../util/terminal';
import { scanSlices } from './parallel';
import { JournalRecoveryError, type ChainState, type RecoveredTail } from './recover';
import { noRowsFault } from './no-rows';
import { stitchRecovery } from './stitch';
import { READ_FLAGS } from '../util/nofollow';

/**
 * Recovery on open, in two small steps a writer calls under its lock
 * (docs/journal.md, "Recovery on open"): `checkTail` judges the bytes from a
 * verified prefix `from` to `size` (the whole file from GENESIS, or only what was
 * appended since a trusted checkpoint) and throws JournalRecoveryError, naming
 * the file and line, on anything but valid rows and a torn tail; `repairTail`
 * then finishes a row's lost newline or moves a torn tail aside, and says so.
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

/** What `repairTail` did to a torn tail (for the operator: stderr by default). */
export interface TornTailMoved {
  file: string;
  /** The side file the bytes were copied to (`<journal>.torn-<unix ms>`). */
  sideFile: string;
  bytes: number;
}

/** The default notice: one line on stderr, through the terminal sanitiser (a path may hold escapes). */
export function printTornTailNotice(m: TornTailMoved): void {
  process.stderr.write(
    `${sanitize(
      `stepchain: ${m.file}: moved a torn tail of ${m.bytes} byte${m.bytes === 1 ? '' : 's'} (a write that never finished) to ${m.sideFile}`,
    )}\n`,
  );
}

/**
 * Applies a checked tail: writes the newline a complete last row lost, or copies
 * a torn tail to a side file and truncates it off (then calls `notice`). Returns
 * the new verified prefix.
 */
export function repairTail(
  file: string,
  t: RecoveredTail,
  size: number,
  durable: boolean,
  notice: (m: TornTailMoved) => void = printTornTailNotice,
): ChainState {
  let end = t.validEnd;
  if (t.unterminatedRowEnd !== undefined) {
    finishLastLine(file, t.unterminatedRowEnd, durable);
    end = t.unterminatedRowEnd + 1;
  } else if (t.tornFrom !== undefined) {
    const sideFile = moveTornTailAside(file, t.tornFrom, durable);
    notice({ file, sideFile, bytes: size - t.tornFrom });
  }
  return { offset: end, head: t.head, steps: t.steps };
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
