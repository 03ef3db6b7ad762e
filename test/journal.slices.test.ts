import path from 'node:path';
import { readFileSync } from 'node:fs';
import { Journal, verifyJournalBytes } from '../src/journal';
import { cli } from './helpers/cli';
import {
  applyEdits,
  expectAgreementOnCorruptions,
  LINE_MUTATIONS,
  plainVerify as plain,
  testSeed,
  type LineEdit,
} from './helpers/journal-edits';
import { tempDir } from './helpers/tmp';
import { writeFileSync } from 'node:fs';

/**
 * The fast path (canonical rows hashed from their bytes) and the sliced walk
 * (parallel in the bundle) must report exactly what the plain lossless walk
 * reports, on any corruption.
 */
const root = tempDir();
const seed = testSeed();

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

const mutations: ((l: string) => string)[] = [
  ...LINE_MUTATIONS,
  (l) => l.replace('{"blob_refs":[],', '{"blob_refs":[],"extra":1,'),
  (l) => l.replace('"\\uffff":1,"\\ud83d\\ude00":2', '"\\ud83d\\ude00":2,"\\uffff":1'),
  (l) => l.replace('"prompt":', '"prompt": '),
];

const apply = (edits: LineEdit[], noFinalNewline: boolean): Buffer =>
  applyEdits(baseLines, mutations, edits, noFinalNewline);

describe(`fast path and slices agree with the plain walk (seed ${seed})`, () => {
  it('on random corruptions, strict and not, 1 to 5 slices', () => {
    // The JS fast path with and without the WebAssembly line scanner; blob refs too.
    // 150 runs: test/journal.wasm.test.ts walks the same kind of random corruptions with the scanner on and
    // off (300 runs); the seed changes every run, so the power adds up across runs.
    expectAgreementOnCorruptions(baseLines, mutations, { seed, numRuns: 150 });
  });

  it('the fast path reports non-canonical rows in strict mode exactly like the slow path', () => {
    for (const m of mutations) {
      const buf = Buffer.from(`${[m(baseLines[0]!), ...baseLines.slice(1)].join('\n')}\n`);
      expect(verifyJournalBytes(buf, { strict: true })).toEqual(plain(buf, true));
    }
  });

  it('the built CLI, with real worker threads, reports the same as the library', () => {
    const buf = apply(
      [
        { kind: 'mutate', at: 3, m: 4 },
        { kind: 'delete', at: 20 },
        { kind: 'mutate', at: 30, m: 16 }, // a blank line
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
