import path from 'node:path';
import { parse, type JsonObject, type JsonValue } from '../canonical';
import { InputError } from '../errors';
import { readExistingFile } from '../util/nofollow';
import { fastAuditLine } from './fast-entry';
import { auditFiles } from './layout';
import { archivedSegments, eachLine, readArchivedSegment, readLine } from './verify';

export interface AuditQuery {
  event_type?: string;
  actor?: string;
  /** ISO 8601 lower bound, inclusive (`YYYY-MM-DD` = that day's start). */
  since?: string;
  /** ISO 8601 upper bound, inclusive (`YYYY-MM-DD` = through that whole day). */
  until?: string;
}

export interface AuditMatch {
  file: string;
  line: number;
  entry: JsonObject;
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * An ISO 8601 instant in unix microseconds (a time without a zone is UTC).
 * `endOfDay` makes a bare date mean the last microsecond of that day.
 */
export function isoMicros(s: string, endOfDay = false): number | undefined {
  const m = ISO.exec(s.trim());
  if (m === null) return undefined;
  const [, y, mo, d, h, mi, sec, frac, zone] = m;
  const base = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h ?? 0), Number(mi ?? 0), Number(sec ?? 0));
  if (Number.isNaN(base)) return undefined;
  const check = new Date(base);
  if (check.getUTCDate() !== Number(d) || check.getUTCMonth() !== Number(mo) - 1) return undefined;
  let micros = base * 1000 + Number((frac ?? '').padEnd(6, '0').slice(0, 6) || 0);
  if (zone !== undefined && zone !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    micros -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000_000;
  }
  if (endOfDay && h === undefined) micros += 86_400_000_000 - 1;
  return micros;
}

/** A time bound of the query; a bad one is an InputError naming the query's field (the doors word it). */
function bound(name: 'since' | 'until', v: string | undefined, endOfDay: boolean): number | undefined {
  if (v === undefined) return undefined;
  const t = isoMicros(v, endOfDay);
  if (t === undefined)
    throw new InputError(
      `expected an ISO 8601 date or time (e.g. 2026-12-02 or 2026-12-02T09:30:00Z), got ${JSON.stringify(v)}`,
      name,
    );
  return t;
}

/**
 * The entries of the audit log in `dir` that match every filter given, in
 * chain order. Times compare as instants (not as strings). Lines that are not
 * entries are skipped here; `verifyAuditLog` reports them.
 */
export function queryAudit(dir: string, q: AuditQuery = {}): AuditMatch[] {
  return queryAuditLog(dir, q).matches;
}

/** An archived day a query could not read, left out of it (`verifyAuditLog` reports it as a fault). */
export interface AuditSkipped {
  file: string;
  why: string;
}

/** `queryAudit`, and the archived days it left out: a query that says nothing of them would look complete. */
export function queryAuditLog(dir: string, q: AuditQuery = {}): { matches: AuditMatch[]; skipped: AuditSkipped[] } {
  const matches: AuditMatch[] = [];
  const { skipped } = eachAuditMatch(dir, q, (m) => void matches.push(m));
  return { matches, skipped };
}

/**
 * `queryAuditLog` a match at a time, in chain order, so a caller keeps only
 * what it prints. A canonical line (src/audit/fast-entry.ts) is filtered on its
 * own bytes and parsed only when it matches; any other line is read as before
 * (query does not verify, so a non-canonical entry is listed too).
 */
export function eachAuditMatch(
  dir: string,
  q: AuditQuery,
  onMatch: (m: AuditMatch) => void,
): { skipped: AuditSkipped[] } {
  const since = bound('since', q.since, false);
  const until = bound('until', q.until, true);
  const skipped: AuditSkipped[] = [];
  // Archived days first (an unreadable one is left out, and said), then the live files.
  const segments: { file: string; bytes?: Buffer }[] = [];
  for (const a of archivedSegments(dir)) {
    const bytes = readArchivedSegment(a);
    if (typeof bytes !== 'string') segments.push({ file: a.name, bytes });
    else skipped.push({ file: a.name, why: bytes });
  }
  for (const file of auditFiles(dir)) segments.push({ file });
  const matches = (field: (k: string) => JsonValue | undefined): boolean => {
    if (q.event_type !== undefined && field('event_type') !== q.event_type) return false;
    if (q.actor !== undefined && field('actor') !== q.actor) return false;
    if (since !== undefined || until !== undefined) {
      const ts = field('timestamp');
      const t = typeof ts === 'string' ? isoMicros(ts) : undefined;
      if (t === undefined) return false;
      if (since !== undefined && t < since) return false;
      if (until !== undefined && t > until) return false;
    }
    return true;
  };
  for (const { file, bytes } of segments) {
    const buf = bytes ?? readExistingFile(path.join(dir, file));
    // A canonical line is ASCII: its latin1 view is its text.
    const text = buf.toString('latin1');
    eachLine(buf, (n, start, end) => {
      const fast = fastAuditLine(text, start, end);
      if (fast !== undefined) {
        // Only the filtered fields are read (a plain string literal's text is its value; anything else is no string).
        if (!matches((k) => stringAt(text, fast.spans.get(k)))) return;
        onMatch({ file, line: n, entry: parse(text.slice(start, end)) as JsonObject });
        return;
      }
      const e = readLine(file, n, buf.subarray(start, end)).entry;
      if (e === undefined || !matches((k) => e[k])) return;
      onMatch({ file, line: n, entry: e });
    });
  }
  return { skipped };
}

/** The string a canonical value at `span` stands for, or undefined when it is no string. */
function stringAt(text: string, span: [number, number] | undefined): string | undefined {
  if (span === undefined || text.charCodeAt(span[0]) !== 0x22) return undefined;
  const body = text.slice(span[0] + 1, span[1] - 1);
  return body.includes('\\') ? (JSON.parse(text.slice(span[0], span[1])) as string) : body;
}
