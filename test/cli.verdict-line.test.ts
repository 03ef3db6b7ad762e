import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cli, expectNoStack } from './helpers/cli';
import { tempDir } from './helpers/tmp';

/**
 * A verdict on stdout is one line whatever the name of the file it names (outLine, src/cli/io.ts): a journal or a
 * receipt named by someone else (`for r in receipts/*; do stepchain receipt verify "$r"; done` in CI) printed its
 * name's newline as is, so the name could add a line of its choosing, such as another file's `OK`.
 */
const root = tempDir();
const forged = `\nOK forged.jsonl: 9 steps, head ${'0'.repeat(64)}\n`;

beforeAll(() => {
  for (const p of ['a', 'b']) expect(cli(['append', 'a', '--root', root, '--no-snapshot', '--prompt', p]).code).toBe(0);
});

function oneLine(stdout: string): string {
  expect(stdout.endsWith('\n')).toBe(true);
  const lines = stdout.slice(0, -1).split('\n');
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

describe('a verdict line naming a file with a newline in its name', () => {
  const journal = (): string => path.join(root, '.sdd', 'runtime', 'journal', 'a', '000000.jsonl');

  it('verify: OK and FAIL stay one line each', () => {
    const good = path.join(root, `good${forged}.jsonl`);
    copyFileSync(journal(), good);
    const ok = cli(['verify', good]);
    expectNoStack(ok);
    expect(ok.code).toBe(0);
    expect(oneLine(ok.stdout)).toMatch(
      /^OK .*good\\nOK forged\.jsonl: 9 steps.*\\n\.jsonl: 2 steps, head [0-9a-f]{64}$/,
    );
    const bad = path.join(root, `bad${forged}.jsonl`);
    writeFileSync(bad, readFileSync(journal(), 'utf8').replace('"prompt":"a"', '"prompt":"A"'));
    const fail = cli(['verify', bad]);
    expect(fail.code).toBe(1);
    expect(oneLine(fail.stdout)).toMatch(/^FAIL .*bad\\nOK forged\.jsonl: .*\\n\.jsonl: 1 fault in 2 rows$/);
  });

  it('receipt verify: one line', () => {
    const receipt = path.join(root, `r${forged}.tar`);
    expect(cli(['export', 'a', '--root', root, '-o', path.join(root, 'r.tar')]).code).toBe(0);
    copyFileSync(path.join(root, 'r.tar'), receipt);
    const r = cli(['receipt', 'verify', receipt]);
    expectNoStack(r);
    expect(r.code).toBe(0);
    const [first, ...rest] = r.stdout.slice(0, -1).split('\n');
    expect(first).toMatch(/^OK .*r\\nOK forged\.jsonl: .*\\n\.tar: 2 steps, head /);
    // What follows the verdict is the command's own indented detail, never a line from the name.
    for (const l of rest) expect(l).toMatch(/^ {2}\S/);
  });
});
