import { spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './helpers/paths';
import { tempDir } from './helpers/tmp';

/**
 * src/git/quiet-process.ts starts the snapshot's `git add` through Node's process_wrap binding instead of
 * node:child_process (which the hook would load for it alone), falling back to node:child_process when the binding
 * would warn (--pending-deprecation) or is refused (the permission model). The two ways must be one behaviour: each
 * case below runs in a Node process of its own for each way, and every result (exit code, signal, error, what the
 * child saw of its arguments, environment, directory and descriptors) must be the same. The binding's way must load
 * no node:child_process; neither may write a warning.
 */
const tmp = tempDir('stepchain-quiet-');
const script = path.join(tmp, 'not-executable.sh');
writeFileSync(script, '#!/bin/sh\nexit 0\n');
chmodSync(script, 0o644);

const baseEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C' };
interface Case {
  name: string;
  file: string;
  args: string[];
  cwd?: string;
  env?: Record<string, string | undefined>;
  /** Ask for the process's end (SIGKILL) this long after it started. */
  killAfterMs?: number;
}

const cases: Case[] = [
  { name: 'arguments', file: 'sh', args: ['-c', 'printf "[%s]\\n" "$@" >&2', 'sh', 'a', 'b c', '', 'é', '--x=y'] },
  { name: 'an exit code', file: 'sh', args: ['-c', 'echo failing >&2; exit 3'] },
  {
    name: 'the environment, as given',
    file: 'sh',
    // What sh was given (env would show what sh exports: no name with a space).
    args: ['-c', "tr '\\0' '\\n' </proc/$$/environ | LC_ALL=C sort >&2"],
    env: { ...baseEnv, A: '1', B: 'x=y', EMPTY: '', UNSET: undefined, 'WITH SPACE': 'v' },
  },
  { name: 'the directory', file: 'sh', args: ['-c', 'pwd >&2'], cwd: tmp },
  {
    name: 'stdin and stdout /dev/null, no other descriptor',
    file: 'sh',
    // sh's own descriptors (a redirection would make it save one; `exec` does not).
    args: ['-c', 'x=$(readlink /proc/$$/fd/0 /proc/$$/fd/1); exec 1>&2; echo "$x"; ls /proc/$$/fd; cat; echo read'],
  },
  { name: 'a program not on the PATH', file: 'stepchain-no-such-program', args: [] },
  { name: 'a directory that is not there', file: 'sh', args: ['-c', 'exit 0'], cwd: path.join(tmp, 'gone') },
  { name: 'a file that may not be run', file: script, args: [] },
  { name: 'killed', file: 'sleep', args: ['30'], killAfterMs: 100 },
  { name: 'a NUL in an argument', file: 'sh', args: ['-c', 'exit 0', 'a\0b'] },
  { name: 'a NUL in the environment', file: 'sh', args: ['-c', 'exit 0'], env: { ...baseEnv, X: 'a\0b' } },
  { name: 'a NUL in the directory', file: 'sh', args: ['-c', 'exit 0'], cwd: `${tmp}\0x` },
];

/** The child program: runs every case with spawnQuiet, one after another, and prints their results as JSON. */
const program = `
const fs = require('node:fs');
const path = require('node:path');
const loadedBefore = process.moduleLoadList.includes('NativeModule child_process');
const { spawnQuiet } = require(${JSON.stringify(path.join(repoRoot, 'src', 'git', 'quiet-process.ts'))});
const cases = JSON.parse(process.env.QUIET_CASES);
// The descriptors any child of this process would be given (no close-on-exec): what it inherited itself, not its own.
const inheritable = fs.readdirSync('/proc/self/fd').filter((fd) => {
  try {
    const flags = parseInt(/flags:\\s*(\\d+)/.exec(fs.readFileSync('/proc/self/fdinfo/' + fd, 'utf8'))[1], 8);
    return Number(fd) > 2 && (flags & 0o2000000) === 0;
  } catch {
    return false;
  }
});
const dir = process.env.QUIET_DIR;
const describeEnd = (end) =>
  'error' in end
    ? { error: { message: end.error.message, code: end.error.code, errno: end.error.errno, syscall: end.error.syscall, path: end.error.path, spawnargs: end.error.spawnargs } }
    : end;
function run(c, i) {
  const errPath = path.join(dir, process.env.QUIET_WAY + '-' + i);
  const fd = fs.openSync(errPath, 'w+');
  return new Promise((resolve) => {
    let returned = false;
    try {
      const child = spawnQuiet(c.file, c.args, { cwd: c.cwd ?? dir, env: c.env ?? { PATH: process.env.PATH }, stderrFd: fd }, (end) => {
        fs.closeSync(fd);
        resolve({ end: describeEnd(end), synchronous: !returned, stderr: fs.readFileSync(errPath, 'utf8') });
      });
      returned = true;
      if (c.killAfterMs !== undefined) setTimeout(() => child.kill(), c.killAfterMs);
    } catch (e) {
      fs.closeSync(fd);
      resolve({ thrown: { name: e.name, code: e.code } });
    }
  });
}
(async () => {
  const results = [];
  for (let i = 0; i < cases.length; i++) results.push(await run(cases[i], i));
  process.stdout.write(JSON.stringify({ loadedBefore, inheritable, results, childProcess: process.moduleLoadList.includes('NativeModule child_process') }));
})();
`;

function runWay(way: string, flags: string[]) {
  const r = spawnSync(
    process.execPath,
    [...flags, '-r', path.join(repoRoot, 'test', 'helpers', 'swc-register.js'), '-e', program],
    {
      cwd: tmp,
      env: { ...process.env, QUIET_CASES: JSON.stringify(cases), QUIET_DIR: tmp, QUIET_WAY: way },
      input: 'stdin of the Node process\n',
      encoding: 'utf8',
    },
  );
  expect({ way, status: r.status, signal: r.signal }).toEqual({ way, status: 0, signal: null });
  return {
    ...(JSON.parse(r.stdout) as {
      loadedBefore: boolean;
      inheritable: string[];
      results: unknown[];
      childProcess: boolean;
    }),
    stderr: r.stderr,
  };
}

/** Node 20 names the permission model's flag --experimental-permission; later versions --permission. */
const permissionFlag = process.allowedNodeEnvironmentFlags.has('--permission')
  ? '--permission'
  : '--experimental-permission';

describe("a quiet process (the snapshot's git add)", () => {
  const binding = runWay('binding', []);
  const fallback = runWay('pending', ['--pending-deprecation']);

  test("the binding's way loads no node:child_process; --pending-deprecation's does, and neither writes a warning", () => {
    expect(binding.loadedBefore).toBe(false);
    expect(binding.childProcess).toBe(false);
    expect(fallback.childProcess).toBe(true);
    expect(binding.stderr).toBe('');
    expect(fallback.stderr).toBe('');
  });

  test.each(cases.map((c, i) => [c.name, i] as const))('%s: the same result both ways', (_name, i) => {
    expect(binding.results[i]).toEqual(fallback.results[i]);
    expect(binding.results[i]).not.toHaveProperty('synchronous', true);
  });

  test('the results are what each case asks for', () => {
    const [args, exit, env, cwd, stdio, missing, gone, denied, killed, ...nuls] = binding.results as Record<
      string,
      unknown
    >[];
    expect(args).toMatchObject({ end: { code: 0, signal: null }, stderr: '[a]\n[b c]\n[]\n[é]\n[--x=y]\n' });
    expect(exit).toMatchObject({ end: { code: 3, signal: null }, stderr: 'failing\n' });
    expect(String(env!.stderr).split('\n')).toEqual(
      expect.arrayContaining(['A=1', 'B=x=y', 'EMPTY=', 'WITH SPACE=v', 'LANG=C']),
    );
    expect(String(env!.stderr)).not.toContain('UNSET');
    expect(cwd).toMatchObject({ stderr: `${tmp}\n` });
    // /dev/null in and out; 0-2 and what the Node process inherited itself (none of its own); stdin at its end.
    const fds = ['0', '1', '2', ...binding.inheritable].sort();
    expect(stdio).toMatchObject({
      end: { code: 0, signal: null },
      stderr: `/dev/null\n/dev/null\n${fds.join('\n')}\nread\n`,
    });
    expect(missing).toMatchObject({
      end: { error: { code: 'ENOENT', message: 'spawn stepchain-no-such-program ENOENT' } },
    });
    expect(gone).toMatchObject({ end: { error: { code: 'ENOENT' } } });
    expect(denied).toMatchObject({ end: { error: { code: 'EACCES' } } });
    expect(killed).toMatchObject({ end: { code: null, signal: 'SIGKILL' } });
    for (const n of nuls) expect(n).toEqual({ thrown: { name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE' } });
  });

  test('under the permission model (process.binding refused) node:child_process runs it, with the same results', () => {
    const refused = runWay('permission', [
      permissionFlag,
      '--allow-fs-read=*',
      '--allow-fs-write=*',
      '--allow-child-process',
      // Should the transpiled sources not be kept (test/helpers/swc-register.js), @swc/core's addon is loaded.
      ...(process.allowedNodeEnvironmentFlags.has('--allow-addons') ? ['--allow-addons'] : []),
    ]);
    expect(refused.childProcess).toBe(true);
    expect(refused.results).toEqual(binding.results);
  });
});
