import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import type { JsonValue } from '../src/canonical';
import { IntegrityError } from '../src/errors';
import { computeStepHash, encodeRow, readJournalFile, VerifiedSteps, type StepRow } from '../src/journal';
import { diffJournals, openForDiff, type Comparable } from '../src/replay';
import { ZERO_HASH } from '../src/util/hash';
import { peakRss } from './helpers/peak-rss';
import { cliPath } from './helpers/paths';
import { tempDir } from './helpers/tmp';
import { writeSyntheticJournalFast } from './helpers/journal-rows';

/**
 * `diff` of two journals that verify reads them where they lie, a block at a time, and compares their rows by
 * their marks (stored step_hash, blob refs) without parsing them: the verdict is the one the whole read gives
 * (every row parsed and compared field by field), for any pair, and memory does not follow the journals' size.
 */
const root = tempDir('stepchain-diff-stream-');
let files = 0;

/** What one step says; the chain is filled in. */
interface Said {
  model: string;
  prompt: JsonValue;
  tool_call: JsonValue;
  tool_result: JsonValue;
  blob_refs: string[];
  ts: number;
}

const hex = fc.stringMatching(/^[0-9a-f]{64}$/);
const text = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('naïve ✓ 日本', 'a "quoted"\ttab\n', '\u2028'));
const said: fc.Arbitrary<Said> = fc.record({
  model: fc.constantFrom('m1', 'm2'),
  prompt: text,
  // A nested "ts" key: the row's own ts is its last key, after it.
  tool_call: fc.record({
    name: fc.constantFrom('edit', 'run'),
    ts: fc.double({ noNaN: true, noDefaultInfinity: true }),
  }),
  tool_result: fc.oneof(
    fc.constant(null),
    fc.record({ out: text, score: fc.double({ noNaN: true, noDefaultInfinity: true }) }),
  ),
  blob_refs: fc.array(hex, { maxLength: 2 }),
  ts: fc.double({ min: 1e9, max: 2e9, noNaN: true }),
});

/** Rows chained from genesis; `odd` lines written not canonical (a space inside, blanks around): they verify. */
function rowsOf(steps: Said[]): StepRow[] {
  let prev = ZERO_HASH;
  return steps.map(({ ts, blob_refs, ...fields }, seq) => {
    const hashed = { prev_hash: prev, input_hash: ZERO_HASH, ...fields };
    const row: StepRow = { ...hashed, blob_refs, seq, step_hash: computeStepHash(hashed), ts };
    prev = row.step_hash;
    return row;
  });
}

function write(rows: StepRow[], odd: ReadonlySet<number> = new Set()): string {
  const file = path.join(root, `j${files++}.jsonl`);
  const lines = rows.map((r, i) => (odd.has(i) ? ` ${encodeRow(r).replace('{', '{ ')}\t\n` : encodeRow(r)));
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** The whole read's side: every row parsed and held (what diff read before). */
function wholeSide(file: string): Comparable {
  const r = readJournalFile(file);
  return { head_hash: r.head_hash, steps: r.steps, entries: r.entries };
}

/** The side of journal bytes held in memory (a receipt's journal member). */
function heldSide(file: string): Comparable {
  const steps = VerifiedSteps.fromBytes(readFileSync(file), `${file}:journal`);
  return { head_hash: steps.head_hash, steps: steps.length, entries: steps };
}

/** A diff as JSON (the stored rows are maps, read losslessly: exact integers are bigints). */
const shown = (d: unknown): string =>
  JSON.stringify(d, (_k, v: unknown) =>
    v instanceof Map ? Object.fromEntries(v as Map<string, unknown>) : typeof v === 'bigint' ? `${v}n` : v,
  );

/** How the right side differs from the left. */
const change = fc.oneof(
  fc.constant({ kind: 'same' as const }),
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('content' as const), at: fc.nat(), prompt: text }),
  fc.record({ kind: fc.constant('refs' as const), at: fc.nat(), refs: fc.array(hex, { maxLength: 2 }) }),
  fc.record({ kind: fc.constant('ts' as const), shift: fc.double({ min: 1, max: 1e6, noNaN: true }) }),
);

test('the streamed diff of two verified journals is the whole read diff, for any pair', () => {
  fc.assert(
    fc.property(
      fc.array(said, { minLength: 1, maxLength: 700, size: 'medium' }),
      change,
      fc.uniqueArray(fc.nat({ max: 699 }), { maxLength: 8 }),
      fc.uniqueArray(fc.nat({ max: 699 }), { maxLength: 8 }),
      (steps, c, oddLeft, oddRight) => {
        let other = steps.map((s) => ({ ...s }));
        if (c.kind === 'cut') other = other.slice(0, c.at % (other.length + 1));
        if (c.kind === 'content') other[c.at % other.length]!.prompt = c.prompt;
        if (c.kind === 'ts') other = other.map((s) => ({ ...s, ts: s.ts + c.shift }));
        let right = rowsOf(other);
        // Blob refs are not hashed: an edit of them leaves a chain that verifies.
        if (c.kind === 'refs' && right.length > 0) {
          const at = c.at % right.length;
          const refs = c.refs.join() === right[at]!.blob_refs.join() ? [...c.refs, 'ab'.repeat(32)] : c.refs;
          right = right.map((r, i) => (i === at ? { ...r, blob_refs: refs } : r));
        }
        const a = write(rowsOf(steps), new Set(oddLeft));
        const b = write(right, new Set(oddRight));
        const left = openForDiff(a);
        const rightSide = openForDiff(b);
        expect(left.entries).toBeInstanceOf(VerifiedSteps);
        // An empty journal does not verify (empty_journal): compared from its whole read, beside a streamed one.
        expect(rightSide.entries instanceof VerifiedSteps).toBe(right.length > 0);
        // Each side's whole read made once (it was made six times a run), and each whole diff once.
        const [wholeA, wholeB] = [wholeSide(a), wholeSide(b)];
        const wholeAB = shown(diffJournals(wholeA, wholeB));
        expect(shown(diffJournals(left, rightSide))).toBe(wholeAB);
        expect(shown(diffJournals(rightSide, left))).toBe(shown(diffJournals(wholeB, wholeA)));
        // Held in memory (a receipt's journal), read the same way.
        if (right.length > 0) expect(shown(diffJournals(heldSide(a), heldSide(b)))).toBe(wholeAB);
      },
    ),
    { numRuns: 80 },
  );
});

test('a verified journal read by its marks gives what its parsed rows say', () => {
  fc.assert(
    fc.property(
      fc.array(said, { minLength: 1, maxLength: 600, size: 'max' }),
      fc.uniqueArray(fc.nat({ max: 599 }), { maxLength: 20 }),
      fc.nat(),
      (steps, odd, from) => {
        const file = write(rowsOf(steps), new Set(odd));
        const v = VerifiedSteps.open(file);
        const start = from % (steps.length + 1);
        const marks = [...v.marks(start)];
        const rows = v.slice(start).map((e) => ({
          line: e.line,
          seq: e.row.seq,
          step_hash: e.row.step_hash,
          blob_refs: e.row.blob_refs,
          ts: e.row.ts,
        }));
        expect(marks).toEqual(rows);
        expect([...VerifiedSteps.fromBytes(readFileSync(file), file).marks(start)]).toEqual(rows);
      },
    ),
    { numRuns: 30 },
  );
});

test('a journal changed in place after it verified is refused, never compared', () => {
  const steps = Array.from({ length: 300 }, (_, i) => ({
    model: 'm',
    prompt: `step ${i}`,
    tool_call: null,
    tool_result: null,
    blob_refs: [],
    ts: 1.5e9 + i,
  }));
  const a = write(rowsOf(steps));
  const b = write(rowsOf(steps));
  const left = openForDiff(a);
  const right = openForDiff(b);
  // Same length, a hashed field changed under its stored hash.
  writeFileSync(b, readFileSync(b, 'latin1').replace('"step 250"', '"step 205"'), 'latin1');
  expect(() => diffJournals(left, right)).toThrow(IntegrityError);
  expect(() => diffJournals(left, right)).toThrow(/changed since it was verified/);
});

/**
 * 35,000 chained rows of ~1.2 KB (a prompt `step <seq> <tag>` from step 30,000 on, the rest the same in every
 * journal), written out as text (writeSyntheticJournalFast, every 5,000th row checked against the encoder): encoding
 * all 70,000 rows of the two journals with computeStepHash and encodeRow was ~1.3 s of this file's ~7.3 s of CPU.
 */
function writeLargeJournal(file: string, tag: string, filler: string): void {
  writeSyntheticJournalFast(
    file,
    35_000,
    (seq) => ({
      model: 'claude-bench',
      prompt: `step ${seq} ${seq >= 30_000 ? tag : ''}`,
      tool_call: { args: { line: seq }, name: 'edit' },
      tool_result: { stdout: filler },
      ts: 1.8e9 + seq + 0.5,
    }),
    { checkEvery: 5_000, batch: 64 },
  );
}

test('diff of two large journals: the verdict in memory that does not follow their size', () => {
  // ~1.2 KB rows, as an agent writes them: two journals of ~42 MB that part at step 30,000.
  const filler = 'x'.repeat(1100);
  const a = path.join(root, 'big-a.jsonl');
  const b = path.join(root, 'big-b.jsonl');
  writeLargeJournal(a, 'a', filler);
  writeLargeJournal(b, 'b', filler);
  const r = peakRss([process.execPath, cliPath, 'diff', a, b, '--json'], {
    env: { ...process.env, STEPCHAIN_AUDIT: 'off' },
  });
  expect(r.code).toBe(1);
  const d = JSON.parse(r.out) as Record<string, unknown>;
  expect(d).toMatchObject({ diverged: true, reason: 'step_mismatch', seq: 30_000, fields_changed: ['prompt'] });
  expect(d).toMatchObject({ left_line: 30_001, right_line: 30_001, left_steps: 35_000, right_steps: 35_000 });
  // The whole read held both journals' rows parsed: ~10 times their size (1.3 GB for two of 129 MB, ~850 MB here).
  expect(r.mb).toBeLessThan(200);
});
