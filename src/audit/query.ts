import { closeSync, fstatSync } from 'node:fs';
import path from 'node:path';
import type { JsonObject, JsonValue } from '../canonical';
import { InputError } from '../errors';
import { sameIdentity, statIdentity, type FileIdentity } from '../util/checkpoint';
import { lineBlocks, readInto, type LineBlockOptions, type LineSource } from '../util/line-blocks';
import { openRegularFile } from '../util/nofollow';
import { fastAuditLine } from './fast-entry';
import { auditFiles } from './layout';
import { MatchPlan } from './match-plan';
import { AuditHit } from './query-hit';
import { archivedSegments, readArchivedSegment, readLine, type ArchivedSegment } from './verify';

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
  const read = new AuditLogRead(dir, q);
  const matches: AuditMatch[] = [];
  for (const h of read.hits()) matches.push({ file: h.file, line: h.line, entry: h.entry() });
  return { matches, skipped: read.skipped };
}

export interface AuditReadOptions extends LineBlockOptions {
  /** The most matches a walk's plan keeps (MatchPlan; tests make it small, to walk again both ways). */
  maxPlanned?: number;
}

/** A segment of the log: an archived day or a live file, and what the first walk found there. */
interface Segment {
  /** Its name inside the audit directory (`archive/…` for an archived day). */
  file: string;
  archived?: ArchivedSegment;
  /** A live file as first read: its identity and the bytes read (every later walk reads those, no more). */
  live?: { dev: number; ino: number; length: number };
  /** An archived day as first read: its file's identity, or why it could not be read (then it is left out). */
  gz?: FileIdentity;
  skipped?: string;
}

/**
 * The matches of a query over the audit log in `dir`, in chain order, walked as often as a reader needs (the table
 * walks twice: its column widths, then its rows; `--json` its count, then its events), each walk reading the same
 * bytes. Memory holds one block of lines and one match, whatever the log's size (src/util/line-blocks.ts), but for
 * an archived day, which is inflated whole, one at a time (node's zlib inflates in pieces only asynchronously), up
 * to MAX_ARCHIVED_SEGMENT_BYTES. Lines that are not entries are skipped here; `verifyAuditLog` reports them. A
 * canonical line (src/audit/fast-entry.ts) is filtered on its own bytes and read no further than its reader asks
 * (src/audit/query-hit.ts); any other line is parsed (query does not verify: a non-canonical entry is listed too).
 *
 * The first walk fixes what every walk reads: the segments listed when the read was made, each live file up to the
 * length it had when first opened (an event appended meanwhile is left to the next query, so that a count given
 * before the events agrees with them), and which archived days are left out. It also notes where the matches lie
 * (MatchPlan): a later walk reads only those lines while there were at most 65,536, else every line again. A
 * segment replaced or cut between two walks is an InputError naming it, as is an archived day that changed.
 */
export class AuditLogRead {
  private readonly since: number | undefined;
  private readonly until: number | undefined;
  private readonly segments: Segment[];
  private readonly hit = new AuditHit();
  /** Where a whole walk found the matches (MatchPlan): what a later walk reads. */
  private plan: MatchPlan | undefined;

  constructor(
    readonly dir: string,
    private readonly q: AuditQuery = {},
    private readonly options: AuditReadOptions = {},
  ) {
    this.since = bound('since', q.since, false);
    this.until = bound('until', q.until, true);
    // Archived days first, then the live files: one chain.
    this.segments = [
      ...archivedSegments(dir).map((a) => ({ file: a.name, archived: a })),
      ...auditFiles(dir).map((file) => ({ file })),
    ];
  }

  /** The archived days a walk left out (an unreadable one is said, never silent): complete once a walk ended. */
  get skipped(): AuditSkipped[] {
    return this.segments.flatMap((s) => (s.skipped === undefined ? [] : [{ file: s.file, why: s.skipped }]));
  }

  /** The matches, one at a time: the same object each time, valid until the next (see AuditHit). */
  *hits(): Generator<AuditHit, void, undefined> {
    if (this.plan !== undefined) {
      yield* this.plannedHits(this.plan);
      return;
    }
    const plan = new MatchPlan(this.options.maxPlanned);
    for (let i = 0; i < this.segments.length; i++) {
      const seg = this.segments[i]!;
      if (seg.archived !== undefined) {
        const bytes = this.archivedBytes(seg, seg.archived);
        if (bytes !== undefined) yield* this.walk(i, bytes, plan);
        continue;
      }
      const live = this.openLive(seg);
      try {
        yield* this.walk(i, live, plan);
      } finally {
        closeSync(live.fd);
      }
    }
    // A walk to the end: the next reads only these lines, when they were few enough to keep (MatchPlan).
    if (!plan.full) this.plan = plan;
  }

  /** A live file, opened to read what the first walk read (the first walk: all it holds now). */
  private openLive(seg: Segment): { path: string; fd: number; length: number } {
    const file = path.join(this.dir, seg.file);
    const opened = openRegularFile(file);
    if (opened === undefined) {
      if (seg.live === undefined) throw new InputError(`${file}: no such file`);
      throw changed(file, 'it is gone');
    }
    try {
      const st = fstatSync(opened.fd);
      if (seg.live === undefined) seg.live = { dev: st.dev, ino: st.ino, length: opened.size };
      else if (st.dev !== seg.live.dev || st.ino !== seg.live.ino) throw changed(file, 'another file is in its place');
      else if (opened.size < seg.live.length)
        throw changed(file, `it now holds ${opened.size} bytes, fewer than the ${seg.live.length} read before`);
      return { path: file, fd: opened.fd, length: seg.live.length };
    } catch (e) {
      closeSync(opened.fd);
      throw e;
    }
  }

  /** An archived day's bytes, or undefined when it is left out (decided by the first walk). */
  private archivedBytes(seg: Segment, a: ArchivedSegment): Buffer | undefined {
    if (seg.skipped !== undefined) return undefined;
    const id = statIdentity(a.path);
    const first = seg.gz === undefined;
    if (!first && (id === undefined || !sameIdentity(id, seg.gz!))) throw changed(a.path, 'the archived day changed');
    const bytes = readArchivedSegment(a);
    if (typeof bytes !== 'string') {
      if (first && id !== undefined) seg.gz = id;
      else if (first) throw changed(a.path, 'it is gone');
      return bytes;
    }
    if (!first) throw changed(a.path, `it can no longer be read (${bytes})`);
    seg.skipped = bytes;
    return undefined;
  }

  /**
   * The matching lines of segment `index` (`\n`-framed: eachLine's framing and numbering), a block at a time, each
   * put in `plan`.
   */
  private *walk(index: number, source: LineSource, plan: MatchPlan): Generator<AuditHit, void, undefined> {
    const file = this.segments[index]!.file;
    let n = 0;
    for (const b of lineBlocks(source, this.options)) {
      // A line longer than the longest string is no entry (it cannot be read as text): skipped, as such lines are.
      if (b.kind === 'unread') {
        n++;
        continue;
      }
      // A canonical line is ASCII: its latin1 view is its text.
      const text = b.buf.toString('latin1', b.from, b.to);
      for (let start = 0; start < text.length;) {
        const nl = text.indexOf('\n', start);
        const end = nl < 0 ? text.length : nl;
        n++;
        if (end > start) {
          const h = this.match(file, n, text, start, end, b.buf, b.from);
          if (h !== undefined) {
            plan.add(index, n, b.at + start, b.at + end);
            yield h;
          }
        }
        start = end + 1;
      }
    }
  }

  /** The lines a plan holds, where they lie: a segment opened once for its lines, nearby lines read at once. */
  private *plannedHits(plan: MatchPlan): Generator<AuditHit, void, undefined> {
    let scratch = Buffer.alloc(0);
    for (let i = 0; i < plan.length;) {
      const index = plan.segment(i);
      let j = i + 1;
      while (j < plan.length && plan.segment(j) === index) j++;
      const seg = this.segments[index]!;
      if (seg.archived !== undefined) {
        // Read by the first walk, which found these lines in it: never left out.
        const bytes = this.archivedBytes(seg, seg.archived)!;
        yield* this.plannedLines(plan, i, j, (start) => ({ buf: bytes, from: start }));
      } else {
        const live = this.openLive(seg);
        try {
          yield* this.plannedLines(plan, i, j, (start, length) => {
            if (scratch.length < length) scratch = Buffer.allocUnsafe(Math.max(length, PLANNED_SPAN));
            readInto(live.path, live.fd, scratch, 0, length, start);
            return { buf: scratch, from: 0 };
          });
        } finally {
          closeSync(live.fd);
        }
      }
      i = j;
    }
  }

  /** The planned lines i..j (of one segment) as hits: those within PLANNED_SPAN bytes of each other read at once. */
  private *plannedLines(
    plan: MatchPlan,
    i: number,
    j: number,
    read: (start: number, length: number) => { buf: Buffer; from: number },
  ): Generator<AuditHit, void, undefined> {
    const file = this.segments[plan.segment(i)]!.file;
    for (let k = i; k < j;) {
      const start = plan.start(k);
      let m = k + 1;
      while (m < j && plan.end(m) - start <= PLANNED_SPAN) m++;
      const length = plan.end(m - 1) - start;
      const { buf, from } = read(start, length);
      const text = buf.toString('latin1', from, from + length);
      for (let x = k; x < m; x++) {
        const h = this.match(file, plan.line(x), text, plan.start(x) - start, plan.end(x) - start, buf, from);
        if (h !== undefined) yield h;
      }
      k = m;
    }
  }

  /** The line text[start..end) (bytes buf[from + start..from + end)) as a hit, when it is an entry that matches. */
  private match(
    file: string,
    n: number,
    text: string,
    start: number,
    end: number,
    buf: Buffer,
    from: number,
  ): AuditHit | undefined {
    const fast = fastAuditLine(text, start, end);
    if (fast !== undefined) {
      // Only the filtered fields are read (a plain string literal's text is its value; anything else is no string).
      if (!this.matches((k) => stringAt(text, fast.spans.get(k)))) return undefined;
      return this.hit.canonicalAt(file, n, text, start, end, fast.spans);
    }
    const e = readLine(file, n, buf.subarray(from + start, from + end)).entry;
    if (e === undefined || !this.matches((k) => e[k])) return undefined;
    return this.hit.parsedAt(file, n, e);
  }

  private matches(field: (k: string) => JsonValue | undefined): boolean {
    const { q, since, until } = this;
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
  }
}

/** Bytes of nearby planned lines read at once (a selective query's matches lie apart: each is then a read). */
const PLANNED_SPAN = 64 * 1024;

function changed(file: string, why: string): InputError {
  return new InputError(`${file}: it changed while it was read (${why}); nothing is concluded from it, read it again`);
}

/** The string a canonical value at `span` stands for, or undefined when it is no string. */
function stringAt(text: string, span: [number, number] | undefined): string | undefined {
  if (span === undefined || text.charCodeAt(span[0]) !== 0x22) return undefined;
  const body = text.slice(span[0] + 1, span[1] - 1);
  return body.includes('\\') ? (JSON.parse(text.slice(span[0], span[1])) as string) : body;
}
