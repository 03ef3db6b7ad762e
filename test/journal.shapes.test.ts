import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { encodeString, isPythonFloatRepr, pythonFloatRepr } from '../src/canonical';
import { readJournalBytes, verifyJournalBytes } from '../src/journal';
import { fastRow } from '../src/journal/fast-line';
import { wasmScanner, type BlockRecord } from '../src/journal/wasm/scanner';
import { makeJournal, SHAPES } from '../bench/make-journal';
import { peerPath, python3 } from './helpers/python';
import { tempDir } from './helpers/tmp';

/**
 * Every row shape the bench writes (floats of every repr form, escapes, non-ASCII,
 * nesting, big integers, long strings) verifies the same on the WebAssembly path,
 * the JS fast path, the lossless walk and under python3; and float tokens are
 * taken as canonical exactly when Python's repr of their value spells them.
 */
const peer = peerPath('stepchain_ref.py');
const root = tempDir();
const seed = Number(process.env.STEPCHAIN_TEST_SEED ?? Date.now() % 2 ** 31);

/** python3's verdict on each token: `repr(float(t)) == t`. */
function pythonSays(tokens: string[]): boolean[] {
  const r = spawnSync(
    python3(),
    ['-c', 'import sys,json; print(json.dumps([repr(float(t)) == t for t in json.load(sys.stdin)]))'],
    { input: JSON.stringify(tokens), encoding: 'utf8' },
  );
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as boolean[];
}

/** Strict verify with the WebAssembly scanner, with the JS fast path, and the plain lossless walk. */
const paths = (buf: Buffer) => [
  verifyJournalBytes(buf, { strict: true }, {}),
  verifyJournalBytes(buf, { strict: true }, { STEPCHAIN_WASM: '0' }),
  (({ entries: _e, ...r }) => r)(readJournalBytes(buf, { strict: true })),
];

describe('every row shape verifies alike on each path and under python3', () => {
  for (const shape of SHAPES) {
    it(shape, () => {
      const file = path.join(root, `${shape}.jsonl`);
      makeJournal(file, 150, shape);
      const py = JSON.parse(
        spawnSync(python3(), [peer, 'verify-strict', file], { encoding: 'utf8', maxBuffer: 1 << 26 }).stdout,
      ) as { ok: boolean; head_hash: string; steps: number };
      const [wasm, js, slow] = paths(readFileSync(file));
      expect(py).toMatchObject({ ok: true, steps: 150 });
      for (const r of [wasm, js, slow]) {
        expect(r.errors).toEqual([]);
        expect(r).toMatchObject({ ok: true, steps: 150, head_hash: py.head_hash });
      }
      // One digit of the middle row's tool_call changed: a fault on every path.
      const lines = readFileSync(file, 'latin1').split('\n');
      const from = lines[75]!.indexOf('"tool_call":');
      const at = from + lines[75]!.slice(from).search(/[0-9]/);
      if (at > 0) {
        const d = lines[75]!.charCodeAt(at);
        lines[75] = `${lines[75]!.slice(0, at)}${d === 0x39 ? 1 : d - 0x2f}${lines[75]!.slice(at + 1)}`;
        const bad = path.join(root, `${shape}-bad.jsonl`);
        require('node:fs').writeFileSync(bad, lines.join('\n'), 'latin1');
        const verdicts = paths(readFileSync(bad)).map((r) => ({ ok: r.ok, errors: r.errors }));
        expect(verdicts[0]!.ok).toBe(false);
        expect(verdicts[1]).toEqual(verdicts[0]);
        expect(verdicts[2]).toEqual(verdicts[0]);
      }
    });
  }
});

describe(`float tokens are canonical exactly when python3 says so (seed ${seed})`, () => {
  // Spellings of canonical values that Python never writes, and the thresholds of its layouts.
  const fixed = [
    '1e5',
    '1.0e-05',
    '0.10',
    '1E+16',
    '1e-5',
    '1.5e16',
    '1.5e+016',
    '1e-005',
    '1e+0100',
    '0.00001',
    '1e+05',
    '100000000000000000.0',
    '1e+16',
    '1e+15',
    '1000000000000000.0',
    '10000000000000000.0',
    '9999999999999998.0',
    '0.0001',
    '1e-04',
    '9.999999999999999e-05',
    '0.00009999999999999999',
    '1.5e+16',
    '1.0',
    '1.00',
    '-0.0',
    '0.0',
    '1e-307',
    '1e-308',
    '2.2250738585072014e-308',
    '2.225073858507201e-308',
    '1e+307',
    '1e+308',
    '1e+309',
    '1.7976931348623157e+308',
    '1.7976931348623158e+308',
    '5e-324',
    '4.9406564584124654e-324',
    '1e-323',
    '123456789012345.6',
    '123456789012345.60',
    '0.30000000000000004',
    '0.30000000000000003',
    '0.3000000000000000',
    '0.1',
    '0.10000000000000001',
    '1.2345678901234567',
    '1.2345678901234568',
    '8.359337151050568e+16',
    '83593371510505680.0',
    '3.518632173482408e-07',
    '3.5186321734824080e-07',
    '-1e-05',
    '-1.5e+16',
    '1.5e+1',
    '1.23456789012345e+100',
    '1.234567890123456e+100',
    '1.0e+100',
    '9.99999999999999e+307',
    '9.99999999999999e-307',
  ];
  const digits = (min: number, max: number): fc.Arbitrary<string> =>
    fc.array(fc.constantFrom(...'0123456789'), { minLength: min, maxLength: max }).map((a) => a.join(''));
  const token = fc.oneof(
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => pythonFloatRepr(x)),
    fc.double({ noNaN: true, min: -1e17, max: 1e17 }).map((x) => pythonFloatRepr(x)),
    fc.double({ noNaN: true, min: -1e-3, max: 1e-3 }).map((x) => pythonFloatRepr(x)),
    // A repr with its last digit moved: often the same double, never its repr.
    fc
      .tuple(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer({ min: -2, max: 2 }))
      .map(([x, d]) => pythonFloatRepr(x).replace(/[0-9](?=(e|$))/, (c) => String((Number(c) + d + 10) % 10))),
    fc.tuple(fc.boolean(), digits(1, 18), digits(1, 18)).map(([neg, a, b]) => `${neg ? '-' : ''}${a}.${b}`),
    fc
      .tuple(
        digits(1, 17),
        fc.integer({ min: -330, max: 330 }),
        fc.constantFrom('e', 'E'),
        fc.integer({ min: 1, max: 3 }),
      )
      .map(
        ([m, e, E, w]) =>
          `${m.length > 1 ? `${m[0]}.${m.slice(1)}` : m}${E}${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(w, '0')}`,
      ),
  );
  const tokens = [...fixed, ...fc.sample(token, { numRuns: 4000, seed })].filter((t) =>
    /^-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$/.test(t),
  );
  const py = pythonSays(tokens);

  it('isPythonFloatRepr (the JS check) agrees with python3 on every token', () => {
    const wrong = tokens.filter((t, k) => isPythonFloatRepr(t) !== py[k]);
    expect(wrong).toEqual([]);
    expect(py.filter(Boolean).length).toBeGreaterThan(1000);
    expect(py.filter((x) => !x).length).toBeGreaterThan(500);
  });

  it('a row carrying the token is taken by the WebAssembly scanner and by fastRow exactly when python3 says so', () => {
    const file = path.join(root, 'base.jsonl');
    makeJournal(file, 2, 'plain');
    const base = readFileSync(file, 'latin1').split('\n')[1]!;
    const w = wasmScanner()!;
    const rec: BlockRecord = { start: 0, end: 0, terminated: false, row: undefined, stored: -1 };
    const wrong: string[] = [];
    for (let k0 = 0; k0 < tokens.length; k0 += 500) {
      const chunk = tokens.slice(k0, k0 + 500);
      const lines = chunk.map((t, k) =>
        k % 2
          ? base.replace(/"ts":[^}]*\}$/, () => `"ts":${t}}`)
          : base.replace(/"tool_call":\{/, () => `"tool_call":{"a":[${t},{"x":${t}}],`),
      );
      const block = Buffer.from(`${lines.join('\n')}\n`, 'latin1');
      block.copy(w.mem, w.data);
      w.start(block.length);
      let k = 0;
      for (let n = w.batch(); n > 0; n = w.batch()) {
        for (let r = 0; r < n; r++, k++) {
          w.record(r, undefined, rec);
          const text = lines[k]!;
          const js = fastRow(text, 0, text.length) !== undefined;
          const want = py[k0 + k]!;
          if ((rec.row !== undefined) !== want || js !== want)
            wrong.push(`${chunk[k]} wasm ${rec.row !== undefined} js ${js}`);
        }
      }
      expect(k).toBe(chunk.length);
    }
    expect(wrong).toEqual([]);
  });
});

describe(`escaped keys are ordered by the WebAssembly scanner as fastRow orders them (seed ${seed})`, () => {
  it('random keys of escapes, non-ASCII and surrogates, in either order', () => {
    const file = path.join(root, 'keys.jsonl');
    makeJournal(file, 2, 'plain');
    const base = readFileSync(file, 'latin1').split('\n')[1]!;
    const w = wasmScanner()!;
    const rec: BlockRecord = { start: 0, end: 0, terminated: false, row: undefined, stored: -1 };
    const key = fc.string({
      unit: fc.constantFrom(
        'a',
        'b',
        'é',
        'ÿ',
        'Ā',
        '日',
        '\uffff',
        '\ue000',
        '\ud800',
        '\udc00',
        '😀',
        '"',
        '\\',
        '\n',
        '\u0001',
      ),
      maxLength: 4,
    });
    let wasmTook = 0;
    fc.assert(
      fc.property(key, key, (k1, k2) => {
        const obj = `{${encodeString(k1)}:1,${encodeString(k2)}:2}`;
        const line = base.replace(/"tool_call":\{/, () => `"tool_call":{"a":${obj},`);
        const block = Buffer.from(`${line}\n`, 'latin1');
        block.copy(w.mem, w.data);
        w.start(block.length);
        expect(w.batch()).toBe(1);
        w.record(0, undefined, rec);
        const js = fastRow(line, 0, line.length);
        if (rec.row !== undefined) {
          wasmTook++;
          expect(rec.row).toEqual(js);
        }
        // Without surrogates the scanner decides alone.
        if (!/[\ud800-\udfff]/.test(k1 + k2)) expect(rec.row).toEqual(js);
      }),
      { seed, numRuns: 2000 },
    );
    expect(wasmTook).toBeGreaterThan(100);
  });
});
