import fc from 'fast-check';
import {
  canonicalOfRead,
  decodeOutput,
  encode,
  JsonFloat,
  outputJson,
  outputOfText,
  OutputTagError,
  readOutputJson,
  type JsonValue,
} from '../src/canonical';
import { python } from './helpers/python';

// Every `--json` document is strict JSON (docs/format.md §1, "JSON outputs"): a journal row's NaN or infinity is the
// tag {"$nonfinite": "NaN"}, an object whose only member is `$nonfinite` is escaped as {"$nonfinite": [value]}. Held
// here over random values with non-finite numbers and tag look-alikes nested anywhere: JSON.parse and python3's
// strict json.loads read every output, and both read it back, by the rule, as the value written (Python's reading
// is its own implementation of the rule, below).

const seed = Number(process.env.STEPCHAIN_TEST_SEED ?? Date.now() % 2 ** 31);
const RUNS = 1000;

const TAG = '$nonfinite';
const nonFinite = fc.constantFrom(NaN, Infinity, -Infinity);
const text = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.constantFrom('NaN', 'Infinity', '-Infinity', TAG, '\ud800', 'caf\u00e9', '"', '\\', '\n'),
);
const key = fc.oneof(
  { weight: 3, arbitrary: text },
  fc.constantFrom(TAG, '$nonfinite ', '$NONFINITE', 'nonfinite', '0', '7', '__proto__', 'toString', ''),
);
const leaf: fc.Arbitrary<JsonValue> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => new JsonFloat(d)),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  nonFinite.map((d) => new JsonFloat(d)),
  // A bare non-finite `number` too (a value built in code that holds one).
  nonFinite,
  text,
);
/** A record with every key its own (`__proto__` included), in the order given. */
function record(entries: [string, JsonValue][]): JsonValue {
  const r: Record<string, JsonValue> = {};
  for (const [k, v] of entries)
    Object.defineProperty(r, k, { value: v, enumerable: true, writable: true, configurable: true });
  return r;
}
const { tree } = fc.letrec<{ tree: JsonValue }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leaf,
    fc.array(tie('tree'), { maxLength: 4 }),
    fc.dictionary(key, tie('tree'), { maxKeys: 4 }).map((o) => record(Object.entries(o))),
    fc.uniqueArray(fc.tuple(key, tie('tree')), { maxLength: 4, selector: (e) => e[0] }).map((e) => new Map(e)),
    // What the tag looks like, written naturally: the escape must keep it apart from a number.
    fc
      .oneof(tie('tree'), fc.constantFrom<JsonValue>('NaN', 'Infinity', '-Infinity', ['NaN'], [], 'nan'))
      .chain((inner) => fc.constantFrom(record([[TAG, inner]]), new Map([[TAG, inner]]))),
  ),
}));
const options = fc.record({
  sortKeys: fc.boolean(),
  separators: fc.constantFrom<'compact' | 'pretty'>('compact', 'pretty'),
});

/** The value's exact text as read values are written (bare NaN, keys in their order): what must come back. */
const asRead = (v: JsonValue): string => encode(v, { sortKeys: false, allowNonFinite: true });

/** Whether the rule changes anything in `v`: a non-finite number, or an object of the one member `$nonfinite`. */
function touched(v: JsonValue): boolean {
  if (typeof v === 'number') return !Number.isFinite(v);
  if (v instanceof JsonFloat) return !Number.isFinite(v.value);
  if (Array.isArray(v)) return v.some(touched);
  if (v === null || typeof v !== 'object') return false;
  const entries = v instanceof Map ? [...v] : Object.entries(v);
  return (entries.length === 1 && entries[0]![0] === TAG) || entries.some(([, x]) => touched(x));
}

// Strict json.loads (a bare NaN or Infinity is an error), the rule read back, then the canonical text of what it
// stands for, for each line; or the error.
const PY_READ = String.raw`
import sys, json
def reject(token):
    raise ValueError("bare " + token)
NUMBERS = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}
def decode(v):
    if isinstance(v, list):
        return [decode(x) for x in v]
    if isinstance(v, dict):
        if list(v) == ["$nonfinite"]:
            inner = v["$nonfinite"]
            if isinstance(inner, str):
                return NUMBERS[inner]
            if isinstance(inner, list) and len(inner) == 1:
                return {"$nonfinite": decode(inner[0])}
            raise ValueError("malformed tag")
        return {k: decode(x) for k, x in v.items()}
    return v
out = []
for line in sys.stdin.read().split("\n"):
    if not line:
        continue
    try:
        v = decode(json.loads(line, parse_constant=reject))
        out.append(json.dumps(v, sort_keys=True, separators=(",", ":")))
    except ValueError as e:
        out.append("ERROR " + str(e))
sys.stdout.write("\n".join(out) + "\n")
`;

describe(`JSON outputs: strict, and read back by the rule (seed ${seed})`, () => {
  it('JSON.parse reads every output, and the rule reads it back as the value written', () => {
    fc.assert(
      fc.property(tree, options, (v, o) => {
        const s = outputJson(v, o);
        expect(() => JSON.parse(s) as unknown).not.toThrow();
        // What JSON.parse reads holds only well-formed tags.
        expect(() => decodeOutput(JSON.parse(s) as JsonValue)).not.toThrow();
        const back = readOutputJson(s, { objects: 'map' });
        if (o.sortKeys) expect(canonicalOfRead(back)).toBe(canonicalOfRead(v));
        else expect(asRead(back)).toBe(asRead(v));
        // A value the rule does not touch is written as before: ordinary documents did not change.
        if (!touched(v)) expect(s).toBe(encode(v, { ...o, allowNonFinite: true }));
      }),
      { numRuns: RUNS, seed },
    );
  });

  it("python3's strict json.loads reads every output, and its own reading of the rule gives the value written", () => {
    const values = fc.sample(tree, { numRuns: RUNS, seed: seed + 1 });
    const outputs = values.map((v, i) => outputJson(v, { separators: i % 2 === 0 ? 'compact' : 'pretty' }));
    // One line each: the encoder escapes every control character (the output is ASCII).
    for (const s of outputs) expect(s).toMatch(/^[\x20-\x7e]*$/);
    const read = python(PY_READ, `${outputs.join('\n')}\n`).split('\n');
    values.forEach((v, i) => {
      if (read[i] !== canonicalOfRead(v))
        throw new Error(`seed ${seed}: ${outputs[i]}\n python read ${read[i]}\n written     ${canonicalOfRead(v)}`);
    });
    // The property reached what it is about.
    expect(values.filter(touched).length).toBeGreaterThan(RUNS / 10);
  });

  it('a stored text (bare tokens) is written as its value is: the same text when nothing in it is touched', () => {
    fc.assert(
      fc.property(tree, (v) => {
        const stored = asRead(v);
        expect(outputOfText(stored)).toBe(outputJson(v));
        const pretty = encode(v, { sortKeys: false, separators: 'pretty', allowNonFinite: true });
        expect(outputOfText(pretty, { separators: 'pretty' })).toBe(outputJson(v, { separators: 'pretty' }));
        if (!/NaN|Infinity|nonfinite/.test(stored)) expect(outputOfText(stored)).toBe(stored);
      }),
      { numRuns: RUNS, seed: seed + 2 },
    );
  });

  it('writes the three numbers and the escape as the rule says', () => {
    const row = new Map<string, JsonValue>([
      ['x', new JsonFloat(NaN)],
      ['y', [Infinity, new JsonFloat(-Infinity)]],
      ['s', 'NaN'],
      ['t', { [TAG]: 'NaN' }],
      ['u', { [TAG]: 'NaN', also: 1 }],
    ]);
    expect(outputJson(row)).toBe(
      '{"x":{"$nonfinite":"NaN"},"y":[{"$nonfinite":"Infinity"},{"$nonfinite":"-Infinity"}],"s":"NaN",' +
        '"t":{"$nonfinite":["NaN"]},"u":{"$nonfinite":"NaN","also":1}}',
    );
    expect(outputJson(row, { separators: 'pretty' })).toContain('"x": {"$nonfinite": "NaN"}');
    expect(outputOfText('{"a":[NaN,1.5,-Infinity],"b":"NaN"}')).toBe(
      '{"a":[{"$nonfinite":"NaN"},1.5,{"$nonfinite":"-Infinity"}],"b":"NaN"}',
    );
  });

  it('refuses an object of the one member $nonfinite that is neither form of the rule', () => {
    for (const bad of [
      '{"$nonfinite":"nan"}',
      '{"$nonfinite":1}',
      '{"$nonfinite":[]}',
      '{"$nonfinite":[1,2]}',
      '[{"$nonfinite":null}]',
    ])
      expect(() => readOutputJson(bad)).toThrow(OutputTagError);
    expect(readOutputJson('{"$nonfinite":"-Infinity"}')).toEqual(new JsonFloat(-Infinity));
    expect(readOutputJson('{"$nonfinite":[{"$nonfinite":"NaN"}]}')).toEqual({ [TAG]: new JsonFloat(NaN) });
  });
});
