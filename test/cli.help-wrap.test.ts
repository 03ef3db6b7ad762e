import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { commands } from '../src/cli/commands';
import { commandHelp, wrapWords } from '../src/cli/help';
import { runCaptured } from '../src/cli/in-process';
import { runCli } from '../src/cli/main';
import { displayWidth } from '../src/replay/text';
import { cliPath } from './helpers/paths';

jest.setTimeout(300_000);

const WIDTHS = Array.from({ length: 101 }, (_, i) => 40 + i);
const words = (s: string): string => s.trim().split(/\s+/).join(' ');

/** The usage lines of a help text: from `usage:` to the first blank line. */
function usageOf(help: string): string[] {
  const lines = help.split('\n');
  return lines.slice(0, lines.indexOf(''));
}

// Issue 20: `hook claude --help` dropped a character where its usage line wrapped (64-102 columns): the rest of a
// hanging paragraph was re-wrapped from a slice of the text, misplaced by every run of spaces the first line collapsed.
// Every width runs the CLI's own entry (runCli: COLUMNS read from the environment as the bundle reads it) in this
// process; the built bundle runs at widths spread over the range and must print exactly the same (a process each at
// all 101 widths was most of this file's time).
const REAL_WIDTHS = [40, 63, 64, 65, 83, 101, 102, 103, 140];
test('hook claude --help keeps every character of its usage at every width from 40 to 140 (the real CLI)', async () => {
  const run = promisify(execFile);
  const argv = ['hook', 'claude', '--help'];
  const usage = commands.find((c) => c.name.join(' ') === 'hook claude')!.usage;
  const want = words(`usage: stepchain hook claude ${usage}`);
  const helpAt = async (w: number): Promise<string> => {
    const env = { ...process.env, COLUMNS: String(w) };
    const r = await runCaptured(runCli, argv, { env, cwd: process.cwd() });
    expect({ w, code: r.code, stderr: r.stderr }).toEqual({ w, code: 0, stderr: '' });
    return r.stdout;
  };
  const results: [number, string[]][] = [];
  const printed = new Map<number, string>();
  for (const w of WIDTHS) {
    const out = await helpAt(w);
    printed.set(w, out);
    results.push([w, usageOf(out)]);
  }
  const real = await Promise.all(
    REAL_WIDTHS.map((w) => run(process.execPath, [cliPath, ...argv], { env: { ...process.env, COLUMNS: String(w) } })),
  );
  real.forEach((o, k) => {
    const w = REAL_WIDTHS[k]!;
    expect({ w, stdout: o.stdout }).toEqual({ w, stdout: printed.get(w) });
  });
  for (const [w, lines] of results) {
    expect({ w, usage: words(lines.join(' ')) }).toEqual({ w, usage: want });
    for (const l of lines) expect(displayWidth(l)).toBeLessThanOrEqual(w);
  }
});

test("every command's usage keeps every word at every width, lines within the width, the rest hanging", () => {
  for (const c of commands) {
    const want = words(`usage: stepchain ${c.name.join(' ')} ${c.usage}`);
    for (const w of WIDTHS) {
      const lines = usageOf(commandHelp(c, w));
      expect({ c: c.name.join(' '), w, usage: words(lines.join(' ')) }).toEqual({
        c: c.name.join(' '),
        w,
        usage: want,
      });
      lines.forEach((l, i) => {
        expect(displayWidth(l)).toBeLessThanOrEqual(w);
        if (i > 0) expect(l.startsWith('    ')).toBe(true);
      });
    }
  }
});

test('wrapWords: a narrower width for the lines after the first; runs of spaces count as one', () => {
  expect(wrapWords('aaa  bbb   ccc ddd', 7, 3)).toEqual(['aaa bbb', 'ccc', 'ddd']);
  expect(wrapWords('one two\nthree four', 9, 5)).toEqual(['one two', 'three', 'four']);
});
