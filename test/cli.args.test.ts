import { parseArgs as nodeParseArgs } from 'node:util';
import fc from 'fast-check';
import { tokensOf } from '../src/cli/args';

/**
 * The argument parsers' tokens: a line with no option in it is read without node:util's parseArgs (an agent's hook
 * line, `stepchain hook claude`), and must read as parseArgs reads it; every other line is parseArgs' own reading.
 */
const OPTIONS = { json: { type: 'boolean' as const }, root: { type: 'string' as const, short: 'r' } };
const WORDS = [
  'claude',
  'a b',
  '',
  '-',
  '--',
  '-h',
  '--help',
  '--json',
  '--root',
  '--root=x',
  '-r',
  '-rx',
  'x=y',
  '-x',
  '---',
  'é',
  '-1',
];

const theirs = (argv: string[]) =>
  nodeParseArgs({ args: argv, options: OPTIONS, strict: false, allowPositionals: true, tokens: true }).tokens.map(
    (t) =>
      t.kind === 'positional'
        ? { kind: t.kind, value: t.value }
        : t.kind === 'option'
          ? { kind: t.kind, name: t.name, rawName: t.rawName, value: t.value }
          : { kind: t.kind },
  );
const ours = (argv: string[]) =>
  tokensOf(argv, OPTIONS).map((t) =>
    t.kind === 'positional'
      ? { kind: t.kind, value: t.value }
      : t.kind === 'option'
        ? { kind: t.kind, name: t.name, rawName: t.rawName, value: t.value }
        : { kind: t.kind },
  );

test('every line reads as node:util parseArgs reads it, with or without options in it', () => {
  fc.assert(
    fc.property(
      fc.array(fc.oneof(fc.constantFrom(...WORDS), fc.string({ maxLength: 4 })), { maxLength: 6 }),
      (argv) => {
        expect(ours(argv)).toEqual(theirs(argv));
      },
    ),
    { numRuns: 2000, seed: 64 },
  );
  for (const argv of [[], ['claude'], ['-'], ['claude', '-', 'x'], ['--'], ['-1']])
    expect(ours(argv)).toEqual(theirs(argv));
});
