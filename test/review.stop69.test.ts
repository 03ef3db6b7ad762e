import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliDecompressSync, constants as zlibConstants } from 'node:zlib';
import { launcherSource } from '../scripts/build-launcher.mjs';
import { decode94, encode94, packJoint } from '../scripts/carried.mjs';
import { tempDir } from './helpers/tmp';

/**
 * A review of how the bin carries its programs (one brotli stream, encode94'd, each program read from a prefix):
 * a bin cut short anywhere in that stream (a partial download, a copy cut by a full disk) must give the one
 * `damaged` line and exit 1, as bytes added or changed do, never V8's SyntaxError with the stream as its source
 * line (600 KB of it on stderr: an agent's hook call showed that); and the codec must agree with an independent
 * decoder written from its description.
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

describe('encode94 / decode94 against a decoder written from the description', () => {
  // basE91's scheme with 94 characters (printable ASCII but `*`, each its rank): a pair is lo + 94 * hi, 13 bits of
  // it when its low 13 bits are over 643, else 14, taken least significant first; a lone last character is one
  // more byte. Written in Python, from that sentence, not from the JavaScript.
  const PY = `
import sys
A = [c for c in range(32, 127) if c != 42]
R = {c: i for i, c in enumerate(A)}
def dec(s):
    acc, n, out = 0, 0, bytearray()
    for i in range(0, len(s) - 1, 2):
        v = R[s[i]] + 94 * R[s[i + 1]]
        w = 13 if (v & 8191) > 643 else 14
        acc |= (v & ((1 << w) - 1)) << n
        n += w
        while n >= 8:
            out.append(acc & 255); acc >>= 8; n -= 8
    if len(s) % 2:
        out.append((acc | (R[s[-1]] << n)) & 255)
    return bytes(out)
for line in sys.stdin:
    print(dec(line.rstrip('\\n').encode('latin1')).hex())
`;
  test('both decode every encoding (and any string of the alphabet) to the same bytes', () => {
    const inputs: Buffer[] = [];
    for (let len = 0; len < 160; len++) inputs.push(Buffer.alloc(len), Buffer.alloc(len, 0xff), randomBytes(len));
    for (let i = 0; i < 200; i++) inputs.push(randomBytes(1 + ((i * 7919) % 4000)));
    const lines = inputs.map((b) => encode94(b));
    const alphabet = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).filter((c) => c !== '*');
    // Strings encode94 would not write (pairs of any value): the decoders must still agree.
    for (let i = 0; i < 200; i++) lines.push(Array.from(randomBytes(i % 97), (b) => alphabet[b % 94]!).join(''));
    const r = spawnSync('python3', ['-c', PY], {
      input: `${lines.join('\n')}\n`,
      encoding: 'latin1',
      maxBuffer: 1 << 26,
    });
    expect(r.status).toBe(0);
    const py = r.stdout.split('\n');
    lines.forEach((chars, i) => {
      const js = decode94(Buffer.from(chars, 'latin1'))!.toString('hex');
      expect([i, js]).toEqual([i, py[i]]);
      if (i < inputs.length) expect([i, js]).toEqual([i, inputs[i]!.toString('hex')]);
    });
  });

  test("packJoint: each prefix is the shortest whole pairs holding its packed bytes, the fewest packed bytes reaching its text's end", () => {
    const cases: string[][] = [[''], ['', '', ''], ['a'], ['a', ''], ['', 'a'], ['x'.repeat(999), 'y', 'z'.repeat(5)]];
    for (let i = 0; i < 40; i++)
      cases.push(
        Array.from({ length: 1 + (i % 3) }, (_, k) => randomBytes(20 + ((i * 131 + k * 17) % 300)).toString('base64')),
      );
    for (const texts of cases) {
      const { body, spans } = packJoint(texts.map((t) => Buffer.from(t, 'latin1')));
      const all = decode94(Buffer.from(body, 'latin1'))!;
      const decoded = (chars: number) => decode94(Buffer.from(body.slice(0, chars), 'latin1'))!.length;
      let end = 0;
      spans.forEach((s, i) => {
        end += texts[i]!.length;
        if (s.bytes < 0) return expect(s.chars).toBe(body.length);
        expect(s.chars % 2 === 0 || s.chars === body.length).toBe(true);
        expect(decoded(s.chars)).toBeGreaterThanOrEqual(s.bytes);
        if (s.chars >= 2 && s.chars % 2 === 0) expect(decoded(s.chars - 2)).toBeLessThan(s.bytes);
        const reach = (k: number) =>
          brotliDecompressSync(all.subarray(0, k), { finishFlush: zlibConstants.BROTLI_OPERATION_FLUSH }).length;
        expect(reach(s.bytes)).toBeGreaterThanOrEqual(end);
        if (s.bytes > 0) expect(reach(s.bytes - 1)).toBeLessThan(end);
      });
    }
  });
});
