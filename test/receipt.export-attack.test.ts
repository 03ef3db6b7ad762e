import { spawnSync } from 'node:child_process';
import { linkSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { journalDir, journalFile } from '../src/journal';
import { exportReceipt, publishReceipt } from '../src/receipt';
import { recordStep } from '../src/record';
import { cliPath } from './helpers/paths';
import { tempDir } from './helpers/tmp';

/**
 * `export` and `publish` from outside: outputs that reach the journal another way than its own path, and what is
 * left beside an output when the export fails or is killed.
 */
const root = tempDir('stepchain-export-attack-');
const ENV = { ...process.env, STEPCHAIN_AUDIT: 'off' };

function journalOf(id: string, n: number): string {
  for (let i = 0; i < n; i++)
    recordStep(
      journalDir(root, id),
      { prompt: `step ${i}`, model: 'm', blobs: [Buffer.from(`blob ${id} ${i}`)] },
      { root, env: ENV, snapshot: false },
    );
  return journalFile(root, id);
}

const cli = (args: string[], cwd = root) =>
  spawnSync(process.execPath, [cliPath, ...args], { cwd, env: ENV, encoding: 'utf8' });

/** The temporary files beside `file` (`<name>.<writer>.<random>.tmp`, util/fs tempPath). */
const beside = (file: string): string[] =>
  readdirSync(path.dirname(file)).filter((n) => n.startsWith(`${path.basename(file)}.`) && n.endsWith('.tmp'));

describe('an output that is the journal by another way: refused (exit 2), --force or not; the journal intact', () => {
  const file = journalOf('self', 2);
  const bytes = readFileSync(file);
  // A link to the journal's directory, and a hard link to the journal itself.
  symlinkSync(path.dirname(file), path.join(root, 'linked-dir'));
  linkSync(file, path.join(root, 'hard.jsonl'));
  const ways = ['linked-dir/000000.jsonl', 'hard.jsonl'];

  for (const command of ['export', 'publish'])
    for (const way of ways)
      test(`${command} -o ${way} --force`, () => {
        const extra = command === 'publish' ? ['--opt-in'] : [];
        const r = cli([command, file, '-o', way, '--force', ...extra]);
        expect({ status: r.status, stderr: r.stderr }).toEqual({
          status: 2,
          stderr: `stepchain: ${command}: the output would overwrite the journal\n`,
        });
        expect(readFileSync(file).equals(bytes)).toBe(true);
        expect(beside(file)).toEqual([]);
      });

  test('the library refuses the same outputs as given, `..` after the link too (the kernel resolves it there)', () => {
    const cwd = process.cwd();
    process.chdir(root);
    try {
      // The CLI resolves `..` by name before it writes; a path handed to the library is resolved by the kernel.
      for (const way of [...ways, 'linked-dir/../self/000000.jsonl']) {
        expect(() => exportReceipt(file, way)).toThrow(`${way}: the receipt would overwrite the journal`);
        expect(() => publishReceipt(file, way, { optIn: true })).toThrow('the receipt would overwrite the journal');
      }
    } finally {
      process.chdir(cwd);
    }
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });

  test('a symbolic link to the journal as the output is the link, replaced with --force (the journal untouched)', () => {
    const link = path.join(root, 'soft.jsonl');
    symlinkSync(file, link);
    expect(cli(['export', file, '-o', 'soft.jsonl']).status).toBe(2);
    const r = cli(['export', file, '-o', 'soft.jsonl', '--force']);
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    expect(readFileSync(file).equals(bytes)).toBe(true);
    expect(cli(['receipt', 'verify', 'soft.jsonl']).status).toBe(0);
  });
});
