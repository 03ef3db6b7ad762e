import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Journal, journalDir, journalFile } from '../src/journal';
import { cliChangedWhilePaused } from './helpers/proc';
import { freshDir, tempDir } from './helpers/tmp';

/**
 * `replay --json` of a journal edited after it was verified but before the first piece (1 MiB) of its document is
 * out: nothing of the document was written, so stdout must be the error document alone, as before the streaming
 * change (da3b093) — not a blank line and then the error document (writeDocument's `finally` wrote '\n').
 */
const root = tempDir('stepchain-attack-edited-');

test('a small journal edited before any piece is written: stdout is the error document alone', async () => {
  const project = freshDir(root, 'small');
  const j = Journal.open(journalDir(project, 'small'), { durability: 'none' });
  j.appendMany(Array.from({ length: 5 }, (_, i) => ({ prompt: `step ${i}` })));
  const file = journalFile(project, 'small');
  const r = await cliChangedWhilePaused(
    ['replay', 'small', '--root', project, '--json'],
    'replay:opened',
    path.join(project, 'resume'),
    () => {
      const text = readFileSync(file, 'utf8');
      const at = text.indexOf('step 3');
      writeFileSync(file, `${text.slice(0, at)}step 4${text.slice(at + 6)}`);
    },
    { STEPCHAIN_AUDIT: 'off' },
  );
  expect(r.code).toBe(1);
  expect(r.stderr).toEqual([expect.stringContaining('the journal changed since it was verified')]);
  expect(r.stdout.startsWith('{')).toBe(true);
  expect(JSON.parse(r.stdout)).toMatchObject({ ok: false });
});
