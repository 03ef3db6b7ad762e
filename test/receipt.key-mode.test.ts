/**
 * A signing key that its group or others can read is used, with a warning naming it, its mode and the remedy
 * (`chmod 600`), as ssh says it; before, `export --sign-key` and `publish --sign-key` signed with a 0644 key without a
 * word. A 0600 key (what keygen writes) is used silently.
 */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  buildPublishedReceipt,
  buildReceipt,
  exportReceipt,
  parsePrivateKey,
  publishReceipt,
  readPrivateKeyFile,
} from '../src/receipt';
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

/**
 * The rule lives in the library: a receipt signed with a key read from a loose file carries the warning in its own
 * `warnings` (export and publish, streamed and built in memory); the CLI prints that, once, and does not check again.
 */
describe('the library says it', () => {
  const warning = (mode: string) => `${key}: the private key has mode ${mode} (group or others can access it)`;

  test.each(['0644', '0600'])('a key of mode %s: every writer of a signed receipt says it (or not)', (mode) => {
    chmodSync(key, parseInt(mode, 8));
    const signKey = readPrivateKeyFile(key);
    const results = [
      exportReceipt(journal, path.join(dir, `l${n++}.tar`), { signKey }),
      buildReceipt(journal, { signKey }),
      publishReceipt(journal, path.join(dir, `l${n++}.tar`), { signKey, optIn: true }),
      buildPublishedReceipt(journal, { signKey, optIn: true }),
    ];
    for (const res of results) {
      expect(res.signed).toBe(true);
      const said = res.warnings.filter((w) => w.startsWith(warning(mode)));
      expect(said).toHaveLength(mode === '0600' ? 0 : 1);
    }
  });

  test('a key parsed from bytes (no file): nothing to say', () => {
    chmodSync(key, 0o644);
    const signKey = parsePrivateKey(readFileSync(key), 'in memory');
    expect(exportReceipt(journal, path.join(dir, `l${n++}.tar`), { signKey }).warnings).toEqual([]);
  });

  test('the CLI prints the warning once', async () => {
    chmodSync(key, 0o644);
    const r = await run(['export', journal, '-o', path.join(dir, `w${n++}.tar`), '--sign-key', key]);
    expect(r.code).toBe(0);
    expect(r.stderr.split(warning('0644')).length - 1).toBe(1);
  });
});
