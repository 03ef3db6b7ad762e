import path from 'node:path';
import { auditDir, type AuditQuery } from '../../audit';
import { eachAuditMatch } from '../../audit/query';
import { encode, type JsonObject, type JsonValue } from '../../canonical';
import { displayWidth } from '../../replay/text';
import { sanitize } from '../../util/terminal';
import { expectPositionals } from '../args';
import type { Command } from '../command';
import { JSON_OPTION, ROOT_OPTION, rootOf } from '../common';
import { plural } from '../../util/words';
import { jsonDocument, StreamedDocument } from '../io';

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
    2: 'usage or input error (a bad time)',
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
    // Only what is printed is kept, a match at a time (the table's widths and the document's count need every match
    // before the first line): an event's document text, or its table row.
    const texts: { text: string }[] = [];
    const rows: string[][] = [];
    const { skipped } = eachAuditMatch(dir, q, (m) => {
      if (json) texts.push({ text: jsonDocument(m.entry) });
      else rows.push(tableRow(m.entry));
    });
    // Said, never silent: an archived day the query could not read holds events it did not look at.
    for (const d of skipped)
      io.err(
        `stepchain: warning: ${path.join(dir, d.file)}: left out of the query: ${d.why} (audit verify reports it)`,
      );
    if (json) {
      io.json(
        new StreamedDocument({ dir, count: texts.length }, 'events', texts, () =>
          skipped.length > 0 ? { skipped: skipped.map((d) => ({ file: d.file, reason: d.why })) } : {},
        ),
      );
    } else {
      const widths = [0, 1, 2, 3].map((c) => rows.reduce((w, r) => Math.max(w, displayWidth(r[c]!)), 0));
      const pad = (t: string, w: number): string => t + ' '.repeat(Math.max(0, w - displayWidth(t)));
      if (rows.length > 0)
        io.out(
          ['timestamp', 'event_type', 'actor', 'resource', 'details']
            .map((h, c) => (c < 4 ? pad(h, Math.max(widths[c]!, h.length)) : h))
            .join('  ')
            .trimEnd(),
        );
      for (const r of rows)
        io.out(
          r
            .map((t, c) =>
              c < 4 ? pad(t, Math.max(widths[c]!, ['timestamp', 'event_type', 'actor', 'resource'][c]!.length)) : t,
            )
            .join('  '),
        );
      io.out(`${plural(rows.length, 'event')}`);
    }
    return 0;
  },
};

/** An event's table row: every field is the log's own data, one line each, nothing a terminal acts on. */
function tableRow(e: JsonObject): string[] {
  const f = (v: unknown): string => sanitize(String(v));
  return [
    f(e.timestamp),
    f(e.event_type),
    f(e.actor),
    `${f(e.resource_type)}/${f(e.resource_id)}`,
    encode(e.details as JsonValue, { separators: 'compact', allowNonFinite: true }),
  ];
}
