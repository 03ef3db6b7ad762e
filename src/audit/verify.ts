import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import {
  decodeUtf8,
  isJsonObject,
  JsonParseError,
  parse,
  valueStartError,
  type JsonObject,
  type JsonValue,
} from '../canonical';
import { InputError } from '../errors';
import { auditHmacOfText, computeAuditHmac, ENTRY_KEYS, GENESIS_HMAC, prettySortedOfRead, withoutHmac } from './entry';
import { fastAuditLine } from './fast-entry';
import { FaultList, MAX_LISTED_FAULTS } from '../journal/faults';
import { auditFiles } from './layout';
import { notADirectory, readExistingFile, refuseLinkedStoreDirs } from '../util/nofollow';
import { plural, pluralWord } from '../util/words';

export type AuditFaultKind =
  | 'malformed_json'
  | 'missing_field'
  | 'non_canonical'
  | 'missing_newline'
  | 'prev_hmac_mismatch'
  | 'hmac_mismatch'
  | 'no_audit_log'
  | 'empty_audit_log'
  | 'unreadable_archive'
  /** An authenticated checkpoint recorded more than the log holds now (docs/journal.md, "Rollback"). */
  | 'rollback';

/**
 * One fault: the file (name inside the audit directory), its 1-based line, a
 * kind, one line of message. A fault of the whole log (`no_audit_log`,
 * `empty_audit_log`) has file `''` and line 0.
 */
export interface AuditFault {
  file: string;
  line: number;
  kind: AuditFaultKind;
  message: string;
  /** A run of the same kind on consecutive lines of one file is one entry (`message` is the first's). */
  last_line?: number;
  count?: number;
}

export interface AuditVerifyResult {
  ok: boolean;
  /** The last stored hmac walked (64 zeros for an empty log). */
  head_hmac: string;
  entries: number;
  files: string[];
  /** The faults, runs collapsed and at most MAX_LISTED_FAULTS entries (docs/journal.md, "Fault output"). */
  errors: AuditFault[];
  /** Every fault (a run of n counts n). */
  fault_count: number;
  /** Faults counted but not listed. */
  errors_omitted: number;
  /** With `hashAt`: the stored hmac of the entry at that index (0-based, archived days first), when the log holds it. */
  hash_at?: string;
}

/** A parsed line of the log with where it is. */
export interface AuditLine {
  file: string;
  line: number;
  bytes: Buffer;
  /** The parsed object, or why the line is not one. */
  entry: JsonObject | undefined;
  error?: string;
  canonical: boolean;
}

/**
 * The lines of one segment of the log, `\n`-framed as the reference frames them
 * (a `\v` or `\r` stays inside the line and fails the canonical check); empty
 * lines are skipped, as the reference skips them. `count` is every line, blank ones
 * included. `file` is the segment's name inside the audit directory (`archive/…`
 * for an archived day, whose bytes are given).
 */
export function readAuditLines(
  dir: string,
  file: string,
  bytes?: Buffer,
): { lines: AuditLine[]; terminated: boolean; count: number } {
  let buf: Buffer;
  if (bytes !== undefined) buf = bytes;
  else {
    buf = readExistingFile(path.join(dir, file));
  }
  const lines: AuditLine[] = [];
  const { terminated, count } = eachLine(buf, (n, start, end) => {
    lines.push(readLine(file, n, buf.subarray(start, end)));
  });
  return { lines, terminated, count };
}

/**
 * Calls `line` with the 1-based number and byte range of each non-empty `\n`-framed line of `buf` (the framing
 * `readAuditLines` describes); `count` is every line, blank ones included.
 */
export function eachLine(
  buf: Buffer,
  line: (n: number, start: number, end: number) => void,
): { terminated: boolean; count: number } {
  let start = 0;
  let n = 0;
  while (start < buf.length) {
    const nl = buf.indexOf(0x0a, start);
    const end = nl < 0 ? buf.length : nl;
    n++;
    if (end > start) line(n, start, end);
    start = end + 1;
  }
  return { terminated: buf.length === 0 || buf[buf.length - 1] === 0x0a, count: n };
}

/** An archived day: `archive/<day>.jsonl.gz`, read before the live files. */
export interface ArchivedSegment {
  /** `archive/<name>` (the name faults carry). */
  name: string;
  path: string;
}

/** The largest archived day read (decompressed): a bigger one is a fault, not a memory blow-up. */
export const MAX_ARCHIVED_SEGMENT_BYTES = 1024 * 1024 * 1024;

/**
 * The archived days under `<dir>/archive/`, in chain order as the reference
 * orders them: by the date their name starts with, names without a date last
 * (so a renamed archive cannot jump ahead), the name breaking ties.
 */
export function archivedSegments(dir: string): ArchivedSegment[] {
  const archive = path.join(dir, 'archive');
  const notDir = notADirectory(dir);
  if (notDir !== undefined) throw notDir;
  let names: string[];
  try {
    refuseLinkedStoreDirs(archive);
    // A file or a FIFO in the archive's place is refused, not read as "no archived days": whoever put it there
    // may have taken the days out of the chain, and verify would only say the log is empty or starts mid-chain.
    const notArchiveDir = notADirectory(archive);
    if (notArchiveDir !== undefined) throw notArchiveDir;
    names = readdirSync(archive);
  } catch (e) {
    if (e instanceof InputError) throw e;
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new InputError(`${archive}: cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const key = (name: string): [number, string, string] => {
    const token = name.split('.', 1)[0]!;
    return isDate(token) ? [0, token, name] : [1, '', name];
  };
  return names
    .filter((n) => n.endsWith('.jsonl.gz'))
    .map((n) => ({ n, k: key(n) }))
    .sort((a, b) => a.k[0] - b.k[0] || cmp(a.k[1], b.k[1]) || cmp(a.k[2], b.k[2]))
    .map(({ n }) => ({ name: `archive/${n}`, path: path.join(archive, n) }));
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** `YYYY-MM-DD` naming a real day (what Python's strptime("%Y-%m-%d") accepts, zero-padded). */
function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(s);
  if (m === null) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(Date.UTC(y, mo - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d;
}

/** An archived day's original bytes, or why it cannot be read. */
export function readArchivedSegment(seg: ArchivedSegment): Buffer | string {
  let gz: Buffer;
  try {
    gz = readExistingFile(seg.path);
  } catch (e) {
    if (e instanceof InputError) return e.message.replace(`${seg.path}: `, '');
    return `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`;
  }
  try {
    // node:zlib is loaded only for an archived day (each audited append imports this module and reads none).
    return process.getBuiltinModule('node:zlib').gunzipSync(gz, { maxOutputLength: MAX_ARCHIVED_SEGMENT_BYTES });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ERR_BUFFER_TOO_LARGE') return `decompresses to more than ${MAX_ARCHIVED_SEGMENT_BYTES} bytes`;
    return `not a readable gzip file (${code ?? (e as Error).message})`;
  }
}

function notJson(file: string, line: number, bytes: Buffer, why: string): AuditLine {
  return { file, line, bytes, entry: undefined, error: `not JSON: ${why}`, canonical: false };
}

/** One line read the slow way: parsed, then encoded to check it is canonical. */
export function readLine(file: string, line: number, bytes: Buffer): AuditLine {
  let text: string;
  let value: JsonValue;
  try {
    text = decodeUtf8(bytes);
    // A garbage line is answered without the parser's exception (see valueStartError).
    const garbage = valueStartError(text);
    if (garbage !== undefined) return notJson(file, line, bytes, garbage);
    value = parse(text);
  } catch (e) {
    const why =
      e instanceof JsonParseError
        ? e.message
        : e instanceof RangeError
          ? 'line too large or too deeply nested'
          : String(e);
    return notJson(file, line, bytes, why);
  }
  if (!isJsonObject(value))
    return { file, line, bytes, entry: undefined, error: 'not a JSON object', canonical: false };
  let canonical: boolean;
  try {
    canonical = prettySortedOfRead(value) === text;
  } catch {
    canonical = false;
  }
  return { file, line, bytes, entry: value, canonical };
}

/**
 * Verifies the whole audit chain in `dir` under `key`: the archived days
 * (`archive/*.jsonl.gz`, in date order; an unreadable one stops the walk, as no
 * link past it can be checked), then every `*.jsonl` file in name order (so the
 * chain runs across days), empty lines skipped, every line byte-identical to
 * `pretty_sorted(entry)`, each `prev_hmac` the previous entry's `hmac` (64
 * zeros at genesis), each `hmac` recomputed. Reports every fault with its
 * file and line; the chain follows the stored hmac, so one edit is reported once.
 */
export function verifyAuditLog(dir: string, key: Uint8Array, options: AuditVerifyOptions = {}): AuditVerifyResult {
  const archived = archivedSegments(dir);
  const live = auditFiles(dir);
  const files = [...archived.map((a) => a.name), ...live];
  // Bounded whatever the log holds; a run stays within one file (line numbers restart in each).
  const errors = new FaultList<AuditFault>(MAX_LISTED_FAULTS, (a, b) => a.file === b.file);
  const done = (): AuditVerifyResult => ({
    ok: errors.total === 0,
    head_hmac: prev,
    entries,
    files,
    errors: errors.list,
    fault_count: errors.total,
    errors_omitted: errors.omitted,
    ...(hashAt === undefined ? {} : { hash_at: hashAt }),
  });
  let prev = GENESIS_HMAC;
  let entries = 0;
  let hashAt: string | undefined;
  // Archived days first (the reference's order), then the live files: one chain.
  const segments: { file: string; bytes?: Buffer }[] = [];
  for (const a of archived) {
    const bytes = readArchivedSegment(a);
    if (typeof bytes === 'string') {
      // No linkage can be established past it: stop here, as the reference does.
      errors.add({ file: a.name, line: 0, kind: 'unreadable_archive', message: `archived day ${bytes}` });
      return done();
    }
    segments.push({ file: a.name, bytes });
  }
  for (const f of live) segments.push({ file: f, ...repairedView(dir, f, options.repaired) });
  for (const { file, bytes } of segments) {
    const buf = bytes ?? readExistingFile(path.join(dir, file));
    // One latin1 view of the file for the fast path (a canonical line is ASCII, so its units are its bytes).
    const text = buf.toString('latin1');
    const { terminated, count } = eachLine(buf, (n, start, end) => {
      const fast = fastAuditLine(text, start, end);
      if (fast !== undefined) {
        // Canonical, with every key and a plain-string hmac and prev_hmac: what the slow path finds, without its
        // parse and two encodes (src/audit/fast-entry.ts).
        if (entries === options.hashAt) hashAt = fast.hmac;
        entries++;
        if (fast.prev !== prev)
          errors.add({
            file,
            line: n,
            kind: 'prev_hmac_mismatch',
            message: `chain break: prev_hmac ${fast.prev}, expected ${prev}`,
          });
        const expected = auditHmacOfText(key, prev, fast.body);
        if (fast.hmac !== expected)
          errors.add({
            file,
            line: n,
            kind: 'hmac_mismatch',
            message: `HMAC mismatch: stored ${fast.hmac}, recomputed ${expected} (entry edited, or another key)`,
          });
        prev = fast.hmac;
        return;
      }
      const l = readLine(file, n, buf.subarray(start, end));
      const fault = (kind: AuditFaultKind, message: string): void =>
        void errors.add({ file, line: l.line, kind, message });
      if (l.entry === undefined) {
        fault('malformed_json', l.error ?? 'malformed');
        return;
      }
      const e = l.entry;
      if (entries === options.hashAt && typeof e.hmac === 'string') hashAt = e.hmac;
      entries++;
      const missing = [...ENTRY_KEYS, 'hmac'].filter((k) => !Object.prototype.hasOwnProperty.call(e, k));
      if (missing.length > 0) fault('missing_field', `entry has no ${missing.map((k) => `"${k}"`).join(', ')}`);
      if (!l.canonical) fault('non_canonical', 'non-canonical line bytes (not json.dumps(entry, sort_keys=True))');
      const stored = typeof e.hmac === 'string' ? e.hmac : '';
      const entryPrev = typeof e.prev_hmac === 'string' ? e.prev_hmac : '';
      if (entryPrev !== prev) {
        fault('prev_hmac_mismatch', `chain break: prev_hmac ${entryPrev}, expected ${prev}`);
      }
      const expected = computeAuditHmac(key, prev, withoutHmac(e));
      if (stored !== expected) {
        fault(
          'hmac_mismatch',
          `HMAC mismatch: stored ${stored}, recomputed ${expected} (entry edited, or another key)`,
        );
      }
      prev = stored;
    });
    if (!terminated) {
      errors.add({
        file,
        line: count,
        kind: 'missing_newline',
        message: 'missing trailing newline (torn or edited last line)',
      });
    }
  }
  // Nothing passes vacuously: a log that is missing, empty, or whose files vanished proves nothing.
  if (entries === 0 && errors.total === 0) {
    errors.add(
      existsSync(dir)
        ? {
            file: '',
            line: 0,
            kind: 'empty_audit_log',
            message: `the audit log has no entries (${plural(files.length, 'file')}): emptied, or its files vanished`,
          }
        : {
            file: '',
            line: 0,
            kind: 'no_audit_log',
            message: 'no audit directory: nothing was ever logged here, or it was removed',
          },
    );
  }
  return done();
}

export interface AuditVerifyOptions {
  /** The index (0-based, archived days first) of the entry whose stored hmac to return as `hash_at`. */
  hashAt?: number;
  /**
   * Live files as a writer will have repaired them (docs/journal.md, "Recovery on open"): each named file is read
   * as its first so many bytes, a last line without its newline taken as finished.
   */
  repaired?: ReadonlyMap<string, number>;
}

/** The bytes of live file `name` as `repaired` says a writer will leave them (nothing: read as it is). */
function repairedView(dir: string, name: string, repaired?: ReadonlyMap<string, number>): { bytes?: Buffer } {
  const end = repaired?.get(name);
  if (end === undefined) return {};
  const bytes = readExistingFile(path.join(dir, name)).subarray(0, end);
  return { bytes: bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a ? Buffer.concat([bytes, NEWLINE]) : bytes };
}

const NEWLINE = Buffer.from('\n');

/** `file:line: kind: message` for one fault (`file: kind: message` for a whole segment; a run names its lines). */
export function describeAuditFault(dir: string, f: AuditFault): string {
  if (f.file === '') return `${dir}: ${f.kind}: ${f.message}`;
  if (f.last_line !== undefined && f.count !== undefined)
    return `${path.join(dir, f.file)}:${f.line}-${f.last_line}: ${f.kind}: ${f.count.toLocaleString('en-US')} faults on consecutive lines, the first: ${f.message}`;
  return `${path.join(dir, f.file)}${f.line > 0 ? `:${f.line}` : ''}: ${f.kind}: ${f.message}`;
}

/** The fault lines to print for a result: one per listed entry, then one counting what was left out. */
export function describeAuditFaults(dir: string, r: Pick<AuditVerifyResult, 'errors' | 'errors_omitted'>): string[] {
  const out = r.errors.map((f) => describeAuditFault(dir, f));
  if (r.errors_omitted > 0)
    out.push(
      `${dir}: … and ${r.errors_omitted.toLocaleString('en-US')} more ${pluralWord(r.errors_omitted, 'fault')} not listed`,
    );
  return out;
}
