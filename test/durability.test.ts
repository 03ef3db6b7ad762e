/**
 * A full disk and other operating-system errors (docs/journal.md, "Failures").
 *
 * The full disk is real: a small tmpfs when this suite may mount one (it runs
 * as root), else a per-process file size limit (RLIMIT_FSIZE via `ulimit -f`:
 * the kernel cuts the write short at the limit, then fails it with EFBIG).
 * Either way each test first shows that the disk really refuses the write.
 */
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  closeSync,
  copyFileSync,
  fstatSync,
  ftruncateSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { verifyJournalFile } from '../src/journal';
import { verifyRunJournal } from '../src/runs';
import { cli, expectNoStack, type CliResult } from './helpers/cli';
import { cliInProcess } from './helpers/cli-in-process';
import { cliPath, repoRoot } from './helpers/paths';
import { nodeWithSources } from './helpers/proc';
import { cliAsOtherUser } from './helpers/unprivileged';

const base = mkdtempSync(path.join(tmpdir(), 'stepchain-disk-'));
const mnt = path.join(base, 'mnt');
mkdirSync(mnt);
const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0755', 'tmpfs', mnt]).status === 0;
const mode: 'tmpfs' | 'rlimit' = mounted ? 'tmpfs' : 'rlimit';
afterAll(() => {
  if (mounted) spawnSync('umount', [mnt]);
  rmSync(base, { recursive: true, force: true });
});
const ENV = { STEPCHAIN_AUDIT: 'off', STEPCHAIN_CHECKPOINT_KEY_PATH: path.join(base, 'checkpoint.key') };
const PAGE = 4096;
const FILLER = path.join(mnt, 'filler');
let n = 0;
const project = (): string => {
  const d = path.join(mode === 'tmpfs' ? mnt : base, `p${n++}`);
  mkdirSync(d);
  return d;
};

/** Fills the tmpfs, leaving `pages` pages free. */
function fill(pages: number): void {
  const fd = openSync(FILLER, 'w');
  const page = Buffer.alloc(PAGE, 0x61);
  try {
    for (;;) writeSync(fd, page);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
  }
  const size = fstatSync(fd).size;
  ftruncateSync(fd, Math.max(0, size - (size % PAGE) - pages * PAGE));
  closeSync(fd);
}

/**
 * Runs `node <args>` with the disk full: on tmpfs, filled to `pages` free pages
 * (freed again afterwards); else with a file size limit of `limit` bytes.
 */
function onFullDisk(args: string[], pages: number, limit: number): CliResult {
  let r;
  if (mode === 'tmpfs') {
    fill(pages);
    try {
      r = spawnSync(process.execPath, args, { env: { ...process.env, ...ENV }, encoding: 'utf8' });
    } finally {
      unlinkSync(FILLER);
    }
  } else {
    const blocks = Math.max(0, Math.floor(limit / 512));
    r = spawnSync('sh', ['-c', `ulimit -f ${blocks} && exec "$0" "$@"`, process.execPath, ...args], {
      env: { ...process.env, ...ENV },
      encoding: 'utf8',
    });
  }
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** What the same disk does to a plain O_APPEND write of `bytes` onto a copy of `file`: the bytes that landed. */
function probeShortWrite(file: string, bytes: number, pages: number, limit: number): number {
  const copy = `${file}.probe`;
  copyFileSync(file, copy);
  const before = statSync(copy).size;
  const r = onFullDisk(
    [
      '-e',
      `const fs = require('fs'); const fd = fs.openSync(${JSON.stringify(copy)}, 'a');
       const b = Buffer.alloc(${bytes}, 0x62); let off = 0;
       try { while (off < b.length) off += fs.writeSync(fd, b, off, b.length - off); } catch (e) { process.stdout.write(e.code); }`,
    ],
    pages,
    limit,
  );
  const landed = statSync(copy).size - before;
  unlinkSync(copy);
  expect(r.stdout).toMatch(/^(ENOSPC|EFBIG)$/);
  return landed;
}

const oneLine = (r: CliResult): void => {
  expectNoStack(r);
  expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  expect(r.stderr).not.toMatch(/internal error/);
};
const tornFiles = (dir: string): string[] => readdirSync(dir).filter((f) => f.includes('.torn-'));
const BIG = 'x'.repeat(3 * PAGE);

describe(`a full disk (${mode})`, () => {
  test('a failed journal append is cut back to the old length: no partial row, verify passes, the next append continues', async () => {
    const root = project();
    for (let i = 0; i < 3; i++)
      expect(
        (await cliInProcess(['append', 'a', '--root', root, '--no-snapshot', '--prompt', `p${i}`], { env: ENV })).code,
      ).toBe(0);
    const file = path.join(root, '.sdd', 'runtime', 'journal', 'a', '000000.jsonl');
    const before = readFileSync(file);
    const limit = before.length + 1000;
    const r = onFullDisk([cliPath, 'append', 'a', '--root', root, '--no-snapshot', '--prompt', BIG], 2, limit);
    expect(r.code).toBe(2);
    oneLine(r);
    expect(r.stderr).toMatch(
      /^stepchain: .*000000\.jsonl: cannot append \(nothing written: .*\): .*\((ENOSPC|EFBIG)\)\n$/,
    );
    expect(readFileSync(file)).toEqual(before);
    expect(tornFiles(path.dirname(file))).toEqual([]);
    expect(verifyJournalFile(file)).toMatchObject({ ok: true, steps: 3 });
    // Not vacuous: on this disk the same write lands partly, which is what was cut back.
    const landed = probeShortWrite(file, BIG.length + 300, 2, limit);
    expect(landed).toBeGreaterThan(0);
    expect(landed).toBeLessThan(BIG.length);
    const next = await cliInProcess(['append', 'a', '--root', root, '--no-snapshot', '--prompt', 'after', '--json'], {
      env: ENV,
    });
    expect(next.code).toBe(0);
    expect(JSON.parse(next.stdout).seq).toBe(3);
    expect(verifyJournalFile(file, { strict: true })).toMatchObject({ ok: true, steps: 4 });
  });

  test('a torn tail that cannot be moved aside leaves no side file, however often it is retried', async () => {
    const root = project();
    expect(
      (await cliInProcess(['append', 'a', '--root', root, '--no-snapshot', '--prompt', 'p0'], { env: ENV })).code,
    ).toBe(0);
    const file = path.join(root, '.sdd', 'runtime', 'journal', 'a', '000000.jsonl');
    const fragment = `{"blob_refs":[],"input_hash":"${'y'.repeat(2 * PAGE)}`;
    appendFileSync(file, fragment);
    const before = readFileSync(file);
    for (let i = 0; i < 3; i++) {
      const r = onFullDisk([cliPath, 'append', 'a', '--root', root, '--no-snapshot', '--prompt', 'x'], 1, PAGE);
      expect(r.code).toBe(2);
      oneLine(r);
      expect(r.stderr).toMatch(/000000\.jsonl\.torn-[0-9]+: cannot write: .*\((ENOSPC|EFBIG)\)/);
      expect(readdirSync(path.dirname(file)).filter((f) => f.includes('.torn-') || f.endsWith('.tmp'))).toEqual([]);
      expect(readFileSync(file)).toEqual(before);
    }
    expect(
      (await cliInProcess(['append', 'a', '--root', root, '--no-snapshot', '--prompt', 'x'], { env: ENV })).code,
    ).toBe(0);
    const torn = tornFiles(path.dirname(file));
    expect(torn).toHaveLength(1);
    expect(readFileSync(path.join(path.dirname(file), torn[0]!), 'utf8')).toBe(fragment);
    expect(verifyJournalFile(file, { strict: true })).toMatchObject({ ok: true, steps: 2 });
  });

  test('a failed run journal append is cut back too', async () => {
    const root = project();
    expect((await cliInProcess(['run', 'record', 'r1', '--event', 'start', '--root', root], { env: ENV })).code).toBe(
      0,
    );
    const file = path.join(root, '.sdd', 'runs', 'r1', 'journal.jsonl');
    const before = readFileSync(file);
    const data = JSON.stringify({ text: BIG });
    const r = onFullDisk(
      [cliPath, 'run', 'record', 'r1', '--event', 'big', '--data', data, '--root', root],
      2,
      before.length + 1000,
    );
    expect(r.code).toBe(2);
    oneLine(r);
    expect(r.stderr).toMatch(/journal\.jsonl: cannot append \(nothing written: .*\((ENOSPC|EFBIG)\)/);
    expect(readFileSync(file)).toEqual(before);
    expect((await cliInProcess(['run', 'record', 'r1', '--event', 'after', '--root', root], { env: ENV })).code).toBe(
      0,
    );
    expect(verifyRunJournal(file, { strict: true })).toMatchObject({ ok: true, count: 2 });
  });

  test('a failed audit append is cut back too', () => {
    const root = project();
    const dir = path.join(root, '.sdd', 'audit');
    const src = path.join(repoRoot, 'src', 'audit');
    const key = path.join(base, `audit-${n}.key`);
    const append = (details: string): string[] => [
      ...nodeWithSources(`
        const { appendAuditEvent, loadAuditKey } = require(${JSON.stringify(src)});
        const key = loadAuditKey(${JSON.stringify(key)}, { create: true }).bytes;
        try {
          appendAuditEvent(${JSON.stringify(dir)}, key, 'replay.step',
            { actor: 'a', resource_type: 'journal', resource_id: 'a', details: { text: ${JSON.stringify(details)} } });
          process.stdout.write('ok');
        } catch (e) { process.stdout.write(e.exitCode + ' ' + e.message); }
      `),
    ];
    const first = spawnSync(process.execPath, append('small'), { encoding: 'utf8' });
    expect(first.stdout).toBe('ok');
    const day = path.join(
      dir,
      readdirSync(dir).find((f) => f.endsWith('.jsonl'))!,
    );
    const before = readFileSync(day);
    const r = onFullDisk(append(BIG), 2, before.length + 1000);
    expect(r.stdout).toMatch(/^2 .*\.jsonl: cannot append \(nothing written: .*\((ENOSPC|EFBIG)\)$/);
    expect(readFileSync(day)).toEqual(before);
    expect(spawnSync(process.execPath, append('after'), { encoding: 'utf8' }).stdout).toBe('ok');
    expect(readFileSync(day).subarray(0, before.length)).toEqual(before);
  });
});

describe(`a full disk (${mode}): writers of whole files`, () => {
  test('keygen leaves no key file cut short (which would block the next keygen), naming the path', async () => {
    const root = project();
    const key = path.join(root, 'k.pem');
    const r = onFullDisk([cliPath, 'keygen', '-o', key, '--public', path.join(root, 'k.pub')], 0, 0);
    expect(r.code).toBe(2);
    oneLine(r);
    expect(r.stderr).toContain(key);
    expect(r.stderr).toMatch(/(no space left on the device \(ENOSPC\)|file too large \(EFBIG\))/);
    expect(readdirSync(root)).toEqual([]);
    expect((await cliInProcess(['keygen', '-o', key], { env: ENV })).code).toBe(0);
  });
});

/**
 * Runs the CLI as a user without root's right to write anywhere (as nobody when this suite runs as root):
 * a copy of the CLI that user can read, wherever the clone is (test/helpers/unprivileged.ts).
 */
function cliUnprivileged(args: string[]): CliResult {
  if (process.getuid?.() === 0) chmodSync(base, 0o755);
  return cliAsOtherUser(args, { env: { ...ENV, HOME: base } });
}

describe('operating-system errors are one line naming the path and the cause, exit 2', () => {
  test(`${mounted ? 'a read-only mount (EROFS)' : 'an unwritable directory (EACCES)'}: run record and append`, async () => {
    const root = project();
    expect((await cliInProcess(['run', 'record', 'r1', '--event', 'start', '--root', root], { env: ENV })).code).toBe(
      0,
    );
    if (mounted) spawnSync('mount', ['-o', 'remount,ro', mnt]);
    else chmodSync(root, 0o555);
    try {
      const cause = mounted ? /read-only file system \(EROFS\)/ : /permission denied \(EACCES\)/;
      for (const args of [
        ['run', 'record', 'r1', '--event', 'more', '--root', root],
        ['run', 'record', 'r2', '--event', 'new', '--root', root],
        ['append', 'a', '--root', root, '--no-snapshot'],
      ]) {
        const r = mounted ? cli(args, { env: ENV }) : cliUnprivileged(args);
        expect(r.code).toBe(2);
        oneLine(r);
        expect(r.stderr).toMatch(cause);
        expect(r.stderr).toContain(root);
      }
    } finally {
      if (mounted) spawnSync('mount', ['-o', 'remount,rw', mnt]);
      else chmodSync(root, 0o755);
    }
  });

  test(`${mounted ? 'a read-only mount (EROFS)' : 'an unwritable directory (EACCES)'}: export, publish, report, keygen, init claude`, async () => {
    const root = project();
    expect((await cliInProcess(['append', 'a', '--root', root, '--no-snapshot'], { env: ENV })).code).toBe(0);
    if (mounted) spawnSync('mount', ['-o', 'remount,ro', mnt]);
    else chmodSync(root, 0o555);
    try {
      const cause = mounted ? /read-only file system \(EROFS\)/ : /permission denied \(EACCES\)/;
      for (const [args, named] of [
        [['export', 'a', '--root', root, '-o', path.join(root, 'r.tar')], path.join(root, 'r.tar')],
        [['publish', 'a', '--opt-in', '--root', root, '-o', path.join(root, 'p.tar')], path.join(root, 'p.tar')],
        [['report', 'a', '--root', root, '-o', path.join(root, 'r.html')], path.join(root, 'r.html')],
        [['keygen', '-o', path.join(root, 'k.pem')], path.join(root, 'k.pem')],
        [['init', 'claude', '--root', root], path.join(root, '.claude')],
      ] as [string[], string][]) {
        const r = mounted ? cli(args, { env: ENV }) : cliUnprivileged(args);
        expect(r.code).toBe(2);
        oneLine(r);
        expect(r.stderr).toMatch(cause);
        expect(r.stderr).toContain(named);
      }
    } finally {
      if (mounted) spawnSync('mount', ['-o', 'remount,rw', mnt]);
      else chmodSync(root, 0o755);
    }
  });

  test('permission denied (EACCES) for a writer without the right to write the journal directory', async () => {
    const root = project();
    expect((await cliInProcess(['append', 'a', '--root', root, '--no-snapshot'], { env: ENV })).code).toBe(0);
    const jdir = path.join(root, '.sdd', 'runtime', 'journal', 'a');
    chmodSync(jdir, 0o555);
    const r = cliUnprivileged(['append', 'a', '--root', root, '--no-snapshot']);
    chmodSync(jdir, 0o755);
    expect(r.code).toBe(2);
    oneLine(r);
    expect(r.stderr).toMatch(/permission denied \(EACCES\)/);
    expect(r.stderr).toContain(jdir);
  });
});
