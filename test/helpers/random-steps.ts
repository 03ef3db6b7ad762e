import fc from 'fast-check';
import { float, type JsonValue } from '../../src/canonical';

/**
 * Random steps for journals whose rows are read two ways and compared (publish's and replay's spans against their
 * parses): nested values, non-ASCII text (written as escapes), floats of every form, exact integers, nulls, the
 * redaction mark and strings that look like JSON. `spaced` asks for the row's line to be made not canonical (a space,
 * as a hand edit or another writer leaves it) and `extra` for a key outside the ten (which no hash covers).
 */
const scalar = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.integer(),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => float(x) as JsonValue),
  fc.constantFrom<JsonValue>(null, true, false, '<<redacted>>', 'null', '"q"\\\n', 'name'),
);

export const randomValue: fc.Arbitrary<JsonValue> = fc.letrec<{ v: JsonValue }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    scalar,
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 6 }), tie('v'), { maxKeys: 3 }),
    fc.record({ name: fc.string({ maxLength: 10 }), input: tie('v') }) as fc.Arbitrary<JsonValue>,
  ),
})).v;

export const randomStep = fc.record({
  model: fc.option(fc.string({ maxLength: 8 }), { nil: null }),
  prompt: randomValue,
  tool_call: randomValue,
  tool_result: randomValue,
  ts: fc.oneof(fc.double({ min: 0, max: 2e9, noNaN: true }), fc.constant(1e20)),
  spaced: fc.boolean(),
  extra: fc.boolean(),
});

export type RandomStep = typeof randomStep extends fc.Arbitrary<infer T> ? T : never;

/** A journal's lines made as `steps` ask: some not canonical, some with a key outside the ten. */
export function reshapeLines(lines: string[], steps: readonly RandomStep[]): string[] {
  return lines.map((l, i) => {
    const s = steps[i];
    if (s === undefined) return l;
    let out = l;
    if (s.spaced) out = out.replace('{"blob_refs":', '{ "blob_refs":');
    if (s.extra) out = `${out.slice(0, -1)},"zz_note":[1,"x"]}`;
    return out;
  });
}
