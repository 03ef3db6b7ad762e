import { closeSync, readSync } from 'node:fs';
import { bufferView } from '../util/buffer-view';
import { openRegularFile, readRegularFile } from '../util/nofollow';
import { canonicalOfRead } from '../canonical';
import { InputError } from '../errors';
import type { Fault } from './chain';
import { scanChunk, type ChunkOptions } from './chunk';
import type { FaultList } from './faults';
import { scanSlices, type ChunkSource, type ProgressFn } from './parallel';
import { rowValue, type StepRow } from './row';
import { stitchVerify, type RowIndex, type Stitched } from './stitch';
import { noRowsFault } from './no-rows';

export interface VerifyOptions {
  /** The head the caller expects (e.g. from a signed receipt). */
  expectedHead?: string;
  /** Also report lines whose bytes are not the canonical encoding of their values. */
  strict?: boolean;
  /** Called now and then with the bytes walked so far (long walks: a terminal shows progress). */
  onProgress?: ProgressFn;
}

export interface VerifyResult {
  ok: boolean;
  head_hash: string;
  steps: number;
  /** In line order; runs of one kind on consecutive lines collapsed; at most MAX_LISTED_FAULTS entries. */
  errors: Fault[];
  /** Every fault found (a run of n counts n). */
  fault_count: number;
  /** Faults counted but not listed in `errors`. */
  errors_omitted: number;
  /**
   * Rows carrying keys outside the ten of the format (no hash covers them, so the chain holds whatever they
   * say): listed with their keys (at most MAX_LISTED_FAULTS rows), all counted. Absent when there are none.
   * Not a fault (the reference reads such rows); `strict` also reports each as non_canonical.
   */
  unhashed?: { rows: { line: number; keys: string[] }[]; count: number };
}

/** A row of the right shape as read, with its 1-based line and the line's bytes (stripped, no line ending). */
export interface JournalEntry {
  line: number;
  row: StepRow;
  bytes: Buffer;
  canonical: boolean;
}

export interface ReadJournal extends VerifyResult {
  entries: JournalEntry[];
}

/** The whole-journal faults after the walk of `bytes` bytes: no row where one was due, a head other than expected. */
function finish(s: Stitched, bytes: number, options: VerifyOptions): VerifyResult {
  const faults: FaultList = s.faults;
  const noRows = noRowsFault({
    bytes,
    steps: s.steps,
    // With no row walked, a malformed line is among the first listed faults (blank-line notes cannot fill the list first).
    malformedLines: faults.list.some((f) => f.kind === 'malformed_json'),
  });
  if (noRows !== undefined) faults.add(noRows);
  if (options.expectedHead !== undefined && options.expectedHead !== s.head) {
    faults.add({ line: null, kind: 'head_mismatch', message: `head ${s.head}, expected ${options.expectedHead}` });
  }
  return {
    ok: faults.total === 0,
    head_hash: s.head,
    steps: s.steps,
    errors: faults.list,
    fault_count: faults.total,
    errors_omitted: faults.omitted,
    ...(s.unhashed === undefined ? {} : { unhashed: { rows: s.unhashed.list, count: s.unhashed.count } }),
  };
}

function chunkOptions(options: VerifyOptions, extra: Partial<ChunkOptions>): ChunkOptions {
  return { strict: options.strict ?? false, ...extra };
}

/**
 * Verifies a journal (docs/journal.md): every fault with its line and kind.
 * Canonical rows take the fast path (hashed from their bytes); large journals
 * are walked in parallel slices.
 */
function verifySource(
  source: ChunkSource,
  size: number,
  options: VerifyOptions,
  env: NodeJS.ProcessEnv | undefined,
  extra: Partial<ChunkOptions> = {},
): { result: VerifyResult; stitched: Stitched } {
  const o = chunkOptions(options, extra);
  const slices = scanSlices(source, 0, size, o, env, options.onProgress);
  const stitched = stitchVerify(source, slices, o, env, options.onProgress);
  return { result: finish(stitched, size, options), stitched };
}

/** Verifies journal bytes (e.g. a receipt's journal member). */
export function verifyJournalBytes(
  buf: Uint8Array,
  options: VerifyOptions = {},
  env?: NodeJS.ProcessEnv,
): VerifyResult {
  return verifySource({ kind: 'bytes', bytes: bufferView(buf) }, buf.length, options, env).result;
}

/**
 * Verifies journal bytes and collects the rows' blob refs (first-occurrence order, unique). `longLineBytes`: a line
 * longer is taken only as a canonical row checked as it comes (ChunkOptions.longLineBytes: a receipt's journal).
 */
export function verifyJournalBytesWithRefs(
  buf: Uint8Array,
  options: VerifyOptions = {},
  env?: NodeJS.ProcessEnv,
  longLineBytes?: number,
): VerifyResult & { blob_refs: string[] } {
  const { result, stitched } = verifySource({ kind: 'bytes', bytes: bufferView(buf) }, buf.length, options, env, {
    collectRefs: true,
    ...(longLineBytes === undefined ? {} : { longLineBytes }),
  });
  return { ...result, blob_refs: stitched.refs ?? [] };
}

/** Verifies journal bytes with an index of where rows start (a receipt's journal, read a block at a time later). */
export function verifyJournalBytesIndexed(
  buf: Buffer,
  indexEvery: number,
  env?: NodeJS.ProcessEnv,
): VerifyResult & { index?: RowIndex; size: number; lines: number } {
  const { result, stitched } = verifySource({ kind: 'bytes', bytes: buf }, buf.length, {}, env, { indexEvery });
  return {
    ...result,
    size: buf.length,
    lines: stitched.lines,
    ...(stitched.index === undefined ? {} : { index: stitched.index }),
  };
}

/** Verifies a journal file with its blob refs and an index of where rows start (for windows read later). */
export function verifyJournalFileIndexed(
  file: string,
  options: VerifyOptions & { collectRefs?: boolean; indexEvery?: number } = {},
  env?: NodeJS.ProcessEnv,
): VerifyResult & { blob_refs?: string[]; index?: RowIndex; size: number; lines: number } {
  const { size, walked } = settledWalk(file, (at) =>
    fileErrors(file, () =>
      verifySource({ kind: 'file', path: file }, at, options, env, {
        ...(options.collectRefs ? { collectRefs: true } : {}),
        ...(options.indexEvery === undefined ? {} : { indexEvery: options.indexEvery }),
      }),
    ),
  );
  const { result, stitched } = walked;
  return {
    ...result,
    size,
    lines: stitched.lines,
    ...(stitched.refs === undefined ? {} : { blob_refs: stitched.refs }),
    ...(stitched.index === undefined ? {} : { index: stitched.index }),
  };
}

/** Past this size, readCanonicalJournal walks the file before it reads it whole (a second read of a journal that verifies). */
const VERIFIED_BEFORE_READ_BYTES = 128 * 1024 * 1024;

/**
 * A verified journal in canonical form, for receipts: the canonical lines (the
 * file's own bytes when every line already is canonical, else each row
 * re-encoded) and the blob refs. `result.ok` false means the chain does not
 * verify (the bytes are then not to be used).
 */
export function readCanonicalJournal(file: string): { result: VerifyResult; bytes: Buffer; blob_refs: string[] } {
  // A large journal is read whole only once its walk (bounded memory, a line of any length) says it verifies: one
  // that does not is refused without holding it (a 668 MB file with one huge line took 24 s and 2.8 GB to refuse).
  if (statJournalFile(file) > VERIFIED_BEFORE_READ_BYTES) {
    const walked = verifyJournalFile(file);
    if (!walked.ok) return { result: walked, bytes: Buffer.alloc(0), blob_refs: [] };
  }
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

/**
 * Reads and verifies journal bytes, keeping every row of the right shape (the
 * lossless walk, line by line; the fast sliced walk is checked against it).
 */
export function readJournalBytes(buf: Buffer, options: VerifyOptions = {}): ReadJournal {
  const entries: JournalEntry[] = [];
  const o = chunkOptions(options, { fast: false });
  const slice = scanChunk(buf, 0, buf.length, 0, o, undefined, (line, _view, row, bytes, canonical) => {
    if (row !== undefined) entries.push({ line, row, bytes: Buffer.from(bytes!), canonical });
  });
  const result = finish(stitchVerify({ kind: 'bytes', bytes: buf }, [slice], o), buf.length, options);
  return { ...result, entries };
}

/** Every row walked (every JSON object line, whatever its shape): its line, seq and stored step_hash. */
export function walkedRows(buf: Buffer): { line: number; seq: unknown; step_hash: string | null }[] {
  const rows: { line: number; seq: unknown; step_hash: string | null }[] = [];
  scanChunk(buf, 0, buf.length, 0, { strict: false, fast: false }, undefined, (line, view) =>
    rows.push({ line, seq: view.seq, step_hash: view.step_hash ?? null }),
  );
  return rows;
}

/**
 * The size of a journal file; a missing path, a link, or anything but a regular
 * file (a FIFO would hang a reader) is an input error naming it.
 */
function statJournalFile(file: string): number {
  const opened = openRegularFile(file);
  if (opened === undefined) throw new InputError(`${file}: no such journal file`);
  closeSync(opened.fd);
  return opened.size;
}

/** OS errors while reading a journal are input errors naming the file. */
function fileErrors<T>(file: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== undefined && !(e instanceof InputError)) throw new InputError(`${file}: cannot read: ${code}`);
    throw e;
  }
}

/** Reads a journal file's bytes; a missing or unreadable file is an input error. */
export function readJournalFileBytes(file: string): Buffer {
  // A whole read covers what it got, and its last byte is in hand: nothing read twice.
  return settledWalk(
    file,
    () => readJournalFileOnce(file),
    (bytes) => ({ size: bytes.length, endsLine: bytes.length === 0 || bytes[bytes.length - 1] === 0x0a }),
  ).walked;
}

function readJournalFileOnce(file: string): Buffer {
  const bytes = readRegularFile(file);
  if (bytes === undefined) throw new InputError(`${file}: no such journal file`);
  return bytes;
}

/** How many times a walk is made again because an append was being written when it began (see settledWalk). */
const SETTLE_TRIES = 3;

/**
 * A walk of a journal file an append may be writing. Planned on the size the file has when it begins, it can end
 * inside a row still being written (a large row reaches the file in pieces), which would read as a torn line: a
 * false fault. When the walk's last byte is not a newline and the file has grown since, it is made again on the new
 * size, at most SETTLE_TRIES times (a torn line at rest, or a writer that never pauses, is reported as it is).
 * `covered` says, for a walk that chose its size itself (a whole read), what it covered and whether it ended a line.
 */
function settledWalk<T>(
  file: string,
  walk: (size: number) => T,
  covered?: (walked: T) => { size: number; endsLine: boolean },
): { size: number; walked: T } {
  let size = covered === undefined ? statJournalFile(file) : 0;
  for (let tries = 1; ; tries++) {
    const walked = walk(size);
    const c = covered?.(walked);
    if (c !== undefined) size = c.size;
    const endsLine = c?.endsLine ?? (size === 0 || lastByteIsNewline(file, size));
    if (tries >= SETTLE_TRIES || endsLine) return { size, walked };
    let now: number;
    try {
      now = statJournalFile(file);
    } catch {
      return { size, walked }; // gone meanwhile: the walk stands as made
    }
    if (now <= size) return { size, walked };
    size = now;
  }
}

/** Whether byte `size - 1` of the file is a newline (false when it cannot be read: no second walk then). */
function lastByteIsNewline(file: string, size: number): boolean {
  const opened = openRegularFile(file);
  if (opened === undefined) return true;
  try {
    const b = Buffer.alloc(1);
    return readSync(opened.fd, b, 0, 1, size - 1) !== 1 || b[0] === 0x0a;
  } catch {
    return true;
  } finally {
    closeSync(opened.fd);
  }
}

/**
 * Verifies the first `end` bytes of a journal file (no more than it holds):
 * the prefix a checkpoint vouched for, walked to learn which row ends it.
 */
export function verifyJournalFilePrefix(file: string, end: number, env?: NodeJS.ProcessEnv): VerifyResult {
  const size = Math.min(end, statJournalFile(file));
  return fileErrors(file, () => verifySource({ kind: 'file', path: file }, size, {}, env).result);
}

export function verifyJournalFile(file: string, options: VerifyOptions = {}, env?: NodeJS.ProcessEnv): VerifyResult {
  return settledWalk(file, (size) =>
    fileErrors(file, () => verifySource({ kind: 'file', path: file }, size, options, env).result),
  ).walked;
}

export function readJournalFile(file: string, options: VerifyOptions = {}): ReadJournal {
  return readJournalBytes(readJournalFileBytes(file), options);
}
