import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { decodeUtf8, isJsonObject, JsonParseError, parse, type JsonObject, type JsonValue } from '../src/canonical';
import { InputError } from '../src/errors';
import {
  readClaudeStream,
  scanClaudeStream,
  signalsOf,
  verifyRunJournal,
  type ClaudeTranscript,
  type MutationSignal,
} from '../src/runs';
import { LineTooLongError, linesOf } from '../src/util/lines';
import { descriptorBlocks } from '../src/util/read-to-end';
import { cli, type CliResult } from './helpers/cli';
import { repoRoot } from './helpers/paths';
import { freshDir, tempDir } from './helpers/tmp';

/**
 * `run ingest` reads its transcript a line at a time (a file or a pipe, a block at a time): the same transcript as
 * the whole-bytes reader it replaced, wherever the blocks end, and one line held at a time.
 */
const base = tempDir('stepchain-ingest-stream-');
const fixtures = path.join(repoRoot, 'test', 'fixtures', 'claude');

/** The reader before streaming, kept as the reference: the bytes decoded whole, then split at each `\n`. */
function wholeReader(bytes: Uint8Array, source: string): ClaudeTranscript {
  let text: string;
  try {
    text = decodeUtf8(bytes);
  } catch {
    throw new InputError(`${source}: transcript is not valid UTF-8`);
  }
  const lines = text.split('\n');
  const result: ClaudeTranscript = { events: 0, assistantTurns: 0, sessionId: undefined, signals: [] };
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.replace(/\r$/, '');
    if (raw.trim() === '') continue;
    let ev: JsonValue;
    try {
      ev = parse(raw);
    } catch (e) {
      const why = e instanceof JsonParseError ? e.message : 'too large or too deeply nested';
      throw new InputError(`${source}:${i + 1}: not a stream-json event: ${why}`);
    }
    if (!isJsonObject(ev)) throw new InputError(`${source}:${i + 1}: not a stream-json event: not a JSON object`);
    if (typeof ev.type !== 'string')
      throw new InputError(`${source}:${i + 1}: not a stream-json event: no string "type"`);
    result.events++;
    if (ev.type === 'assistant') result.assistantTurns++;
    if (result.sessionId === undefined && typeof ev.session_id === 'string') result.sessionId = ev.session_id;
    result.signals.push(...signalsOf(ev as JsonObject, i + 1));
  }
  if (result.events === 0) throw new InputError(`${source}: transcript has no events`);
  return result;
}

type Outcome = { ok: ClaudeTranscript } | { error: string };
const outcome = (read: () => ClaudeTranscript): Outcome => {
  try {
    return { ok: read() };
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    return { error: e.message };
  }
};

/** The streaming reader over `blocks`, signals collected. */
function streamed(blocks: Iterable<Uint8Array>, source: string, maxLineBytes?: number): ClaudeTranscript {
  const signals: MutationSignal[] = [];
  return { ...scanClaudeStream(blocks, source, (s) => signals.push(s), maxLineBytes), signals };
}

/** `bytes` cut at `cuts` (positions, any order, repeats and ends allowed: empty blocks are blocks too). */
function blocksAt(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const at = [0, ...cuts.map((c) => Math.min(c, bytes.length)).sort((a, b) => a - b), bytes.length];
  return at.slice(1).map((end, i) => bytes.subarray(at[i]!, end));
}

/** `bytes` in blocks of `size`. */
function blocksOf(bytes: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

/** The 1-based number of the first `\n`-separated line of `bytes` that is not valid UTF-8, and where it starts. */
function firstBadUtf8Line(bytes: Buffer): { line: number; start: number } | undefined {
  const strict = new TextDecoder('utf-8', { fatal: true });
  for (let start = 0, line = 1; ; line++) {
    const nl = bytes.indexOf(0x0a, start);
    const end = nl < 0 ? bytes.length : nl;
    try {
      strict.decode(bytes.subarray(start, end));
    } catch {
      return { line, start };
    }
    if (nl < 0) return undefined;
    start = nl + 1;
  }
}

/**
 * What the streaming reader must say, from what the whole reader says: the same, but for a transcript that is not
 * UTF-8, which the whole reader refused before reading a line: read a line at a time, it is the first line that does
 * not read, the one that is not UTF-8 (now named) or a bad line before it (what the whole reader says of the lines
 * before it).
 */
function expected(bytes: Buffer, source: string): Outcome {
  const whole = outcome(() => wholeReader(bytes, source));
  const bad = firstBadUtf8Line(bytes);
  if (bad === undefined) return whole;
  expect(whole).toEqual({ error: `${source}: transcript is not valid UTF-8` });
  const before = outcome(() => wholeReader(bytes.subarray(0, bad.start), source));
  return 'error' in before && /:\d+: /.test(before.error)
    ? before
    : { error: `${source}:${bad.line}: transcript is not valid UTF-8` };
}

/** Lines a transcript is made of: events with and without signals, blank lines, CRLF, multi-byte text, faults. */
const SID = 'c0ffee00-1111-4222-8333-444455556666';
const eventLine = fc.oneof(
  fc.constant(JSON.stringify({ type: 'system', subtype: 'init', session_id: SID, model: 'm' })),
  fc
    .record({ sub: fc.constantFrom('compact_boundary', 'microcompact_boundary', 'x_boundary'), pre: fc.nat() })
    .map(({ sub, pre }) =>
      JSON.stringify({
        type: 'system',
        subtype: sub,
        session_id: SID,
        uuid: 'u',
        [`${sub.replace('_boundary', '')}_metadata`]: { trigger: 'auto', pre_tokens: pre },
      }),
    ),
  fc.constant('{"type":"system","subtype":"compact_boundary","uuid":"u","extra":[1.0,2.5e3,"é"]}'),
  fc
    .array(
      fc.oneof(
        fc.record({ type: fc.constantFrom('clear_tool_uses_20250919', ''), n: fc.nat() }),
        fc.constant(7),
        fc.constant({ cleared: 1 }),
      ),
      { maxLength: 3 },
    )
    .map((edits) =>
      JSON.stringify({
        type: 'assistant',
        session_id: SID,
        message: { role: 'assistant', content: [{ type: 'text', text: 'ok ✓ 😀' }] },
        context_management: { applied_edits: edits },
      }),
    ),
  fc.array(fc.constant({ type: 'clear_thinking', kept: 2 }), { maxLength: 2 }).map((edits) =>
    JSON.stringify({
      type: 'assistant',
      message: { role: 'assistant', context_management: { applied_edits: edits } },
    }),
  ),
  fc.string({ maxLength: 20 }).map((text) => JSON.stringify({ type: 'user', message: { content: text } })),
  fc.constant('{"type":"result","subtype":"success","is_error":false,"session_id":"other"}'),
);
const blankLine = fc.constantFrom('', ' ', '\r', ' \t ', '\u00a0');
const badLine = fc.constantFrom('nope', '[1,2]', '{"no_type":1}', '{"type":1}', '{"type":"user"', '"x"', '{}}');
/** A line as bytes: text, a CRLF ending, or bytes that are not UTF-8 (a lone byte, a sequence cut short, a BOM). */
const lineBytes = fc.oneof(
  { weight: 8, arbitrary: eventLine.map((s) => Buffer.from(s)) },
  { weight: 2, arbitrary: blankLine.map((s) => Buffer.from(s)) },
  { weight: 1, arbitrary: badLine.map((s) => Buffer.from(s)) },
  { weight: 1, arbitrary: eventLine.map((s) => Buffer.from(`${s}\r`)) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(eventLine, fc.constantFrom([0xff], [0xe2, 0x82], [0xc3], [0xef, 0xbb, 0xbf], [0xed, 0xa0, 0x80]))
      .map(([s, b]) => Buffer.concat([Buffer.from(b), Buffer.from(s)])),
  },
);
const transcript = fc
  .tuple(fc.array(lineBytes, { maxLength: 8 }), fc.boolean())
  .map(([lines, endsWithNewline]) =>
    Buffer.concat(lines.flatMap((l, i) => (i < lines.length - 1 || endsWithNewline ? [l, Buffer.from('\n')] : [l]))),
  );

test('differential: the streaming reader reads what the whole-bytes reader read, wherever the blocks end', () => {
  fc.assert(
    fc.property(transcript, fc.array(fc.nat({ max: 400 }), { maxLength: 12 }), (bytes, cuts) => {
      const want = expected(bytes, 't.jsonl');
      expect(outcome(() => streamed(blocksAt(bytes, cuts), 't.jsonl'))).toEqual(want);
      // And the bytes door (one block).
      expect(outcome(() => readClaudeStream(bytes, 't.jsonl'))).toEqual(want);
    }),
    { numRuns: 400 },
  );
});

test('differential: blocks of each size from 1 byte (every byte a boundary) to 40, to the whole when short', () => {
  const samples = fc.sample(transcript, { numRuns: 20, seed: 7 });
  samples.push(
    ...['compact-session.jsonl', 'microcompact.jsonl', 'no-mutations.jsonl', 'bad-line.jsonl'].map((f) =>
      readFileSync(path.join(fixtures, f)),
    ),
  );
  for (const bytes of samples) {
    const want = expected(bytes, 't');
    const sizes = bytes.length <= 300 ? bytes.length : 40;
    for (let size = 1; size <= sizes; size++) expect(outcome(() => streamed(blocksOf(bytes, size), 't'))).toEqual(want);
  }
});

test('read from a descriptor a few bytes at a time, to a limit (a file to its size when opened): the same transcript', () => {
  const file = path.join(freshDir(base), 't.jsonl');
  const bytes = Buffer.concat([
    readFileSync(path.join(fixtures, 'compact-session.jsonl')),
    Buffer.from('{"type":"user","message":{"content":"ünïcode 😀"}}\r\n\n'),
  ]);
  // Past the limit: what a writer appended after the open, not read.
  writeFileSync(file, Buffer.concat([bytes, Buffer.from('not read')]));
  for (const blockBytes of [1, 2, 3, 7, 64]) {
    const fd = openSync(file, 'r');
    try {
      expect(streamed(descriptorBlocks(fd, { blockBytes, limit: bytes.length }), 't')).toEqual(wholeReader(bytes, 't'));
    } finally {
      closeSync(fd);
    }
  }
});

test('linesOf: the lines split whole would give, blocks anywhere; a line past the bound refused by its number', () => {
  const bytesArb = fc
    .array(fc.constantFrom(0x0a, 0x0d, 0x61, 0x62, 0xff), { maxLength: 60 })
    .map((a) => Buffer.from(a));
  fc.assert(
    fc.property(bytesArb, fc.array(fc.nat({ max: 70 }), { maxLength: 8 }), fc.nat({ max: 12 }), (bytes, cuts, max) => {
      const whole: Buffer[] = [];
      for (let start = 0; ;) {
        const nl = bytes.indexOf(0x0a, start);
        whole.push(bytes.subarray(start, nl < 0 ? bytes.length : nl));
        if (nl < 0) break;
        start = nl + 1;
      }
      const tooLong = whole.findIndex((l) => l.length > max);
      const got: [number, string][] = [];
      let refused: number | undefined;
      try {
        for (const { n, bytes: b } of linesOf(blocksAt(bytes, cuts), max)) got.push([n, b.toString('hex')]);
      } catch (e) {
        if (!(e instanceof LineTooLongError)) throw e;
        refused = e.line;
      }
      const upTo = tooLong < 0 ? whole : whole.slice(0, tooLong);
      expect(got).toEqual(upTo.map((l, i) => [i + 1, l.toString('hex')]));
      expect(refused).toBe(tooLong < 0 ? undefined : tooLong + 1);
    }),
    { numRuns: 500 },
  );
});

test('a line longer than the bound is refused naming its line, exactly at the bound not', () => {
  const event = '{"type":"user"}';
  const ok = Buffer.from(`${event}\n${event}\r\n`);
  expect(streamed(blocksOf(ok, 3), 's', event.length + 1).events).toBe(2);
  expect(() => streamed(blocksOf(ok, 3), 's', event.length)).toThrow(
    new InputError(`s:2: not a stream-json event: line of more than ${event.length} bytes: not read further`),
  );
});

describe('the bin reads its transcript from a pipe as it comes (a real process)', () => {
  const session = readFileSync(path.join(fixtures, 'compact-session.jsonl'));
  const ingest = (root: string, input: Buffer): CliResult =>
    cli(['run', 'ingest', 'r', '--agent', 'a', '--claude-stream', '-', '--root', root, '--json'], { input });

  test('a line longer than a pipe holds (64 KiB), its characters cut anywhere, is read as a whole one', () => {
    const root = freshDir(base);
    // 300 KB of 4-byte characters: however the pipe hands it over (64 KiB a read at most), the reads cut this line,
    // and three places in four inside a character.
    const long = JSON.stringify({ type: 'user', message: { content: `x${'😀'.repeat(75_000)}` } });
    const r = ingest(root, Buffer.concat([session, Buffer.from(`${long}\r\n`), session]));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as { events: number; mutations: { kind: string; step_index: number }[] };
    expect(doc.events).toBe(19);
    expect(doc.mutations.map((m) => [m.kind, m.step_index])).toEqual([
      ['compact_boundary', 0],
      ['clear_tool_uses_20250919', 1],
      ['compact_boundary', 2],
      ['compact_boundary', 3],
      ['clear_tool_uses_20250919', 4],
      ['compact_boundary', 5],
    ]);
    expect(verifyRunJournal(path.join(root, '.sdd', 'runs', 'r', 'journal.jsonl'))).toMatchObject({
      ok: true,
      mutation_count: 6,
    });
  });

  test('a bad line after the signals: one line naming it, exit 2, nothing written', () => {
    const root = freshDir(base);
    const r = ingest(root, Buffer.concat([session, Buffer.from('{"type":"user"\n'), session]));
    expect(r.code).toBe(2);
    const line = session.toString().split('\n').length;
    expect(JSON.parse(r.stdout)).toMatchObject({
      ok: false,
      error: { message: `<stdin>:${line}: not a stream-json event: expecting ',' delimiter at column 15` },
    });
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(path.join(root, '.sdd'))).toBe(false);
  });
});
