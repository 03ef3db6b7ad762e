/**
 * A signing key that its group or others can read is used, with a warning naming it, its mode and the remedy
 * (`chmod 600`), as ssh says it; before, `export --sign-key` and `publish --sign-key` signed with a 0644 key without a
 * word. A 0600 key (what keygen writes) is used silently.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cliInProcess } from './helpers/cli-in-process';
import { tempDir } from './helpers/tmp';

const dir = tempDir('stepchain-key-mode-');
const ENV = { STEPCHAIN_AUDIT: 'off', STEPCHAIN_CHECKPOINT_KEY_PATH: path.join(dir, 'checkpoint.key') };
const run = (argv: string[]) => cliInProcess(argv, { cwd: dir, input: '', env: ENV });
const key = path.join(dir, 'signing.pem');
const journal = path.join(dir, 'run.jsonl');
let n = 0;

beforeAll(async () => {
  expect((await run(['keygen', '-o', key, '--public', path.join(dir, 'signing.pub')])).code).toBe(0);
  writeFileSync(journal, '');
});

describe.each([
  ['export', [] as string[]],
  ['publish', ['--opt-in']],
])('%s --sign-key', (command, extra) => {
  test.each(['0644', '0640', '0604', '0660'])('a key of mode %s: signed, with a warning naming it', async (mode) => {
    chmodSync(key, parseInt(mode, 8));
    const out = path.join(dir, `w${n++}.tar`);
    const r = await run([command, journal, '-o', out, '--sign-key', key, ...extra]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/signed\s+yes/);
    expect(r.stderr).toContain(`stepchain: warning: ${key}: the private key has mode ${mode}`);
    expect(r.stderr).toContain(`chmod 600 ${key}`);
  });

  test('a 0600 key: no warning', async () => {
    chmodSync(key, 0o600);
    const r = await run([command, journal, '-o', path.join(dir, `w${n++}.tar`), '--sign-key', key, ...extra]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
  });
});
