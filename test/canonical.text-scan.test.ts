import fc from 'fast-check';
import { scanString, scanStringByLoop, scanText, type ScanStyle } from '../src/canonical/text-scan';

/**
 * A canonical string literal is checked by one regex, and, where the regex's own stack overflows (a string of
 * megabytes), by a loop: the two agree on every text (printable ASCII, every short escape, `\u` escapes in and out of
 * canonical form, upper-case hex, controls, characters past ASCII, unterminated literals), so a long string is judged
 * as a short one is.
 */
const STYLE: ScanStyle = { pretty: false, maxDepth: 512, nonFinite: true, intOk: () => true };

const piece = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 6 }),
  fc.constantFrom(
    '\\"',
    '\\\\',
    '\\b',
    '\\f',
    '\\n',
    '\\r',
    '\\t',
    '\\/',
    '\\x',
    '\\',
    '"',
    '\n',
    'é',
    '\u007f',
    '\u0000',
  ),
  fc.integer({ min: 0, max: 0xffff }).map((c) => `\\u${c.toString(16).padStart(4, '0')}`),
  fc.integer({ min: 0, max: 0xffff }).map((c) => `\\u${c.toString(16).toUpperCase().padStart(4, '0')}`),
  fc.constantFrom('\\u00', '\\u12g4', '\\u'),
);

test('the loop judges a string literal as the regex does', () => {
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 12 }), fc.boolean(), fc.nat(3), (pieces, closed, at) => {
      const text = `${' '.repeat(at)}"${pieces.join('')}${closed ? '"' : ''},`;
      scanText(text, STYLE);
      expect(scanStringByLoop(at)).toBe(scanString(at));
    }),
    { numRuns: 3000, seed: 1206 },
  );
});

test('a literal of megabytes, past the regex: the loop takes it', () => {
  const body = 'ab\\n\\u00e9'.repeat(2_000_000);
  const text = `"${body}"`;
  scanText(text, STYLE);
  expect(scanString(0)).toBe(text.length);
  scanText(`"${body}\\u0041"`, STYLE);
  expect(scanString(0)).toBe(-1);
});
