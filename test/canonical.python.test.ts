import fc from 'fast-check';
import { canonical, canonicalOfRead, encode, JsonFloat, parse, prettySorted, type JsonValue } from '../src/canonical';
import { python, utf8SurrogatePass } from './helpers/python';

/**
 * Differential tests: Python's json module is the definition of canonical JSON.
 * Random values are written as JSON *source text* in varied forms (escapes, number
 * spellings, whitespace), and both sides parse and re-encode them.
 */
const seed = Number(process.env.STEPCHAIN_TEST_SEED ?? Date.now() % 2 ** 31);
const RUNS = 1500;

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
const anyUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
const tricky = fc.constantFrom(
  '\u0000',
  '\u001f',
  '\u007f',
  '"',
  '\\',
  '/',
  '\ue000',
  '\uffff',
  '😀',
  '𝔘',
  '\u2028',
  'é',
  '\n',
  '\t',
);
const text = fc.string({
  unit: fc.oneof(
    { weight: 4, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
    { weight: 1, arbitrary: loneSurrogate },
    { weight: 1, arbitrary: anyUnit },
    { weight: 2, arbitrary: tricky },
  ),
  maxLength: 12,
});
const key = fc.oneof(
  text,
  fc.constantFrom('a', 'b', '\uffff', '😀', '\ue000', '\ud800', '\udfff', '1', '__proto__', ''),
);
const bigint = fc.bigInt({ min: -(2n ** 300n), max: 2n ** 300n });
const double = fc.oneof(
  fc.double(),
  fc.double({ min: -1e-300, max: 1e-300 }),
  fc.constantFrom(
    0.1,
    1e16,
    1e-5,
    1e-4,
    9999999999999998,
    1234567890123456.7, // eslint-disable-line no-loss-of-precision -- the float nearest, on purpose
    5e-324,
    1.7976931348623157e308,
    -0,
  ),
  fc.integer({ min: -1e6, max: 1e6 }).map((n) => n / 8),
);
const leaf = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  bigint,
  double.map((d) => new JsonFloat(d)),
  text,
);
const { tree } = fc.letrec<{ tree: JsonValue }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('tree'), { maxLength: 5 }),
    fc.dictionary(key, tie('tree'), { maxKeys: 5 }).map((o) => {
      const r: Record<string, JsonValue> = {};
      for (const [k, v] of Object.entries(o)) {
        Object.defineProperty(r, k, { value: v, enumerable: true, writable: true, configurable: true });
      }
      return r;
    }),
  ),
}));

/** A random but valid JSON spelling of a value, for parsing by both sides. */
function source(v: JsonValue, rnd: () => number): string {
  const ws = (): string => (rnd() < 0.2 ? [' ', '\n', '\t', '\r', '  '][Math.floor(rnd() * 5)]! : '');
  const str = (s: string): string => {
    let out = '"';
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      const isHigh = c >= 0xd800 && c <= 0xdbff;
      const next = s.charCodeAt(i + 1);
      const pair = isHigh && next >= 0xdc00 && next <= 0xdfff;
      const lone = c >= 0xd800 && c <= 0xdfff && !pair;
      if (c === 0x22) out += '\\"';
      else if (c === 0x5c) out += '\\\\';
      else if (c < 0x20 || lone || rnd() < 0.15) {
        const h = c.toString(16).padStart(4, '0');
        out += `\\u${rnd() < 0.5 ? h : h.toUpperCase()}`;
      } else if (c === 0x2f && rnd() < 0.5) out += '\\/';
      else if (pair) {
        out += s.slice(i, i + 2);
        i++;
      } else out += s[i];
    }
    return `${out}"`;
  };
  const num = (x: number): string => {
    if (Number.isNaN(x)) return 'NaN';
    if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
    let s = Object.is(x, -0) ? '-0' : String(x);
    if (rnd() < 0.3) s = x.toExponential();
    if (rnd() < 0.3) s = s.replace('e', 'E');
    if (!/[.eE]/.test(s)) s += rnd() < 0.5 ? '.0' : 'e0';
    return s;
  };
  const walk = (x: JsonValue): string => {
    if (x === null) return 'null';
    if (typeof x === 'boolean') return String(x);
    if (typeof x === 'number') return Object.is(x, -0) ? '-0' : String(x);
    if (typeof x === 'bigint') return x.toString();
    if (typeof x === 'string') return str(x);
    if (x instanceof JsonFloat) return num(x.value);
    if (Array.isArray(x)) return `[${ws()}${x.map((e) => walk(e) + ws()).join(`,${ws()}`)}]`;
    const entries = x instanceof Map ? [...x] : Object.entries(x);
    return `{${ws()}${entries.map(([k, e]) => `${str(k)}${ws()}:${ws()}${walk(e)}${ws()}`).join(`,${ws()}`)}}`;
  };
  return ws() + walk(v) + ws();
}

function mulberry(a: number): () => number {
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PY_ENCODE = String.raw`
import sys, json
out = []
for line in sys.stdin.buffer.read().split(b"\n"):
    if not line:
        continue
    v = json.loads(bytes.fromhex(line.decode()).decode("utf-8", "surrogatepass"))
    mode = sys.argv[1]
    if mode == "canonical":
        s = json.dumps(v, sort_keys=True, separators=(",", ":"))
    elif mode == "pretty":
        s = json.dumps(v, sort_keys=True)
    else:
        s = json.dumps(v)
    out.append(s)
sys.stdout.write("\n".join(out) + "\n")
`;

/** UTF-8 with lone surrogates passed through (Python's "surrogatepass"), hex for transport. */
const hexSurrogatePass = (s: string): string => utf8SurrogatePass(s).toString('hex');

describe(`canonical JSON against python3 (seed ${seed})`, () => {
  const values = fc.sample(tree, { numRuns: RUNS, seed });
  const rnd = mulberry(seed);
  const sources = values.map((v) => source(v, rnd));

  it('parses varied source text and re-encodes byte-identically to json.dumps(sort_keys, compact)', () => {
    const expected = python(PY_ENCODE, sources.map(hexSurrogatePass).join('\n'), ['canonical']).split('\n');
    sources.forEach((src, i) => {
      const ours = canonicalOfRead(parse(src));
      if (ours !== expected[i])
        throw new Error(`seed ${seed}: source ${JSON.stringify(src)}\n ours ${ours}\n py   ${expected[i]}`);
    });
  });

  it('encodes values built in TypeScript as Python re-encodes them (canonical and pretty)', () => {
    const finite = values.filter((v) => !/NaN|Infinity/.test(canonicalOfRead(v)));
    const ours = finite.map((v) => canonical(v));
    const back = python(PY_ENCODE, ours.map(hexSurrogatePass).join('\n'), ['canonical']).split('\n');
    ours.forEach((o, i) => expect(back[i]).toBe(o));
    const pretty = finite.map((v) => prettySorted(v));
    const prettyBack = python(PY_ENCODE, ours.map(hexSurrogatePass).join('\n'), ['pretty']).split('\n');
    pretty.forEach((p, i) => expect(prettyBack[i]).toBe(p));
  });

  it('keeps insertion order like a Python dict when objects are read as maps', () => {
    const expected = python(PY_ENCODE, sources.map(hexSurrogatePass).join('\n'), ['insertion']).split('\n');
    sources.forEach((src, i) => {
      const ours = encode(parse(src, { objects: 'map' }), {
        sortKeys: false,
        separators: 'pretty',
        allowNonFinite: true,
      });
      if (ours !== expected[i]) {
        throw new Error(`seed ${seed}: source ${JSON.stringify(src)}\n ours ${ours}\n py   ${expected[i]}`);
      }
    });
  });

  // encodeString's native path (JSON.stringify, for ASCII below DEL) against json.dumps; DEL and beyond go the loop.
  it('encodes ASCII strings dense with escapes as json.dumps does (the native path and its edge, DEL)', () => {
    const ascii = fc.string({
      unit: fc.oneof(
        { weight: 3, arbitrary: fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)) },
        { weight: 3, arbitrary: fc.constantFrom('"', '\\', '/', '\u007f', ' ', '~') },
        { weight: 2, arbitrary: fc.integer({ min: 0x20, max: 0x7f }).map((c) => String.fromCharCode(c)) },
        { weight: 1, arbitrary: fc.constantFrom('é', '\u0080', '\ud800') },
      ),
      maxLength: 40,
    });
    const strings = [...fc.sample(ascii, { numRuns: RUNS, seed }), 'line\n'.repeat(10_000), '\u0000\u001f\u007f'];
    const ours = strings.map((v) => canonical(v));
    const back = python(PY_ENCODE, ours.map(hexSurrogatePass).join('\n'), ['canonical']).split('\n');
    ours.forEach((o, i) => expect(back[i]).toBe(o));
  });

  it('handles deep nesting the same way', () => {
    const deep = `${'[{"k":'.repeat(400)}1${'}]'.repeat(400)}`;
    const [py] = python(PY_ENCODE, hexSurrogatePass(deep), ['canonical']).split('\n');
    expect(canonicalOfRead(parse(deep))).toBe(py);
  });
});
