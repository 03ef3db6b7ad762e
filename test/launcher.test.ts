import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { repoRoot } from './helpers/paths';
import { tempDir } from './helpers/tmp';

/**
 * The bin's launcher (scripts/build-launcher.mjs) carries each program in a block comment at the file's end and
 * reads back only that program's bytes, taking out the escape it wrote for a `*\/` in the text. Whatever a program
 * holds (comment ends, the escape's own spelling, newlines, quotes), what runs must be exactly the text given: each
 * program here prints a string of its own source, and the bin must print that string.
 */
const tmp = tempDir('stepchain-launcher-');
let n = 0;

/** A bin of the three programs, each printing `texts[name]` (a string literal of its source) when it runs. */
function launcher(texts: { main: string; verify: string; hook: string }): string {
  const print = (s: string) => `process.stdout.write(${JSON.stringify(s)});`;
  const programs = {
    main: `${print(texts.main)}\n`,
    verify: `exports.runVerify = () => { ${print(texts.verify)} return true; };`,
    hook: `exports.runHook = (argv) => { if (argv[1] !== 'take') return false; ${print(texts.hook)} return true; };`,
  };
  const input = path.join(tmp, `programs-${n}.json`);
  const bin = path.join(tmp, `bin-${n++}.js`);
  writeFileSync(input, JSON.stringify(programs));
  const source = execFileSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { launcherSource } from ${JSON.stringify(path.join(repoRoot, 'scripts', 'build-launcher.mjs'))};
       import { readFileSync } from 'node:fs';
       process.stdout.write(launcherSource(JSON.parse(readFileSync(${JSON.stringify(input)}, 'utf8'))));`,
    ],
    { encoding: 'latin1' },
  );
  writeFileSync(bin, source, 'latin1');
  return bin;
}

function run(bin: string, argv: string[]): string {
  const r = spawnSync(process.execPath, [bin, ...argv], {
    env: { ...process.env, STEPCHAIN_CODE_CACHE: 'off' },
    encoding: 'latin1',
  });
  if (r.status !== 0) throw new Error(`${bin} ${argv.join(' ')}: exit ${r.status}: ${r.stderr}`);
  return r.stdout;
}

/** ASCII text rich in what the carrying could get wrong. */
const tricky = fc
  .array(fc.constantFrom('*/', '*', '/', '~0~', '*~0~/', '~1~', '/*', '\n', '\r\n', '"', '\\', '`', 'a', ' ', '\x7f'), {
    maxLength: 40,
  })
  .map((parts) => parts.join(''));

describe('the launcher', () => {
  test('runs exactly the text of the program the command line chooses (the hook, verify, the whole CLI)', () => {
    const texts = { main: 'main */ end', verify: 'verify /* */ *~0~/', hook: 'hook *~0~/ */ ~0~' };
    const bin = launcher(texts);
    expect(run(bin, ['hook', 'take'])).toBe(texts.hook);
    expect(run(bin, ['hook', 'other'])).toBe(texts.main); // a command line the hook entry does not take
    expect(run(bin, ['verify'])).toBe(texts.verify);
    expect(run(bin, ['--version'])).toBe(texts.main);
    // Pure ASCII, and the programs are comments: nothing of them is a string literal of the launcher.
    const source = readFileSync(bin, 'latin1');
    expect(/[^\x00-\x7f]/.test(source)).toBe(false);
    expect(source.trimEnd().endsWith('*/')).toBe(true);
  });

  test('whatever a program holds (comment ends, the escape itself), what runs is that text', () => {
    fc.assert(
      fc.property(tricky, tricky, tricky, (main, verify, hook) => {
        const bin = launcher({ main, verify, hook });
        expect(run(bin, ['hook', 'take'])).toBe(hook);
        expect(run(bin, ['verify'])).toBe(verify);
        expect(run(bin, ['show'])).toBe(main);
      }),
      { numRuns: 12 },
    );
  });
});
