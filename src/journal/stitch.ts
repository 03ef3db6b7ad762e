import { ZERO_HASH } from '../util/hash';
import { ChainChecker, type Fault } from './chain';
import type { ChunkSummary } from './chunk';
import { JournalRecoveryError, type ChainState, type RecoveredTail } from './recover';

/** Walks the slices in order, checking each slice's first row against the previous slice's last. */
function eachSlice(
  slices: ChunkSummary[],
  from: { head: string; steps: number },
  visit: (s: ChunkSummary, lineBase: number, boundary: readonly Fault[]) => void,
): { head: string; steps: number } {
  const chain = new ChainChecker();
  chain.prevHash = from.head;
  chain.expectedSeq = from.steps;
  let steps = from.steps;
  let head = from.head;
  let lineBase = 0;
  for (const s of slices) {
    const boundary = s.first === undefined ? [] : chain.link(lineBase + s.first.line, s.first);
    visit(s, lineBase, boundary);
    if (s.last !== undefined) {
      chain.expectedSeq = s.last.seq + 1;
      chain.prevHash = s.last.step_hash;
      head = s.last.step_hash;
    }
    steps += s.rows;
    lineBase += s.lines;
  }
  return { head, steps };
}

/** All faults of a verify, in line order, with absolute line numbers. */
export function stitchFaults(slices: ChunkSummary[]): { faults: Fault[]; head: string; steps: number } {
  const faults: Fault[] = [];
  const end = eachSlice(slices, { head: ZERO_HASH, steps: 0 }, (s, lineBase, boundary) => {
    let placed = false;
    for (const f of s.faults) {
      if (!placed && s.first !== undefined && f.line !== null && f.line >= s.first.line) {
        faults.push(...boundary);
        placed = true;
      }
      faults.push({ ...f, line: f.line === null ? null : f.line + lineBase });
    }
    if (!placed) faults.push(...boundary);
  });
  return { faults, head: end.steps > 0 ? end.head : ZERO_HASH, steps: end.steps };
}

/** The blob refs of all slices: first-occurrence order, no duplicates. */
export function stitchRefs(slices: ChunkSummary[]): string[] {
  const seen = new Set<string>();
  for (const s of slices) for (const r of s.refs ?? []) seen.add(r);
  return [...seen];
}

/**
 * Recovery on open over slices (docs/format.md §2, fail-closed): the first chain fault is
 * an error; a malformed line followed by any well-formed row is interior
 * corruption; malformed lines after the last row are a torn tail.
 */
export function stitchRecovery(file: string, slices: ChunkSummary[], from: ChainState): RecoveredTail {
  let firstBad: { line: number; offset: number; reason: string } | undefined;
  let validEnd = from.offset;
  let unterminated = false;
  eachSlice(slices, from, (s, lineBase, boundary) => {
    const line = (rel: number): number => from.steps + lineBase + rel;
    if (firstBad !== undefined && s.first !== undefined) {
      throw new JournalRecoveryError(
        file,
        firstBad.line,
        'malformed_json',
        `${firstBad.reason} (interior corruption: a well-formed row follows at line ${line(s.first.line)})`,
      );
    }
    if (s.firstMalformed !== undefined && s.rowAfterMalformed !== undefined) {
      throw new JournalRecoveryError(
        file,
        line(s.firstMalformed.line),
        'malformed_json',
        `${s.firstMalformed.reason} (interior corruption: a well-formed row follows at line ${line(s.rowAfterMalformed)})`,
      );
    }
    const chainFaults = [
      ...boundary.map((f) => ({ ...f, line: (f.line ?? 0) - lineBase })),
      ...s.faults.filter((f) => f.kind !== 'malformed_json'),
    ];
    chainFaults.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
    const f = chainFaults[0];
    if (f !== undefined) throw new JournalRecoveryError(file, line(f.line ?? 0), f.kind, f.message);
    if (s.rows > 0) {
      validEnd = s.lastRowEnd;
      unterminated = s.lastRowUnterminated;
    }
    if (s.firstMalformed !== undefined) firstBad ??= { ...s.firstMalformed, line: line(s.firstMalformed.line) };
  });
  const { head, steps } = eachSlice(slices, from, () => undefined);
  const result: RecoveredTail = { validEnd, head, steps };
  // A final row without its newline ends at validEnd; the caller completes the line.
  if (unterminated) result.unterminatedRowEnd = validEnd;
  if (firstBad !== undefined) result.tornFrom = validEnd;
  return result;
}
