import { InputError, IntegrityError } from '../errors';
import { forEachReferenceLine, verifiedOr, VerifiedSteps, walkedRows } from '../journal';
import { ZERO_HASH } from '../util/hash';
import { DEFAULT_MAX_READ_BYTES } from '../util/nofollow';
import type { ReportWindow } from './client/data';

/**
 * The part of a journal a report embeds when it is windowed (`--max-steps N
 * [--from SEQ]`, or a journal too large for one page): `steps` rows from the
 * first one asked for (default: the last ones), with the lines between them, as
 * the reference frames lines (docs/journal.md), anchored to what the chain walk
 * has there: the rows walked before it (its expected seq) and the stored
 * step_hash of the row before.
 */
export interface Windowed {
  bytes: Buffer;
  window: ReportWindow;
  lastLine: number;
  steps: number;
}

/** A journal larger than this is windowed even when no window is asked for: one page could not hold it. */
export const AUTO_WINDOW_BYTES = 128 * 1024 * 1024;
/** The steps such a window holds (the last ones). */
export const AUTO_WINDOW_STEPS = 10_000;

/**
 * A journal that does not verify is embedded whole (the page shows its faults) unless a window is asked for: the
 * last steps of one are not taken on their own, as they are of a chain that verifies. One larger than a page holds
 * whole is refused, naming its first fault, instead of read whole and turned into one string (a journal of
 * gigabytes, or a line too long for one string, ended in an internal error after reading it all).
 */
export function tooLargeUnverified(firstFault: string, bytes: number, windowAsked = false): IntegrityError {
  const mb = (n: number): string => (n / 1048576).toFixed(0);
  return new IntegrityError(
    windowAsked
      ? // A window of a journal that does not verify is cut from the journal read whole: past what is read whole, none.
        `${firstFault}; the journal does not verify and, at ${mb(bytes)} MB, is larger than stepchain reads whole (${mb(DEFAULT_MAX_READ_BYTES)} MB) to cut a window of it: list its faults with \`stepchain verify\``
      : `${firstFault}; the journal does not verify and, at ${mb(bytes)} MB, is larger than a report page embeds whole (${AUTO_WINDOW_BYTES / 1048576} MB): embed a window of it with --max-steps N [--from SEQ], or list its faults with \`stepchain verify\``,
  );
}

function checkWindowArgs(maxSteps: number): void {
  if (!Number.isSafeInteger(maxSteps) || maxSteps < 1)
    throw new InputError(`not a positive integer: ${maxSteps}`, 'maxSteps');
}

/** The row index a window starts at: the row whose seq is `fromStep`, else the last `maxSteps`. */
function firstRow(
  total: number,
  maxSteps: number,
  fromStep: number | undefined,
  seqAt: (i: number) => unknown,
): number {
  if (fromStep === undefined) return Math.max(0, total - maxSteps);
  // In a journal that verifies, row i has seq i; in one that does not, the first row with that seq.
  if (Number.isSafeInteger(fromStep) && fromStep >= 0 && fromStep < total && seqAt(fromStep) === fromStep)
    return fromStep;
  for (let i = 0; i < total; i++) if (seqAt(i) === fromStep) return i;
  throw new InputError(`no step has seq ${fromStep} (the journal has ${total} well-formed steps)`, 'fromStep');
}

/** A window of journal bytes in memory (receipts, and journals that do not verify). Null: the whole journal. */
export function reportWindow(journal: Buffer, maxSteps: number, fromStep: number | undefined): Windowed | null {
  checkWindowArgs(maxSteps);
  // Rows as the walk counts them: every JSON object line, whatever its shape.
  const rows = walkedRows(journal);
  const first = firstRow(rows.length, maxSteps, fromStep, (i) => rows[i]!.seq);
  const starts: number[] = [];
  forEachReferenceLine(journal, 0, journal.length, (s) => void starts.push(s));
  const totalLines = starts.length;
  starts.push(journal.length);
  const lastRow = Math.min(rows.length, first + maxSteps) - 1;
  const firstLine = first === 0 ? 1 : rows[first]!.line;
  const lastLine = lastRow === rows.length - 1 ? totalLines : rows[lastRow]!.line;
  if (firstLine === 1 && lastLine === totalLines) return null;
  const before = first === 0 ? undefined : rows[first - 1]!;
  return {
    bytes: journal.subarray(starts[firstLine - 1]!, starts[lastLine]!),
    window: {
      first_line: firstLine,
      // The expected seq is the number of rows walked before (the reference's count).
      first_seq: first,
      // (A row before without a string step_hash: the walk links nothing to it; '' stands for that.)
      anchor_hash: before === undefined ? ZERO_HASH : (before.step_hash ?? ''),
      total_lines: totalLines,
      total_steps: rows.length,
    },
    lastLine,
    steps: lastRow - first + 1,
  };
}

/**
 * A window of journal bytes in memory (a receipt's journal) that `verified` says verify: cut by the rows' index, as
 * a journal file's is (streamedWindow), reading only the window's rows; a 100,000-step receipt's `report
 * --max-steps 10` parsed every row for it (3 s of its 8.6). The same window as reportWindow's (a property test holds
 * them equal); bytes that do not verify go there.
 */
export function bytesWindow(
  journal: Buffer,
  verified: boolean,
  maxSteps: number,
  fromStep: number | undefined,
): Windowed | null {
  checkWindowArgs(maxSteps);
  const steps = verified
    ? verifiedOr(
        () => VerifiedSteps.fromBytes(journal, 'journal'),
        () => undefined,
      )
    : undefined;
  if (steps === undefined) return reportWindow(journal, maxSteps, fromStep);
  return streamedWindow(steps, (a, b) => journal.subarray(a, b), maxSteps, fromStep);
}

/**
 * The same window of a verified journal file, reading only its own rows (and the
 * byte range they span): memory does not grow with the journal. Null: the whole journal.
 */
export function streamedWindow(
  steps: VerifiedSteps,
  read: (start: number, end: number) => Buffer,
  maxSteps: number,
  fromStep: number | undefined,
): Windowed | null {
  checkWindowArgs(maxSteps);
  const total = steps.length;
  const first = firstRow(total, maxSteps, fromStep, (i) => steps.at(i)!.row.seq);
  const lastRow = Math.min(total, first + maxSteps) - 1;
  const firstLine = first === 0 ? 1 : steps.at(first)!.line;
  const lastLine = lastRow === total - 1 ? steps.lines : steps.at(lastRow)!.line;
  if (firstLine === 1 && lastLine === steps.lines) return null;
  const start = first === 0 ? 0 : steps.span(first).start;
  const end = lastRow === total - 1 ? steps.size : steps.span(lastRow).next;
  return {
    bytes: read(start, end),
    window: {
      first_line: firstLine,
      first_seq: first,
      anchor_hash: first === 0 ? ZERO_HASH : steps.at(first - 1)!.row.step_hash,
      total_lines: steps.lines,
      total_steps: total,
    },
    lastLine,
    steps: lastRow - first + 1,
  };
}
