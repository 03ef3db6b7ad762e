import { spawnSync } from 'node:child_process';
import path from 'node:path';
import fc from 'fast-check';
import { isPythonFloatRepr, pythonFloatRepr } from '../src/canonical';
import { wasmScanner } from '../src/journal/wasm/scanner';
import { repoRoot } from './helpers/paths';
import { python3 } from './helpers/python';

/**
 * The WebAssembly scanner decides float tokens itself (src/journal/wasm/assembly/float-repr.ts: an exact
 * integer check for 16-17 digits, Ryu's shortest digits for the rest) and leaves to JS only what it does
 * not show. Whatever it takes must be Python's repr of the token's value (the slow path's verdict,
 * pythonFloatRepr, and python3's own on a sample), and it must take every repr itself (else the fast
 * path is not fast): on random doubles, their neighbours, the boundaries of each layout, and spellings
 * of the same values that Python never writes.
 */
const seed = Number(process.env.STEPCHAIN_TEST_SEED ?? Date.now() % 2 ** 31);
const w = wasmScanner()!;

const bits = new BigUint64Array(1);
const dbl = new Float64Array(bits.buffer);
/** The double k steps from x (by its bit pattern, within its sign). */
function step(x: number, k: number): number {
  dbl[0] = Math.abs(x);
  bits[0] = BigInt.asUintN(64, bits[0]! + BigInt(k));
  const y = dbl[0]!;
  return x < 0 ? -y : y;
}

/** Spellings of x's value (or near it) that are not its repr, in both layouts. */
function respellings(x: number): string[] {
  const r = pythonFloatRepr(x);
  const a = Math.abs(x);
  const sign = x < 0 ? '-' : '';
  const out = [
    `${sign}${a.toPrecision(17)}`,
    `${sign}${a.toPrecision(16)}`,
    `${sign}${a.toExponential(16)}`,
    `${sign}${a.toExponential(15)}`,
    r.replace(/[0-9](?=(e|$))/, (c) => String((Number(c) + 1) % 10)),
    r.replace(/[0-9](?=(e|$))/, (c) => String((Number(c) + 9) % 10)),
    r.replace(/(?=(e|$))/, '1'),
    r.replace(/(?=(e|$))/, '0'),
    r.replace(/e([+-])0?/, 'e$1'),
    r.replace('e', 'E'),
  ];
  return out.filter((t) => t !== r && /^-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$/.test(t) && /[.eE]/.test(t));
}

/** python3's verdict on each token: `repr(float(t)) == t`. */
function pythonSays(tokens: string[]): boolean[] {
  const r = spawnSync(
    python3(),
    ['-c', 'import sys,json; print(json.dumps([repr(float(t)) == t for t in json.load(sys.stdin)]))'],
    { input: JSON.stringify(tokens), encoding: 'utf8', maxBuffer: 1 << 26 },
  );
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as boolean[];
}

/** Significant digits (the last not 0) at decimal exponent x (of the first), laid out as repr would. */
function layout(digits: string, x: number, neg: boolean): string {
  const sign = neg ? '-' : '';
  if (x < -4 || x >= 16) {
    const e = `e${x < 0 ? '-' : '+'}${String(Math.abs(x)).padStart(2, '0')}`;
    return `${sign}${digits[0]}${digits.length > 1 ? `.${digits.slice(1)}` : ''}${e}`;
  }
  if (x < 0) return `${sign}0.${'0'.repeat(-x - 1)}${digits}`;
  const int = digits.slice(0, x + 1).padEnd(x + 1, '0');
  return `${sign}${int}.${digits.slice(x + 1) || '0'}`;
}

const anyDouble = fc.double({ noNaN: true, noDefaultInfinity: true });
const doubles = fc.oneof(
  anyDouble,
  fc.double({ noNaN: true, min: -1e17, max: 1e17 }),
  fc.double({ noNaN: true, min: -1e-3, max: 1e-3 }),
  fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: -30, max: 30 })).map(([f, e]) => f * 10 ** e),
  fc.tuple(fc.integer({ min: 1, max: 2 ** 30 }), fc.integer({ min: 1, max: 2 ** 30 })).map(([a, b]) => a / b),
  // Powers of two (the double below is closer) and the extremes.
  fc.integer({ min: -1074, max: 1023 }).map((e) => 2 ** e),
  fc.constantFrom(5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 1e16, 1e-4, 2 ** 53 + 2),
);
/** A double and its neighbours. */
const withNeighbours = fc
  .tuple(doubles, fc.integer({ min: -3, max: 3 }))
  .map(([x, k]) => (x === 0 ? x : step(x, k)))
  .filter((x) => Number.isFinite(x));

describe(`the scanner's own float decision agrees with the slow path (seed ${seed})`, () => {
  it('takes every repr itself, and nothing that is not a repr', () => {
    const falseAccepts: string[] = [];
    const undecided: string[] = [];
    fc.assert(
      fc.property(withNeighbours, (x) => {
        const r = pythonFloatRepr(x);
        if (!w.decidesFloat(r)) undecided.push(r);
        for (const t of respellings(x)) {
          if (w.decidesFloat(t) && pythonFloatRepr(Number(t)) !== t) falseAccepts.push(t);
        }
      }),
      { seed, numRuns: 60000 },
    );
    expect(falseAccepts).toEqual([]);
    expect(undecided).toEqual([]);
  });

  it('agrees with python3 on a sample, and with the JS check on every token', () => {
    const xs = fc.sample(withNeighbours, { seed: seed + 1, numRuns: 3000 });
    const tokens = [...xs.map((x) => pythonFloatRepr(x)), ...xs.flatMap((x) => respellings(x))];
    const py = pythonSays(tokens);
    const wrong = tokens.filter((t, k) => (w.decidesFloat(t) && !py[k]) || isPythonFloatRepr(t) !== py[k]);
    expect(wrong).toEqual([]);
    expect(py.filter(Boolean).length).toBeGreaterThan(2500);
    expect(py.filter((v) => !v).length).toBeGreaterThan(2500);
  });

  it('decides decimal texts of every digit count and exponent in repr layout as python3 does', () => {
    // Texts, not doubles: n significant digits (the last not 0) at decimal exponent x, laid out as repr
    // would. With n <= 15 and x in [-307, 307] (a normal double) each is its double's repr (DBL_DIG = 15),
    // which the scanner takes on the digits alone; 16-17 digits, subnormals and the extremes take the full check.
    const text = fc
      .tuple(
        fc.integer({ min: 1, max: 17 }),
        fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        fc.oneof(
          fc.integer({ min: -330, max: 310 }),
          fc.integer({ min: -6, max: 18 }),
          fc.constantFrom(-308, -307, 307, 308),
        ),
        fc.boolean(),
      )
      .map(([n, a, b, x, neg]) => {
        let digits = `${String(a).padStart(16, '0')}${String(b).padStart(16, '0')}`.replace(/^0+/, '');
        digits = `${(digits[0] ?? '1').replace('0', '1')}${digits.slice(1)}`.slice(0, n).replace(/0+$/, '');
        return { t: layout(digits, x, neg), n: digits.length, x };
      });
    const xs = fc.sample(text, { seed: seed + 2, numRuns: 6000 });
    const py = pythonSays(xs.map((c) => c.t));
    const wrong = xs.filter(({ t }, k) => w.decidesFloat(t) !== py[k] || isPythonFloatRepr(t) !== py[k]);
    expect(wrong).toEqual([]);
    // The DBL_DIG claim the digits-only path rests on.
    expect(xs.filter(({ n, x }, k) => n <= 15 && x >= -307 && x <= 307 && !py[k])).toEqual([]);
    expect(py.filter((v) => !v).length).toBeGreaterThan(300);
  });

  it("decides 16-digit decimals in Clinger's range (D < 9e15, |q| <= 22: one exact rounding) as the slow path does", () => {
    // shortestIs takes such a decimal at once when the significand of the double it reads as exceeds D (the
    // decimal's unit is then wider than the spacing of doubles there). Random digits at every exponent of
    // that range, with D above and below the significand (D up to 9e15, significands from 2^52 ~ 4.5e15),
    // and each one's neighbours a few units away (some not reprs where the unit is the narrower: at q = 3
    // only 2.4% narrower, which a test of m + 3e14 > D instead of m > D takes wrongly here).
    const cases = fc.sample(
      fc.tuple(
        fc.bigInt({ min: 10n ** 15n, max: 9n * 10n ** 15n - 4n }),
        fc.integer({ min: -22, max: 22 }),
        fc.boolean(),
      ),
      { seed: seed + 3, numRuns: 15000 },
    );
    const tokens = cases.flatMap(([D, q, neg]) =>
      [0n, 1n, 3n, -1n].map((k) => {
        const digits = String(D + k).replace(/0+$/, '');
        return layout(digits, q + 15, neg);
      }),
    );
    const repr = tokens.map((t) => pythonFloatRepr(Number(t)) === t);
    expect(tokens.filter((t, k) => w.decidesFloat(t) !== repr[k])).toEqual([]);
    expect(repr.filter(Boolean).length).toBeGreaterThan(20000);
    expect(repr.filter((v) => !v).length).toBeGreaterThan(2000);
    // python3's own verdict on a sample of them.
    const sample = tokens.filter((_, k) => k % 20 === 0);
    expect(pythonSays(sample)).toEqual(sample.map((t) => w.decidesFloat(t)));
  });

  it('decides the boundaries of each layout and rounding tie', () => {
    // [token, python's verdict]: ties between two 17-digit decimals, powers of two, both layouts' edges.
    const cases: [string, boolean][] = [
      ['1250000000000000.2', true],
      ['1250000000000000.3', false],
      ['1250000000000000.25', false],
      ['9007199254740992.0', true],
      ['9007199254740993.0', false],
      ['9007199254740994.0', true],
      ['1.8014398509481984e+16', true],
      ['1.8014398509481985e+16', false],
      ['0.30000000000000004', true],
      ['0.30000000000000003', false],
      ['0.1', true],
      ['0.10000000000000001', false],
      ['1e+16', true],
      ['1e+22', true],
      ['1e+23', true],
      ['9.999999999999999e+22', false],
      ['2.2250738585072014e-308', true],
      ['2.225073858507201e-308', true],
      ['2.2250738585072009e-308', false],
      ['5e-324', true],
      ['4.9406564584124654e-324', false],
      ['1.7976931348623157e+308', true],
      ['1.7976931348623158e+308', false],
      ['1e+309', false],
      ['0.0001', true],
      ['9.999999999999999e-05', true],
      ['0.00009999999999999999', false],
      ['123456789012345.6', true],
      ['1234567890123456.8', true],
      ['12345678901234567.0', false],
      ['1.2345678901234568e+16', true],
      ['4.35679e-10', true],
      ['0.0', true],
      ['-0.0', true],
    ];
    for (const [t] of cases) expect([t, isPythonFloatRepr(t)]).toEqual([t, cases.find((c) => c[0] === t)![1]]);
    expect(pythonSays(cases.map((c) => c[0]))).toEqual(cases.map((c) => c[1]));
    for (const [t, ok] of cases) if (w.decidesFloat(t)) expect([t, ok]).toEqual([t, true]);
    expect(cases.filter(([t, ok]) => ok && !w.decidesFloat(t))).toEqual([]);
  });

  it('the tables it reads are the ones scripts/gen-float-tables.mjs computes', () => {
    const r = spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'gen-float-tables.mjs'), '--check'], {
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
