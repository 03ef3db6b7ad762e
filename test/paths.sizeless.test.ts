/**
 * A file whose size is not its length: /proc/self/status is a regular file that fstat says holds 0 bytes and a read
 * fills with text. Every reader read a file up to its size when opened, so it read nothing there: `verify
 * /proc/self/status` said `OK ...: 0 steps` (exit 0), `diff` said two of them were the same run, `report` wrote a page
 * saying "chain intact", `export` wrote a receipt of 0 steps, `run verify` said OK. Each is refused now, exit 2, one
 * line naming the file; the library's readers throw the same InputError. A file of 0 bytes that is one (a journal
 * whose first write never happened) still verifies with 0 steps (docs/journal.md, "A journal without rows").
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { InputError } from '../src/errors';
import { verifyJournalFile } from '../src/journal';
import { verifyReceipt } from '../src/receipt';
import { verifyRunJournal } from '../src/runs';
import { expectNoStack } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { tempDir } from './helpers/tmp';

const dir = tempDir('stepchain-sizeless-');
const PROC = '/proc/self/status';
const ENV = { STEPCHAIN_AUDIT: 'off', STEPCHAIN_CHECKPOINT_KEY_PATH: path.join(dir, 'checkpoint.key') };
const SIZELESS = /size is not its length/;

describe('a /proc file (fstat says 0 bytes, a read gives text) is refused, never read as empty', () => {
  const out = path.join(dir, 'out');
  const commands: [string, string[]][] = [
    ['verify', ['verify', PROC]],
    ['verify --json', ['verify', PROC, '--json']],
    ['diff', ['diff', PROC, PROC]],
    ['replay', ['replay', PROC]],
    ['report', ['report', PROC, '-o', `${out}.html`]],
    ['export', ['export', PROC, '-o', `${out}.tar`]],
    ['run verify', ['run', 'verify', PROC]],
    ['receipt verify', ['receipt', 'verify', PROC]],
  ];
  test.each(commands)('%s: exit 2, one line naming the file, nothing written', async (_name, args) => {
    const r = await cliInProcess(args, { cwd: dir, input: '', env: ENV });
    expectNoStack(r);
    expect(r.code).toBe(2);
    expect(r.stdout).not.toMatch(/\bOK\b|same|intact|exported/);
    expect(`${r.stdout}${r.stderr}`).toContain(PROC);
    expect(`${r.stdout}${r.stderr}`).toMatch(SIZELESS);
    expect(existsSync(`${out}.html`) || existsSync(`${out}.tar`)).toBe(false);
  });

  test('a key file: `export --sign-key` and `receipt verify --public-key` refuse it (it read as 0 bytes)', async () => {
    const journal = path.join(dir, 'keyed.jsonl');
    const receipt = path.join(dir, 'keyed.tar');
    writeFileSync(journal, '');
    const made = await cliInProcess(['export', journal, '-o', receipt], { cwd: dir, input: '', env: ENV });
    expect(made.code).toBe(0);
    for (const args of [
      ['export', journal, '-o', `${out}.tar`, '--sign-key', PROC],
      ['receipt', 'verify', receipt, '--public-key', PROC],
    ]) {
      const r = await cliInProcess(args, { cwd: dir, input: '', env: ENV });
      expectNoStack(r);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(PROC);
      expect(r.stderr).toMatch(SIZELESS);
    }
    expect(existsSync(`${out}.tar`)).toBe(false);
  });

  test('the library: verifyJournalFile, verifyRunJournal and verifyReceipt throw an InputError naming the file', () => {
    for (const read of [() => verifyJournalFile(PROC), () => verifyRunJournal(PROC), () => verifyReceipt(PROC)]) {
      let caught: unknown;
      try {
        read();
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(InputError);
      expect((caught as Error).message).toContain(PROC);
      expect((caught as Error).message).toMatch(SIZELESS);
    }
  });

  test('a file of 0 bytes is still a journal of 0 steps', async () => {
    const empty = path.join(dir, 'empty.jsonl');
    writeFileSync(empty, '');
    expect(verifyJournalFile(empty)).toMatchObject({ ok: true, steps: 0 });
    const r = await cliInProcess(['verify', empty], { cwd: dir, input: '', env: ENV });
    expect(r.code).toBe(0);
  });
});
