import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { decodeUtf8, JsonParseError } from '../src/canonical';
import { readRowLine } from '../src/journal/row';
import { python3 } from './helpers/python';

/**
 * Bytes that are not UTF-8 are refused at the column where the first invalid sequence starts (1-based, in UTF-16
 * units of the text before it: the column every other parse error gives), not at column 1 wherever it was.
 * Differential: Python's own decoder says where (UnicodeDecodeError.start, a byte offset), turned into that column.
 */
function column(bytes: Uint8Array): number | 'valid' {
  try {
    decodeUtf8(bytes);
    return 'valid';
  } catch (e) {
    if (!(e instanceof JsonParseError)) throw e;
    expect(e.reason).toBe('invalid UTF-8');
    expect(e.message).toBe(`invalid UTF-8 at column ${e.column}`);
    return e.column;
  }
}

const PYTHON = `
import sys, json
out = []
for line in sys.stdin:
    b = bytes.fromhex(line.strip())
    try:
        b.decode("utf-8")
        out.append("valid")
    except UnicodeDecodeError as e:
        out.append(len(b[: e.start].decode("utf-8").encode("utf-16-le")) // 2 + 1)
print(json.dumps(out))
`;

/** Bytes rich in what makes UTF-8 invalid: stray continuations, C0/C1/F5-FF, cut, overlong, surrogate sequences. */
const tricky = fc.array(
  fc.oneof(
    fc.string({ unit: 'grapheme', maxLength: 4 }).map((s) => [...Buffer.from(s, 'utf8')]),
    fc.constantFrom([0x80], [0xbf], [0xc0, 0x80], [0xc1], [0xc3, 0x28], [0xe0, 0x80, 0x80], [0xe2, 0x82]),
    fc.constantFrom([0xed, 0xa0, 0x80], [0xef, 0xbf, 0xbf], [0xf0, 0x8f, 0xbf, 0xbf], [0xf4, 0x90, 0x80, 0x80]),
    fc.constantFrom([0xf0, 0x9f, 0x98], [0xf0, 0x9f, 0x98, 0x80], [0xf5], [0xff], [0xfe, 0xff], [0xed, 0x9f, 0xbf]),
  ),
  { maxLength: 12 },
);

test('the column of invalid UTF-8 is where Python finds it (600 byte strings)', () => {
  const cases = fc.sample(tricky, { numRuns: 600, seed: 1206 }).map((parts) => Buffer.from(parts.flat()));
  const r = spawnSync(python3(), ['-c', PYTHON], {
    input: cases.map((b) => `${b.toString('hex')}\n`).join(''),
    encoding: 'utf8',
  });
  expect(r.stderr).toBe('');
  const want = JSON.parse(r.stdout) as (number | 'valid')[];
  expect(cases.map(column)).toEqual(want);
  expect(want.filter((w) => w !== 'valid' && w > 1).length).toBeGreaterThan(100); // not all at the start
});

test("a journal row's invalid byte inside its payload is reported at its column", () => {
  const row = Buffer.concat([Buffer.from('{"prompt":"r\u00e9sum\u00e9 😀 '), Buffer.from([0xff]), Buffer.from('"}')]);
  // {"prompt":" is 11 characters, then "résumé 😀 " is 10 UTF-16 units (the emoji is two): the byte is the 22nd.
  expect(readRowLine(row)).toEqual({ kind: 'malformed', reason: 'invalid UTF-8 at column 22' });
});
