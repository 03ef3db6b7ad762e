import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { documentPieces, jsonDocument, StreamedDocument } from '../src/cli/io';
import { Journal, journalDir, journalFile } from '../src/journal';
import {
  openReplay,
  replayDocument,
  replayDocumentParts,
  stepTable,
  storedParts,
  type ReplaySource,
} from '../src/replay';
import { cliChangedWhilePaused } from './helpers/proc';
import { randomStep, reshapeLines, type RandomStep } from './helpers/random-steps';
import { writeSyntheticJournal } from './helpers/journal-rows';
import { freshDir, tempDir } from './helpers/tmp';

/**
 * `replay` of a verified journal reads its steps once, a block at a time, keeping only what it prints: the table
 * summarises a canonical row from the values it shows, each parsed alone (never the whole row), and `--json` writes
 * a canonical row's own text as its entry, a piece at a time. A source whose steps are an array in memory goes the
 * old way (each row parsed whole: stepSummary, storedParts), so the two are compared over random journals: rows
 * canonical or not, with keys outside the ten, any limit. The `--json` oracle is the document as it was defined
 * before it was streamed: every entry the stored row (storedParts), encoded with the rest.
 */
const root = tempDir('stepchain-replay-stream-');

function journalOf(steps: RandomStep[]): string {
  const file = path.join(freshDir(root), '000000.jsonl');
  writeSyntheticJournal(file, steps.length, (i) => steps[i]!);
  writeFileSync(file, reshapeLines(readFileSync(file, 'latin1').split('\n'), steps).join('\n'), 'latin1');
  return file;
}

/** The source with its steps held in an array (every row parsed whole by the views). */
const held = (s: ReplaySource): ReplaySource => ({ ...s, entries: s.entries.slice() });

function streamed(source: ReplaySource, limit: number | undefined): string {
  const p = replayDocumentParts(source, limit);
  return [...documentPieces(new StreamedDocument(p.head, 'entries', p.entries, p.tail))].join('');
}

/** `replay --json` as defined before it was streamed. */
function heldDocument(source: ReplaySource, limit: number | undefined): string {
  const entries = source.entries.slice(0, limit ?? source.entries.length);
  const unverified = entries
    .map((e) => ({ e, parts: storedParts(e) }))
    .filter(({ parts }) => parts.unverified.size > 0)
    .map(({ e, parts }) => ({ seq: e.row.seq, line: e.line, fields: parts.unverified }));
  const p = replayDocumentParts(source, limit);
  return jsonDocument({
    ...p.head,
    entries: entries.map((e) => storedParts(e).row),
    ...(unverified.length === 0 ? {} : { unverified }),
  });
}

test('the table and the JSON document of a journal read a block at a time are those of its rows parsed whole', () => {
  fc.assert(
    fc.property(
      fc.array(randomStep, { minLength: 1, maxLength: 8 }),
      fc.option(fc.integer({ min: 1, max: 9 }), { nil: undefined }),
      (steps, limit) => {
        const source = openReplay(journalOf(steps), { cwd: root });
        expect(stepTable(source, limit)).toEqual(stepTable(held(source), limit));
        const doc = streamed(source, limit);
        expect(doc).toBe(heldDocument(source, limit));
        expect(doc).toBe(jsonDocument(replayDocument(source, limit)));
        expect(streamed(held(source), limit)).toBe(doc);
      },
    ),
    { numRuns: 120, seed: 1206 },
  );
});

test('a document longer than a piece: the same bytes as held whole', () => {
  const file = path.join(freshDir(root), '000000.jsonl');
  writeSyntheticJournal(file, 3000, (i) => ({
    model: 'm',
    prompt: `step ${i} ${'é'.repeat(200)}`,
    tool_call: { name: 'Edit', input: { n: i, text: 'x'.repeat(300) } },
    tool_result: 'ok',
    ts: 1_700_000_000.25 + i,
  }));
  const source = openReplay(file, { cwd: root });
  const doc = streamed(source, undefined);
  expect(doc.length).toBeGreaterThan(3 << 20);
  expect(doc).toBe(heldDocument(source, undefined));
  expect([...documentPieces(new StreamedDocument({}, 'k', [], () => ({})))].join('')).toBe('{"k":[]}');
});

/**
 * `replay NAME --json` of a journal of `rows` steps (`step i` and `tail` for prompts), paused once it is verified,
 * `from` replaced by `to` (the same length) in the file there, then let go.
 */
async function replayJsonEdited(name: string, rows: number, tail: string, from: string, to: string) {
  const project = freshDir(root, name);
  const j = Journal.open(journalDir(project, name), { durability: 'none' });
  j.appendMany(Array.from({ length: rows }, (_, i) => ({ prompt: `step ${i}${tail}` })));
  const file = journalFile(project, name);
  return cliChangedWhilePaused(
    ['replay', name, '--root', project, '--json'],
    'replay:opened',
    path.join(project, 'resume'),
    () => {
      const text = readFileSync(file, 'utf8');
      const at = text.indexOf(from);
      writeFileSync(file, `${text.slice(0, at)}${to}${text.slice(at + from.length)}`);
    },
    { STEPCHAIN_AUDIT: 'off' },
  );
}

describe('the CLI', () => {
  /**
   * Edited after it was verified but before the first piece (1 MiB) of its document is out: nothing of the document
   * was written, so stdout is the error document alone, as before the document was streamed (not a blank line and
   * then the error document: found by the attack on this change).
   */
  test('a journal edited before any piece of its document is out: the error document alone', async () => {
    const r = await replayJsonEdited('small', 5, '', 'step 3', 'step 4');
    expect(r.code).toBe(1);
    expect(r.stderr).toEqual([expect.stringContaining('the journal changed since it was verified')]);
    expect(r.stdout.startsWith('{')).toBe(true);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false });
  });

  test('a journal edited while its document is written: cut there, no second document, stderr says why', async () => {
    // The same length, late in the file: over a megabyte of the document is out before the change is found.
    const r = await replayJsonEdited('big', 5000, ` ${'x'.repeat(1000)}`, 'step 4500 ', 'step 4501 ');
    expect(r.code).toBe(1);
    expect(r.stderr).toEqual([expect.stringContaining('the journal changed since it was verified')]);
    expect(r.stdout.length).toBeGreaterThan(1 << 20);
    expect(r.stdout.startsWith('{"ok":true,"agent_id":"big"')).toBe(true);
    expect(r.stdout).not.toContain('"error":');
    expect(r.stdout.endsWith('\n')).toBe(true);
    expect(() => JSON.parse(r.stdout)).toThrow();
  });
});
