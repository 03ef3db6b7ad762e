import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { canonicalOfRead, JsonFloat, parse, type JsonValue } from '../src/canonical';
import { verifyJournalBytes } from '../src/journal';
import { compareCodePoints, pythonFloatRepr } from '../src/canonical';
import { clientRuntime, type PageRuntime } from '../src/report/client/runtime';
import { runtimeSource } from '../src/report/page';
import { conformanceDir } from './helpers/paths';
import { python } from './helpers/python';

/**
 * The report page verifies the chain with its own copy of the canonical rules.
 * These tests run the page's functions in Node, *from their serialized source*
 * (exactly what the page embeds), against src/canonical, src/journal and python3.
 */
const seed = Number(process.env.STEPCHAIN_TEST_SEED ?? Date.now() % 2 ** 31);
const page: PageRuntime = new Function(`"use strict"; return (${runtimeSource()})();`)() as PageRuntime;

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
  fc.bigInt({ min: -(2n ** 300n), max: 2n ** 300n }),
  double.map((d) => new JsonFloat(d)),
  text,
);
const { tree } = fc.letrec<{ tree: JsonValue }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('tree'), { maxLength: 5 }),
    fc.array(fc.tuple(key, tie('tree')), { maxLength: 5 }).map((kv) => new Map(kv)),
  ),
}));

function mulberry(a: number): () => number {
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random valid JSON spelling of a value (escapes, number spellings, whitespace, duplicate keys). */
function source(v: JsonValue, rnd: () => number): string {
  const ws = (): string => (rnd() < 0.2 ? [' ', '\n', '\t', '\r'][Math.floor(rnd() * 4)]! : '');
  const str = (s: string): string => {
    let out = '"';
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c === 0x22) out += '\\"';
      else if (c === 0x5c) out += '\\\\';
      else if (c < 0x20 || (c >= 0xd800 && c <= 0xdfff) || rnd() < 0.15) out += `\\u${c.toString(16).padStart(4, '0')}`;
      else out += s[i];
    }
    return `${out}"`;
  };
  const num = (x: number): string => {
    if (Number.isNaN(x)) return 'NaN';
    if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
    let s = Object.is(x, -0) ? '-0' : String(x);
    if (rnd() < 0.3) s = x.toExponential().replace('e', rnd() < 0.5 ? 'e' : 'E');
    if (!/[.eE]/.test(s)) s += rnd() < 0.5 ? '.0' : 'e0';
    return s;
  };
  const walk = (x: JsonValue): string => {
    if (x === null || typeof x === 'boolean') return String(x);
    if (typeof x === 'number' || typeof x === 'bigint') return x.toString();
    if (typeof x === 'string') return str(x);
    if (x instanceof JsonFloat) return num(x.value);
    if (Array.isArray(x)) return `[${ws()}${x.map((e) => walk(e) + ws()).join(`,${ws()}`)}]`;
    const entries = [...(x as Map<string, JsonValue>)];
    if (entries.length > 0 && rnd() < 0.1) entries.unshift([entries[0]![0], 'shadowed by the later duplicate']);
    return `{${ws()}${entries.map(([k, e]) => `${str(k)}${ws()}:${ws()}${walk(e)}`).join(`,${ws()}`)}}`;
  };
  return ws() + walk(v) + ws();
}

const PY_CANONICAL = String.raw`
import sys, json
out = []
for line in sys.stdin.read().split("\n"):
    if line:
        out.append(json.dumps(json.loads(bytes.fromhex(line).decode("utf-8", "surrogatepass")), sort_keys=True, separators=(",", ":")))
sys.stdout.write("\n".join(out) + "\n")
`;

function hexSurrogatePass(s: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const cp = s.codePointAt(i)!;
    if (cp > 0xffff) i++;
    if (cp < 0x80) bytes.push(cp);
    else if (cp < 0x800) bytes.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
    else if (cp < 0x10000) bytes.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
    else bytes.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
  }
  return Buffer.from(bytes).toString('hex');
}

describe('the page runtime is self-contained', () => {
  it('runs from its serialized source and agrees with the direct call', () => {
    const direct = clientRuntime({ pythonFloatRepr, compareCodePoints });
    expect(page.canonical(page.parseJson('{"b":1.0,"a":[1e400,-0]}'))).toBe('{"a":[Infinity,0],"b":1.0}');
    expect(direct.canonical(direct.parseJson('{"b":1.0,"a":[1e400,-0]}'))).toBe('{"a":[Infinity,0],"b":1.0}');
    expect(runtimeSource()).not.toMatch(/\brequire\(|\bimport\b|\b_canonical\.|\b_journal\./);
  });
});

describe('page SHA-256 against node:crypto', () => {
  it('hashes every length around the block boundaries and random buffers', () => {
    const rnd = mulberry(seed);
    const lengths = [...Array.from({ length: 200 }, (_, i) => i), 1000, 4095, 4096, 65537, 1 << 20];
    for (let r = 0; r < 50; r++) lengths.push(Math.floor(rnd() * 20000));
    for (const n of lengths) {
      const buf = randomBytes(n);
      expect(page.sha256Hex(buf)).toBe(createHash('sha256').update(buf).digest('hex'));
    }
  });
});

describe(`page canonical JSON against src/canonical and python3 (seed ${seed})`, () => {
  const values = fc.sample(tree, { numRuns: 1500, seed });
  const rnd = mulberry(seed);
  const sources = values.map((v) => source(v, rnd));

  it('re-encodes varied source text byte-identically to ours and to json.dumps(sort_keys, compact)', () => {
    const py = python(PY_CANONICAL, sources.map(hexSurrogatePass).join('\n')).split('\n');
    sources.forEach((src, i) => {
      const mine = page.canonical(page.parseJson(src));
      const ours = canonicalOfRead(parse(src));
      if (mine !== ours || mine !== py[i]) {
        throw new Error(`seed ${seed}: source ${JSON.stringify(src)}\n page ${mine}\n ours ${ours}\n py   ${py[i]}`);
      }
    });
  });

  it('accepts and rejects the same texts as src/canonical, with the same message', () => {
    const broken = [
      '',
      ' ',
      '{',
      '[1,]',
      '{"a":1,}',
      '01',
      '1.',
      '.5',
      '-',
      '+1',
      'nan',
      'infinity',
      '-NaN',
      '"\u0001"',
      '"\\x"',
      '"\\u12g4"',
      '{"a" 1}',
      '{1:2}',
      '[1 2]',
      'tru',
      'nul',
      '1 2',
      '/*c*/1',
      '"abc',
      '\ufeff1',
      `${'['.repeat(5000)}${']'.repeat(5000)}`,
      '1'.repeat(4301),
      `-${'9'.repeat(4300)}`,
      '[1e999999, -1e-999999]',
      '"\ud800"',
    ];
    const mutated = sources.slice(0, 300).map((s) => {
      const at = Math.floor(rnd() * (s.length + 1));
      return s.slice(0, at) + ['', ',', '"', '}', ']', 'x', '\\'][Math.floor(rnd() * 7)]! + s.slice(at + 1);
    });
    for (const t of [...broken, ...mutated]) {
      let ours: string;
      let mine: string;
      try {
        ours = `ok ${canonicalOfRead(parse(t))}`;
      } catch (e) {
        ours = `error ${(e as Error).message}`;
      }
      try {
        mine = `ok ${page.canonical(page.parseJson(t))}`;
      } catch (e) {
        mine = `error ${(e as Error).message}`;
      }
      if (mine !== ours) throw new Error(`text ${JSON.stringify(t.slice(0, 200))}\n page ${mine}\n ours ${ours}`);
    }
  });

  it('formats floats as Python repr and orders keys by code point', () => {
    const doubles = fc.sample(double, { numRuns: 2000, seed });
    const py = python(
      'import sys\nfor l in sys.stdin.read().split():\n  print(repr(float.fromhex(l)))',
      doubles.map((d) => hexFloat(d)).join('\n'),
    )
      .trim()
      .split('\n');
    doubles.forEach((d, i) =>
      expect(page.pythonFloatRepr(d)).toBe(py[i]!.replace('nan', 'NaN').replace('inf', 'Infinity')),
    );
    expect(['😀', '\uffff', 'a', '\ue000', '\ud800'].sort(page.compareCodePoints)).toEqual([
      'a',
      '\ud800',
      '\ue000',
      '\uffff',
      '😀',
    ]);
  });
});

/** A float as Python's float.hex() input (exact). */
function hexFloat(d: number): string {
  if (Number.isNaN(d)) return 'nan';
  if (!Number.isFinite(d)) return d > 0 ? 'inf' : '-inf';
  if (Object.is(d, -0)) return '-0x0p+0';
  if (d === 0) return '0x0p+0';
  const buf = Buffer.alloc(8);
  buf.writeDoubleBE(d);
  const bits = buf.readBigUInt64BE();
  const sign = bits >> 63n ? '-' : '';
  const exp = Number((bits >> 52n) & 0x7ffn);
  const mant = bits & ((1n << 52n) - 1n);
  if (exp === 0) return `${sign}0x0.${mant.toString(16).padStart(13, '0')}p-1022`;
  return `${sign}0x1.${mant.toString(16).padStart(13, '0')}p${exp - 1023}`;
}

describe('page chain verifier against verifyJournalBytes', () => {
  const reference = readFileSync(path.join(conformanceDir, 'reference-journal', '000000.jsonl'));
  const expected = JSON.parse(readFileSync(path.join(conformanceDir, 'reference-expected.json'), 'utf8')) as {
    journal_head: string;
    steps: number;
  };

  const pageVerify = (
    bytes: Uint8Array,
    expectedHead?: string,
  ): ReturnType<ReturnType<PageRuntime['createVerifier']>['result']> => {
    const v = page.createVerifier(bytes, expectedHead);
    let guard = 0;
    while (!v.run(3)) if (++guard > 1e6) throw new Error('verifier does not finish');
    return v.result();
  };

  it('verifies the reference journal written by the Python implementation', () => {
    const r = pageVerify(reference);
    expect(r).toEqual({ ok: true, head_hash: expected.journal_head, steps: expected.steps, errors: [] });
    expect(pageVerify(reference, '0'.repeat(64)).errors.map((e) => e.kind)).toEqual(['head_mismatch']);
  });

  it('reports exactly the faults verifyJournalBytes reports, on random damage', () => {
    const rnd = mulberry(seed ^ 0x5eed);
    const lines = reference.toString('latin1').split('\n').slice(0, -1);
    const damages: Buffer[] = [
      Buffer.alloc(0),
      Buffer.from('\n'),
      Buffer.from('\n\n'),
      reference.subarray(0, reference.length - 1),
    ];
    for (let t = 0; t < 400; t++) {
      let ls = [...lines, ...lines.slice(0, Math.floor(rnd() * 3))];
      const op = Math.floor(rnd() * 6);
      const at = Math.floor(rnd() * ls.length);
      if (op === 0) ls.splice(at, 1);
      else if (op === 1) [ls[0], ls[at]] = [ls[at]!, ls[0]!];
      else if (op === 2) ls[at] = ls[at]!.replace(/"seq":\d+/, `"seq":${Math.floor(rnd() * 9)}`);
      else if (op === 3) ls.splice(at, 0, ['', '{}', '[1]', 'not json', '{"a":1}', '\xff\xfe'][Math.floor(rnd() * 6)]!);
      else if (op === 4) {
        const l = ls[at]!;
        const p = Math.floor(rnd() * l.length);
        ls[at] = l.slice(0, p) + String.fromCharCode(32 + Math.floor(rnd() * 95)) + l.slice(p + 1);
      } else ls = ls.map((l) => l.replace('"ok":true', '"ok":false'));
      let buf = Buffer.from(`${ls.join('\n')}\n`, 'latin1');
      if (rnd() < 0.2) buf = buf.subarray(0, Math.floor(rnd() * buf.length));
      damages.push(buf);
    }
    for (const buf of damages) {
      const head = rnd() < 0.2 ? expected.journal_head : undefined;
      const ours = verifyJournalBytes(buf, head === undefined ? {} : { expectedHead: head });
      const mine = pageVerify(new Uint8Array(buf), head);
      if (JSON.stringify(mine) !== JSON.stringify(ours)) {
        throw new Error(
          `journal ${JSON.stringify(buf.toString('latin1'))}\n page ${JSON.stringify(mine)}\n ours ${JSON.stringify(ours)}`,
        );
      }
    }
  });
});
