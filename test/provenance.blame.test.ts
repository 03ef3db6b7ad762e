import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { journalFile } from '../src/journal';
import { matchLines } from '../src/provenance/line-match';
import fc from 'fast-check';
import { cli, expectNoStack } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { initRepo, writeFiles } from './helpers/git';
import { tempDir } from './helpers/tmp';

const tmp = tempDir('stepchain-prov-blame-');
let n = 0;

interface BlameDoc {
  ok: boolean;
  path: string;
  recorded: number;
  unrecorded: number;
  lines: { line: number; agent: string | null; seq: number | null; step_hash: string | null; text: string }[];
  warnings: string[];
}

// The appends and the --json blames run through runCli in this process (`cliInProcess`, the code the bundle runs): the
// documents are the point; the text blame from a subdirectory stays a real process (its own working directory).
async function step(root: string, agent: string, files: Record<string, string>): Promise<string> {
  writeFiles(root, files);
  const r = await cliInProcess(['append', agent, '--prompt', 'edit', '--json'], { cwd: root });
  expect([r.code, r.stderr]).toEqual([0, '']);
  return (JSON.parse(r.stdout) as { step_hash: string }).step_hash;
}

async function blame(root: string, file: string): Promise<BlameDoc> {
  const r = await cliInProcess(['blame', file, '--json'], { cwd: root });
  expectNoStack(r);
  return JSON.parse(r.stdout) as BlameDoc;
}

describe('stepchain blame', () => {
  test('each line: the step that last wrote it, across agents in one timeline; lines from the base or added after the last step are unrecorded', async () => {
    const root = initRepo(path.join(tmp, `r${n++}`), { 'src/m.py': 'base 1\nbase 2\nbase 3\n' });
    const h0 = await step(root, 'alpha', { 'src/m.py': 'base 1\nalpha 0\nbase 2\nbase 3\n' });
    const h1 = await step(root, 'beta', { 'src/m.py': 'base 1\nalpha 0\nbase 2\nbeta 0\nbase 3\n' });
    const h2 = await step(root, 'alpha', { 'src/m.py': 'base 1\nalpha 1\nbase 2\nbeta 0\nbase 3\n' });
    // A person adds a line after the last step: nobody's step.
    writeFiles(root, { 'src/m.py': 'base 1\nalpha 1\nbase 2\nbeta 0\nbase 3\nafter\n' });

    const d = await blame(root, 'src/m.py');
    expect(d.ok).toBe(true);
    expect(d.path).toBe('src/m.py');
    expect(d.lines.map((l) => [l.text, l.agent, l.seq, l.step_hash])).toEqual([
      ['base 1', null, null, null],
      ['alpha 1', 'alpha', 1, h2],
      ['base 2', null, null, null],
      ['beta 0', 'beta', 0, h1],
      ['base 3', null, null, null],
      ['after', null, null, null],
    ]);
    expect([d.recorded, d.unrecorded]).toEqual([2, 4]);
    expect(h0).not.toBe(h2);

    // Lines too, from a subdirectory, the path relative to it.
    const text = cli(['blame', 'm.py'], { cwd: path.join(root, 'src') });
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n')[1]).toBe(`alpha 1    ${h2.slice(0, 12)} 2) alpha 1`);
    expect(text.stdout.split('\n')[0]).toBe(`unrecorded ${' '.repeat(12)} 1) base 1`);
  });

  test('a journal that does not verify counts for nothing, and says so (exit 1); a missing file is an input error', async () => {
    const root = initRepo(path.join(tmp, `r${n++}`), { 'a.txt': 'x\n' });
    await step(root, 'alpha', { 'a.txt': 'x\ny\n' });
    expect((await blame(root, 'a.txt')).lines.map((l) => l.agent)).toEqual([null, 'alpha']);
    const file = journalFile(root, 'alpha');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"edit"', '"EDIT"'));
    const r = await cliInProcess(['blame', 'a.txt', '--json'], { cwd: root });
    expect(r.code).toBe(1);
    const d = JSON.parse(r.stdout) as BlameDoc;
    expect(d.lines.map((l) => l.agent)).toEqual([null, null]);
    expect(d.warnings).toEqual(['journal alpha does not verify: its steps count for nothing']);
    const missing = await cliInProcess(['blame', 'nope.txt'], { cwd: root });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nope.txt: no such regular file');
  });
});

describe('matchLines', () => {
  test('property: every kept line is equal, kept indices increase, and a line present unchanged in both never counts as new when the texts are equal', () => {
    const line = fc.constantFrom('a', 'b', 'c', 'd', '');
    fc.assert(
      fc.property(fc.array(line, { maxLength: 40 }), fc.array(line, { maxLength: 40 }), (a, b) => {
        const m = matchLines(a, b);
        expect(m).toHaveLength(b.length);
        let last = -1;
        for (const [j, i] of m.entries()) {
          if (i < 0) continue;
          expect(a[i]).toBe(b[j]);
          expect(i).toBeGreaterThan(last);
          last = i;
        }
        expect(matchLines(a, a)).toEqual(a.map((_, i) => i));
      }),
    );
  });
});
