import {
  appendFileSync,
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { prettySortedOfRead } from '../src/audit/entry';
import { fastAuditLine } from '../src/audit/fast-entry';
import { auditFiles } from '../src/audit/layout';
import { AuditLogRead, isoMicros, type AuditQuery } from '../src/audit/query';
import { archivedSegments, eachLine, readArchivedSegment, readLine } from '../src/audit/verify';
import { encode, float, type JsonObject, type JsonValue } from '../src/canonical';
import { documentPieces, StreamedDocument, terminalSafe, type CommandIO } from '../src/cli/io';
import { withOk } from '../src/cli/run-command';
import { displayWidth } from '../src/replay/text';
import { lineBlocks } from '../src/util/line-blocks';
import { sanitize } from '../src/util/terminal';
import { plural } from '../src/util/words';
import { cliInProcess } from './helpers/cli-in-process';
import { freshDir, tempDir } from './helpers/tmp';

// `audit query` walks the log twice, a block at a time, and reads a canonical line no further than its output needs
// (src/audit/query.ts, src/audit/query-hit.ts). Its output is held here to the one the command printed when it read
// every segment whole, parsed every match and kept every row (the reference below, that algorithm as it was), over
// random logs: canonical, edited and garbage lines, escapes, non-ASCII and terminal controls in every field, keys a
// JavaScript object puts first, archived days (one unreadable), torn last lines, blank lines.

const base = tempDir('stepchain-audit-query-');

/**
 * `expect(got).toEqual(want)`, asked only where the two differ strictly (then for its verdict and its diff): values
 * strictly equal are equal to toEqual too, and Jest's expect, thousands of times over the properties, cost more than
 * the comparison.
 */
function expectEqual(got: unknown, want: unknown): void {
  if (!isDeepStrictEqual(got, want)) expect(got).toEqual(want);
}

/** The old algorithm: every segment read whole, every line that is an entry parsed (query.ts before streaming). */
function referenceQuery(
  dir: string,
  q: AuditQuery,
): {
  matches: { file: string; line: number; e: JsonObject; canonical: boolean }[];
  skipped: { file: string; why: string }[];
} {
  const since = q.since === undefined ? undefined : isoMicros(q.since);
  const until = q.until === undefined ? undefined : isoMicros(q.until, true);
  const segments: { file: string; bytes: Buffer }[] = [];
  const skipped: { file: string; why: string }[] = [];
  for (const a of archivedSegments(dir)) {
    const bytes = readArchivedSegment(a);
    if (typeof bytes === 'string') skipped.push({ file: a.name, why: bytes });
    else segments.push({ file: a.name, bytes });
  }
  for (const file of auditFiles(dir)) segments.push({ file, bytes: readFileSync(path.join(dir, file)) });
  const matches: { file: string; line: number; e: JsonObject; canonical: boolean }[] = [];
  for (const { file, bytes } of segments)
    eachLine(bytes, (n, start, end) => {
      const e = readLine(file, n, bytes.subarray(start, end)).entry;
      if (e === undefined) return;
      if (q.event_type !== undefined && e.event_type !== q.event_type) return;
      if (q.actor !== undefined && e.actor !== q.actor) return;
      if (since !== undefined || until !== undefined) {
        const t = typeof e.timestamp === 'string' ? isoMicros(e.timestamp) : undefined;
        if (t === undefined || (since !== undefined && t < since) || (until !== undefined && t > until)) return;
      }
      // Whether the new read takes it the fast way (counted: the property must reach that path often).
      const canonical = fastAuditLine(bytes.toString('latin1', start, end), 0, end - start) !== undefined;
      matches.push({ file, line: n, e, canonical });
    });
  return { matches, skipped };
}

/**
 * What the command printed when it kept every row (src/cli/commands/audit-query.ts before streaming), from `ref`:
 * referenceQuery's read of the log, made once a log.
 */
function referenceOutput(
  dir: string,
  json: boolean,
  ref: ReturnType<typeof referenceQuery>,
): { stdout: string; stderr: string } {
  let stdout = '';
  let stderr = '';
  const io: CommandIO = terminalSafe({
    out: (l) => void (stdout += `${l}\n`),
    err: (l) => void (stderr += `${l}\n`),
    json: (d) => void (stdout += `${[...documentPieces(d)].join('')}\n`),
    readStdin: () => Buffer.alloc(0),
    stdinBlocks: () => [],
    isTTY: false,
    env: {},
    cwd: dir,
  });
  const { matches, skipped } = ref;
  for (const d of skipped)
    io.err(`stepchain: warning: ${path.join(dir, d.file)}: left out of the query: ${d.why} (audit verify reports it)`);
  if (json) {
    // Each entry's compact JSON as read (bare NaN: the document's writer applies the output rule to the text).
    const texts = matches.map(({ e }) => ({ text: asRead(e) }));
    // The dispatcher puts `ok` first (src/cli/run-command.ts).
    io.json(
      withOk(
        new StreamedDocument({ dir, count: texts.length }, 'events', texts, () =>
          skipped.length > 0 ? { skipped: skipped.map((d) => ({ file: d.file, reason: d.why })) } : {},
        ),
        0,
      ),
    );
    return { stdout, stderr };
  }
  const rows = matches.map(({ e }) => referenceRow(e));
  const widths = [0, 1, 2, 3].map((c) => rows.reduce((w, r) => Math.max(w, displayWidth(r[c]!)), 0));
  const pad = (t: string, w: number): string => t + ' '.repeat(Math.max(0, w - displayWidth(t)));
  const heads = ['timestamp', 'event_type', 'actor', 'resource', 'details'];
  if (rows.length > 0)
    io.out(
      heads
        .map((h, c) => (c < 4 ? pad(h, Math.max(widths[c]!, h.length)) : h))
        .join('  ')
        .trimEnd(),
    );
  for (const r of rows)
    io.out(r.map((t, c) => (c < 4 ? pad(t, Math.max(widths[c]!, heads[c]!.length)) : t)).join('  '));
  io.out(plural(rows.length, 'event'));
  return { stdout, stderr };
}

function referenceRow(e: JsonObject): string[] {
  const f = (v: JsonValue | undefined): string => sanitize(textOf(v));
  return [f(e.timestamp), f(e.event_type), f(e.actor), `${f(e.resource_type)}/${f(e.resource_id)}`, detailsOf(e)];
}

// Where the command failed with an internal error it now prints a cell: a value String() cannot convert (an object
// holding a `toString` key) as its compact JSON, an entry without details as a missing field reads.
function textOf(v: JsonValue | undefined): string {
  try {
    return String(v);
  } catch {
    return encode(v!, { separators: 'compact', allowNonFinite: true });
  }
}
/** An entry's compact JSON, keys in the parsed object's order, NaN and the infinities as read (bare). */
const asRead = (e: JsonObject): string => encode(e, { sortKeys: false, allowNonFinite: true });
const detailsOf = (e: JsonObject): string =>
  e.details === undefined ? 'undefined' : encode(e.details, { separators: 'compact', allowNonFinite: true });

// Logs.

const text = fc.oneof(
  fc.string({ maxLength: 6 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.constantFrom('', 'x', '\u001b[31mred', '\u202eevil', 'a\tb', 'two\nlines', 'caf\u00e9', '\ud83d\ude80', '\ud800'),
  fc.constantFrom('"\\', '\u4e2d\u6587', '\u0085', '\u200b', ', ', ': ', '\u007f', 'a"b: c'),
);
// Keys JavaScript orders first (array indexes) beside ones it does not (`01`, `-1`), and the separators' look-alikes.
const key = fc.oneof(
  text,
  fc.constantFrom('0', '1', '7', '10', '4294967294', '4294967295', '01', '-1', ' ', 'a', 'z', '__proto__', 'toString'),
);
// What the fast path leaves to the parse (NaN and the infinities, integers past 15 digits) kept rare: a line holding
// one anywhere is read the slow way, and the property must reach the fast one often.
const scalar: fc.Arbitrary<JsonValue> = fc.oneof(
  { weight: 12, arbitrary: fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null)) },
  { weight: 3, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e15, max: 1e15 }) },
  { weight: 2, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e15, max: 1e15 }).map(float) },
  fc.constantFrom(NaN, Infinity, -Infinity).map((d) => float(d)),
  fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }),
);
const value: fc.Arbitrary<JsonValue> = fc.letrec<{ v: JsonValue }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(key, tie('v'), { maxKeys: 3 }),
  ),
})).v;
/** A field: mostly a string (the filters' values among them), else any value. */
const field = (...usual: string[]): fc.Arbitrary<JsonValue> =>
  fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...usual) }, { weight: 2, arbitrary: text }, value);
const entry: fc.Arbitrary<JsonObject> = fc
  .record({
    timestamp: fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom('2026-01-01T12:00:00.000000Z', '2026-01-02T00:00:00Z', 'soon') },
      fc
        .date({ min: new Date('2025-12-30'), max: new Date('2026-01-04'), noInvalidDate: true })
        .map((d) => d.toISOString()),
      value,
    ),
    event_type: field('replay.step', 'replay.fork'),
    actor: field('x', 'agent-1'),
    resource_type: field('journal'),
    resource_id: field('a'),
    details: fc.oneof({ weight: 3, arbitrary: fc.dictionary(key, value, { maxKeys: 4 }) }, value),
    prev_hmac: fc.constantFrom('0'.repeat(64), 'ab'.repeat(32)),
    hmac: fc.constantFrom('cd'.repeat(32), 'x'),
  })
  .chain((e) =>
    fc
      .tuple(
        fc.dictionary(key, value, { maxKeys: 2 }),
        // Now and then a field missing (the fast path needs every one: such an entry is parsed; its cell reads `undefined`).
        fc.oneof(
          { weight: 8, arbitrary: fc.constant(undefined) },
          fc.constantFrom('timestamp', 'event_type', 'actor', 'resource_type', 'resource_id', 'details', 'hmac'),
        ),
      )
      .map(([extra, drop]) => {
        const out: JsonObject = { ...extra, ...e };
        if (drop !== undefined) delete out[drop];
        return out;
      }),
  );

/** Edits that leave a line non-canonical (listed: query does not verify), malformed, or not an object (skipped). */
const edit = fc.constantFrom<(l: string) => string>(
  (l) => l.replace(', ', ','),
  (l) => ` ${l}`,
  (l) => l.replace(/\\u([0-9a-f]{4})/, (_m, h: string) => String.fromCharCode(parseInt(h, 16))),
  (l) => l.replace('{', '{"actor": 1, '),
  (l) => l.slice(0, -1),
  (l) => `${l}\r`,
  () => 'garbage',
  () => '[1, 2]',
  () => '',
);
const line: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 6, arbitrary: entry.map((e) => Buffer.from(prettySortedOfRead(e))) },
  { weight: 2, arbitrary: fc.tuple(entry, edit).map(([e, ed]) => Buffer.from(ed(prettySortedOfRead(e)))) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      Buffer.from([0x7b, 0xff, 0x7d]),
      Buffer.from('{"a": "\u00e9"}', 'latin1'),
      Buffer.from('{"actor": {"toString": 1}, "event_type": "replay.step"}'),
    ),
  },
);
const segment = fc.record({ lines: fc.array(line, { maxLength: 6 }), torn: fc.boolean() });
const log = fc.record({
  live: fc.array(segment, { minLength: 1, maxLength: 3 }),
  archived: fc.array(segment, { maxLength: 2 }),
  brokenArchive: fc.boolean(),
});
const filters = fc.record(
  {
    event_type: fc.constantFrom('replay.step', 'replay.fork'),
    actor: fc.constantFrom('x', 'agent-1'),
    since: fc.constantFrom('2026-01-01', '2026-01-02T00:00:00Z', '2025-12-31T23:00:00+01:00'),
    until: fc.constantFrom('2026-01-02', '2026-01-01T12:00:00Z', '2027-01-01'),
  },
  { requiredKeys: [] },
);
const query = fc.oneof(fc.constant<AuditQuery>({}), filters);

function bytesOf(s: { lines: Buffer[]; torn: boolean }): Buffer {
  const parts = s.lines.flatMap((l, i) => (i < s.lines.length - 1 || !s.torn ? [l, Buffer.from('\n')] : [l]));
  return Buffer.concat(parts);
}

function writeLog(l: LogShape): string {
  const dir = freshDir(base, 'log');
  l.live.forEach((s, d) => writeFileSync(path.join(dir, `2026-01-0${d + 1}.jsonl`), bytesOf(s)));
  if (l.archived.length > 0 || l.brokenArchive) mkdirSync(path.join(dir, 'archive'));
  l.archived.forEach((s, d) =>
    writeFileSync(path.join(dir, 'archive', `2025-12-2${d}.jsonl.gz`), gzipSync(bytesOf(s))),
  );
  if (l.brokenArchive)
    writeFileSync(path.join(dir, 'archive', '2025-12-25.jsonl.gz'), gzipSync('{}\n').subarray(0, 12));
  return dir;
}
type LogShape = { live: Seg[]; archived: Seg[]; brokenArchive: boolean };
type Seg = { lines: Buffer[]; torn: boolean };

const argsOf = (dir: string, q: AuditQuery): string[] => [
  'audit',
  'query',
  '--dir',
  dir,
  ...(q.event_type === undefined ? [] : ['--event-type', q.event_type]),
  ...(q.actor === undefined ? [] : ['--actor', q.actor]),
  ...(q.since === undefined ? [] : ['--since', q.since]),
  ...(q.until === undefined ? [] : ['--until', q.until]),
];

describe('audit query, streamed', () => {
  it('prints byte for byte what the whole read printed, table and --json, over random logs', async () => {
    let listed = 0;
    await fc.assert(
      fc.asyncProperty(log, query, async (l, q) => {
        const dir = writeLog(l);
        const ref = referenceQuery(dir, q); // read once for both outputs and the count (three reads before)
        for (const json of [false, true]) {
          const got = await cliInProcess([...argsOf(dir, q), ...(json ? ['--json'] : [])]);
          const want = referenceOutput(dir, json, ref);
          expectEqual({ code: got.code, stdout: got.stdout, stderr: got.stderr }, { code: 0, ...want });
        }
        listed += ref.matches.filter((m) => m.canonical).length;
      }),
      { numRuns: 150 },
    );
    // 190-272 in six runs: the fast path is reached often, whatever the seed.
    expect(listed).toBeGreaterThan(100);
  });

  it('an entry without details, or a field String() cannot write, is a row (it was an internal error)', async () => {
    const dir = freshDir(base, 'odd');
    writeFileSync(
      path.join(dir, '2026-01-01.jsonl'),
      '{"actor": {"toString": 1}, "event_type": "replay.step"}\n{"actor": [{"toString": "x"}], "details": {}}\n',
    );
    const r = await cliInProcess(['audit', 'query', '--dir', dir]);
    expect(r).toEqual({
      code: 0,
      stdout: [
        'timestamp  event_type   actor               resource             details',
        'undefined  replay.step  {"toString":1}      undefined/undefined  undefined',
        'undefined  undefined    [{"toString":"x"}]  undefined/undefined  {}',
        '2 events',
        '',
      ].join('\n'),
      stderr: '',
    });
  });

  it('reads each match as the parsed entry reads, with block ends anywhere, on a first walk and on the next', () => {
    fc.assert(
      fc.property(
        log,
        query,
        fc.integer({ min: 1, max: 400 }),
        // The next walk reads where the first found the matches, or (more than it keeps) every line again.
        fc.constantFrom(0, 1, 3, undefined),
        (l, q, blockBytes, maxPlanned) => {
          const dir = writeLog(l);
          const read = new AuditLogRead(dir, q, { blockBytes, ...(maxPlanned === undefined ? {} : { maxPlanned }) });
          const walk = (): unknown[] =>
            Array.from(read.hits(), (h) => [
              h.file,
              h.line,
              asRead(h.entry()),
              ...['timestamp', 'event_type', 'actor', 'resource_type', 'resource_id'].map((k) => h.field(k)),
              h.detailsText(),
              h.compactText(),
            ]);
          const want = referenceQuery(dir, q).matches.map(({ file, line, e }) => [
            file,
            line,
            asRead(e),
            ...['timestamp', 'event_type', 'actor', 'resource_type', 'resource_id'].map((k) => textOf(e[k])),
            detailsOf(e),
            asRead(e),
          ]);
          expectEqual(walk(), want);
          expectEqual(walk(), want);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe.each([
  ['where the first walk found the matches', {}],
  ['every line again', { maxPlanned: 0 }],
])('audit query reads the same bytes on every walk (the next walk reads %s)', (_how, options) => {
  const line = (n: number): string => `${prettySortedOfRead({ n, details: {}, event_type: 'e' })}\n`;
  // The walk hands over one object for every match: read as it comes.
  const walk = (r: AuditLogRead): number[] => Array.from(r.hits(), (h) => h.entry().n as number);

  it('an event appended between the walks is left to the next query (the count agrees with the events)', () => {
    const dir = freshDir(base, 'grow');
    const file = path.join(dir, '2026-01-01.jsonl');
    writeFileSync(file, line(1) + line(2));
    const read = new AuditLogRead(dir, {}, options);
    expect(walk(read)).toEqual([1, 2]);
    appendFileSync(file, line(3));
    writeFileSync(path.join(dir, '2026-01-02.jsonl'), line(4)); // a new day: not listed when the read was made
    expect(walk(read)).toEqual([1, 2]);
    expect(walk(new AuditLogRead(dir))).toEqual([1, 2, 3, 4]);
  });

  it('a live file replaced, cut or removed between the walks, or an archived day changed, is an input error naming it', () => {
    const dir = freshDir(base, 'swap');
    const file = path.join(dir, '2026-01-01.jsonl');
    mkdirSync(path.join(dir, 'archive'));
    const gz = path.join(dir, 'archive', '2025-12-31.jsonl.gz');
    const reset = (): AuditLogRead => {
      writeFileSync(gz, gzipSync(line(0)));
      rmSync(file, { force: true });
      writeFileSync(file, line(1) + line(2));
      const read = new AuditLogRead(dir, {}, options);
      expect(walk(read)).toEqual([0, 1, 2]);
      return read;
    };
    const changed = (where: string) =>
      expect.objectContaining({
        exitCode: 2,
        message: expect.stringContaining(`${where}: it changed while it was read`),
      });
    let read = reset();
    writeFileSync(`${file}.new`, line(1) + line(2) + line(3));
    renameSync(`${file}.new`, file);
    expect(() => walk(read)).toThrow(changed(file));
    read = reset();
    truncateSync(file, line(1).length);
    expect(() => walk(read)).toThrow(changed(file));
    read = reset();
    rmSync(file);
    expect(() => walk(read)).toThrow(changed(file));
    read = reset();
    writeFileSync(gz, gzipSync(line(5)));
    expect(() => walk(read)).toThrow(changed(gz));
  });

  it('a line longer than the longest read is passed by unread, and still numbered', () => {
    const dir = freshDir(base, 'long');
    const body = `{"n": 1}\n${'x'.repeat(200)}\n\n{"n": 2}\n${'y'.repeat(100)}`;
    writeFileSync(path.join(dir, '2026-01-01.jsonl'), body);
    mkdirSync(path.join(dir, 'archive'));
    writeFileSync(path.join(dir, 'archive', '2025-12-31.jsonl.gz'), gzipSync(body));
    const read = new AuditLogRead(dir, {}, { blockBytes: 7, maxLineBytes: 50, ...options });
    const hits = (): unknown[] => Array.from(read.hits(), (h) => [h.file, h.line]);
    expect(hits()).toEqual(hits());
    expect(hits()).toEqual([
      ['archive/2025-12-31.jsonl.gz', 1],
      ['archive/2025-12-31.jsonl.gz', 4],
      ['2026-01-01.jsonl', 1],
      ['2026-01-01.jsonl', 4],
    ]);
  });
});

describe('lineBlocks', () => {
  it('hands over every line, in blocks of whole lines, a longer one than the longest read as unread (file and memory)', () => {
    const dir = freshDir(base, 'blocks');
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'b', '\n'), { maxLength: 60 }).map((a) => a.join('')),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 12 }),
        (text, blockBytes, maxLineBytes) => {
          const bytes = Buffer.from(text);
          const parts = text.split('\n');
          const want = parts
            .slice(0, text.endsWith('\n') || text === '' ? -1 : undefined)
            .map((l, i, all) =>
              l.length > maxLineBytes ? `<${l.length}${i < all.length - 1 || text.endsWith('\n') ? '\\n' : ''}>` : l,
            );
          const file = path.join(dir, 'f');
          writeFileSync(file, bytes);
          const fd = openSync(file, 'r');
          try {
            for (const source of [bytes, { path: file, fd, length: bytes.length }]) {
              const got: string[] = [];
              let pending = '';
              let consumed = 0;
              for (const b of lineBlocks(source, { blockBytes, maxLineBytes })) {
                if (b.kind === 'unread') {
                  if (pending !== '') expect(pending).toBe('');
                  got.push(`<${b.length}${b.terminated ? '\\n' : ''}>`);
                  consumed += b.length + (b.terminated ? 1 : 0);
                  continue;
                }
                const chunk = b.buf.toString('latin1', b.from, b.to);
                consumed += chunk.length;
                // Whole lines only, but for the data's last bytes.
                if (consumed < bytes.length && !chunk.endsWith('\n')) expect(chunk).toMatch(/\n$/);
                pending += chunk;
                const lines = pending.split('\n');
                pending = lines.pop()!;
                got.push(...lines);
              }
              if (consumed !== bytes.length) expect(consumed).toBe(bytes.length);
              if (pending !== '') got.push(pending);
              expectEqual(got, want);
            }
          } finally {
            closeSync(fd);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
