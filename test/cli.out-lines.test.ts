import fc from 'fast-check';
import { outLines, terminalSafe, type CommandIO } from '../src/cli/io';

/**
 * `show`, `diff` and `replay` print their lines a thousand to a write (outLines). Through the terminal sink
 * (terminalSafe) that is the same text as a line a write, whatever the lines hold: control characters, CR, tabs,
 * escapes, bidirectional controls, lone surrogates, empty lines, any count across the batch size.
 */
function captured(write: (io: CommandIO) => void): string {
  let out = '';
  const raw: CommandIO = {
    out: (l) => void (out += `${l}\n`),
    err: () => undefined,
    json: () => undefined,
    readStdin: () => Buffer.alloc(0),
    stdinBlocks: () => [],
    isTTY: false,
    env: {},
    cwd: '/',
  };
  write(terminalSafe(raw));
  return out;
}

const line = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom('', '\r', '\t', '\x1b[2J', 'a\rb', '\u202e', '\ud800', '\n'),
);

test('lines printed a thousand to a write are the lines printed one by one', () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.array(line, { maxLength: 20 }),
        fc.integer({ min: 995, max: 2005 }).map((n) => Array(n).fill('x\r')),
      ),
      (lines) => {
        expect(captured((io) => outLines(io, lines))).toBe(
          captured((io) => {
            for (const l of lines) io.out(l);
          }),
        );
      },
    ),
    { numRuns: 300, seed: 1206 },
  );
});
