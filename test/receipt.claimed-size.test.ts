/**
 * A tar header's size is a claim. A receipt of a few hundred bytes that claims a member of gigabytes is named as
 * truncated, as any archive that ends early is: never an internal error from making a buffer of the claimed size,
 * for any member the verifier holds whole (manifest.json, manifest.sig), plain or gzipped, at claims on each side of
 * what Node can allocate and of the longest text a manifest can be read as.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { expectNoStack } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { rawTar } from './helpers/tar';
import { tempDir } from './helpers/tmp';

const dir = tempDir('stepchain-claimed-size-');
let n = 0;

const CLAIMS = [2 ** 33 - 1, 2 ** 32 + 5, 3 * 2 ** 30, 600 * 2 ** 20, 2 * 2 ** 20 + 3];

describe.each(['manifest.json', 'manifest.sig'])('%s claiming more than the archive holds', (member) => {
  test.each(CLAIMS)('claimed %d bytes: named as truncated, plain and gzipped', async (size) => {
    for (const gz of [false, true]) {
      const tar = rawTar([{ name: member, data: '{"x": 1}', size }], false);
      const file = path.join(dir, `r${n++}.tar${gz ? '.gz' : ''}`);
      writeFileSync(file, gz ? gzipSync(tar) : tar);
      const r = await cliInProcess(['receipt', 'verify', file], { cwd: dir, env: { STEPCHAIN_AUDIT: 'off' } });
      expectNoStack(r);
      expect(r.stderr).not.toContain('internal error');
      expect(r.code).not.toBe(0);
      expect(r.stdout + r.stderr).toContain(`declares ${size} bytes`);
    }
  });
});
