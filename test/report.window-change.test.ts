import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Journal, journalDir } from '../src/journal';
import { expectNoStack } from './helpers/cli';
import { cliPaused } from './helpers/proc';
import { tempDir } from './helpers/tmp';

/**
 * A windowed report embeds rows read after the journal was verified: a row of the window edited in between (in a
 * block none of the window's ends reads) is refused, never embedded as verified (src/report/source.ts).
 */
const root = tempDir();

test('a window row edited after the verification is refused, not embedded', async () => {
  const dir = journalDir(root, 'w');
  const j = Journal.open(dir, { durability: 'none' });
  j.appendMany(Array.from({ length: 1200 }, (_, i) => ({ prompt: `step ${i} plain text`, tool_result: { i } })));
  const resume = path.join(root, 'resume');
  const out = path.join(root, 'w.html');
  const run = await cliPaused(['report', 'w', '--max-steps', '1000', '--from', '100', '-o', out], 'report:verified', {
    cwd: root,
    env: { STEPCHAIN_TEST_RESUME: resume },
  });
  // Row 600 (block 2 of 256-row blocks; the window's ends, 100 and 1099, are in blocks 0 and 4): same length.
  const lines = readFileSync(j.file, 'utf8').split('\n');
  expect(lines[600]).toContain('"prompt":"step 600 plain text"');
  lines[600] = lines[600]!.replace('step 600 plain text', 'step 600 plain TEXT');
  writeFileSync(j.file, lines.join('\n'));
  writeFileSync(resume, '');
  const r = await run.exited();
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(`${j.file}: the journal changed since it was verified`);
  expectNoStack({ code: r.code ?? -1, stdout: '', stderr: r.stderr });
});
