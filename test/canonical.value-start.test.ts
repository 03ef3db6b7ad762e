/**
 * `valueStartError` answers a line that cannot start a JSON value without the parser's exception (the readers of
 * run journals and the audit log use it on every line): whenever it gives an error, `parse` throws that very error,
 * and whenever `parse` fails at the first character after whitespace with "expecting value", it gives one.
 */
import fc from 'fast-check';
import { JsonParseError, parse, valueStartError } from '../src/canonical';

function parseFailure(text: string): string | undefined {
  try {
    parse(text);
    return undefined;
  } catch (e) {
    if (e instanceof JsonParseError) return e.message;
    throw e;
  }
}

const ws = fc.constantFrom('', ' ', '\t', '\n', '\r', '  \t');
const lines = fc.oneof(
  fc.string(),
  fc.tuple(ws, fc.string()).map(([w, s]) => w + s),
  fc.tuple(ws, fc.json()).map(([w, s]) => w + s),
  fc.constantFrom(
    '',
    ' ',
    'x',
    'not json',
    'garbage',
    '\u00a0{}',
    '\ufeff{}',
    'nul',
    '-',
    '-x',
    'Infinityx',
    '+1',
    '.5',
  ),
);

test('valueStartError gives exactly the error parse throws, whenever it gives one', () => {
  fc.assert(
    fc.property(lines, (text) => {
      const quick = valueStartError(text);
      const slow = parseFailure(text);
      if (quick !== undefined) expect(slow).toBe(quick);
      const skipped = text.length - text.replace(/^[ \t\n\r]*/, '').length;
      if (slow === `expecting value at column ${skipped + 1}` && !/^[ntfNI-]/.test(text.slice(skipped)))
        expect(quick).toBe(slow);
    }),
    { numRuns: 5000 },
  );
});
