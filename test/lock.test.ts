/**
 * Locks (src/util/lock.ts, docs/journal.md "Locks"): a dead holder is
 * recognised even when its pid was reused or the machine rebooted, a holder on
 * another host keeps its lock while it renews its lease, a timeout says which
 * file, which holder and what to do, and what killed writers left is removed
 * by the next writer. Holders are real processes, killed with SIGKILL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { IntegrityError } from '../src/errors';
import { Journal, verifyJournalFile } from '../src/journal';
import { acquireLock, tryLock } from '../src/util/lock';
import { bootId, processStartTicks, selfToken } from '../src/util/proc';
import { cli } from './helpers/cli';
import { cliPath, repoRoot } from './helpers/paths';
import { cliPaused, deadPid, nodeWithSources, spawnPaused } from './helpers/proc';
import { OTHER_UID } from './helpers/unprivileged';
import { tempDir } from './helpers/tmp';

const root = tempDir('stepchain-lock-');
const ENV = { STEPCHAIN_AUDIT: 'off', STEPCHAIN_CHECKPOINT_KEY_PATH: path.join(root, 'checkpoint.key') };
let n = 0;
function journal(steps = 1): Journal {
  const j = Journal.open(path.join(root, '.sdd', 'runtime', 'journal', `a${n++}`), { env: ENV, durability: 'none' });
  for (let i = 0; i < steps; i++) j.append({ prompt: `step ${i}` });
  return j;
}
const open = (j: Journal, lockTimeoutMs: number): Journal => Journal.open(j.dir, { env: ENV, lockTimeoutMs });
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A real process that is not a stepchain writer (it only sleeps). */
function bystander(): ChildProcess {
  return spawn('sleep', ['60'], { stdio: 'ignore' });
}
async function stop(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return;
  const gone = new Promise((r) => p.once('exit', r));
  p.kill('SIGKILL');
  await gone;
}

describe('a dead holder is recognised', () => {
  test('a lock naming a live process that started at another time (pid reuse) is broken at once', async () => {
    const j = journal();
    const other = bystander();
    try {
      expect(processStartTicks(other.pid!)).toBeDefined();
      writeFileSync(j.lockFile, `${other.pid} ${hostname()} n0 start=1 boot=${bootId()} lease=20000`);
      // Were the pid taken for the holder, this would time out after 2 s and throw.
      expect(open(j, 2000).append({ prompt: 'after' }).seq).toBe(1);
      expect(existsSync(j.lockFile)).toBe(false);
    } finally {
      await stop(other);
    }
  });

  test('a lock written before a reboot is broken, even when its pid and start time match a live process', () => {
    const j = journal();
    writeFileSync(
      j.lockFile,
      `${process.pid} ${hostname()} n1 start=${processStartTicks(process.pid)} boot=00000000-0000-0000-0000-000000000000 lease=20000`,
    );
    expect(open(j, 2000).append({ prompt: 'after reboot' }).seq).toBe(1);
  });

  test('an old-format lock (pid host nonce) naming a live process that started after it was written is broken', async () => {
    const j = journal();
    const other = bystander();
    try {
      writeFileSync(j.lockFile, `${other.pid} ${hostname()} n2`);
      const past = new Date(Date.now() - 60_000);
      utimesSync(j.lockFile, past, past);
      expect(open(j, 2000).append({ prompt: 'after' }).seq).toBe(1);
    } finally {
      await stop(other);
    }
  });

  test('a lock naming a pid that is gone is broken', () => {
    const j = journal();
    writeFileSync(j.lockFile, `${deadPid()} ${hostname()} n3`);
    expect(open(j, 2000).append({ prompt: 'after' }).seq).toBe(1);
  });
});

describe('a live holder', () => {
  test('the timeout names the file, the holder and the remedy; once the holder is killed the next writer goes on', async () => {
    const j = journal(2);
    // A real writer that has written its row and holds the lock (paused before its checkpoint).
    const holder = await cliPaused(
      ['append', j.dir, '--no-snapshot', '--prompt', 'held', '--json'],
      'journal:after-write',
      { env: ENV },
    );
    let err: unknown;
    // The holder stays paused until it is killed: any timeout is waited out in full, so a short one.
    try {
      open(j, 200);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(IntegrityError);
    const msg = (err as Error).message;
    expect(msg).toContain(`${j.lockFile}: locked by pid ${holder.pid} on this host`);
    expect(msg).toContain('gave up after 200 ms');
    expect(msg).toContain(`kill ${holder.pid}`);
    expect(msg).toContain(`rm ${j.lockFile}`);
    expect(msg.split('\n')).toHaveLength(1);
    await holder.kill();
    // Its row was written, its checkpoint not: the next writer walks the file and chains onto that row.
    expect(open(j, 2000).append({ prompt: 'next' }).seq).toBe(3);
    expect(verifyJournalFile(j.file, { strict: true })).toMatchObject({ ok: true, steps: 4 });
  });

  test('the CLI says the same, exit 1, one line', async () => {
    const j = journal(1);
    const holder = await cliPaused(['append', j.dir, '--no-snapshot'], 'journal:after-write', { env: ENV });
    try {
      // The timeout is waited out in full (the holder is paused): the CLI reads it from the environment.
      const r = cli(['append', j.dir, '--no-snapshot'], { env: { ...ENV, STEPCHAIN_LOCK_TIMEOUT_MS: '100' } });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`^stepchain: .*locked by pid ${holder.pid} on this host .*Remedy: .*\\n$`));
    } finally {
      await holder.kill();
    }
  });
});

describe('tryLock (without waiting)', () => {
  test('a live holder keeps it (undefined, the lock as it was); a gone one is broken and the lock taken', () => {
    const file = path.join(root, 'try.lock');
    const mine = acquireLock(file);
    const raw = readFileSync(file, 'utf8');
    expect(tryLock(file)).toBeUndefined();
    expect(readFileSync(file, 'utf8')).toBe(raw);
    mine();
    writeFileSync(file, `${deadPid()} ${hostname()} n9`);
    const taken = tryLock(file)!;
    expect(readFileSync(file, 'utf8')).toMatch(new RegExp(`^${process.pid} `));
    // Its release removes only its own lock.
    writeFileSync(file, '4242 other-host taken lease=200');
    taken();
    expect(readFileSync(file, 'utf8')).toBe('4242 other-host taken lease=200');
    rmSync(file);
  });
});

describe('a holder on another host', () => {
  /** Plays a writer on another host sharing the file system: it writes the lock and renews its lease. */
  function foreignHolder(lockFile: string, leaseMs: number): Promise<ChildProcess> {
    const child = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('fs');
         fs.writeFileSync(${JSON.stringify(lockFile)}, process.pid + ' other-host nonce lease=${leaseMs}');
         setInterval(() => { const t = new Date(); fs.utimesSync(${JSON.stringify(lockFile)}, t, t); }, ${leaseMs / 5});
         process.stdout.write('ready\\n');`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    return new Promise((resolve) => child.stdout!.once('data', () => resolve(child)));
  }

  test('keeps the lock while it renews its lease; the lock is taken once it stops', async () => {
    const j = journal();
    const holder = await foreignHolder(j.lockFile, 1500);
    try {
      let err: unknown;
      try {
        open(j, 300);
      } catch (e) {
        err = e;
      }
      expect((err as Error).message).toMatch(/locked by pid [0-9]+ on host other-host, lock taken or renewed/);
      expect((err as Error).message).toMatch(/renewing its lease.*rm /);
    } finally {
      await stop(holder);
    }
    // No longer renewed: the waiter sees the lease run out on its own clock and takes the lock.
    expect(open(j, 300).append({ prompt: 'after' }).seq).toBe(1);
  });

  test('a lease that ran out long ago is broken at once', () => {
    const j = journal();
    writeFileSync(j.lockFile, `4242 other-host nonce lease=1500`);
    const past = new Date(Date.now() - 10 * 60_000);
    utimesSync(j.lockFile, past, past);
    expect(open(j, 200).append({ prompt: 'after' }).seq).toBe(1);
  });

  test('a holder renews its lease on a timer while it awaits, and knows when its lock was taken over', async () => {
    const file = path.join(root, 'heartbeat.lock');
    const lock = acquireLock(file, { leaseMs: 200 });
    lock.heartbeat();
    const first = statSync(file).mtimeMs;
    // Renewed by the timer alone (this test does nothing else while it waits): waited for until it is, at most 5 s
    // (it slept 500 ms in full before).
    for (const until = Date.now() + 5000; statSync(file).mtimeMs === first && Date.now() < until;) await sleep(10);
    expect(statSync(file).mtimeMs).toBeGreaterThan(first);
    lock.assertHeld();
    writeFileSync(file, '4242 other-host taken lease=200');
    expect(() => lock.assertHeld()).toThrow(/lock was taken over/);
    lock();
    // Released without removing the lock that is not ours.
    expect(readFileSync(file, 'utf8')).toBe('4242 other-host taken lease=200');
  });
});

describe('breaking a stale lock', () => {
  /** A lock naming this (live) process, put in place whole, as a writer that took the lock would have. */
  const liveLock = (j: Journal, nonce: string): string => {
    const raw = `${process.pid} ${hostname()} ${nonce} start=${processStartTicks(process.pid)} boot=${bootId()} lease=20000`;
    writeFileSync(`${j.lockFile}.swap`, raw);
    renameSync(`${j.lockFile}.swap`, j.lockFile);
    return raw;
  };

  test('one waiter breaks it at a time, and never removes a lock taken after it judged the old one stale', async () => {
    const j = journal(1);
    writeFileSync(j.lockFile, `${deadPid()} ${hostname()} n6`);
    const resume = path.join(root, `resume-${n}`);
    // A writer that judged the lock stale and holds the breaker's file, paused before it looks again and removes it.
    const b = await cliPaused(['append', j.dir, '--no-snapshot', '--prompt', 'b'], 'lock:break', {
      env: { ...ENV, STEPCHAIN_TEST_RESUME: resume },
    });
    try {
      expect(existsSync(`${j.lockFile}.break`)).toBe(true);
      // Another waiter does not break it meanwhile: it waits for the breaker as for a holder, and names it.
      expect(() => open(j, 800)).toThrow(`locked by pid ${b.pid} on this host`);
      expect(readFileSync(j.lockFile, 'utf8')).toMatch(/ n6$/);
      // The lock is another by the time the breaker looks again (taken by a live writer): it is left in place.
      const raw = liveLock(j, 'n7');
      writeFileSync(resume, '');
      // The breaker has looked again once it gives up its breaker's file (asserted gone below): waited for, at most
      // 5 s (it slept 500 ms in full before); then it waits for the live holder as for any.
      const breaking = `${j.lockFile}.break`;
      for (const until = Date.now() + 5000; existsSync(breaking) && Date.now() < until;) await sleep(10);
      expect(readFileSync(j.lockFile, 'utf8')).toBe(raw);
      expect(b.child.exitCode).toBeNull(); // waiting for that holder
      expect(existsSync(`${j.lockFile}.break`)).toBe(false);
      // Released: the paused writer goes on and appends.
      rmSync(j.lockFile);
      expect(await b.exited()).toMatchObject({ code: 0 });
    } finally {
      await b.kill();
    }
    expect(verifyJournalFile(j.file, { strict: true })).toMatchObject({ ok: true, steps: 2 });
  });

  test("a breaker killed between its two steps leaves a file the next waiter judges as a lock's and removes", async () => {
    const j = journal(1);
    writeFileSync(j.lockFile, `${deadPid()} ${hostname()} n8`);
    const b = await cliPaused(['append', j.dir, '--no-snapshot'], 'lock:break', { env: ENV });
    await b.kill();
    expect(existsSync(`${j.lockFile}.break`)).toBe(true);
    expect(open(j, 2000).append({ prompt: 'after' }).seq).toBe(1);
    expect(existsSync(`${j.lockFile}.break`)).toBe(false);
    expect(existsSync(j.lockFile)).toBe(false);
  });
});

describe('a stale lock that cannot be removed', () => {
  test('is refused at once in one line naming it, never waited on without end (removal denied once the waiter is in)', async () => {
    // The waiter runs as a user whom a directory's mode binds: as \`nobody\` when the tests run as root. Its staging
    // file is made while the directory is writable; the directory is made read-only where it breaks the lock
    // (lock:break), so removing the stale lock is denied (EACCES), as in a sticky directory with another user's lock.
    chmodSync(root, 0o755);
    const dir = path.join(root, `denied-${n++}`);
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    const file = path.join(dir, 'x.lock');
    writeFileSync(file, 'not a lock');
    const past = new Date(Date.now() - 3600_000);
    utimesSync(file, past, past); // names no holder and is an hour old: stale
    const resume = path.join(root, `resume-${n++}`);
    const p = await spawnPaused(
      nodeWithSources(`
        const { acquireLock } = require(${JSON.stringify(path.join(repoRoot, 'src', 'util', 'lock'))});
        if (process.getuid() === 0) { process.setgroups([]); process.setgid(${OTHER_UID}); process.setuid(${OTHER_UID}); }
        try { acquireLock(${JSON.stringify(file)}, { timeoutMs: 1000 })(); process.stderr.write('taken\\n'); }
        catch (e) { process.stderr.write(e.constructor.name + ': ' + e.message + '\\n'); process.exitCode = 3; }
      `),
      'lock:break',
      { env: { STEPCHAIN_TEST_RESUME: resume } },
    );
    let hung = false;
    const guard = setTimeout(() => {
      hung = true;
      void p.kill();
    }, 20_000);
    try {
      chmodSync(dir, 0o555);
      writeFileSync(resume, '');
      const { code, stderr } = await p.exited();
      expect(hung).toBe(false);
      const lines = stderr.split('\n').filter((l) => l !== '' && !l.includes('paused at'));
      expect(lines).toEqual([expect.stringMatching(/^InputError: /)]);
      expect(lines[0]).toContain(`${file}: cannot remove this stale lock (the lock names no holder): `);
      expect(lines[0]).toMatch(/EACCES.*rm /);
      expect(code).toBe(3);
      expect(readFileSync(file, 'utf8')).toBe('not a lock');
    } finally {
      clearTimeout(guard);
      chmodSync(dir, 0o755);
    }
  }, 30_000);
});

describe('leftovers of killed writers', () => {
  test('staging files of writers killed while waiting are removed by the next writer to take the lock', async () => {
    const j = journal(1);
    const holder = await cliPaused(['append', j.dir, '--no-snapshot'], 'journal:after-write', { env: ENV });
    const waiters = Array.from({ length: 3 }, () =>
      spawn(process.execPath, [cliPath, 'append', j.dir, '--no-snapshot'], {
        env: { ...process.env, ...ENV },
        stdio: 'ignore',
      }),
    );
    const staging = (): string[] =>
      readdirSync(j.dir).filter((f) => f.startsWith('000000.jsonl.lock.') && f.endsWith('.tmp'));
    while (staging().length < 3) await sleep(20);
    await Promise.all(waiters.map(stop));
    await holder.kill();
    // Older releases' names, of a dead pid; and a live process's staging file, which is kept.
    const dead = deadPid();
    writeFileSync(path.join(j.dir, `000000.jsonl.lock.${dead}.k2j3h4.tmp`), 'x');
    writeFileSync(path.join(j.dir, `000000.jsonl.lock.stale-${dead}-abc`), 'x');
    const live = `000000.jsonl.lock.${selfToken()}.0123456789.tmp`;
    writeFileSync(path.join(j.dir, live), 'x');
    expect(staging().length).toBe(5);
    expect(open(j, 2000).append({ prompt: 'next' }).seq).toBe(2);
    expect(
      readdirSync(j.dir)
        .filter((f) => f.includes('.lock'))
        .sort(),
    ).toEqual([live]);
  });
  test('staging files of writers killed while others wait are removed once the lock is released (the last of the queue had looked before they died)', async () => {
    const j = journal(1);
    const resume = path.join(root, `resume-${n++}`);
    const holder = await cliPaused(['append', j.dir, '--no-snapshot'], 'journal:after-write', {
      env: { ...ENV, STEPCHAIN_TEST_RESUME: resume },
    });
    const staging = (): string[] =>
      readdirSync(j.dir).filter((f) => f.startsWith('000000.jsonl.lock.') && f.endsWith('.tmp'));
    const waiter = () =>
      spawn(process.execPath, [cliPath, 'append', j.dir, '--no-snapshot'], {
        env: { ...process.env, ...ENV },
        stdio: 'ignore',
      });
    const killed = waiter();
    while (staging().length < 1) await sleep(20);
    const last = waiter();
    const lastDone = new Promise<number | null>((r) => last.once('exit', (code) => r(code)));
    while (staging().length < 2) await sleep(20);
    await stop(killed);
    writeFileSync(resume, '');
    expect(await holder.exited()).toMatchObject({ code: 0 });
    expect(await lastDone).toBe(0);
    expect(readdirSync(j.dir).filter((f) => f.includes('.lock'))).toEqual([]);
    expect(verifyJournalFile(j.file, { strict: true })).toMatchObject({ ok: true, steps: 3 });
  });
});

describe('what is done while holding', () => {
  test('a writer judges what dead writers left once it has released the lock, never while it holds it (each waiter has a staging file there: a hold grew with the queue, and 50 hooks at once lost steps)', async () => {
    const j = journal(1);
    const dead = `000000.jsonl.lock.${deadPid()}.k2j3h4.tmp`;
    writeFileSync(path.join(j.dir, dead), 'x');
    const resume = path.join(root, `resume-${n++}`);
    const p = await cliPaused(['append', j.dir, '--no-snapshot'], 'lock:clean-temps', {
      env: { ...ENV, STEPCHAIN_TEST_RESUME: resume },
    });
    // Where it judges them, it holds no lock: the journal's lock file is gone.
    const heldThere = existsSync(j.lockFile);
    writeFileSync(resume, '');
    const exited = await p.exited(); // before any assertion: a failed one removes the resume file with the test's dir
    expect(heldThere).toBe(false);
    expect(exited).toMatchObject({ code: 0 });
    expect(readdirSync(j.dir).filter((f) => f.includes('.lock'))).toEqual([]);
    expect(verifyJournalFile(j.file, { strict: true })).toMatchObject({ ok: true, steps: 2 });
  });
});

describe('many writers', () => {
  test('8 processes appending at once keep one chain, every append lands, nothing is left behind', async () => {
    const j = journal(0);
    const src = path.join(repoRoot, 'src', 'journal');
    const codes = await Promise.all(
      Array.from(
        { length: 8 },
        (_, p) =>
          new Promise<number>((resolve) => {
            const child = spawn(
              process.execPath,
              nodeWithSources(`
                const { Journal } = require(${JSON.stringify(src)});
                for (let i = 0; i < 40; i++)
                  Journal.open(${JSON.stringify(j.dir)}, { env: process.env, durability: 'none' }).append({ prompt: 'w${p} ' + i });
              `),
              { env: { ...process.env, ...ENV }, stdio: ['ignore', 'ignore', 'inherit'] },
            );
            child.on('exit', (code) => resolve(code ?? -1));
          }),
      ),
    );
    expect(codes).toEqual(Array(8).fill(0));
    expect(verifyJournalFile(j.file, { strict: true })).toMatchObject({ ok: true, steps: 320 });
    expect(readdirSync(j.dir).sort()).toEqual(['000000.jsonl', '000000.jsonl.checkpoint']);
    expect(open(j, 2000).append({ prompt: 'after' }).seq).toBe(320);
  }, 120_000);
});
