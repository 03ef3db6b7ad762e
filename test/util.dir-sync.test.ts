import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Cas, newCasBatch } from '../src/journal';
import { InputError } from '../src/errors';
import { dirSyncUnsupported, fsyncDir } from '../src/util/fs';
import { cliPath, repoRoot } from './helpers/paths';
import { identifiedProject } from './helpers/record';
import { freshDir, tempDir } from './helpers/tmp';

/**
 * A directory is synced after an entry is created or renamed in it (a journal's first row, a stored blob, a key):
 * one rule for the synchronous and the batched sync. A file system that cannot sync a directory at all is passed
 * over (the entries' data were synced); any other failure is one line naming the directory, never passed over, and
 * nothing put in a directory's place (a FIFO, a link where links are refused) is waited on or synced through.
 */
const dir = tempDir('stepchain-dir-sync-');
const register = path.join(repoRoot, 'test', 'helpers', 'swc-register.js');

test('a directory syncs; a missing one is a failure naming it, not passed over', () => {
  const d = path.join(dir, 'plain');
  mkdirSync(d);
  expect(() => fsyncDir(d)).not.toThrow();
  const gone = path.join(dir, 'gone');
  expect(() => fsyncDir(gone)).toThrow(InputError);
  expect(() => fsyncDir(gone)).toThrow(`${gone}: cannot sync the directory`);
  expect(() => fsyncDir(gone)).toThrow('(ENOENT)');
});

test('a FIFO in the directory’s place is refused at once (not waited on for a writer that never comes)', () => {
  const fifo = path.join(dir, 'fifo');
  expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
  // In a process of its own: a synchronous open that blocks would hold this worker past any timeout.
  const r = spawnSync(
    process.execPath,
    ['-r', register, '-e', "require('./src/util/fs').fsyncDir(process.argv[1])", fifo],
    { cwd: repoRoot, encoding: 'utf8', timeout: 30_000 },
  );
  expect(r.signal).toBeNull();
  expect(r.status).not.toBe(0);
  expect(r.stderr).toContain(`${fifo}: cannot sync the directory`);
  expect(r.stderr).toContain('ENOTDIR');
});

test('only "this cannot be synced here" is passed over: an I/O error, a full disk, a directory gone or replaced are not', () => {
  const os = (code: string) => Object.assign(new Error(`${code}: x`), { code });
  for (const code of ['EINVAL', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EISDIR', 'EPERM', 'EACCES'])
    expect([code, dirSyncUnsupported(os(code))]).toEqual([code, true]);
  for (const code of ['EIO', 'ENOSPC', 'EDQUOT', 'EROFS', 'ENOENT', 'ENOTDIR', 'ELOOP', 'EMFILE', 'EBADF'])
    expect([code, dirSyncUnsupported(os(code))]).toEqual([code, false]);
  expect(dirSyncUnsupported(new Error('no code'))).toBe(false);
});

test('a batch of blobs: a directory it wrote into, swapped for a link before the sync, is a failure naming it', async () => {
  const store = path.join(dir, 'cas');
  const cas = new Cas(store);
  const batch = newCasBatch();
  const digest = cas.put(Buffer.from('a blob'), batch);
  const fan = path.join(store, digest.slice(0, 2));
  // The files synced first are the blobs themselves: the swap keeps one where the batch names it (through the link
  // the file sync, which refuses links only at the last step, still finds it), so only the directory's sync fails.
  const moved = path.join(dir, 'elsewhere');
  renameSync(fan, moved);
  symlinkSync(moved, fan);
  await expect(cas.sync(batch)).rejects.toThrow(`${fan}: cannot sync the directory`);

  // An intact batch syncs.
  const other = new Cas(path.join(dir, 'cas-2'));
  const b2 = newCasBatch();
  other.put(Buffer.from('x'), b2);
  await expect(other.sync(b2)).resolves.toBeUndefined();
});

test('a journal’s first row whose directory fails to sync (EIO, injected by strace) is cut back: "not recorded" is true, and the next call records it', () => {
  const root = identifiedProject(freshDir(dir, 'repo'));
  const sid = '11111111-2222-4333-8444-555555555555';
  const jdir = path.join(root, '.sdd', 'runtime', 'journal', `claude-${sid}`);
  // strace -P fails only the calls on that directory: it must exist (made as stepchain makes it, owner-only).
  mkdirSync(jdir, { recursive: true, mode: 0o700 });
  const payload = JSON.stringify({
    session_id: sid,
    transcript_path: path.join(dir, 'no-transcript.jsonl'),
    cwd: root,
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'echo a' },
    tool_response: { stdout: 'a', stderr: '' },
    tool_use_id: 't1',
  });
  const env = { ...process.env, STEPCHAIN_AUDIT: 'off' };
  const hook = ['hook', 'claude'];
  const inject = ['-f', '-qq', '-o', '/dev/null', '-P', jdir, '-e', 'trace=fsync', '-e', 'inject=fsync:error=EIO'];
  const r = spawnSync('strace', [...inject, process.execPath, cliPath, ...hook], {
    input: payload,
    encoding: 'utf8',
    env,
  });
  if (r.error !== undefined) throw new Error(`strace could not be run (apt-get install strace): ${r.error.message}`);
  expect(r.stderr).not.toMatch(/strace:/);
  expect(r.status).toBe(1);
  expect(r.stderr).toContain('step not recorded');
  expect(r.stderr).toContain(
    '000000.jsonl: cannot sync its directory (nothing written: cut back to its previous 0 bytes)',
  );
  expect(r.stderr).toContain('(EIO)');
  const journal = path.join(jdir, '000000.jsonl');
  expect(readFileSync(journal, 'utf8')).toBe('');
  const again = spawnSync(process.execPath, [cliPath, ...hook], { input: payload, encoding: 'utf8', env });
  expect([again.status, again.stderr]).toEqual([0, '']);
  expect(readFileSync(journal, 'utf8').split('\n').filter(Boolean)).toHaveLength(1);
}, 60_000);

test('a new audit key’s bytes are synced before its directory (strace): a crash never leaves the key’s name with no key', () => {
  const key = path.join(dir, 'key-state', 'stepchain', 'audit.key');
  const log = path.join(dir, 'key-fsync.log');
  const r = spawnSync(
    'strace',
    ['-f', '-qq', '-y', '-e', 'trace=fsync', '-o', log, process.execPath, '-r', register, '-e', KEY_PROGRAM, key],
    { cwd: repoRoot, encoding: 'utf8' },
  );
  if (r.error !== undefined) throw new Error(`strace could not be run (apt-get install strace): ${r.error.message}`);
  expect([r.status, r.stderr]).toEqual([0, '']);
  expect(readFileSync(key, 'utf8')).toMatch(/^[0-9a-f]{64}$/);
  const synced = [...readFileSync(log, 'utf8').matchAll(/fsync\(\d+<([^>]*)>\) += 0/g)].map((m) => m[1]);
  expect(synced).toEqual([key, path.dirname(key)]);
});
const KEY_PROGRAM = "require('./src/audit/key').loadAuditKey(process.argv[1], { create: true })";

test('a fork’s intent removed from a directory another fork’s undo then removes (once empty) is no failure', async () => {
  const worktrees = path.join(dir, 'worktrees');
  mkdirSync(worktrees);
  const intent = path.join(worktrees, 'f1.pending.json');
  writeFileSync(intent, '{}\n');
  // strace holds the unlink's return (the file already gone) while this process removes the emptied directory: what a
  // concurrent fork's undo (rmdir, only when empty) does between the unlink and the directory's sync.
  const hold = [
    '-f',
    '-qq',
    '-o',
    '/dev/null',
    '-P',
    intent,
    '-e',
    'trace=unlink',
    '-e',
    'inject=unlink:delay_exit=2000000',
  ];
  const child = spawn('strace', [...hold, process.execPath, '-r', register, '-e', INTENT_PROGRAM, intent], {
    cwd: repoRoot,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  while (existsSync(intent)) await new Promise((r) => setTimeout(r, 20));
  rmdirSync(worktrees);
  expect([await exited, stderr]).toEqual([0, '']);
}, 30_000);
const INTENT_PROGRAM = "require('./src/forks/pending').removeIntent(process.argv[1])";

const WHOLE_PROGRAM =
  "require('./src/util/fs').writeFileWhole(process.argv[1], Buffer.from(process.argv[2]), { durable: true, exclusive: process.argv[3] === 'x' })";

test('a whole file whose directory fails to sync (EIO, strace): one it created is removed and "not written"; one it replaced is said to be in place', () => {
  const d = freshDir(dir, 'whole');
  const file = path.join(d, 'receipt.tar');
  // Only the directory's own fsync fails (-P matches the descriptor's path): the file's bytes sync.
  const inject = ['-f', '-qq', '-o', '/dev/null', '-P', d, '-e', 'trace=fsync', '-e', 'inject=fsync:error=EIO'];
  const write = (text: string, mode: string) =>
    spawnSync('strace', [...inject, process.execPath, '-r', register, '-e', WHOLE_PROGRAM, file, text, mode], {
      cwd: repoRoot,
      encoding: 'utf8',
    });
  const created = write('new', 'x');
  if (created.error !== undefined)
    throw new Error(`strace could not be run (apt-get install strace): ${created.error.message}`);
  expect(created.status).not.toBe(0);
  expect(created.stderr).toContain(`${file}: not written: ${d}: cannot sync the directory`);
  expect(created.stderr).toContain('(EIO)');
  expect(existsSync(file)).toBe(false);

  writeFileSync(file, 'old');
  const replaced = write('new', 'replace');
  expect(replaced.status).not.toBe(0);
  expect(replaced.stderr).toContain(`${file}: written in place, but: ${d}: cannot sync the directory`);
  expect(readFileSync(file, 'utf8')).toBe('new');
}, 60_000);
