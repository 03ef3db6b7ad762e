import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { canonical, float, LONG_LINE_BYTES, type JsonValue } from '../src/canonical';
import { verifyJournalFile } from '../src/journal';
import { computeStepHash } from '../src/journal/step-hash';
import { exportReceipt } from '../src/receipt/export';
import { JournalWalker } from '../src/receipt/journal-walk';
import { buildPublishedReceipt, publishReceipt } from '../src/receipt/publish';
import { verifyReceipt, walkReceiptJournal } from '../src/receipt/verify';
import { tempDir } from './helpers/tmp';

/**
 * Attacks on the long-line rule of a receipt's walk (a line longer than LONG_LINE_BYTES is taken only as a row
 * LongRowCheck takes): what stepchain writes must be what its own receipt reader takes.
 */
const root = tempDir();
const sha = (s: string): string => createHash('sha256').update(s).digest('hex');
const ZERO = '0'.repeat(64);

interface Step {
  prompt: JsonValue;
  toolResult?: JsonValue;
  toolCall?: JsonValue;
  /** Spell the row's ts `…0.250` (valid JSON, not Python's repr): a row that is not canonical. */
  nonCanonical?: boolean;
}

/** A journal file of chained rows. */
function writeJournal(name: string, steps: readonly Step[]): string {
  const file = path.join(root, name);
  writeFileSync(file, journalBytes(steps));
  return file;
}

/** The bytes of a journal of chained rows. */
function journalBytes(steps: readonly Step[]): Buffer {
  let prev = ZERO;
  const lines = steps.map((s, seq) => {
    const fields = {
      prev_hash: prev,
      input_hash: sha('input'),
      model: 'm',
      prompt: s.prompt,
      tool_call: s.toolCall ?? { name: 'Edit', n: float(1) },
      tool_result: s.toolResult ?? null,
    };
    const step = computeStepHash(fields);
    prev = step;
    const line = canonical({ ...fields, blob_refs: [], seq, step_hash: step, ts: 1796000000.25 });
    return `${s.nonCanonical ? line.replace(/"ts":1796000000\.25}$/, '"ts":1796000000.250}') : line}\n`;
  });
  return Buffer.from(lines.join(''));
}

describe('export never writes a receipt its own reader refuses', () => {
  it('a canonical long row whose key is over 64 KiB (LongRowCheck refuses it): export refuses, naming the line', () => {
    // Canonical, and `verify --strict` takes it: but a receipt's walk takes a line over LONG_LINE_BYTES only as a row
    // LongRowCheck takes, which holds no key over 64 KiB. Export went the re-encoding way (the strict walk found a
    // fault), re-encoded the same bytes, and wrote a receipt that `receipt verify` failed (steps 2 of 3).
    const journal = writeJournal('long-key.jsonl', [
      { prompt: 'a' },
      { prompt: 'b', toolResult: { ['k'.repeat(65_537)]: 'v'.repeat(LONG_LINE_BYTES) } },
      { prompt: 'c' },
    ]);
    expect(verifyJournalFile(journal, { strict: true }).errors).toEqual([]);
    const out = path.join(root, 'long-key.tar');
    expect(() => exportReceipt(journal, out, { agentId: 'a' })).toThrow(
      /long-key\.jsonl:2: non_canonical: line of 8,454,\d{3} bytes that is not a canonical row/,
    );
    expect(existsSync(out)).toBe(false);
  });

  it('a long line that is not canonical is re-encoded as before: the receipt verifies', () => {
    const journal = writeJournal('long-noncanonical.jsonl', [
      { prompt: 'a' },
      { prompt: 'p'.repeat(LONG_LINE_BYTES + 10), nonCanonical: true },
      { prompt: 'c' },
    ]);
    const out = path.join(root, 'long-noncanonical.tar');
    exportReceipt(journal, out, { agentId: 'a' });
    const v = verifyReceipt(readFileSync(out));
    expect(v.errors).toEqual([]);
    expect(v.steps).toBe(3);
  });
});

describe("walkReceiptJournal (the library's walk of a receipt's journal member) applies the long-line rule", () => {
  // It read every line whole, as `verify` reads a journal: for a long line the receipt walk refuses it gave another
  // verdict than every reader of the receipt (steps 3, no fault / one fault, where they give steps 2 and three).
  it.each([
    ['a long line that is not canonical', { prompt: 'p'.repeat(LONG_LINE_BYTES + 10), nonCanonical: true }],
    [
      'a canonical long row with a key over 64 KiB',
      { prompt: 'b', toolResult: { ['k'.repeat(65_537)]: 'v'.repeat(LONG_LINE_BYTES) } },
    ],
    ['a canonical long row', { prompt: 'p'.repeat(LONG_LINE_BYTES + 10) }],
  ] as const)('%s: the walk every reader of a receipt makes', (_name, long: Step) => {
    const bytes = journalBytes([{ prompt: 'a' }, long, { prompt: 'c' }]);
    const walker = new JournalWalker();
    walker.push(bytes);
    const receipt = walker.finish();
    const lib = walkReceiptJournal(bytes);
    expect({ head: lib.head, steps: lib.steps, faults: lib.faults, omitted: lib.omitted }).toEqual({
      head: receipt.head,
      steps: receipt.steps,
      faults: receipt.faults,
      omitted: receipt.omitted,
    });
    expect(lib.refs).toEqual(receipt.refs);
  });
});

describe('publish never writes a receipt its own reader refuses', () => {
  // tool_call is not redacted by default: a canonical long row whose tool_call holds a key over 64 KiB stays a line
  // over LONG_LINE_BYTES that the receipt walk refuses. Publish wrote it: `receipt verify` said steps 2 of 3.
  const steps: Step[] = [
    { prompt: 'a' },
    { prompt: 'b', toolCall: { name: 'Edit', ['k'.repeat(65_537)]: 'v'.repeat(LONG_LINE_BYTES) } },
    { prompt: 'c' },
  ];
  const refusal =
    /step 1 published is a line of 8,454,\d{3} bytes that is not a canonical row a receipt's reader takes/;

  it('streamed (stepchain publish): refused, nothing written', () => {
    const journal = writeJournal('publish-long-key.jsonl', steps);
    const out = path.join(root, 'publish-long-key.tar');
    expect(() => publishReceipt(journal, out, { optIn: true, agentId: 'a' })).toThrow(refusal);
    expect(existsSync(out)).toBe(false);
  });

  it('in memory (buildPublishedReceipt): refused', () => {
    const journal = writeJournal('publish-long-key-2.jsonl', steps);
    expect(() => buildPublishedReceipt(journal, { optIn: true, agentId: 'a' })).toThrow(refusal);
  });

  it('a long row the receipt walk takes is published, and verifies', () => {
    const journal = writeJournal('publish-long.jsonl', [
      { prompt: 'a' },
      { prompt: 'b', toolCall: { name: 'Edit', big: 'v'.repeat(LONG_LINE_BYTES) } },
    ]);
    const out = path.join(root, 'publish-long.tar');
    publishReceipt(journal, out, { optIn: true, agentId: 'a' });
    const v = verifyReceipt(readFileSync(out));
    expect(v.errors).toEqual([]);
    expect(v.steps).toBe(2);
  });
});
