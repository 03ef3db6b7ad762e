import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { brotliDecompressSync } from 'node:zlib';
import fc from 'fast-check';
import { actionSource } from '../scripts/build-action.mjs';
import { launcherSource } from '../scripts/build-launcher.mjs';
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
function launcher(texts: { main: string; verify: string; hook: string }, packed: string[] = []): string {
  const print = (s: string) => `process.stdout.write(${JSON.stringify(s)});`;
  const programs = {
    main: `${print(texts.main)}\n`,
    verify: `exports.runVerify = () => { ${print(texts.verify)} return true; };`,
    hook: `exports.runHook = (argv) => { if (argv[1] !== 'take') return false; ${print(texts.hook)} return true; };`,
  };
  const bin = path.join(tmp, `bin-${n++}.js`);
  // Built in this process: a Node process per bin was a third of the file's time.
  const source = launcherSource(programs, { packed });
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

/** `body` (a packed program: brotli in base64) with one character changed (at `from` or after) so that it still
 * unpacks to a text of the same length, another one: damage that lengths alone do not show (brotli has no checksum
 * of its own). */
function sameLengthDamage(body: string, from = 0): string {
  const unpack = (chars: string) => brotliDecompressSync(Buffer.from(chars, 'base64')).toString('latin1');
  const text = unpack(body);
  // Most candidates do not unpack (~1,250 of a search's ~1,290): each throws, zlib reads the error's stack, and
  // Jest's source-map support rewrote it frame by frame, ~0.7 s of the file's CPU over its four searches. No stack
  // is wanted here: the errors are made by Node's own code, so the limit to set is that of Node's realm, whose Error
  // the first one names (this file's `Error` is the Jest sandbox's own).
  let realm: { stackTraceLimit: number } | undefined;
  let limit = 0;
  try {
    for (let i = from; i < body.length; i++)
      for (const c of B64) {
        if (c === body[i]) continue;
        const other = body.slice(0, i) + c + body.slice(i + 1);
        let out: string;
        try {
          out = unpack(other);
        } catch (e) {
          if (realm === undefined) {
            realm = (e as Error).constructor as unknown as { stackTraceLimit: number };
            limit = realm.stackTraceLimit;
            realm.stackTraceLimit = 0;
          }
          continue;
        }
        if (out.length === text.length && out !== text) return other;
      }
  } finally {
    if (realm !== undefined) realm.stackTraceLimit = limit;
  }
  throw new Error('no same-length damage found');
}

/**
 * Where the bin's packed stream lies: its body (`open` to `close`), the file's last line, a line comment (`//` and
 * the body; a block comment cut short is a SyntaxError that prints the whole stream).
 */
function streamAt(source: string): { open: number; close: number } {
  return { open: source.lastIndexOf('\n//') + 3, close: source.length - 1 };
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

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

  test('a packed program (the whole CLI in the bin) runs exactly its text; one that does not unpack to it is refused', () => {
    fc.assert(
      fc.property(tricky, tricky, tricky, (main, verify, hook) => {
        const bin = launcher({ main, verify, hook }, ['main', 'verify']);
        expect(run(bin, ['hook', 'take'])).toBe(hook);
        expect(run(bin, ['verify'])).toBe(verify);
        expect(run(bin, ['show'])).toBe(main);
      }),
      { numRuns: 8 },
    );
    // All three packed, as the build carries them: one stream, each read from a prefix (empty texts included).
    fc.assert(
      fc.property(tricky, tricky, tricky, (main, verify, hook) => {
        const bin = launcher({ main, verify, hook }, ['main', 'verify', 'hook']);
        expect(run(bin, ['hook', 'take'])).toBe(hook);
        expect(run(bin, ['verify'])).toBe(verify);
        expect(run(bin, ['show'])).toBe(main);
      }),
      { numRuns: 8 },
    );
    const bin = launcher({ main: 'main AAAA'.repeat(50), verify: 'verify', hook: 'hook' }, ['main']);
    expect(run(bin, ['show'])).toBe('main AAAA'.repeat(50));
    // The packed bytes replaced in place by others of the same length: not the text the build carried; refused.
    const source = readFileSync(bin, 'latin1');
    expect(source.includes('main AAAA')).toBe(false); // packed: nothing of the text is in the bin as it is
    const { open, close } = streamAt(source);
    writeFileSync(bin, source.slice(0, open) + 'Q'.repeat(close - open) + source.slice(close), 'latin1');
    const r = spawnSync(process.execPath, [bin, 'show'], {
      env: { ...process.env, STEPCHAIN_CODE_CACHE: 'off' },
      encoding: 'latin1',
    });
    expect({ code: r.status, stdout: r.stdout }).toEqual({ code: 1, stdout: '' });
    expect(r.stderr).toContain('damaged');
    expect(run(bin, ['hook', 'take'])).toBe('hook');
  });

  test('a bin edited in place runs what it holds, never code cached from what it held; bytes added at its end are refused', () => {
    const texts = { main: 'main AAAA', verify: 'verify AAAA', hook: 'hook AAAA' };
    const bin = launcher(texts);
    const state = path.join(tmp, `state-${n}`);
    mkdirSync(state, { mode: 0o700 });
    const call = (argv: string[]) =>
      spawnSync(process.execPath, [bin, ...argv], {
        env: { ...process.env, STEPCHAIN_CODE_CACHE: 'on', XDG_STATE_HOME: state },
        encoding: 'latin1',
      });
    // Twice each: the first run writes the cache, the second runs from it.
    for (let k = 0; k < 2; k++) {
      expect(call(['verify']).stdout).toBe(texts.verify);
      expect(call(['show']).stdout).toBe(texts.main);
      expect(call(['hook', 'take']).stdout).toBe(texts.hook);
    }
    expect(readdirSync(path.join(state, 'stepchain', 'code-cache'))).toHaveLength(3);
    // The same length in the same place (V8 takes a cache for any text of its length).
    writeFileSync(bin, readFileSync(bin, 'latin1').replaceAll('AAAA', 'BBBB'), 'latin1');
    expect(call(['verify']).stdout).toBe('verify BBBB');
    expect(call(['show']).stdout).toBe('main BBBB');
    expect(call(['hook', 'take']).stdout).toBe('hook BBBB');
    // An editor's final newline: every program is then read from the wrong place; one line, exit 1, nothing run.
    appendFileSync(bin, '\n');
    for (const argv of [['verify'], ['show'], ['hook', 'take']]) {
      const r = call(argv);
      expect({ code: r.status, stdout: r.stdout }).toEqual({ code: 1, stdout: '' });
      expect(r.stderr).toBe(
        `stepchain: ${bin}: damaged: the programs it carries are not where it says (bytes were added or cut); reinstall stepchain\n`,
      );
    }
  });

  test('a packed program whose bytes were changed in place (same length, still unpacking to its length) is refused', () => {
    // Brotli has no checksum of its own: some changed bytes unpack to another text of the same length, which ran
    // (a SyntaxError's stack, or other code) where the build's SHA-256 of the bytes (the program's id) is known.
    const main = 'main DDDD '.repeat(30);
    const bin = launcher({ main, verify: 'verify', hook: 'hook' }, ['main']);
    const source = readFileSync(bin, 'latin1');
    const { open, close } = streamAt(source);
    const changed = sameLengthDamage(source.slice(open, close));
    writeFileSync(bin, `${source.slice(0, open)}${changed}${source.slice(close)}`, 'latin1');
    for (const cache of ['off', 'on']) {
      const r = spawnSync(process.execPath, [bin, 'show'], {
        env: { ...process.env, STEPCHAIN_CODE_CACHE: cache, XDG_STATE_HOME: path.join(tmp, `state-${n}`) },
        encoding: 'latin1',
      });
      expect({ code: r.status, stdout: r.stdout }).toEqual({ code: 1, stdout: '' });
      expect(r.stderr).toBe(
        `stepchain: ${bin}: damaged: a program it carries is not the one it was built with (bytes were changed); reinstall stepchain\n`,
      );
    }
    expect(run(bin, ['hook', 'take'])).toBe('hook');
  });

  test('a packed program keeps its text, as the source V8 compiles, in its cache file, after the first run read from there', () => {
    const main = 'main CCCC'.repeat(50);
    const bin = launcher({ main, verify: 'verify', hook: 'hook' }, ['main']);
    const state = path.join(tmp, `state-${n}`);
    mkdirSync(state, { mode: 0o700 });
    const call = () =>
      spawnSync(process.execPath, [bin, 'show'], {
        env: { ...process.env, STEPCHAIN_CODE_CACHE: 'on', XDG_STATE_HOME: state },
        encoding: 'latin1',
      }).stdout;
    expect(call()).toBe(main);
    const dir = path.join(state, 'stepchain', 'code-cache');
    const files = readdirSync(dir);
    expect(files).toEqual([expect.stringMatching(/^main\+text-[0-9a-f]{32}-/)]);
    expect(
      readFileSync(path.join(dir, files[0]!), 'latin1').startsWith(
        `(function (exports, require, module, __filename, __dirname) {process.stdout.write(${JSON.stringify(main)});\n`,
      ),
    ).toBe(true);
    expect(call()).toBe(main);
  });

  test('a program that names its paths: its cache grows with each path first taken, holding the code of every one', () => {
    // Two paths, each through a function of its own (a few KB of bytecode, compiled only when its path runs).
    const body = (tag: string) =>
      Array.from({ length: 200 }, (_, i) => `o.${tag}${i} = [${i}, '${tag}', o.${tag}${i > 0 ? i - 1 : 0}];`).join('');
    const hook =
      `let taken;\nfunction fa() { const o = {}; ${body('a')} return o; }\nfunction fb() { const o = {}; ${body('b')} return o; }\n` +
      `exports.codeCachePath = () => taken;\n` +
      `exports.runHook = (argv) => { if (argv[1] !== 'take') return false; taken = argv[2]; ` +
      `(argv[2].startsWith('a') ? fa : fb)(); process.stdout.write(String(argv[2])); return true; };`;
    const bin = path.join(tmp, `bin-${n++}.js`);
    writeFileSync(
      bin,
      launcherSource(
        { main: 'process.stdout.write("main");', verify: 'exports.runVerify = () => false;', hook },
        { packed: ['hook'] },
      ),
      'latin1',
    );
    const fresh = () => {
      const state = path.join(tmp, `state-${n++}`);
      mkdirSync(state, { mode: 0o700 });
      return state;
    };
    const take = (state: string, p: string) => {
      const r = spawnSync(process.execPath, [bin, 'hook', 'take', p], {
        env: { ...process.env, STEPCHAIN_CODE_CACHE: 'on', XDG_STATE_HOME: state },
        encoding: 'utf8',
      });
      expect({ code: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({ code: 0, stdout: p, stderr: '' });
      const dir = path.join(state, 'stepchain', 'code-cache');
      const files = readdirSync(dir);
      expect(files).toEqual([expect.stringMatching(/^hook\+text-[0-9a-f]{32}-/)]);
      return path.join(dir, files[0]!);
    };
    /**
     * The cache file's paths (between the text and the code, each after a NUL; empty lines pad the list) and its
     * bytes. Its code starts 8-byte aligned (V8 copies code that is not, before it reads it).
     */
    const read = (file: string) => {
      const bytes = readFileSync(file);
      const at = bytes.indexOf(0);
      const end = bytes.indexOf(0, at + 1);
      expect((end + 1) % 8).toBe(0);
      const listed = bytes.toString('latin1', at + 1, end);
      // The pad is a few empty lines at the list's end, never between paths (a start passes over it).
      expect(listed).toMatch(/^([\x20-\x7e]+(\n[\x20-\x7e]+)*)?\n{0,7}$/);
      return { paths: listed.split('\n').filter((p) => p !== ''), bytes };
    };
    const state = fresh();
    const file = take(state, 'a1');
    const a = read(file);
    expect(a.paths).toEqual(['a1']);
    // A path it holds: not written again.
    take(state, 'a1');
    expect(read(file).bytes.equals(a.bytes)).toBe(true);
    // A path it does not hold: written again, with the code it read and this path's.
    take(state, 'b1');
    const ab = read(file);
    expect(ab.paths).toEqual(['a1', 'b1']);
    const b = read(take(fresh(), 'b1'));
    expect(ab.bytes.length).toBeGreaterThan(a.bytes.length + 1000);
    expect(ab.bytes.length).toBeGreaterThan(b.bytes.length + 1000);
    // Another path through the same code is a path of its own; a name that is not a few printable words is none.
    take(state, 'a2');
    const grown = read(file);
    expect(grown.paths).toEqual(['a1', 'b1', 'a2']);
    for (const p of ['b1', 'a1', 'b\u00e9', ' '.repeat(101)]) {
      take(state, p);
      expect(read(file).bytes.equals(grown.bytes)).toBe(true);
    }
    // Full (64 paths): used, never written again.
    const data = grown.bytes.subarray(0, grown.bytes.length - 32);
    const at = data.indexOf(0);
    const end = data.indexOf(0, at + 1);
    const full = Buffer.concat([
      data.subarray(0, at + 1),
      Buffer.from(Array.from({ length: 64 }, (_, i) => `p${i}`).join('\n'), 'latin1'),
      data.subarray(end),
    ]);
    writeFileSync(file, Buffer.concat([full, createHash('sha256').update(full).digest()]), { mode: 0o600 });
    const before = readFileSync(file);
    take(state, 'b9');
    expect(readFileSync(file).equals(before)).toBe(true);
    // A cache of the layout before paths (the text, then the code): taken for none, written again as it is now.
    const code = data.subarray(end + 1);
    const old = Buffer.concat([data.subarray(0, at), code]);
    writeFileSync(file, Buffer.concat([old, createHash('sha256').update(old).digest()]), { mode: 0o600 });
    take(state, 'a1');
    expect(read(file).paths).toEqual(['a1']);
  });

  test("a cache write keeps the program's newest 3 caches (other builds' beyond them removed, under either name), and nothing else", () => {
    const bin = launcher({ main: 'main', verify: 'verify', hook: 'hook' }, ['main']);
    const state = path.join(tmp, `state-${n++}`);
    const dir = path.join(state, 'stepchain', 'code-cache');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const hex = (k: number) => String(k).repeat(32).slice(0, 32);
    const daysAgo = (f: string, d: number) => {
      writeFileSync(path.join(dir, f), 'old');
      const t = Date.now() / 1000 - d * 86400;
      utimesSync(path.join(dir, f), t, t);
    };
    // Five earlier builds' caches of the whole CLI, 1 to 5 days old; one of the hook's, older than all.
    const olds = [1, 2, 3, 4, 5].map((d) => `main+text-${hex(d)}-v20.0.0-x64.bin`);
    olds.forEach((f, i) => daysAgo(f, i + 1));
    daysAgo(`hook-${hex(9)}-v20.0.0-x64.bin`, 30);
    // A cache of the whole CLI as an earlier build named it, before it carried its text (`main-`): the same program.
    daysAgo(`main-${hex(0)}-v20.0.0-x64.bin`, 40);
    // A write killed midway two hours ago, one under way now; a link and a file named otherwise.
    daysAgo(`main+text-${hex(6)}-v20.0.0-x64.bin.4242.tmp`, 2 / 24);
    writeFileSync(path.join(dir, `main+text-${hex(7)}-v20.0.0-x64.bin.4343.tmp`), 'now');
    symlinkSync('/dev/null', path.join(dir, `main+text-${hex(8)}-v20.0.0-x64.bin`));
    writeFileSync(path.join(dir, 'notes.txt'), 'mine');
    const r = spawnSync(process.execPath, [bin], {
      env: { ...process.env, STEPCHAIN_CODE_CACHE: 'on', XDG_STATE_HOME: state },
      encoding: 'latin1',
    });
    expect({ code: r.status, stdout: r.stdout }).toEqual({ code: 0, stdout: 'main' });
    const left = readdirSync(dir).sort();
    const link = `main+text-${hex(8)}-v20.0.0-x64.bin`;
    const written = left.filter(
      (f) => f.startsWith('main+text-') && !olds.includes(f) && f.endsWith('.bin') && f !== link,
    );
    expect(written).toEqual([expect.stringMatching(/^main\+text-[0-9a-f]{32}-v/)]);
    expect(left).toEqual(
      [
        ...written,
        link,
        olds[0],
        olds[1],
        `hook-${hex(9)}-v20.0.0-x64.bin`,
        `main+text-${hex(7)}-v20.0.0-x64.bin.4343.tmp`,
        'notes.txt',
      ].sort(),
    );
  });
});

describe('the small entries as built (scripts/build-launcher.mjs bundleEntry)', () => {
  /** The program the build makes of `src/cli/<name>-entry.ts`. */
  const built = (name: string): string =>
    execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { bundleEntry } from ${JSON.stringify(path.join(repoRoot, 'scripts', 'build-launcher.mjs'))};
         process.stdout.write(await bundleEntry(${JSON.stringify(repoRoot)}, ${JSON.stringify(name)}));`,
      ],
      { encoding: 'latin1', maxBuffer: 1 << 26 },
    );

  // A copy of node:path's exports per importing module (esbuild's interop for `import path from 'node:path'`) was
  // ~1.5 ms of every hook call; what the entries do with node:path is held to the whole CLI's by
  // test/cli.hook-entry.test.ts and test/cli.verify-entry.test.ts.
  // The hook entry's (the verify entry, built the same way, also carries the verification worker's own program as a
  // string, which requires node:path too).
  test.each([['hook', 'runHook']])('the %s entry requires node:path once, and loads', (name, runner) => {
    const program = built(name);
    expect(program.match(/require\("node:path"\)/g)).toHaveLength(1);
    const file = path.join(tmp, `${name}-entry.cjs`);
    writeFileSync(file, program);
    const loaded = spawnSync(
      process.execPath,
      ['-e', `process.stdout.write(typeof require(${JSON.stringify(file)}).${runner})`],
      { encoding: 'utf8' },
    );
    expect(loaded.stdout).toBe('function');
  });
});

describe('the programs the Action carries (scripts/build-action.mjs)', () => {
  /** The Action's main: prints what its carried artifact program says, or why it was refused. */
  const main = `try {
    process.stdout.write(__stepchainCarried('artifact').said);
  } catch (e) {
    process.stdout.write('refused: ' + e.message);
  }`;

  test('a carried program whose bytes were changed in place (same length) is refused as damaged, never run', () => {
    const file = path.join(tmp, 'action.js');
    const source = actionSource(main, { artifact: `exports.said = ${JSON.stringify('artifact EEEE '.repeat(30))};\n` });
    writeFileSync(file, source, 'latin1');
    const out = () => execFileSync(process.execPath, [file], { encoding: 'latin1' });
    expect(out()).toBe('artifact EEEE '.repeat(30));
    const last = source.lastIndexOf('\n//') + 1;
    writeFileSync(file, `${source.slice(0, last + 2)}${sameLengthDamage(source.slice(last + 2, -1))}\n`, 'latin1');
    expect(out()).toBe(
      `refused: ${file}: damaged: a program it carries is not the one it was built with (bytes were changed)`,
    );
  });

  test('an Action cut short anywhere in a carried program is refused as damaged: no SyntaxError printing it', () => {
    // A block comment cut short is unclosed: V8's SyntaxError printed the whole comment as its source line.
    const source = actionSource(main, { artifact: `exports.said = ${JSON.stringify('artifact FFFF '.repeat(30))};\n` });
    const open = source.lastIndexOf('\n//') + 3;
    for (const cut of [1, 2, 3, (source.length - open) >> 1]) {
      const file = path.join(tmp, `action-cut-${cut}.js`);
      writeFileSync(file, source.slice(0, source.length - cut), 'latin1');
      const r = spawnSync(process.execPath, [file], { encoding: 'latin1' });
      expect([cut, r.status, r.stderr, r.stdout]).toEqual([
        cut,
        0,
        '',
        `refused: ${file}: damaged: the programs it carries are not where it says (bytes were added or cut)`,
      ]);
    }
  });
});

// A bin damaged anywhere in the carried programs' part (the comment and the newlines around it) must give one line
// and exit 1, or run as built: never a stack trace after a program ran, never changed code.
describe('a bin damaged in or around its carried programs (all three packed, one stream)', () => {
  const call = (file: string, argv: string[], cache = 'off') =>
    spawnSync(process.execPath, [file, ...argv], {
      env: { ...process.env, STEPCHAIN_CODE_CACHE: cache, XDG_STATE_HOME: path.join(tmp, `state-${n}`) },
      encoding: 'latin1',
    });

  /** A bin of the three programs packed, as the build carries them (scripts/build.mjs), and its text. */
  function packedBin(): { file: string; source: string } {
    const file = launcher(WANT_TEXTS, ['main', 'verify', 'hook']);
    return { file, source: readFileSync(file, 'latin1') };
  }

  /** Where the carried comment's body begins and ends, and each program's prefix of it (its length). */
  function stream(source: string): { open: number; close: number; prefix: Record<string, number> } {
    const spans = JSON.parse(/= (\[\[.*?\]\])\[k\]/.exec(source)![1]!) as [number, number][];
    const [main, verify, hook] = spans.map(([, length]) => length);
    return { ...streamAt(source), prefix: { main: main!, verify: verify!, hook: hook! } };
  }

  const COMMANDS = [['hook', 'take'], ['verify'], ['show']];
  const WANT_TEXTS = { hook: 'hook '.repeat(40), verify: 'verify '.repeat(40), main: 'main '.repeat(40) };
  const WANT: Record<string, string> = { hook: WANT_TEXTS.hook, verify: WANT_TEXTS.verify, show: WANT_TEXTS.main };
  const PROGRAM: Record<string, string> = { hook: 'hook', verify: 'verify', show: 'main' };

  test('the programs are one comment, each read from a prefix of it: the hook the shortest, the whole CLI all', () => {
    const { source } = packedBin();
    const { open, close, prefix } = stream(source);
    expect(source.slice(open, close)).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(source.slice(open - 3, open)).toBe('\n//');
    expect(source.slice(close)).toBe('\n');
    expect(0 < prefix.hook! && prefix.hook! < prefix.verify! && prefix.verify! < prefix.main!).toBe(true);
    expect(prefix.main).toBe(close - open);
  });

  test('a newline around the carried comment changed into a letter: no stack trace, never a ReferenceError', () => {
    const { file, source } = packedBin();
    const { open } = stream(source);
    for (const at of [open - 3, source.length - 1]) {
      writeFileSync(file, `${source.slice(0, at)}a${source.slice(at + 1)}`, 'latin1');
      for (const argv of COMMANDS) {
        const r = call(file, argv);
        expect(r.stderr).not.toContain('ReferenceError');
        const ok = r.status === 0 && r.stdout === WANT[argv[0]!] && r.stderr === '';
        const refused = r.status === 1 && r.stdout === '' && /^stepchain: .*: damaged: .*\n$/.test(r.stderr);
        expect({ at, argv, ok: ok || refused, r: [r.status, r.stdout, r.stderr] }).toMatchObject({ ok: true });
      }
    }
  });

  // Damage in a part of the stream is refused by every program whose prefix holds it (the hook's part is in all
  // three), and no other: each checks the SHA-256 of its own prefix.
  test.each([
    ['the hook', 'hook', ['hook', 'verify', 'main']],
    ['verify', 'verify', ['verify', 'main']],
    ['the whole CLI', 'main', ['main']],
  ])(
    "a change in %s's part of the stream (same length, the stream unpacking to its length) is refused by the programs holding it; the others run",
    (_, part, holding) => {
      const { file, source } = packedBin();
      const { open, close, prefix } = stream(source);
      const from = { hook: 0, verify: prefix.hook!, main: prefix.verify! }[part]!;
      const changed = sameLengthDamage(source.slice(open, close), from);
      const at = [...changed].findIndex((c, i) => c !== source[open + i]);
      expect(at >= from && at < prefix[part]!).toBe(true);
      writeFileSync(file, source.slice(0, open) + changed + source.slice(close), 'latin1');
      for (const cache of ['off', 'on', 'on'])
        for (const argv of COMMANDS) {
          const r = call(file, argv, cache);
          if (holding.includes(PROGRAM[argv[0]!]!))
            expect([argv, r.status, r.stdout, r.stderr]).toEqual([
              argv,
              1,
              '',
              `stepchain: ${file}: damaged: a program it carries is not the one it was built with (bytes were changed); reinstall stepchain\n`,
            ]);
          else expect([argv, r.status, r.stdout, r.stderr]).toEqual([argv, 0, WANT[argv[0]!], '']);
        }
    },
  );
});
