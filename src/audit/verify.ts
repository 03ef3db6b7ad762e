import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { decodeUtf8, isJsonObject, JsonParseError, parse, type JsonObject, type JsonValue } from '../canonical';
import { InputError } from '../errors';
import { computeAuditHmac, ENTRY_KEYS, GENESIS_HMAC, prettySortedOfRead, withoutHmac } from './entry';
import { auditFiles } from './layout';

export type AuditFaultKind =
  | 'malformed_json'
  | 'missing_field'
  | 'non_canonical'
  | 'missing_newline'
  | 'prev_hmac_mismatch'
  | 'hmac_mismatch'
  | 'no_audit_log'
  | 'empty_audit_log';

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
}

export interface AuditVerifyResult {
  ok: boolean;
  /** The last stored hmac walked (64 zeros for an empty log). */
  head_hmac: string;
  entries: number;
  files: string[];
  errors: AuditFault[];
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

/** Calls `fn` for each `\n`-framed line (only `\n` frames: a `\v` or `\r` stays inside the line and fails). */
export function readAuditLines(dir: string, file: string): { lines: AuditLine[]; terminated: boolean } {
  let buf: Buffer;
  try {
    buf = readFileSync(path.join(dir, file));
  } catch (e) {
    throw new InputError(
      `${path.join(dir, file)}: cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  const lines: AuditLine[] = [];
  let start = 0;
  let n = 1;
  while (start < buf.length) {
    const nl = buf.indexOf(0x0a, start);
    const end = nl < 0 ? buf.length : nl;
    const bytes = buf.subarray(start, end);
    lines.push(readLine(file, n, bytes));
    start = end + 1;
    n++;
  }
  return { lines, terminated: buf.length === 0 || buf[buf.length - 1] === 0x0a };
}

function readLine(file: string, line: number, bytes: Buffer): AuditLine {
  let text: string;
  let value: JsonValue;
  try {
    text = decodeUtf8(bytes);
    value = parse(text);
  } catch (e) {
    const why =
      e instanceof JsonParseError
        ? e.message
        : e instanceof RangeError
          ? 'line too large or too deeply nested'
          : String(e);
    return {
      file,
      line,
      bytes,
      entry: undefined,
      error: bytes.length === 0 ? 'empty line' : `not JSON: ${why}`,
      canonical: false,
    };
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
 * Verifies the whole audit chain in `dir` under `key`: every `*.jsonl` file in
 * name order (so the chain runs across days), every line byte-identical to
 * `pretty_sorted(entry)`, each `prev_hmac` the previous entry's `hmac` (64
 * zeros at genesis), each `hmac` recomputed. Reports every fault with its
 * file and line; the chain follows the stored hmac, so one edit is reported once.
 */
export function verifyAuditLog(dir: string, key: Uint8Array): AuditVerifyResult {
  const files = auditFiles(dir);
  const errors: AuditFault[] = [];
  let prev = GENESIS_HMAC;
  let entries = 0;
  for (const file of files) {
    const { lines, terminated } = readAuditLines(dir, file);
    for (const l of lines) {
      const fault = (kind: AuditFaultKind, message: string): void =>
        void errors.push({ file, line: l.line, kind, message });
      if (l.entry === undefined) {
        fault('malformed_json', l.error ?? 'malformed');
        continue;
      }
      entries++;
      const e = l.entry;
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
    }
    if (!terminated) {
      errors.push({
        file,
        line: lines.length,
        kind: 'missing_newline',
        message: 'missing trailing newline (torn or edited last line)',
      });
    }
  }
  // Nothing passes vacuously: a log that is missing, empty, or whose files vanished proves nothing.
  if (entries === 0 && errors.length === 0) {
    errors.push(
      existsSync(dir)
        ? {
            file: '',
            line: 0,
            kind: 'empty_audit_log',
            message: `the audit log has no entries (${files.length} file${files.length === 1 ? '' : 's'}): emptied, or its files vanished`,
          }
        : {
            file: '',
            line: 0,
            kind: 'no_audit_log',
            message: 'no audit directory: nothing was ever logged here, or it was removed',
          },
    );
  }
  return { ok: errors.length === 0, head_hmac: prev, entries, files, errors };
}

/** `file:line: kind: message` for one fault. */
export function describeAuditFault(dir: string, f: AuditFault): string {
  if (f.file === '') return `${dir}: ${f.kind}: ${f.message}`;
  return `${path.join(dir, f.file)}:${f.line}: ${f.kind}: ${f.message}`;
}
