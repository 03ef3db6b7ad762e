/**
 * A string value is shown bare (without its quotes) by show, replay, diff and the report, unless bare it would read
 * as another value: the string "NaN" beside the number NaN (which Python's json writes bare, so a journal can hold
 * both), "42" beside 42, "null" beside null. Such a string is shown quoted; every other string stays bare.
 */
import path from 'node:path';
import fc from 'fast-check';
import { bareText, JsonFloat, parse, type JsonValue } from '../src/canonical';
import { Journal, journalFile } from '../src/journal';
import { fieldText } from '../src/report/client/display';
import { preview, valueLines } from '../src/replay/text';
import { cliInProcess } from './helpers/cli-in-process';
import { tempDir } from './helpers/tmp';

const dir = tempDir('stepchain-bare-text-');

/** Value pairs that looked the same when strings were shown bare: a string, and the value its text reads as. */
const pairs: [string, JsonValue][] = [
  ['NaN', new JsonFloat(NaN)],
  ['Infinity', new JsonFloat(Infinity)],
  ['-Infinity', new JsonFloat(-Infinity)],
  ['42', 42],
  ['1.5', 1.5],
  ['1e+300', new JsonFloat(1e300)],
  ['true', true],
  ['false', false],
  ['null', null],
  [' 7 ', 7],
  ['\u00a042\u3000', 42],
];

test('a string that starts as a string does is quoted too: the text "NaN" (quotes included) and NaN differ', () => {
  for (const show of [preview, (x: JsonValue) => valueLines(x, 80).join('\n'), fieldText]) {
    expect(show('"NaN"')).not.toBe(show('NaN'));
    expect(show('"NaN"')).not.toBe(show(new JsonFloat(NaN)));
    expect(parse(show('"NaN"'))).toBe('"NaN"');
  }
});

test.each(pairs)('the string %j and the value it reads as are shown apart, everywhere', (s, v) => {
  for (const show of [preview, (x: JsonValue) => valueLines(x, 80).join('\n'), fieldText]) {
    expect(show(s)).not.toBe(show(v));
    // The quoted form reads back as the string itself.
    expect(parse(show(s))).toBe(s);
  }
});

const SCALAR_PIECES = [
  ...' \t\n\r\v\f\u00a0\u2028',
  ...'0123456789-+.eE',
  'NaN',
  'Infinity',
  'true',
  'false',
  'null',
  'x',
];

test('any other string is shown bare, as before', () => {
  fc.assert(
    // Random text, and text made of the pieces scalars are made of (blank space of every kind around them).
    fc.property(
      fc.oneof(
        fc.string(),
        fc.array(fc.constantFrom(...SCALAR_PIECES), { maxLength: 12 }).map((a) => a.join('')),
      ),
      (s) => {
        let readsAsScalar = false;
        try {
          const v = parse(s.trim());
          readsAsScalar = v === null || (typeof v !== 'object' && typeof v !== 'string') || v instanceof JsonFloat;
        } catch {
          /* not JSON */
        }
        // Quoted exactly when the text alone (blank space of any kind around it) reads as a scalar (a number, NaN,
        // true, false, null), or starts as a string does.
        expect(bareText(s) !== s).toBe(readsAsScalar || s.trimStart().startsWith('"'));
      },
    ),
    { numRuns: 5000 },
  );
  for (const s of ['hello', 'NaNa', '42 apples', '{"a": 1}', '[1]', '']) expect(bareText(s)).toBe(s);
});

test('show of two steps, the string "42" and the number 42: told apart on screen', async () => {
  const root = path.join(dir, 'p');
  const j = Journal.open(path.dirname(journalFile(root, 'a1')), { durability: 'none' });
  j.append({ prompt: 'p', tool_call: '42', tool_result: 'null' });
  j.append({ prompt: 'p', tool_call: 42, tool_result: null });
  const env = { STEPCHAIN_AUDIT: 'off' };
  const show = async (seq: string) => (await cliInProcess(['show', 'a1', seq], { cwd: root, env })).stdout;
  const first = await show('0');
  const second = await show('1');
  expect(first).toMatch(/tool_call\s+"42"/);
  expect(second).toMatch(/tool_call\s+42/);
  expect(first).toMatch(/tool_result\s+"null"/);
  expect(second).toMatch(/tool_result\s+null/);
});
