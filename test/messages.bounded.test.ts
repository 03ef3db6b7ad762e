/**
 * A warning names what it is about, never every one of an unbounded list (src/util/words.ts `someOf`): a fork at
 * step 99,990 of a journal whose blobs were gone printed one warning line of 6.5 MB, every digest. The lists a
 * step's or a fork's warning can hold (missing blobs, nested repositories, unopened directories, differing files,
 * unlinked tool calls) name the first ten and count the rest.
 */
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { casDir, journalDir } from '../src/journal';
import { recordStep } from '../src/record';
import { someOf } from '../src/util/words';
import { cliInProcess } from './helpers/cli-in-process';
import { initRepo } from './helpers/git';
import { tempDir } from './helpers/tmp';

const tmp = tempDir('stepchain-bounded-');
const ENV = { STEPCHAIN_AUDIT: 'off', STEPCHAIN_CHECKPOINT_KEY_PATH: path.join(tmp, 'checkpoint.key') };

test('property: someOf lists at most `max` items, in order, and counts the rest', () => {
  fc.assert(
    fc.property(
      fc.array(fc.stringMatching(/^[a-z0-9]{1,8}$/), { maxLength: 40 }),
      fc.integer({ min: 1, max: 12 }),
      (items, max) => {
        const s = someOf(items, ' ', max);
        if (items.length <= max) expect(s).toBe(items.join(' '));
        else expect(s).toBe(`${items.slice(0, max).join(' ')} and ${items.length - max} more`);
      },
    ),
  );
  expect(someOf(Array.from({ length: 12345 }, (_, i) => String(i)))).toBe(
    '0, 1, 2, 3, 4, 5, 6, 7, 8, 9 and 12,335 more',
  );
});

test('a fork whose inherited blobs are gone: one warning line naming ten of them and counting the rest', async () => {
  const root = initRepo(path.join(tmp, 'repo'), { 'a.txt': 'a\n' });
  for (let i = 0; i < 25; i++)
    recordStep(
      journalDir(root, 'ag'),
      { prompt: `step ${i}`, input: Buffer.from(`input ${i}`) },
      { env: ENV, root, snapshot: false },
    );
  const cas = casDir(root);
  const blobs = readdirSync(cas, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  expect(blobs.length).toBe(25);
  rmSync(cas, { recursive: true });
  const r = await cliInProcess(['fork', 'ag', '--from-step', '24', '--root', root], { env: ENV });
  expect(r.code).toBe(0);
  const lines = r.stderr.split('\n').filter((l) => l.includes('not copied'));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(
    /25 blobs of the inherited steps are not in the parent's CAS .* were not copied: ((?:[0-9a-f]{64} ){10})and 15 more$/,
  );
});
