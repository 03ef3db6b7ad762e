import {
  spawnSync,
  execFileSync,
  spawn,
  execFile,
  type ChildProcess,
  type SpawnOptions,
  type SpawnSyncOptions,
} from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import { setImmediate as immediately } from 'node:timers';
import { gitRun } from '../src/git/exec';
import { initRepo } from './helpers/git';
import { repoRoot } from './helpers/paths';
import { tempDir } from './helpers/tmp';

/**
 * The suite's spawner (test/setup/spawner.js): a Jest worker's synchronous spawns are made by a small process of its
 * own, for the cost of fork() in a large one. What a test gets back must be what Node's own spawn gives, whatever the
 * command does; what the spawner cannot give the same way runs in the worker; a spawner that ends is never a command
 * run twice.
 */
const dir = tempDir('stepchain-spawner-');
type Binding = { spawn: (o: object) => unknown } & Record<
  symbol,
  { local: (o: object) => unknown; localAsync: unknown } | undefined
>;
const binding = (process as unknown as { binding(name: string): Binding }).binding('spawn_sync');
const installed = binding[Symbol.for('stepchain.test.spawner')];

/** `run()` with Node's own spawn in this process, not the spawner. */
function inWorker<T>(run: () => T): T {
  const forwarded = binding.spawn;
  binding.spawn = installed!.local;
  try {
    return run();
  } finally {
    binding.spawn = forwarded;
  }
}

const big = Buffer.alloc(1_000_000, 'x');
/** A program found only on the PATH a child is given. */
const bin = path.join(dir, 'bin');
mkdirSync(bin);
writeFileSync(path.join(bin, 'tool'), '#!/bin/sh\necho "tool $0 $#"\n', { mode: 0o755 });
/** A script without `#!` (execve: ENOEXEC), on the PATH before a `tool2` that has one. */
const bin2 = path.join(dir, 'bin2');
mkdirSync(bin2);
writeFileSync(path.join(bin, 'tool2'), 'echo "no #! $0 $#"\n', { mode: 0o755 });
writeFileSync(path.join(bin2, 'tool2'), '#!/bin/sh\necho "#! $0"\n', { mode: 0o755 });

const sh = (script: string, options: SpawnSyncOptions & { detached?: boolean } = {}) =>
  spawnSync('sh', ['-c', script], options);
/**
 * Bytes as a string, or a long run as its length and SHA-256 (tagged, so a Buffer never equals a string of its text):
 * Jest's toEqual walks a Buffer an index at a time (the megabyte case, three such buffers on each side, took 30 s of
 * the file's 36), a string at once; a megabyte that differs is then not printed whole either.
 */
const bytesOf = <T>(v: T): T | { bytes: string } | { length: number; sha256: string } => {
  if (!Buffer.isBuffer(v)) return v;
  if (v.length <= 4096) return { bytes: v.toString('latin1') };
  return { length: v.length, sha256: createHash('sha256').update(v).digest('hex') };
};
/** `run` with the worker's working directory `d`, then back where it was. */
function inDir<T>(d: string, run: () => T): T {
  const before = process.cwd();
  process.chdir(d);
  try {
    return run();
  } finally {
    process.chdir(before);
  }
}

/** `run` with the worker's working directory a directory removed after the worker entered it. */
const inRemovedDir = <T>(run: () => T): T => {
  const gone = path.join(dir, `gone-${Math.random()}`);
  mkdirSync(gone);
  return inDir(gone, () => {
    rmdirSync(gone);
    return run();
  });
};

/** A result without what differs between two runs of one command (the pid), errors as their code and message. */
function comparable(r: ReturnType<typeof spawnSync>) {
  const { pid, error, output, stdout, stderr, ...rest } = r;
  expect(pid).toBeGreaterThanOrEqual(0);
  return {
    ...rest,
    output: output && output.map(bytesOf),
    stdout: bytesOf(stdout),
    stderr: bytesOf(stderr),
    error: error && { code: (error as NodeJS.ErrnoException).code, message: error.message },
  };
}

test('the spawner is installed in the Jest workers, and a spawnSync runs there, not in the worker', () => {
  expect(installed).toBeDefined();
  const ppid = String(sh('echo $PPID', { encoding: 'utf8' }).stdout).trim();
  expect(ppid).not.toBe(String(process.pid));
  expect(inWorker(() => String(sh('echo $PPID', { encoding: 'utf8' }).stdout).trim())).toBe(String(process.pid));
});

describe('what a spawn gives through the spawner is what Node gives in the worker', () => {
  const cases: [string, () => ReturnType<typeof spawnSync>][] = [
    [
      'bytes out and err, input, an exit status',
      () => sh('cat; printf "a\\0b\\377"; printf err >&2; exit 3', { input: Buffer.from([0, 1, 255, 10]) }),
    ],
    ['a working directory given', () => sh('pwd', { cwd: dir, encoding: 'utf8' })],
    [
      "the working directory not given (the worker's, as it is now)",
      () => inDir(dir, () => sh('pwd', { encoding: 'utf8' })),
    ],
    ['an environment', () => sh('echo "$A|$HOME"', { env: { A: 'a b' }, encoding: 'utf8' })],
    ['a signal', () => sh('kill -TERM $$')],
    ['a timeout (SIGTERM)', () => sh('sleep 5', { timeout: 100 })],
    ['a timeout with SIGKILL', () => sh('trap "" TERM; sleep 5', { timeout: 100, killSignal: 'SIGKILL' })],
    ['a program that is not there', () => spawnSync(path.join(dir, 'nothing-here'))],
    ['a working directory that is not there', () => sh('pwd', { cwd: path.join(dir, 'no-such-dir') })],
    ['a program found on the PATH the child is given', () => spawnSync('tool', { env: { PATH: `/nowhere:${bin}` } })],
    ['argv0', () => spawnSync('sh', ['-c', 'echo "$0"'], { argv0: 'other-name', encoding: 'utf8' })],
    [
      'a megabyte in and out of both pipes',
      () => sh('cat; cat >&2 < /dev/null; head -c 1000000 /dev/zero >&2', { input: big, maxBuffer: 4_000_000 }),
    ],
    ['input the child does not read', () => sh('head -c 10', { input: big })],
    ['exit 255, and SIGKILL', () => sh('exit 255')],
    ['killed by SIGKILL', () => sh('kill -KILL $$')],
    [
      'a session of its own (detached)',
      () => sh('[ "$(ps -o sid= -p $$)" -eq $$ ] && echo own', { detached: true } as SpawnSyncOptions),
    ],
    ['stdio ignored and inherited', () => sh('echo out; echo err >&2', { stdio: ['ignore', 'ignore', 'inherit'] })],
    ['a shell command line', () => spawnSync('echo $((6*7)) "$0"', { shell: true, encoding: 'utf8' })],
    [
      "stdio pipes are socketpairs (libuv's): /dev/stdin cannot be opened, a child can write to its stdin",
      // The input read first: a child that ended before the worker wrote it made EPIPE of the write on one side only,
      // by timing (2 of ~12 runs under load).
      () =>
        sh('head -c 2; echo; stat -L -c %F /dev/stdin /dev/stdout /dev/stderr; cat /dev/stdin; echo x >&0; echo $?', {
          input: 'in',
        }),
    ],
    ['stdin ignored is /dev/null read-only', () => sh('echo x >&0; echo $?', { stdio: ['ignore', 'pipe', 'pipe'] })],
    ["the descriptors the worker's children inherit", () => sh('ls /proc/self/fd')],
    ['signals ignored and blocked in the child', () => sh('grep -E "^Sig(Blk|Ign)" /proc/self/status')],
    ...[32, 33, 34, 35, 64].map((n): [string, () => ReturnType<typeof spawnSync>] => [
      `killed by signal ${n} (Node names none above 31)`,
      () => sh(`kill -${n} $$; sleep 1`),
    ]),
    ['a program without #! (glibc runs it with /bin/sh)', () => spawnSync(path.join(bin, 'tool2'), ['a'])],
    [
      'a program without #! on the PATH before one with it',
      () => spawnSync('tool2', { env: { PATH: `${bin}:${bin2}` } }),
    ],
    [
      'a relative working directory, after the worker changed its own',
      () => inDir(dir, () => sh('pwd', { cwd: 'bin' })),
    ],
    ["the worker's working directory removed", () => inRemovedDir(() => sh('echo ran'))],
    ['an environment naming a variable twice', () => sh('env | grep "^A=" | sort', { env: { 'A=B': 'c', A: 'd' } })],
    ['an empty variable name', () => sh('env | grep -c "^=x"', { env: { '': 'x' } })],
    [
      'lone surrogates in arguments and environment (UTF-8 with U+FFFD)',
      () =>
        spawnSync('sh', ['-c', 'printf "%s|%s" "$1" "$A" | od -An -tx1', 'sh', '\ud800\udc80z'], {
          env: { A: '\udcff' },
        }),
    ],
    ['a timeout of 2^53 - 1 ms', () => sh('echo ok', { timeout: Number.MAX_SAFE_INTEGER })],
  ];
  test.each(cases)('%s', (_name, run) => {
    expect(comparable(run())).toEqual(comparable(inWorker(run)));
    // and the spawner made it, and is still there (one that failed would leave the rest to the worker: all equal)
    expect(String(sh('echo $PPID', { encoding: 'utf8' }).stdout).trim()).not.toBe(String(process.pid));
  });

  test('output beyond maxBuffer: the same error (what was read before the kill, and whether the kill came first, vary)', () => {
    const run = () => sh('head -c 5000 /dev/zero', { maxBuffer: 1000 }).error as NodeJS.ErrnoException;
    expect(run().code).toBe('ENOBUFS');
    expect(inWorker(run).code).toBe('ENOBUFS');
  });

  test("the worker's umask", () => {
    const before = process.umask(0o027);
    try {
      expect(String(sh('umask', { encoding: 'utf8' }).stdout).trim()).toBe('0027');
    } finally {
      process.umask(before);
    }
  });

  test('execFileSync throws the same error for a failing command', () => {
    const failure = (): unknown => {
      try {
        return execFileSync('sh', ['-c', 'echo partial; exit 4'], { stdio: 'pipe' });
      } catch (e) {
        const err = e as { status: number; message: string; stdout: Buffer };
        return { status: err.status, message: err.message, stdout: err.stdout.toString() };
      }
    };
    expect(failure()).toEqual(inWorker(failure));
  });
});

test('a spawn whose stdio names another descriptor runs in the worker', () => {
  const file = path.join(dir, 'out.txt');
  const fd = openSync(file, 'w');
  try {
    sh('echo $PPID', { stdio: ['ignore', fd, 'pipe'] });
  } finally {
    closeSync(fd);
  }
  expect(readFileSync(file, 'utf8').trim()).toBe(String(process.pid));
});

test("a child starts where the worker is, though a module's cache of process.cwd() says otherwise", () => {
  // graceful-fs (loaded with the Sigstore packages receipt.keyless imports) replaces process.cwd with a cache that
  // only its own chdir clears: a chdir made another way left the spawner's children where the worker had been.
  const script = `
    require(${JSON.stringify(path.join(repoRoot, 'test', 'setup', 'spawner.js'))});
    const { spawnSync } = require('node:child_process');
    const stale = process.cwd();
    process.cwd = () => stale;
    require('node:process').chdir(${JSON.stringify(dir)});
    process.stdout.write(spawnSync('pwd', { encoding: 'utf8' }).stdout);
  `;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', cwd: repoRoot });
  expect({ status: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({
    status: 0,
    stdout: `${dir}\n`,
    stderr: '',
  });
});

test('a spawner that ends after it took a request fails that call; later spawns run in the process', () => {
  // In a process of its own: this ends its spawner.
  const script = `
    require(${JSON.stringify(path.join(repoRoot, 'test', 'setup', 'spawner.js'))});
    const { spawnSync } = require('node:child_process');
    const out = [];
    out.push(spawnSync('sh', ['-c', 'echo $PPID'], { encoding: 'utf8' }).stdout.trim() !== String(process.pid));
    try {
      spawnSync('sh', ['-c', 'echo ran >> ${path.join(dir, 'ran.txt')}; kill -9 $PPID; sleep 0.2']);
      out.push('no error');
    } catch (e) {
      out.push(e.message);
    }
    out.push(spawnSync('sh', ['-c', 'echo $PPID'], { encoding: 'utf8' }).stdout.trim() === String(process.pid));
    process.stdout.write(JSON.stringify(out));
  `;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  expect(JSON.parse(r.stdout)).toEqual([true, 'the test spawner (test/setup/spawner.js) ended during a spawn', true]);
  expect(readFileSync(path.join(dir, 'ran.txt'), 'utf8')).toBe('ran\n');
});

/** `script` in a Node process of its own with the spawner installed; what it writes, parsed. */
function inProcess(script: string, options: SpawnSyncOptions = {}): unknown {
  const setup = `require(${JSON.stringify(path.join(repoRoot, 'test', 'setup', 'spawner.js'))});
    const { spawnSync } = require('node:child_process');
    const binding = process.binding('spawn_sync');
    const viaSpawner = binding.spawn;
    const local = binding[Symbol.for('stepchain.test.spawner')].local;
    const both = (run) => { const a = run(); binding.spawn = local; try { return [a, run()]; } finally { binding.spawn = viaSpawner; } };
  `;
  const r = spawnSync(process.execPath, ['-e', setup + script], { encoding: 'utf8', ...options });
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  return JSON.parse(String(r.stdout));
}

test('an inherited stdin the worker made non-blocking is blocking in the child (libuv clears O_NONBLOCK)', () => {
  const [spawner, node] = inProcess(
    `
    spawnSync('true'); // the spawner starts: libuv clears O_NONBLOCK then, once
    process.stdin.on('data', () => {}).pause(); // libuv makes the worker's stdin non-blocking
    const flags = () => spawnSync('sh', ['-c', 'grep flags /proc/self/fdinfo/0'], { stdio: ['inherit', 'pipe', 'pipe'], encoding: 'utf8' }).stdout;
    process.stdout.write(JSON.stringify(both(flags)));
    process.exit(0);
  `,
    { input: '' },
  ) as string[];
  expect(spawner).toBe(node);
});

test('the spawner is the python3 on the PATH the worker started with, not one a test puts there later', () => {
  const fake = path.join(dir, 'fake');
  mkdirSync(fake);
  writeFileSync(path.join(fake, 'python3'), `#!/bin/sh\necho ran >> ${path.join(fake, 'log')}\n`, { mode: 0o755 });
  const out = inProcess(`
    process.env.PATH = ${JSON.stringify(fake)} + ':' + process.env.PATH;
    const ppid = spawnSync('sh', ['-c', 'echo $PPID'], { encoding: 'utf8' }).stdout.trim();
    process.stdout.write(JSON.stringify(ppid !== String(process.pid)));
  `);
  expect(out).toBe(true);
  expect(() => readFileSync(path.join(fake, 'log'))).toThrow();
});

describe('an asynchronous spawn through the spawner gives what Node gives in the worker', () => {
  const processWrap = (
    process as unknown as { binding(name: string): { Process: { prototype: { spawn: unknown } } } }
  ).binding('process_wrap').Process.prototype;
  /** `start()` with Node's own asynchronous spawn (the way is chosen when the child starts; its events come later). */
  function inWorkerAsync<T>(start: () => T): T {
    const forwarded = processWrap.spawn;
    processWrap.spawn = installed!.localAsync;
    try {
      return start();
    } finally {
      processWrap.spawn = forwarded;
    }
  }

  type Drive = (child: ChildProcess, events: string[]) => void;
  /** What a child's events and streams give, up to its 'close' (with what had come before it, sorted: the order of
   * a child's exit and its pipes' ends varies between two runs of one command). */
  async function observe(start: () => ChildProcess, drive: Drive = () => {}) {
    const events: string[] = [];
    const child = start();
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.on('spawn', () => events.push('spawn'));
    child.on('error', (e: NodeJS.ErrnoException) => events.push(`error ${e.code} ${e.message}`));
    child.on('exit', (code, signal) => events.push(`exit ${code} ${signal}`));
    // (execFile reads text)
    child.stdout?.on('data', (c: Buffer) => out.push(Buffer.from(c))).on('end', () => events.push('stdout end'));
    child.stderr?.on('data', (c: Buffer) => err.push(Buffer.from(c))).on('end', () => events.push('stderr end'));
    drive(child, events);
    // (not events.once: it rejects on the 'error' a spawn can give before its 'close')
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
      child.on('close', (...end: [number | null, string | null]) => resolve(end)),
    );
    return {
      close: `${code} ${signal}`,
      before: events.sort(),
      pid: typeof child.pid,
      exitCode: child.exitCode,
      signalCode: child.signalCode,
      killed: child.killed,
      stdout: bytesOf(Buffer.concat(out)),
      stderr: bytesOf(Buffer.concat(err)),
    };
  }
  const shA = (script: string, options: SpawnOptions = {}) => spawn('sh', ['-c', script], options);
  /** Whether the spawner starts this worker's asynchronous children (a child's parent is not the worker). */
  async function parentOfChild(): Promise<string> {
    const child = shA('echo $PPID');
    const [out] = (await once(child.stdout!, 'data')) as [Buffer];
    await once(child, 'close');
    return out.toString().trim();
  }
  const onFirstOutput = (child: ChildProcess, act: () => void) => child.stdout!.once('data', act);
  /**
   * 3 MB that differ byte to byte (a chunk lost, doubled or moved shows). Filled in place: made through an array of
   * three million numbers it took ~0.25 s of this process's CPU, when the file is loaded (whatever test runs).
   */
  const large = Buffer.allocUnsafe(3_000_000);
  for (let i = 0; i < large.length; i++) large[i] = (i * 7 + (i >> 12)) & 255;

  const cases: [string, () => ChildProcess, Drive?][] = [
    ['bytes out and err, an exit status', () => shA('printf "a\\0b\\377"; printf err >&2; exit 3')],
    [
      'input written after the spawn, then its end',
      () => shA('cat; echo done'),
      (child) =>
        immediately(() => {
          child.stdin!.write(Buffer.from([0, 1, 255, 10]));
          child.stdin!.end('more');
        }),
    ],
    [
      'megabytes in and out of both pipes, the reader pausing (backpressure both ways)',
      () => shA('cat; head -c 3000000 /dev/zero >&2'),
      (child) => {
        child.stdin!.end(large);
        for (const stream of [child.stdout!, child.stderr!]) {
          stream.once('data', () => {
            stream.pause();
            setTimeout(() => stream.resume(), 100);
          });
        }
      },
    ],
    ['killed by a signal it sent itself', () => shA('kill -TERM $$')],
    ['killed by signal 34 (Node names none above 31: exit 0)', () => shA('kill -34 $$; sleep 1')],
    [
      'a kill from the worker (SIGTERM)',
      () => shA('echo ready; exec sleep 5'),
      (child, events) => onFirstOutput(child, () => events.push(`kill ${child.kill()}`)),
    ],
    [
      'a kill with SIGKILL of a child that ignores SIGTERM',
      () => shA('trap "" TERM; echo ready; exec sleep 5'),
      (child, events) =>
        onFirstOutput(child, () => {
          events.push(`term ${child.kill('SIGTERM')}`);
          setTimeout(() => events.push(`kill ${child.kill('SIGKILL')}`), 100);
        }),
    ],
    [
      'signal 0 to a running child',
      () => shA('cat'),
      (child, events) => {
        events.push(`kill 0 ${child.kill(0)}`);
        child.stdin!.end();
      },
    ],
    [
      'a kill after the child ended, before the worker saw its end (a zombie yet: kill succeeds)',
      () => shA('exit 4'),
      (child, events) =>
        child.once('spawn', () => {
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300); // it ends meanwhile
          events.push(`kill ${child.kill()}`);
        }),
    ],
    [
      'a child that ended is a zombie until the worker takes its end (and reaped when it is told)',
      () => shA('exit 0'),
      (child, events) => {
        const state = () => {
          try {
            return readFileSync(`/proc/${child.pid}/stat`, 'latin1').split(') ')[1]![0];
          } catch {
            return 'gone';
          }
        };
        child.once('spawn', () => {
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300); // it ends meanwhile
          events.push(`ended: ${state()}`);
        });
        child.once('exit', () => events.push(`told: ${state()}`));
      },
    ],
    ['a program that is not there', () => spawn(path.join(dir, 'nothing-here'), ['a'])],
    ['a working directory that is not there', () => shA('pwd', { cwd: path.join(dir, 'no-such-dir') })],
    ["the worker's working directory removed", () => inRemovedDir(() => shA('echo ran'))],
    [
      'an environment, a working directory, argv0',
      () => spawn('sh', ['-c', 'echo "$0|$A|$(pwd)"'], { env: { A: 'a b' }, cwd: dir, argv0: 'other' }),
    ],
    [
      'a program found on the PATH the child is given',
      () => spawn('tool', ['x'], { env: { PATH: `/nowhere:${bin}` } }),
    ],
    ['stdio ignored and inherited', () => shA('echo out; echo err >&2', { stdio: ['ignore', 'ignore', 'inherit'] })],
    ["the descriptors the worker's children inherit", () => shA('ls /proc/self/fd')],
    ['signals ignored and blocked in the child', () => shA('grep -E "^Sig(Blk|Ign)" /proc/self/status')],
    ['execFile with a callback', () => execFile('sh', ['-c', 'echo out; echo err >&2; exit 2'], () => {})],
  ];
  // Each row given its three arguments: Jest takes a test function with more parameters than its row has for one
  // that wants a `done` callback.
  test.each(cases.map(([name, start, drive = () => {}]) => [name, start, drive] as const))(
    '%s',
    async (_name, start, drive) => {
      expect(await observe(start, drive)).toEqual(await observe(() => inWorkerAsync(start), drive));
      // and the spawner made it, and is still there (one that failed would leave the rest to the worker: all equal)
      expect(await parentOfChild()).not.toBe(String(process.pid));
      expect(await inWorkerAsync(parentOfChild)).toBe(String(process.pid));
    },
  );

  test("gitStream's timeout: git stopped (SIGKILL), the same failure", async () => {
    const root = initRepo(path.join(dir, 'git-timeout'));
    const fifo = path.join(dir, 'git-timeout-fifo');
    execFileSync('mkfifo', [fifo]);
    execFileSync('git', ['config', 'include.path', fifo], { cwd: root });
    const run = () => gitRun(root, ['rev-parse', 'HEAD'], { timeoutMs: 300, readNamed: () => '' });
    const forwarded = await run().catch((e: Error) => e.message);
    expect(forwarded).toMatch(/no answer in 0\.3 s: stopped/);
    expect(forwarded).toBe(await inWorkerAsync(run).catch((e: Error) => e.message));
  });
});

test("a child the worker unref'd keeps it alive no longer, one it did not until its end (in a process of its own)", () => {
  const script = `
    const { spawn } = require('node:child_process');
    const long = spawn('sleep', ['30'], { stdio: 'ignore' });
    long.unref();
    const again = spawn('sleep', ['30'], { stdio: 'ignore' });
    again.unref();
    again.ref();
    again.unref();
    const short = spawn('sleep', ['0.3'], { stdio: 'ignore' });
    const parent = (pid) => require('node:fs').readFileSync('/proc/' + pid + '/stat', 'latin1').split(') ')[1].split(' ')[1];
    const out = { spawner: parent(long.pid) !== String(process.pid), ends: [] };
    short.on('exit', (code) => out.ends.push('short ' + code));
    long.on('exit', () => out.ends.push('long'));
    process.on('exit', () => {
      process.kill(long.pid);
      process.kill(again.pid);
      process.stdout.write(JSON.stringify(out));
    });
  `;
  const run = (env: NodeJS.ProcessEnv) =>
    spawnSync(process.execPath, ['-r', path.join(repoRoot, 'test', 'setup', 'spawner.js'), '-e', script], {
      encoding: 'utf8',
      env: { ...process.env, ...env },
      timeout: 20_000,
    });
  const forwarded = run({});
  const local = run({ STEPCHAIN_TEST_SPAWNER: 'off' });
  expect([forwarded.status, forwarded.stderr, local.status, local.stderr]).toEqual([0, '', 0, '']);
  expect(JSON.parse(forwarded.stdout)).toEqual({ spawner: true, ends: ['short 0'] });
  expect(JSON.parse(local.stdout)).toEqual({ spawner: false, ends: ['short 0'] });
});

test('a spawner that ends while its asynchronous children run: each fails (spawn EIO), later spawns run in the process', () => {
  const out = inProcess(`
    const { spawn } = require('node:child_process');
    const events = [];
    const first = spawn('sh', ['-c', 'echo $PPID; sleep 0.1; kill -9 $PPID; sleep 0.2; echo after']);
    let text = '';
    first.stdout.on('data', (c) => (text += c));
    first.on('error', (e) => events.push('error ' + e.code));
    first.on('exit', (code, signal) => events.push('exit ' + code + ' ' + signal));
    first.on('close', () => {
      const [ppid, after] = text.trim().split('\\n');
      events.push('close', ppid !== String(process.pid), after);
      const next = spawn('sh', ['-c', 'echo $PPID']);
      next.stdout.on('data', (c) => events.push(String(c).trim() === String(process.pid)));
      next.on('close', () => process.stdout.write(JSON.stringify(events)));
    });
  `);
  expect(out).toEqual(['error EIO', 'close', true, 'after', true]);
});

test('a spawner that ends as it starts an asynchronous child: that spawn fails, and the child ran once', () => {
  const ran = path.join(dir, 'ran-async.txt');
  const out = inProcess(`
    const { spawn } = require('node:child_process');
    // Whether the spawner dies before or after it answers with the pid is a race: the spawn throws, or the child
    // fails with EIO; either way its command is not run again in the worker.
    let outcome;
    try {
      const child = spawn('sh', ['-c', 'echo ran >> ${ran}; kill -9 $PPID']);
      child.on('error', (e) => { outcome = 'error ' + e.code; });
      child.on('close', () => process.stdout.write(JSON.stringify(outcome)));
    } catch (e) {
      process.stdout.write(JSON.stringify(e.message));
    }
  `);
  expect(['the test spawner (test/setup/spawner.js) ended during a spawn', 'error EIO']).toContain(out);
  expect(readFileSync(ran, 'utf8')).toBe('ran\n');
});
