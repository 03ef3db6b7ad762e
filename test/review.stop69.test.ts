import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliDecompressSync, constants as zlibConstants } from 'node:zlib';
import { launcherSource } from '../scripts/build-launcher.mjs';
import { packJoint } from '../scripts/carried.mjs';
import { tempDir } from './helpers/tmp';

/**
 * A review of how the bin carries its programs (one brotli stream in base64, each program read from a prefix):
 * a bin cut short anywhere in that stream (a partial download, a copy cut by a full disk) must give the one
 * `damaged` line and exit 1, as bytes added or changed do, never V8's SyntaxError with the stream as its source
 * line (600 KB of it on stderr: an agent's hook call showed that); and each program's prefix must be the shortest
 * that unpacks to its text.
 */
const tmp = tempDir('stepchain-stop69-');
let n = 0;

const TEXTS = { hook: 'hook '.repeat(40), verify: 'verify '.repeat(40), main: 'main '.repeat(40) };
const COMMANDS: [string[], string][] = [
  [['hook', 'take'], TEXTS.hook],
  [['verify'], TEXTS.verify],
  [['show'], TEXTS.main],
];

/** The three programs packed, as the build carries them; each prints its text. */
function packedSource(): string {
  const print = (s: string) => `process.stdout.write(${JSON.stringify(s)});`;
  return launcherSource(
    {
      main: `${print(TEXTS.main)}\n`,
      verify: `exports.runVerify = () => { ${print(TEXTS.verify)} return true; };`,
      hook: `exports.runHook = (argv) => { if (argv[1] !== 'take') return false; ${print(TEXTS.hook)} return true; };`,
    },
    { packed: ['hook', 'verify', 'main'] },
  );
}

function call(file: string, argv: string[]) {
  return spawnSync(process.execPath, [file, ...argv], {
    env: { ...process.env, STEPCHAIN_CODE_CACHE: 'off' },
    encoding: 'latin1',
  });
}

describe('a bin cut short inside its carried stream', () => {
  test('every program refuses it with the one damaged line (no SyntaxError, nothing of the stream printed)', () => {
    const source = packedSource();
    // The stream is the file's last line (its text: printable ASCII, no newline).
    const open = source.lastIndexOf('\n', source.length - 2) + 1;
    const length = source.length - open;
    // Cut 1, 2 and 3 bytes from the end (the comment's close), in the middle, and just after its opening.
    for (const keep of [length - 1, length - 2, length - 3, length >> 1, 5]) {
      const file = path.join(tmp, `cut-${n++}.js`);
      writeFileSync(file, source.slice(0, open + keep), 'latin1');
      for (const [argv] of COMMANDS) {
        const r = call(file, argv);
        expect({ keep, argv, code: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({
          keep,
          argv,
          code: 1,
          stdout: '',
          stderr: expect.stringMatching(new RegExp(`^stepchain: ${file}: damaged: [^\\n]*\\n$`)),
        });
      }
    }
    // Uncut, each runs as built.
    const file = path.join(tmp, `whole-${n++}.js`);
    writeFileSync(file, source, 'latin1');
    for (const [argv, want] of COMMANDS) expect(call(file, argv).stdout).toBe(want);
  });
});

describe('packJoint', () => {
  test("each prefix is the shortest whole base64 groups holding its packed bytes, the fewest packed bytes reaching its text's end", () => {
    const cases: string[][] = [[''], ['', '', ''], ['a'], ['a', ''], ['', 'a'], ['x'.repeat(999), 'y', 'z'.repeat(5)]];
    for (let i = 0; i < 40; i++)
      cases.push(
        Array.from({ length: 1 + (i % 3) }, (_, k) => randomBytes(20 + ((i * 131 + k * 17) % 300)).toString('base64')),
      );
    for (const texts of cases) {
      const { body, spans } = packJoint(texts.map((t) => Buffer.from(t, 'latin1')));
      const all = Buffer.from(body, 'base64');
      const decoded = (chars: number) => Buffer.from(body.slice(0, chars), 'base64').length;
      let end = 0;
      spans.forEach((s, i) => {
        end += texts[i]!.length;
        if (s.bytes < 0) return expect(s.chars).toBe(body.length);
        expect(s.chars % 4 === 0 || s.chars === body.length).toBe(true);
        expect(decoded(s.chars)).toBeGreaterThanOrEqual(s.bytes);
        if (s.chars >= 4) expect(decoded(s.chars - 4)).toBeLessThan(s.bytes);
        const reach = (k: number) =>
          brotliDecompressSync(all.subarray(0, k), { finishFlush: zlibConstants.BROTLI_OPERATION_FLUSH }).length;
        expect(reach(s.bytes)).toBeGreaterThanOrEqual(end);
        if (s.bytes > 0) expect(reach(s.bytes - 1)).toBeLessThan(end);
      });
    }
  });
});
