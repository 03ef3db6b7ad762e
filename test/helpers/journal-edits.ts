import fc from 'fast-check';
import { readJournalBytes, verifyJournalBytes, verifyJournalBytesWithRefs, type VerifyResult } from '../../src/journal';

/**
 * The random corruptions the fast-path tests (journal.slices, journal.wasm) walk: a journal's lines, each edit
 * mutating one line (by one of the test's own mutations), deleting it, duplicating it or swapping it with the next.
 */

/**
 * Mutations of a row line of the fast-path tests' journals (their rows share these fields): whitespace, escapes,
 * number spellings, a wrong seq or ts, fields out of order, a cut line, hashes changed, blank and garbage lines.
 */
export const LINE_MUTATIONS: ((l: string) => string)[] = [
  (l) => l.replace('":', '": '),
  (l) => l.replace('\\u00e9', 'é'),
  (l) => l.replace('\\u00e9', '\\u00E9'),
  (l) => l.replace('/', '\\/'),
  (l) => l.replace('"ok":true', '"ok":false'),
  (l) => l.replace('"ratio":0.25', '"ratio":0.250'),
  (l) => l.replace('"ratio":1.0', '"ratio":1'),
  (l) => l.replace(/"seq":(\d+)/, (_m, n) => `"seq":${Number(n) + 1}`),
  (l) => l.replace(/,"ts":[^}]*\}$/, ',"ts":1796199133}'),
  (l) => l.replace('"model":"m",', '').replace('"input_hash"', '"model":"m","input_hash"'),
  (l) => l.slice(0, Math.floor(l.length / 2)),
  (l) => l.replace(/"step_hash":"(.)/, (_m, c) => `"step_hash":"${c === 'a' ? 'b' : 'a'}`),
  (l) => l.replace(/"prev_hash":"(.)/, (_m, c) => `"prev_hash":"${c === 'a' ? 'b' : 'a'}`),
  (l) => l.replace('\\t', '\\u0009'),
  (l) => l.replace('"ratio":0', '"ratio":-0'),
  (l) => `${l} `,
  () => '',
  () => 'garbage',
];

/** The seed of a property test: STEPCHAIN_TEST_SEED, else one that changes every run (a test names it). */
export const testSeed = (): number => Number(process.env.STEPCHAIN_TEST_SEED ?? Date.now() % 2 ** 31);

export type LineEdit =
  | { kind: 'mutate'; at: number; m: number }
  | { kind: 'delete'; at: number }
  | { kind: 'dup'; at: number }
  | { kind: 'swap'; at: number };

/** An edit of a journal of `lines` lines with `mutations` mutations to choose from. */
export function lineEdit(mutations: number, lines = 40): fc.Arbitrary<LineEdit> {
  return fc.oneof(
    fc.record({ kind: fc.constant('mutate' as const), at: fc.nat(lines - 1), m: fc.nat(mutations - 1) }),
    fc.record({ kind: fc.constant('delete' as const), at: fc.nat(lines - 1) }),
    fc.record({ kind: fc.constant('dup' as const), at: fc.nat(lines - 1) }),
    fc.record({ kind: fc.constant('swap' as const), at: fc.nat(lines - 2) }),
  );
}

/** `baseLines` with `edits` applied, as a journal's bytes (with a final newline unless `noFinalNewline`). */
export function applyEdits(
  baseLines: string[],
  mutations: ((l: string) => string)[],
  edits: LineEdit[],
  noFinalNewline: boolean,
): Buffer {
  const lines = [...baseLines];
  for (const e of edits) {
    const at = Math.min(e.at, lines.length - 1);
    if (at < 0) break;
    if (e.kind === 'mutate') lines[at] = mutations[e.m]!(lines[at]!);
    else if (e.kind === 'delete') lines.splice(at, 1);
    else if (e.kind === 'dup') lines.splice(at, 0, lines[at]!);
    else if (at + 1 < lines.length) [lines[at], lines[at + 1]] = [lines[at + 1]!, lines[at]!];
  }
  return Buffer.from(lines.join('\n') + (noFinalNewline ? '' : '\n'));
}

/** What the plain lossless walk reports (the reference the fast paths must equal). */
export function plainVerify(buf: Buffer, strict: boolean): VerifyResult {
  const { entries: _e, ...r } = readJournalBytes(buf, { strict });
  return r;
}

/**
 * The fast path in `threads` slices reports exactly what the plain walk does, with the WebAssembly line scanner
 * and without it, and collects the plain walk's blob refs (first occurrence, unique) both ways.
 */
export function expectFastPathsAgree(buf: Buffer, strict: boolean, threads: number): void {
  const { entries, ...expected } = readJournalBytes(buf, { strict });
  // The refs are the non-strict walk's: when the walk above was that one, it is not walked again.
  const laxEntries = strict ? readJournalBytes(buf).entries : entries;
  const env = { STEPCHAIN_THREADS: String(threads), STEPCHAIN_PARALLEL_MIN_BYTES: '0' };
  const off = { ...env, STEPCHAIN_WASM: '0' };
  expect(verifyJournalBytes(buf, { strict }, env)).toEqual(expected);
  expect(verifyJournalBytes(buf, { strict }, off)).toEqual(expected);
  const refs = [...new Set(laxEntries.flatMap((e) => e.row.blob_refs))];
  expect(verifyJournalBytesWithRefs(buf, { strict }, env).blob_refs).toEqual(refs);
  expect(verifyJournalBytesWithRefs(buf, { strict }, off).blob_refs).toEqual(refs);
}

/**
 * On `numRuns` random corruptions of `baseLines` (up to four edits, strict and not, with and without the final
 * newline, 1 to 5 slices), the fast paths agree with the plain walk (`expectFastPathsAgree`).
 */
export function expectAgreementOnCorruptions(
  baseLines: string[],
  mutations: ((l: string) => string)[],
  o: { seed: number; numRuns: number },
): void {
  fc.assert(
    fc.property(
      fc.array(lineEdit(mutations.length, baseLines.length), { maxLength: 4 }),
      fc.boolean(),
      fc.boolean(),
      fc.integer({ min: 1, max: 5 }),
      (edits, strict, noNl, threads) =>
        expectFastPathsAgree(applyEdits(baseLines, mutations, edits, noNl), strict, threads),
    ),
    o,
  );
}
