import { readFileSync, statSync } from 'node:fs';
import { InputError } from '../errors';
import { ZERO_HASH } from '../util/hash';
import { ChainChecker, type Fault } from './chain';
import { scanSlices, type ChunkSource } from './parallel';
import { stitchFaults, stitchRefs } from './stitch';
import { canonicalOfRead } from '../canonical';
import { readRowLine, rowValue, type StepRow } from './row';

export interface VerifyOptions {
  /** The head the caller expects (e.g. from a signed receipt). */
  expectedHead?: string;
  /** Also report lines whose bytes are not the canonical encoding of their values. */
  strict?: boolean;
}

export interface VerifyResult {
  ok: boolean;
  head_hash: string;
  steps: number;
  errors: Fault[];
}

/** A well-formed row as read, with its 1-based line and the line's bytes (no newline). */
export interface JournalEntry {
  line: number;
  row: StepRow;
  bytes: Buffer;
  canonical: boolean;
}

export interface ReadJournal extends VerifyResult {
  entries: JournalEntry[];
}

/** Calls `fn(start, end, line, terminated)` for each line of `buf` (end excludes the newline). */
export function forEachLine(
  buf: Buffer,
  fn: (start: number, end: number, line: number, terminated: boolean) => void,
): void {
  let start = 0;
  let line = 1;
  while (start < buf.length) {
    const nl = buf.indexOf(0x0a, start);
    const end = nl < 0 ? buf.length : nl;
    fn(start, end, line, nl >= 0);
    start = end + 1;
    line++;
  }
}

/** The whole-journal faults that follow the walk: an empty file, a head other than expected. */
function addJournalFaults(errors: Fault[], size: number, head: string, options: VerifyOptions): void {
  if (size === 0) errors.push({ line: null, kind: 'empty_journal', message: 'journal has no steps' });
  if (options.expectedHead !== undefined && options.expectedHead !== head) {
    errors.push({ line: null, kind: 'head_mismatch', message: `head ${head}, expected ${options.expectedHead}` });
  }
}

/** The plain lossless walk, keeping every well-formed row (the sliced fast walk is checked against it). */
function walk(buf: Buffer, options: VerifyOptions): ReadJournal {
  const chain = new ChainChecker();
  const errors: Fault[] = [];
  const entries: JournalEntry[] = [];
  forEachLine(buf, (start, end, line, terminated) => {
    const bytes = buf.subarray(start, end);
    if (bytes.length === 0) {
      errors.push({ line, kind: 'malformed_json', message: 'empty line' });
      return;
    }
    const read = readRowLine(bytes);
    if (read.kind === 'malformed') {
      errors.push({ line, kind: 'malformed_json', message: read.reason });
      return;
    }
    errors.push(...chain.check(line, read.row, read.computedHash));
    if (options.strict && !read.canonical) {
      errors.push({ line, kind: 'non_canonical', message: 'line bytes are not the canonical encoding of the row' });
    }
    if (options.strict && !terminated) {
      errors.push({ line, kind: 'non_canonical', message: 'last line has no trailing newline' });
    }
    entries.push({ line, row: read.row, bytes, canonical: read.canonical });
  });
  const head = chain.steps > 0 ? chain.head : ZERO_HASH;
  addJournalFaults(errors, buf.length, head, options);
  return { ok: errors.length === 0, head_hash: head, steps: chain.steps, errors, entries };
}

/**
 * Verifies a journal: every fault with its line and kind (docs/format.md §2). Canonical
 * rows take the fast path (hashed from their bytes); large journals are walked
 * in parallel slices.
 */
function verifySource(
  source: ChunkSource,
  size: number,
  options: VerifyOptions,
  env?: NodeJS.ProcessEnv,
  refs?: string[],
): VerifyResult {
  const slices = scanSlices(source, 0, size, { strict: options.strict ?? false, collectRefs: refs !== undefined }, env);
  const { faults, head, steps } = stitchFaults(slices);
  if (refs !== undefined) refs.push(...stitchRefs(slices));
  addJournalFaults(faults, size, head, options);
  return { ok: faults.length === 0, head_hash: head, steps, errors: faults };
}

/** Verifies journal bytes (e.g. a receipt's journal member). */
export function verifyJournalBytes(buf: Buffer, options: VerifyOptions = {}, env?: NodeJS.ProcessEnv): VerifyResult {
  return verifySource({ kind: 'bytes', bytes: buf }, buf.length, options, env);
}

/** Verifies journal bytes and collects the rows' blob refs (first-occurrence order, unique). */
export function verifyJournalBytesWithRefs(
  buf: Buffer,
  options: VerifyOptions = {},
  env?: NodeJS.ProcessEnv,
): VerifyResult & { blob_refs: string[] } {
  const refs: string[] = [];
  return { ...verifySource({ kind: 'bytes', bytes: buf }, buf.length, options, env, refs), blob_refs: refs };
}

/**
 * A verified journal in canonical form, for receipts: the canonical lines (the
 * file's own bytes when every line already is canonical, else each row
 * re-encoded) and the blob refs. `result.ok` false means the chain does not
 * verify (the bytes are then not to be used).
 */
export function readCanonicalJournal(file: string): { result: VerifyResult; bytes: Buffer; blob_refs: string[] } {
  const raw = readJournalFileBytes(file);
  const strict = verifyJournalBytesWithRefs(raw, { strict: true });
  if (strict.ok) {
    const { blob_refs, ...result } = strict;
    return { result, bytes: raw, blob_refs };
  }
  const read = readJournalBytes(raw);
  const { entries, ...result } = read;
  if (!read.ok) return { result, bytes: Buffer.alloc(0), blob_refs: [] };
  const nl = Buffer.from('\n');
  const parts: Buffer[] = [];
  for (const e of entries)
    parts.push(e.canonical ? e.bytes : Buffer.from(canonicalOfRead(rowValue(e.row)), 'utf8'), nl);
  return { result, bytes: Buffer.concat(parts), blob_refs: strict.blob_refs };
}

/** Reads and verifies journal bytes, keeping the well-formed rows. */
export function readJournalBytes(buf: Buffer, options: VerifyOptions = {}): ReadJournal {
  return walk(buf, options);
}

/** The size of a journal file; a missing path or one that is not a file is an input error. */
function statJournalFile(file: string): number {
  let st;
  try {
    st = statSync(file);
  } catch {
    throw new InputError(`${file}: no such journal file`);
  }
  if (!st.isFile()) throw new InputError(`${file}: not a regular file`);
  return st.size;
}

/** Reads a journal file's bytes; a missing or unreadable file is an input error. */
export function readJournalFileBytes(file: string): Buffer {
  statJournalFile(file);
  try {
    return readFileSync(file);
  } catch (e) {
    throw new InputError(`${file}: cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

export function verifyJournalFile(file: string, options: VerifyOptions = {}, env?: NodeJS.ProcessEnv): VerifyResult {
  const size = statJournalFile(file);
  try {
    return verifySource({ kind: 'file', path: file }, size, options, env);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== undefined) throw new InputError(`${file}: cannot read: ${code}`);
    throw e;
  }
}

export function readJournalFile(file: string, options: VerifyOptions = {}): ReadJournal {
  return readJournalBytes(readJournalFileBytes(file), options);
}
