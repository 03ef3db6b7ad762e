import path from 'node:path';
import { auditDir, type AuditQuery } from '../../audit';
import { AuditLogRead } from '../../audit/query';
import type { AuditHit } from '../../audit/query-hit';
import { InputError } from '../../errors';
import { displayWidth } from '../../replay/text';
import { sanitize } from '../../util/terminal';
import { expectPositionals } from '../args';
import type { Command } from '../command';
import { JSON_OPTION, ROOT_OPTION, rootOf } from '../common';
import { plural } from '../../util/words';
import { outLines, StreamedDocument } from '../io';

export const auditQueryCommand: Command = {
  name: ['audit', 'query'],
  usage: '[--event-type T] [--actor A] [--since ISO] [--until ISO] [--dir DIR] [--root DIR] [--json]',
  summary: 'List audit events by type, actor and time range (inclusive bounds; a bare date covers the whole UTC day).',
  description: 'Lists without verifying: run `stepchain audit verify` to check the chain.',
  options: {
    ...ROOT_OPTION,
    ...JSON_OPTION,
    dir: { kind: 'value', value: 'DIR', description: 'The audit directory (default <root>/.sdd/audit).' },
    'event-type': { kind: 'value', value: 'T', description: 'Only this event type, e.g. replay.fork.' },
    actor: { kind: 'value', value: 'A', description: 'Only events of this actor.' },
    since: {
      kind: 'value',
      value: 'ISO',
      description: 'From this time on (inclusive; a bare date is its whole UTC day).',
    },
    until: {
      kind: 'value',
      value: 'ISO',
      description: 'Up to this time (inclusive; a bare date is its whole UTC day).',
    },
  },
  examples: [{ run: 'stepchain audit query --event-type replay.fork --since 2026-12-01', what: 'forks since a day' }],
  exitCodes: {
    0: 'listed (possibly none; an archived day it could not read is named on stderr, and in --json as skipped)',
    2: 'usage or input error (a bad time; the log changed in the bytes already read while it was read)',
  },
  run(args, io) {
    expectPositionals(args, [], 'audit query');
    const dirOpt = args.values.get('dir');
    const dir = dirOpt === undefined ? auditDir(rootOf(args, io)) : path.resolve(io.cwd, dirOpt);
    const q: AuditQuery = {};
    const set = (k: keyof AuditQuery, opt: string): void => {
      const v = args.values.get(opt);
      if (v !== undefined) q[k] = v;
    };
    set('event_type', 'event-type');
    set('actor', 'actor');
    set('since', 'since');
    set('until', 'until');
    const json = args.flags.has('json');
    // Two walks of the same bytes (AuditLogRead): the first counts the matches and, for the table, measures its
    // columns (the document's count and the table's widths come before the first event); the second prints them, a
    // thousand rows or a piece of the document at a time. Nothing is kept but the count and four widths, whatever
    // the log holds (docs/runs-audit.md, "Query").
    const read = new AuditLogRead(dir, q);
    const widths = [0, 0, 0, 0];
    let count = 0;
    for (const h of read.hits()) {
      count++;
      if (!json) tableCells(h).forEach((t, c) => (widths[c] = Math.max(widths[c]!, displayWidth(t))));
    }
    // Said, never silent: an archived day the query could not read holds events it did not look at.
    const { skipped } = read;
    for (const d of skipped)
      io.err(
        `stepchain: warning: ${path.join(dir, d.file)}: left out of the query: ${d.why} (audit verify reports it)`,
      );
    if (json) {
      const events = listed(read, count, (h) => ({ text: h.compactText() }));
      io.json(
        new StreamedDocument({ dir, count }, 'events', events, () =>
          skipped.length > 0 ? { skipped: skipped.map((d) => ({ file: d.file, reason: d.why })) } : {},
        ),
      );
      return 0;
    }
    const pad = (t: string, c: number): string => t + ' '.repeat(Math.max(0, widths[c]! - displayWidth(t)));
    HEADER.forEach((h, c) => (widths[c] = Math.max(widths[c]!, h.length)));
    if (count > 0) io.out([...HEADER.map(pad), 'details'].join('  ').trimEnd());
    let lines: string[] = [];
    for (const row of listed(read, count, (h) => [...tableCells(h).map(pad), h.detailsText()].join('  '))) {
      lines.push(row);
      if (lines.length === 1000) {
        outLines(io, lines);
        lines = [];
      }
    }
    outLines(io, lines);
    io.out(`${plural(count, 'event')}`);
    return 0;
  },
};

const HEADER = ['timestamp', 'event_type', 'actor', 'resource'];

/**
 * The second walk's matches as `show` makes them: as many as the first walk counted, or the log changed in the bytes
 * both read (it was edited, not appended to), and what was printed is cut there, saying so.
 */
function* listed<T>(read: AuditLogRead, count: number, show: (h: AuditHit) => T): Generator<T, void, undefined> {
  let n = 0;
  for (const h of read.hits()) {
    if (++n > count) break;
    yield show(h);
  }
  if (n !== count)
    throw new InputError(
      `${read.dir}: the audit log changed while it was read (${plural(count, 'event')} matched, then ${n > count ? 'more' : n}); run the query again`,
    );
}

/** An event's first four table cells: every field is the log's own data, one line each, nothing a terminal acts on. */
function tableCells(h: AuditHit): string[] {
  return [
    sanitize(h.field('timestamp')),
    sanitize(h.field('event_type')),
    sanitize(h.field('actor')),
    `${sanitize(h.field('resource_type'))}/${sanitize(h.field('resource_id'))}`,
  ];
}
