import fc from 'fast-check';
import { canonical, canonicalOfRead, JsonParseError, parse } from '../src/canonical';
import { parsesAsJson } from '../src/journal';
import { python, utf8SurrogatePass } from './helpers/python';

/**
 * JSON's string literal, read by the parser (src/canonical/parse.ts) and by the journal's torn-tail grammar check
 * (src/journal/json-syntax.ts), both through src/canonical/string-syntax.ts: against Python's json.loads, the
 * definition, on literals made of valid and broken pieces (as a value and as a key), and on strings of millions of
 * escapes, which the grammar check used to give up on (a regular expression out of stack) and the parser took
 * seconds to build.
 */
const seed = Number(process.env.STEPCHAIN_TEST_SEED ?? Date.now() % 2 ** 31);
const RUNS = 3000;

const piece = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 3 }) },
  { weight: 2, arbitrary: fc.constantFrom('a', ' ', '~', '\u007f', 'é', '😀', '\u2028', '\ud800', '\udfff') },
  { weight: 4, arbitrary: fc.constantFrom('\\n', '\\"', '\\\\', '\\/', '\\b', '\\f', '\\r', '\\t') },
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.integer({ min: 0, max: 0xffff }), fc.boolean())
      .map(([c, upper]) => `\\u${(upper ? c.toString(16).toUpperCase() : c.toString(16)).padStart(4, '0')}`),
  },
  // Broken: an escape JSON has not, a short or non-hex \u, a raw control character, a lone backslash, a quote.
  { weight: 1, arbitrary: fc.constantFrom('\\x', '\\a', '\\U0041', '\\u12', '\\u12g4', '\\u 123', '\\', '"') },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)) },
);
const literal = fc
  .tuple(fc.array(piece, { maxLength: 8 }), fc.boolean())
  .map(([pieces, closed]) => `"${pieces.join('')}${closed ? '"' : ''}`);
/** A literal as a whole line, as a value in an array, and as an object's key. */
const bare = fc.oneof(
  literal,
  literal.map((l) => `[${l}, 1]`),
  literal.map((l) => `{${l}: 1}`),
);
/**
 * What may stand around a line: JSON's whitespace, Python's other whitespace (str.strip() takes it off as the
 * reference's reader reads a line; json.loads does not), and two characters that are neither (U+200B, U+FEFF).
 */
const around = fc.array(
  fc.constantFrom(
    ' ',
    '\t',
    '\r',
    '\x0b',
    '\x0c',
    '\x1c',
    '\x1f',
    '\x85',
    '\xa0',
    '\u1680',
    '\u2000',
    '\u200a',
    '\u2028',
    '\u2029',
    '\u202f',
    '\u205f',
    '\u3000',
    '\u200b',
    '\ufeff',
  ),
  { maxLength: 2 },
);
const line = fc.oneof(
  { weight: 2, arbitrary: bare },
  { weight: 1, arbitrary: fc.tuple(around, bare, around).map(([a, l, b]) => `${a.join('')}${l}${b.join('')}`) },
);

/**
 * Python's answer per line: `ok <json.dumps(sort_keys, compact)>`, or `err <kind of fault>`; with the argument
 * `strip`, of the line as the reference's reader takes it (str.strip() first: Unicode whitespace, U+00A0, U+2000..
 * U+200A, U+3000, \x1c..\x1f and more, which JSON's own whitespace is not), a leading byte-order mark taken off
 * first as the torn-tail check does (src/journal/json-syntax.ts: json.loads refuses one, but a writer's torn prefix
 * never starts with one, so such a line is taken for a row or a tamper, never moved aside as a torn tail).
 */
const PY_LOADS = String.raw`
import sys, json
out = []
strip = sys.argv[1:] == ["strip"]
for line in sys.stdin.buffer.read().split(b"\n"):
    if not line:
        continue
    text = bytes.fromhex(line.decode()).decode("utf-8", "surrogatepass")
    if strip:
        text = (text[1:] if text.startswith("\ufeff") else text).strip()
    try:
        out.append("ok " + json.dumps(json.loads(text), sort_keys=True, separators=(",", ":")))
    except json.JSONDecodeError as e:
        m = e.msg
        kind = ("unterminated" if m.startswith("Unterminated string") else
                "control" if m.startswith("Invalid control character") else
                "u-escape" if m.startswith("Invalid \\uXXXX") else
                "escape" if m.startswith("Invalid \\escape") else "other")
        out.append("err " + kind)
sys.stdout.write("\n".join(out) + "\n")
`;

const KIND: Record<string, string> = {
  'unterminated string': 'unterminated',
  'invalid control character in string': 'control',
  'invalid \\uXXXX escape': 'u-escape',
  'invalid escape': 'escape',
};

/** Ours per line, in Python's terms. */
function ours(text: string): string {
  try {
    return `ok ${canonicalOfRead(parse(text))}`;
  } catch (e) {
    if (!(e instanceof JsonParseError)) throw e;
    return `err ${KIND[e.reason] ?? 'other'}`;
  }
}

describe(`string literals against python3's json.loads (seed ${seed})`, () => {
  const lines = fc.sample(line, { numRuns: RUNS, seed });
  const hex = lines.map((l) => utf8SurrogatePass(l).toString('hex')).join('\n');
  const expected = python(PY_LOADS, hex).split('\n');
  // The torn-tail check reads a line as the reference's reader does: stripped first (seed 1127294636 made a
  // literal followed by U+00A0-like whitespace: JSON to the reader, "extra data" to json.loads of the raw line).
  const expectedStripped = python(PY_LOADS, hex, ['strip']).split('\n');

  it('the parser accepts what Python does, with the same value, and names the same fault', () => {
    lines.forEach((l, i) => {
      const got = ours(l);
      // Python's one quirk here: a valid \\uXXXX that ends the text is named an invalid escape, not the string's
      // missing end (its scanner asks for a unit after the four digits).
      const quirk = got === 'err unterminated' && expected[i] === 'err u-escape' && /\\u[0-9a-fA-F]{4}$/.test(l);
      if (got !== expected[i] && !quirk)
        throw new Error(`seed ${seed}: ${JSON.stringify(l)}\n ours ${got}\n py   ${expected[i]}`);
    });
  });

  it("the torn-tail grammar check says JSON exactly where Python's reader does", () => {
    lines.forEach((l, i) => {
      const got = parsesAsJson(utf8SurrogatePass(l));
      if (got !== expectedStripped[i]!.startsWith('ok '))
        throw new Error(`seed ${seed}: ${JSON.stringify(l)}: parsesAsJson ${got}, py ${expectedStripped[i]}`);
    });
  });
});

describe('strings of millions of escapes', () => {
  const cases: [string, string][] = [
    ['newlines', 'line\n'.repeat(2_000_000)],
    ['quotes and backslashes', '"\\'.repeat(1_000_000)],
    ['beyond ASCII', 'é\n😀\ud800'.repeat(400_000)],
  ];

  it.each(cases)('%s: the grammar check reads the row whole, a torn prefix of it is no JSON', (_name, s) => {
    const row = Buffer.from(`{"prompt":${canonical(s)}}`);
    expect(parsesAsJson(row)).toBe(true);
    expect(parsesAsJson(row.subarray(0, row.length - 2))).toBe(false);
  });

  it.each(cases)('%s: read back to the same string, written as json.dumps writes it', (_name, whole) => {
    expect(parse(canonical(whole))).toBe(whole);
    // Python's side on a part that still crosses the encoder's runs of 65,536 units (a pair may be cut: a lone half).
    const s = whole.slice(0, 3 * 65_536 + 7);
    const text = canonical(s);
    expect(parse(text)).toBe(s);
    // Python reads ours and writes it again: the same bytes.
    const back = python(PY_LOADS, utf8SurrogatePass(text).toString('hex')).trim();
    expect(back === `ok ${text}`).toBe(true);
  });
});
