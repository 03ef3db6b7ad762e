import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { launcherSource } from '../scripts/build-launcher.mjs';
import { tempDir } from './helpers/tmp';

// A bin damaged anywhere in the carried programs' part (the comments and the newlines between them) must give one
// line and exit 1, or run as built: never a stack trace after a program ran, never changed code. All three packed,
// as the build carries them (scripts/build.mjs).
const tmp = tempDir('stepchain-launcher-damage-');
let n = 0;

function bin(): { file: string; source: string } {
  const print = (s: string) => `process.stdout.write(${JSON.stringify(s)});`;
  const programs = {
    main: `${print('main '.repeat(40))}\n`,
    verify: `exports.runVerify = () => { ${print('verify '.repeat(40))} return true; };`,
    hook: `exports.runHook = (argv) => { if (argv[1] !== 'take') return false; ${print('hook '.repeat(40))} return true; };`,
  };
  const source = launcherSource(programs, { packed: ['main', 'verify', 'hook'] });
  const file = path.join(tmp, `bin-${n++}.js`);
  writeFileSync(file, source, 'latin1');
  return { file, source };
}

/** Where the bodies of the three carried comments (the file's last three, hook's first) begin. */
function carriedOpens(source: string): number[] {
  const opens: number[] = [];
  for (let at = source.indexOf('\n/*'); at >= 0; at = source.indexOf('\n/*', at + 1)) opens.push(at + 3);
  return opens.slice(-3);
}

const call = (file: string, argv: string[], cache = 'off') =>
  spawnSync(process.execPath, [file, ...argv], {
    env: { ...process.env, STEPCHAIN_CODE_CACHE: cache, XDG_STATE_HOME: path.join(tmp, `state-${n}`) },
    encoding: 'latin1',
  });

const COMMANDS = [['hook', 'take'], ['verify'], ['show']];
const WANT: Record<string, string> = { hook: 'hook '.repeat(40), verify: 'verify '.repeat(40), show: 'main '.repeat(40) };

test('a newline between the carried programs changed into a letter: no stack trace, never a ReferenceError', () => {
  const { file, source } = bin();
  // The newlines that end the carried comments (hook's, verify's), and the one before the first of them.
  const ends = carriedOpens(source).map((open) => open - 3);
  for (const at of ends) {
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

/** `body` with one base64 character changed so that it still unpacks to another text of the same length. */
function sameLengthDamage(body: string): string {
  const text = brotliDecompressSync(Buffer.from(body, 'base64')).toString('latin1');
  const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let i = 0; i < body.length; i++)
    for (const c of B64) {
      if (c === body[i]) continue;
      const other = body.slice(0, i) + c + body.slice(i + 1);
      try {
        const out = brotliDecompressSync(Buffer.from(other, 'base64')).toString('latin1');
        if (out.length === text.length && out !== text) return other;
      } catch {
        /* not a brotli stream */
      }
    }
  throw new Error('no same-length damage found');
}

test.each([
  ['hook', 0],
  ['verify', 1],
])('the %s entry changed in place (same length, unpacking to its length) is refused; the others run', (name, k) => {
  const { file, source } = bin();
  const open = carriedOpens(source)[k]!;
  const close = source.indexOf('*/\n', open);
  const changed = sameLengthDamage(source.slice(open, close));
  writeFileSync(file, source.slice(0, open) + changed + source.slice(close), 'latin1');
  for (const cache of ['off', 'on', 'on'])
    for (const argv of COMMANDS) {
      const r = call(file, argv, cache);
      if (argv[0] === name)
        expect([r.status, r.stdout, r.stderr]).toEqual([
          1,
          '',
          `stepchain: ${file}: damaged: a program it carries is not the one it was built with (bytes were changed); reinstall stepchain\n`,
        ]);
      else expect([r.status, r.stdout, r.stderr]).toEqual([0, WANT[argv[0]!], '']);
    }
});
