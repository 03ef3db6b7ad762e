import { InputError } from '../errors';
import { FaultList, MAX_LISTED_FAULTS } from '../journal/faults';
import { forEachReferenceLine, strippedLine } from '../journal/lines';
import { CAPABILITIES, CAPABILITY_EVENT, checkMutationRow, MUTATION_EVENT } from './provider-state';
import { computeEventHash, readRunLine, RUN_GENESIS, type RunRow } from './row';
import { readRegularFile } from '../util/nofollow';
import { pluralWord } from '../util/words';

export type RunFaultKind =
  | 'malformed_json'
  | 'index_mismatch'
  | 'prev_hash_mismatch'
  | 'payload_hash_mismatch'
  | 'event_hash_mismatch'
  | 'content_address_mismatch'
  | 'flagged_mutation'
  | 'bad_capability'
  | 'capability_conflict'
  | 'non_canonical'
  /** An authenticated checkpoint recorded more than the file holds now (docs/journal.md, "Rollback"). */
  | 'rollback';

/**
 * One fault: its 1-based line (0: the whole file, a `rollback`), the 0-based row index (null when the line is not a
 * row), kind, message. A run of
 * the same kind on consecutive lines is one entry (`last_line`, `count`; `index` and `message` are the first's).
 */
export interface RunFault {
  line: number;
  index: number | null;
  kind: RunFaultKind;
  message: string;
  last_line?: number;
  count?: number;
}

export interface RunVerifyResult {
  /** Chain intact, every content address matches, no flagged mutation, capabilities consistent. */
  ok: boolean;
  /** The hash chain alone (prev_hash links, payload and event hashes, indices, well-formed lines). */
  chain_ok: boolean;
  /** Rows walked. */
  count: number;
  /** docs/format.md §6 aliases: `steps` = count, `head_hash` = the last stored event_hash ("" for an empty journal). */
  steps: number;
  head_hash: string;
  /** The first row whose chain does not hold, with its recomputed and its stored event hash. */
  divergent_index: number | null;
  expected_hash: string | null;
  actual_hash: string | null;
  /**
   * What broke first at that row (its first fault: `index_mismatch: index 5, expected 3`): the two hashes are the same
   * when a field the event hash does not hold as stored (`index`, `prev_hash`) was edited.
   */
  divergent_reason: string | null;
  mutation_count: number;
  flagged_indices: number[];
  capabilities: { adapter: string; capability: string }[];
  /** The faults, runs collapsed and at most MAX_LISTED_FAULTS entries (docs/journal.md, "Fault output"). */
  errors: RunFault[];
  /** Every fault (a run of n counts n). */
  fault_count: number;
  /** Faults counted but not listed. */
  errors_omitted: number;
  /** With `hashAt`: the stored event_hash of the row at that index, when the journal holds it. */
  hash_at?: string;
}

export interface RunVerifyOptions {
  /** Also report lines whose bytes are not `json.dumps(row)` of their values. */
  strict?: boolean;
  /** How many fault entries to list (default MAX_LISTED_FAULTS); the rest are counted. */
  maxListed?: number;
  /** Keep every row in `entries` (default true; a verdict alone does not need them, and they cost memory). */
  keepEntries?: boolean;
  /** Record the stored event_hash of the row at this index in `hash_at` (the rollback rule's evidence). */
  hashAt?: number;
  /** Walk lines that follow a chain already read: the event_hash they link to and the index of the first. */
  seed?: { prev_hash: string; index: number };
}

/** A well-formed row with where it was read. */
export interface RunEntry {
  line: number;
  row: RunRow;
}

export interface ReadRunJournal extends RunVerifyResult {
  entries: RunEntry[];
}

// Hashes in full: a fault message is evidence, and JSON output never carries a cut hash.
const short = (h: string): string => (h.length > 16 ? h : JSON.stringify(h));

/**
 * Verifies run journal bytes (docs/format.md §5): recomputes every payload and event hash
 * from genesis, checks `prev_hash` links and indices, every mutation's content
 * address, flags, and one capability per adapter. Every fault is reported with
 * its line and index; the chain follows the stored hashes, so one edit is
 * reported once. A malformed line does not advance the index.
 */
export function readRunJournalBytes(buf: Buffer, options: RunVerifyOptions = {}): ReadRunJournal {
  // Flagged mutations are findings about the run, each its own (kind, step): listed one by one, up to the cap.
  const errors = new FaultList<RunFault>(
    options.maxListed ?? MAX_LISTED_FAULTS,
    (_, f) => f.kind !== 'flagged_mutation',
  );
  const entries: RunEntry[] = [];
  const flagged: number[] = [];
  const capabilities = new Map<string, string>();
  let prev = options.seed?.prev_hash ?? RUN_GENESIS;
  let index = options.seed?.index ?? 0;
  let mutations = 0;
  let divergent: { index: number; expected: string; actual: string; reason: string } | undefined;
  let hashAt: string | undefined;
  let chainOk = true;
  // Lines as the reference reads them (docs/journal.md, "Reading rules"): universal newlines, str.strip(), blank lines skipped.
  let line = 0;
  forEachReferenceLine(buf, 0, buf.length, (start, end, _next, ending) => {
    line++;
    const raw = buf.subarray(start, end);
    const stripped = strippedLine(raw);
    if (stripped === undefined) {
      if (options.strict) errors.add({ line, index: null, kind: 'non_canonical', message: 'blank line' });
      return;
    }
    const read = readRunLine(stripped);
    const terminated = ending !== 'eof';
    if (read.kind === 'malformed') {
      chainOk = false;
      errors.add({ line, index: null, kind: 'malformed_json', message: read.reason });
      return;
    }
    // Whitespace around the row, or a carriage return ending it: the reference reads it; strict mode notes it.
    if (stripped !== raw || (ending !== 'lf' && ending !== 'eof')) read.canonical = false;
    const { row } = read;
    const i = index;
    const fault = (kind: RunFaultKind, message: string): void => void errors.add({ line, index: i, kind, message });
    const expected = computeEventHash(prev, row.event, read.computedPayloadHash, i);
    const broken = linkFaults(row, read.computedPayloadHash, prev, i, expected, fault);
    if (broken !== undefined) {
      chainOk = false;
      divergent ??= { index: i, expected, actual: row.event_hash, reason: broken };
    }
    if (options.strict && !read.canonical) fault('non_canonical', 'line bytes are not json.dumps(row) of its values');
    if (options.strict && !terminated) fault('non_canonical', 'last line has no trailing newline');
    if (row.event === MUTATION_EVENT) mutations++;
    if (eventFaults(row, fault, capabilities)) flagged.push(i);
    if (options.keepEntries !== false) entries.push({ line, row });
    if (i === options.hashAt) hashAt = row.event_hash;
    prev = row.event_hash;
    index++;
  });
  return {
    ok: errors.total === 0,
    chain_ok: chainOk,
    count: index,
    steps: index,
    head_hash: prev,
    divergent_index: divergent?.index ?? null,
    expected_hash: divergent?.expected ?? null,
    actual_hash: divergent?.actual ?? null,
    divergent_reason: divergent?.reason ?? null,
    mutation_count: mutations,
    flagged_indices: flagged,
    capabilities: [...capabilities].map(([adapter, capability]) => ({ adapter, capability })),
    errors: errors.list,
    fault_count: errors.total,
    errors_omitted: errors.omitted,
    ...(hashAt === undefined ? {} : { hash_at: hashAt }),
    entries,
  };
}

/** The chain rules of one row at index `i` after `prev`; where the chain breaks there, its first fault (`kind: message`). */
function linkFaults(
  row: RunRow,
  computedPayloadHash: string,
  prev: string,
  i: number,
  expected: string,
  fault: (kind: RunFaultKind, message: string) => void,
): string | undefined {
  let first: string | undefined;
  const broke = (kind: RunFaultKind, message: string): void => {
    first ??= `${kind}: ${message}`;
    fault(kind, message);
  };
  if (row.index !== i) broke('index_mismatch', `index ${row.index}, expected ${i}`);
  if (row.prev_hash !== prev)
    broke(
      'prev_hash_mismatch',
      `chain break: prev_hash ${short(row.prev_hash)} does not match the previous event_hash ${short(prev)}`,
    );
  if (row.payload_hash !== computedPayloadHash)
    broke(
      'payload_hash_mismatch',
      `payload tamper: stored payload_hash ${short(row.payload_hash)}, recomputed ${short(computedPayloadHash)}`,
    );
  if (row.event_hash !== expected)
    broke('event_hash_mismatch', `stored event_hash ${short(row.event_hash)}, recomputed ${short(expected)}`);
  return first;
}

/**
 * The rules of a provider-state row: a mutation's content address (and its
 * flag: returns true for a flagged mutation), one capability per adapter.
 */
function eventFaults(
  row: RunRow,
  fault: (kind: RunFaultKind, message: string) => void,
  capabilities: Map<string, string>,
): boolean {
  if (row.event === MUTATION_EVENT) {
    const bad = checkMutationRow(row.payload);
    if (bad !== undefined) fault('content_address_mismatch', `${MUTATION_EVENT}: ${bad}`);
    if (row.payload.get('flagged') !== true) return false;
    fault(
      'flagged_mutation',
      `flagged provider-side mutation (${String(row.payload.get('mutation_kind'))}) arrived in deterministic mode`,
    );
    return true;
  }
  if (row.event !== CAPABILITY_EVENT) return false;
  const adapter = row.payload.get('adapter');
  const capability = row.payload.get('capability');
  if (
    typeof adapter !== 'string' ||
    typeof capability !== 'string' ||
    !(CAPABILITIES as readonly string[]).includes(capability)
  ) {
    fault('bad_capability', `${CAPABILITY_EVENT}: needs a string adapter and capability observed or declared-blind`);
  } else if (capabilities.has(adapter) && capabilities.get(adapter) !== capability) {
    fault(
      'capability_conflict',
      `adapter ${JSON.stringify(adapter)} recorded as ${capabilities.get(adapter)} and as ${capability} in one run`,
    );
  } else {
    capabilities.set(adapter, capability);
  }
  return false;
}

export function readRunJournalFileBytes(file: string): Buffer {
  const bytes = readRegularFile(file);
  if (bytes === undefined) throw new InputError(`${file}: no such run journal`);
  return bytes;
}

export function readRunJournalFile(file: string, options: RunVerifyOptions = {}): ReadRunJournal {
  return readRunJournalBytes(readRunJournalFileBytes(file), options);
}

/** The verify result for a run journal file (the shape `run verify --json` prints). */
export function verifyRunJournal(file: string, options: RunVerifyOptions = {}): RunVerifyResult {
  const { entries: _entries, ...result } = readRunJournalFile(file, { ...options, keepEntries: false });
  return result;
}

/** `file:line: kind at index N: message` for one fault; a run reads `file:first-last: kind: N faults ..., the first: ...`. */
export function describeRunFault(file: string, f: RunFault): string {
  const at = f.index === null ? '' : ` at index ${f.index}`;
  // Line 0: a fault of the whole file (a rollback).
  if (f.line === 0) return `${file}: ${f.kind}${at}: ${f.message}`;
  if (f.last_line === undefined || f.count === undefined) return `${file}:${f.line}: ${f.kind}${at}: ${f.message}`;
  return `${file}:${f.line}-${f.last_line}: ${f.kind}: ${f.count.toLocaleString('en-US')} faults on consecutive lines, the first${at}: ${f.message}`;
}

/** The fault lines to print for a result: one per listed entry, then one counting what was left out. */
export function describeRunFaults(file: string, r: Pick<RunVerifyResult, 'errors' | 'errors_omitted'>): string[] {
  const out = r.errors.map((f) => describeRunFault(file, f));
  if (r.errors_omitted > 0)
    out.push(
      `${file}: … and ${r.errors_omitted.toLocaleString('en-US')} more ${pluralWord(r.errors_omitted, 'fault')} not listed`,
    );
  return out;
}
