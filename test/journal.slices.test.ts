import fc from 'fast-check';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import {
  Journal,
  readJournalBytes,
  verifyJournalBytes,
  verifyJournalBytesWithRefs,
  type VerifyResult,
} from '../src/journal';
import { cli } from './helpers/cli';
import { tempDir } from './helpers/tmp';
import { writeFileSync } from 'node:fs';

/**
 * The fast path (canonical rows hashed from their bytes) and the sliced walk
 * (parallel in the bundle) must report exactly what the plain lossless walk
 * reports, on any corruption.
 */
const root = tempDir();
const seed = Number(process.env.STEPCHAIN_TEST_SEED ?? Date.now() % 2 ** 31);

const dir = path.join(root, '.sdd', 'runtime', 'journal', 'base');
const j = Journal.open(dir, { durability: 'none' });
j.appendMany(
  Array.from({ length: 40 }, (_, i) => ({
    input: Buffer.from(`input ${i % 6}`),
    blobs: i % 4 ? [Buffer.from(`blob ${i % 9}`), Buffer.from(`blob ${i % 5}`)] : [],
    model: i % 3 ? 'm' : null,
    prompt: i % 5 ? `étape ${i} "quoted" \\ / 😀` : null,
    tool_call: {
      name: 'edit',
      args: { n: 10n ** 20n + BigInt(i), ratio: i / 4, list: [1, 2.5, null, true], '\uffff': 1, '😀': 2 },
    },
    tool_result: i % 7 ? { ok: true, out: 'a\nb\tc\u0001' } : null,
    ts: 1796199133 + i / 3,
  })),
);
const baseLines = readFileSync(j.file, 'utf8').split('\n').slice(0, -1);

const mutations: ((l: string, r: () => number) => string)[] = [
  (l) => l.replace('":', '": '),
  (l) => l.replace('\\u00e9', 'é'),
  (l) => l.replace('\\u00e9', '\\u00E9'),
  (l) => l.replace('/', '\\/'),
  (l) => l.replace('"ok":true', '"ok":false'),
  (l) => l.replace('"ratio":0.25', '"ratio":0.250'),
  (l) => l.replace('"ratio":1.0', '"ratio":1'),
  (l) => l.replace(/"seq":(\d+)/, (_m, n) => `"seq":${Number(n) + 1}`),
  (l) => l.replace(/,"ts":[^}]*\}$/, ',"ts":1796199133}'),
  (l) => l.replace('{"blob_refs":[],', '{"blob_refs":[],"extra":1,'),
  (l) => l.replace('"model":"m",', '').replace('"input_hash"', '"model":"m","input_hash"'),
  (l) => l.slice(0, Math.floor(l.length / 2)),
  (l) => l.replace(/"step_hash":"(.)/, (_m, c) => `"step_hash":"${c === 'a' ? 'b' : 'a'}`),
  (l) => l.replace(/"prev_hash":"(.)/, (_m, c) => `"prev_hash":"${c === 'a' ? 'b' : 'a'}`),
  (l) => l.replace('"\\uffff":1,"\\ud83d\\ude00":2', '"\\ud83d\\ude00":2,"\\uffff":1'),
  (l) => l.replace('\\t', '\\u0009'),
  (l) => l.replace('"ratio":0', '"ratio":-0'),
  (l) => `${l} `,
  () => '',
  () => 'garbage',
  (l) => l.replace('"prompt":', '"prompt": '),
];

type Edit =
  | { kind: 'mutate'; at: number; m: number }
  | { kind: 'delete'; at: number }
  | { kind: 'dup'; at: number }
  | { kind: 'swap'; at: number };
const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constant('mutate' as const), at: fc.nat(39), m: fc.nat(mutations.length - 1) }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(39) }),
  fc.record({ kind: fc.constant('dup' as const), at: fc.nat(39) }),
  fc.record({ kind: fc.constant('swap' as const), at: fc.nat(38) }),
);

function apply(edits: Edit[], noFinalNewline: boolean): Buffer {
  const lines = [...baseLines];
  for (const e of edits) {
    const at = Math.min(e.at, lines.length - 1);
    if (at < 0) break;
    if (e.kind === 'mutate') lines[at] = mutations[e.m]!(lines[at]!, Math.random);
    else if (e.kind === 'delete') lines.splice(at, 1);
    else if (e.kind === 'dup') lines.splice(at, 0, lines[at]!);
    else if (at + 1 < lines.length) [lines[at], lines[at + 1]] = [lines[at + 1]!, lines[at]!];
  }
  const text = lines.join('\n') + (noFinalNewline ? '' : '\n');
  return Buffer.from(text);
}

function plain(buf: Buffer, strict: boolean): VerifyResult {
  const { entries: _e, ...r } = readJournalBytes(buf, { strict });
  return r;
}

describe(`fast path and slices agree with the plain walk (seed ${seed})`, () => {
  it('on random corruptions, strict and not, 1 to 5 slices', () => {
    fc.assert(
      fc.property(
        fc.array(edit, { maxLength: 4 }),
        fc.boolean(),
        fc.boolean(),
        fc.integer({ min: 1, max: 5 }),
        (edits, strict, noNl, threads) => {
          const buf = apply(edits, noNl);
          const expected = plain(buf, strict);
          const env = { STEPCHAIN_THREADS: String(threads), STEPCHAIN_PARALLEL_MIN_BYTES: '0' };
          const got = verifyJournalBytes(buf, { strict }, env);
          expect(got).toEqual(expected);
          // The JS fast path alone (no WebAssembly line scanner) too.
          expect(verifyJournalBytes(buf, { strict }, { ...env, STEPCHAIN_WASM: '0' })).toEqual(expected);
          // Blob refs collected on the fast path equal the plain walk's, first occurrence, unique.
          const refs = [...new Set(readJournalBytes(buf).entries.flatMap((e) => e.row.blob_refs))];
          expect(verifyJournalBytesWithRefs(buf, { strict }, env).blob_refs).toEqual(refs);
        },
      ),
      // 150 runs: test/journal.wasm.test.ts walks the same kind of random corruptions with the scanner on and
      // off (300 runs); the seed changes every run, so the power adds up across runs.
      { seed, numRuns: 150 },
    );
  });

  it('the fast path reports non-canonical rows in strict mode exactly like the slow path', () => {
    for (const m of mutations) {
      const buf = Buffer.from(`${[m(baseLines[0]!, Math.random), ...baseLines.slice(1)].join('\n')}\n`);
      expect(verifyJournalBytes(buf, { strict: true })).toEqual(plain(buf, true));
    }
  });

  it('the built CLI, with real worker threads, reports the same as the library', () => {
    const buf = apply(
      [
        { kind: 'mutate', at: 3, m: 4 },
        { kind: 'delete', at: 20 },
        { kind: 'mutate', at: 30, m: 18 },
      ],
      false,
    );
    const file = path.join(root, 'corrupt.jsonl');
    writeFileSync(file, buf);
    for (const threads of ['1', '2', '3']) {
      const r = cli(['verify', file, '--json'], {
        env: { STEPCHAIN_THREADS: threads, STEPCHAIN_PARALLEL_MIN_BYTES: '0' },
      });
      expect(r.code).toBe(1);
      expect(JSON.parse(r.stdout)).toEqual(plain(buf, false));
    }
  });
});
