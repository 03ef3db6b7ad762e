import { DigestSet } from '../util/digest-set';
import type { RefSink } from '../util/digest-order';
import { ZERO_HASH } from '../util/hash';
import { hashText, type Fault } from './chain';
import type { ChunkOptions, ChunkSummary, MarkedRows, SliceSeed, UnhashedRows } from './chunk';
import { FAULT_ORDER as ORDER, FaultList, MAX_LISTED_FAULTS } from './faults';
import type { LineEnd } from './lines';
import { walkRanges, type ChunkSource, type ProgressFn } from './parallel';
import { JournalRecoveryError, type ChainState, type RecoveredTail } from './recover';

/** Where every n-th row of a journal starts: [row, byte offset, line], flattened (see readWindow). */
export interface RowIndex {
  every: number;
  points: number[];
  /** The prev_hash of each indexed row. */
  prevs: string[];
}

/** A whole walk put together: faults in line order with absolute lines, and where the chain ends. */
export interface Stitched {
  faults: FaultList;
  head: string;
  steps: number;
  lines: number;
  refs?: string[];
  /** With `collectRefs: 'packed'`: the refs, 32 raw bytes each (instead of `refs`). */
  refSet?: DigestSet;
  index?: RowIndex;
  /** Rows carrying keys outside the ten (absolute lines); absent when there are none. */
  unhashed?: UnhashedRows;
  /** With `markedValue`: the slices' MarkedRows together. */
  marked?: MarkedRows;
}

const short = hashText;

/**
 * The seed each slice should have been walked from. A slice walked without one
 * assumed its first row's seq for the rows before it; where that was wrong (a
 * deleted or duplicated row earlier), its seq faults are not final.
 */
function seedsOf(slices: ChunkSummary[], from: { steps: number; head: string | null }): (SliceSeed | null)[] {
  const out: (SliceSeed | null)[] = [];
  let steps = from.steps;
  let prev: string | null = from.head;
  for (const s of slices) {
    out.push(!s.seeded && s.rows > 0 && s.guessedBase !== steps ? { steps, prevHash: prev } : null);
    steps += s.rows;
    if (s.last !== undefined) prev = s.last.step_hash;
  }
  return out;
}

/** The link of a slice's first row to the previous slice's last row (unseeded slices). */
function boundaryFaults(s: ChunkSummary, line: number, steps: number, prev: string | null): Fault[] {
  const f = s.first;
  if (s.seeded || f === undefined) return [];
  const out: Fault[] = [];
  if (s.guessedBase !== steps && f.seq !== undefined)
    out.push({ line, kind: 'seq_mismatch', message: `seq ${String(f.seq)}, expected ${steps}` });
  if (f.prev_hash !== undefined && f.prev_hash !== prev)
    out.push({
      line,
      kind: 'prev_hash_mismatch',
      message:
        prev === null
          ? `chain break: prev_hash ${short(f.prev_hash)}, but the previous row has no step_hash string`
          : `chain break: prev_hash ${short(f.prev_hash)} does not match the previous step_hash ${short(prev)}`,
    });
  return out;
}

const shifted = (f: Fault, by: number): Fault =>
  f.line === null
    ? f
    : { ...f, line: f.line + by, ...(f.last_line === undefined ? {} : { last_line: f.last_line + by }) };

/** A slice walked with `maxRefs` met more distinct refs than that: its refs are to be walked again, in order. */
export class SliceRefsOver extends Error {
  override name = 'SliceRefsOver';
  constructor() {
    super('a slice met more distinct blob refs than it may hold');
  }
}

/**
 * Verification over slices (docs/journal.md): slices whose assumed position was
 * wrong are walked again from the right one, then every fault is put in line
 * order with absolute line numbers, the links between slices checked.
 * `refSink`: with `collectRefs: 'packed'`, where the refs go instead of a `refSet` of their own.
 */
export function stitchVerify(
  source: ChunkSource,
  slices: ChunkSummary[],
  options: ChunkOptions,
  env?: NodeJS.ProcessEnv,
  progress?: ProgressFn,
  refSink?: RefSink,
): Stitched {
  const seeds = seedsOf(slices, { steps: 0, head: ZERO_HASH });
  const again = seeds.flatMap((seed, k) => (seed === null ? [] : [k]));
  if (again.length > 0) {
    const redone = walkRanges(
      source,
      again.map((k) => [slices[k]!.start, slices[k]!.end] as [number, number]),
      again.map((k) => seeds[k]!),
      options,
      env,
      progress,
    );
    again.forEach((k, i) => (slices[k] = redone[i]!));
  }
  // A slice that kept none of its refs (`maxRefs`): the caller walks them again in order.
  if (slices.some((s) => s.refsOver === true)) throw new SliceRefsOver();
  const faults = new FaultList();
  const packed = options.collectRefs !== 'packed' ? undefined : (refSink ?? new DigestSet());
  const refs = options.collectRefs === true ? new Set<string>() : undefined;
  const index: RowIndex | undefined =
    options.indexEvery === undefined ? undefined : { every: options.indexEvery, points: [], prevs: [] };
  let steps = 0;
  let prev: string | null = ZERO_HASH;
  let lineBase = 0;
  let unhashed: UnhashedRows | undefined;
  const marked = options.markedValue === undefined ? undefined : { fields: new Set<string>(), blobRefs: false };
  for (const s of slices) {
    if (marked !== undefined && s.marked !== undefined) {
      for (const f of s.marked.fields) marked.fields.add(f);
      marked.blobRefs ||= s.marked.blobRefs;
    }
    const firstLine = s.first?.line ?? 0;
    const boundary = boundaryFaults(s, firstLine + lineBase, steps, prev);
    let placed = boundary.length === 0;
    for (const f of s.faults.list) {
      if (
        !placed &&
        f.line !== null &&
        (f.line > firstLine || (f.line === firstLine && ORDER[f.kind] > ORDER.seq_mismatch))
      ) {
        for (const b of boundary) faults.add(b);
        placed = true;
      }
      faults.add(shifted(f, lineBase));
    }
    if (!placed) for (const b of boundary) faults.add(b);
    if (s.faults.omitted > 0) faults.addOmitted(s.faults.omitted);
    if (refs !== undefined) for (const r of s.refs ?? []) refs.add(r);
    if (packed !== undefined && s.refBytes !== undefined) packed.addPacked(s.refBytes);
    if (s.unhashed !== undefined) {
      unhashed ??= { list: [], count: 0 };
      unhashed.count += s.unhashed.count;
      for (const u of s.unhashed.list)
        if (unhashed.list.length < MAX_LISTED_FAULTS) unhashed.list.push({ line: u.line + lineBase, keys: u.keys });
    }
    if (index !== undefined && s.index !== undefined) {
      const p = s.index;
      for (let i = 0; i < p.length; i += 3) index.points.push(steps + p[i]!, p[i + 1]!, lineBase + p[i + 2]!);
      for (const h of s.indexPrev ?? []) index.prevs.push(h);
    }
    steps += s.rows;
    if (s.last !== undefined) prev = s.last.step_hash;
    lineBase += s.lines;
  }
  const out: Stitched = { faults, head: steps > 0 ? (prev ?? '') : ZERO_HASH, steps, lines: lineBase };
  if (refs !== undefined) out.refs = Array.from(refs);
  if (packed instanceof DigestSet) out.refSet = packed;
  if (index !== undefined) out.index = index;
  if (marked !== undefined) out.marked = { fields: [...marked.fields], blobRefs: marked.blobRefs };
  if (unhashed !== undefined) out.unhashed = unhashed;
  return out;
}

/**
 * Recovery on open over slices walked with `recovery` (docs/journal.md, "Recovery
 * on open", fail-closed). Every line that parses as JSON is judged as a row: the
 * first fault refuses the journal. A line that does not parse is a torn tail only
 * when it is the only one and nothing that parses follows it; bytes after the last
 * line ending that do not parse are torn too. `end` is the end of the walked range,
 * `linesBefore` counts the lines before `from.offset` (only called to name a line).
 */
export function stitchRecovery(
  file: string,
  slices: ChunkSummary[],
  from: ChainState,
  end: number,
  linesBefore: () => number,
): RecoveredTail {
  let hard: Fault | undefined;
  let torn: { line: number; offset: number; reason: string } | undefined;
  let tornCount = 0;
  let parsedAfterTorn: number | undefined;
  let last: { next: number; ending: LineEnd } | undefined;
  let lastEnding: LineEnd | undefined;
  let steps = from.steps;
  let prev: string | null = from.head;
  let lineBase = 0;
  for (const s of slices) {
    const rec = s.recovery!;
    if (hard === undefined) {
      const firstLine = s.first?.line ?? 0;
      const candidates = [...boundaryFaults(s, firstLine, steps, prev), ...s.faults.list.slice(0, 4)];
      candidates.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || ORDER[a.kind] - ORDER[b.kind]);
      if (candidates[0] !== undefined) hard = shifted(candidates[0], lineBase);
    }
    if (rec.firstNonParsing !== undefined && torn === undefined)
      torn = { ...rec.firstNonParsing, line: rec.firstNonParsing.line + lineBase };
    if (torn !== undefined && parsedAfterTorn === undefined) {
      if (rec.parsingAfterNonParsing !== undefined) parsedAfterTorn = rec.parsingAfterNonParsing + lineBase;
      else if (rec.firstNonParsing === undefined && rec.firstParsing !== undefined)
        parsedAfterTorn = rec.firstParsing + lineBase;
    }
    tornCount += rec.nonParsing;
    if (rec.lastParsing !== undefined) last = rec.lastParsing;
    if (rec.lastEnding !== undefined) lastEnding = rec.lastEnding;
    steps += s.rows;
    if (s.last !== undefined) prev = s.last.step_hash;
    lineBase += s.lines;
  }

  // The earliest reason to refuse, named by its line in the whole file.
  let base: number | undefined;
  const abs = (rel: number): number => (base ??= linesBefore()) + rel;
  const refusals: { line: number; make: () => JournalRecoveryError }[] = [];
  if (hard !== undefined && hard.line !== null) {
    const f = hard;
    refusals.push({ line: f.line!, make: () => new JournalRecoveryError(file, abs(f.line!), f.kind, f.message) });
  }
  if (torn !== undefined && (parsedAfterTorn !== undefined || tornCount > 1)) {
    const t = torn;
    const why =
      parsedAfterTorn !== undefined
        ? `interior corruption: line ${abs(parsedAfterTorn)} after it parses as JSON, so this is no torn write`
        : `${tornCount} lines do not parse as JSON, and a torn write leaves at most one`;
    refusals.push({
      line: t.line,
      make: () => new JournalRecoveryError(file, abs(t.line), 'malformed_json', `${t.reason} (${why})`),
    });
  }
  refusals.sort((a, b) => a.line - b.line);
  if (refusals[0] !== undefined) throw refusals[0].make();

  const head = steps > 0 ? (prev ?? '') : from.head;
  const result: RecoveredTail = { validEnd: end, head, steps };
  const lastNext = last?.next ?? from.offset;
  if (last !== undefined && last.ending === 'eof') {
    // A complete row whose line ending never made it: the caller writes it.
    result.validEnd = lastNext;
    result.unterminatedRowEnd = lastNext;
  } else if (lastNext < end && (torn !== undefined || lastEnding === 'eof')) {
    // A line that does not parse, or bytes after the last line ending: moved aside.
    result.validEnd = lastNext;
    result.tornFrom = lastNext;
  }
  return result;
}
