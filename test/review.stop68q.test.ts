import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import path from 'node:path';
import { snapshotRefFor } from '../src/git';
import { git, initRepo } from './helpers/git';
import { cliPath, repoRoot } from './helpers/paths';
import { tempDir } from './helpers/tmp';

/**
 * A hostile review of src/git/quiet-process.ts (the snapshot's `git add` started through Node's process_wrap binding)
 * against what node:child_process does with the same call (the way it still takes under --pending-deprecation), and
 * of the timeout gitRunQuiet arms around it. Each case runs in a Node process of its own, once each way.
 */
const tmp = tempDir('stepchain-revq-');
const aFile = path.join(tmp, 'a-file');
writeFileSync(aFile, 'x\n');
symlinkSync('loop-b', path.join(tmp, 'loop-a'));
symlinkSync('loop-a', path.join(tmp, 'loop-b'));

/** The child program: spawnQuiet with the case's options; prints how it ended, or what it threw. */
const program = `
const fs = require('node:fs');
const { spawnQuiet } = require(${JSON.stringify(path.join(repoRoot, 'src', 'git', 'quiet-process.ts'))});
const c = JSON.parse(process.env.REVQ_CASE);
const errPath = process.env.REVQ_ERR;
const fd = fs.openSync(errPath, 'w+');
const env = Object.assign(Object.create(c.proto ?? null), { PATH: process.env.PATH });
const args = c.bigArg ? [...c.args, 'x'.repeat(c.bigArg)] : c.args;
let returned = false;
try {
  spawnQuiet(c.file, args, { cwd: c.cwd, env, stderrFd: fd }, (end) => {
    const e = end.error;
    const shown = e ? { error: { message: e.message, code: e.code, errno: e.errno, syscall: e.syscall } } : end;
    process.stdout.write(JSON.stringify({ end: shown, synchronous: !returned, stderr: fs.readFileSync(errPath, 'utf8') }));
  });
  returned = true;
} catch (e) {
  process.stdout.write(JSON.stringify({ thrown: { name: e.name, message: e.message, code: e.code, errno: e.errno, syscall: e.syscall } }));
}
`;

interface Case {
  file: string;
  args: readonly string[];
  cwd: string;
  proto?: Record<string, string>;
  bigArg?: number;
}

/** The case's result each way: the binding's (no flag) and node:child_process's (--pending-deprecation). */
function bothWays(name: string, c: Case, env: NodeJS.ProcessEnv = {}): { binding: unknown; childProcess: unknown } {
  const run = (way: string, flags: string[]): unknown => {
    const r = spawnSync(
      process.execPath,
      [...flags, '-r', path.join(repoRoot, 'test', 'helpers', 'swc-register.js'), '-e', program],
      {
        cwd: tmp,
        env: { ...process.env, ...env, REVQ_CASE: JSON.stringify(c), REVQ_ERR: path.join(tmp, `${name}-${way}`) },
        encoding: 'utf8',
      },
    );
    expect({ way, status: r.status, stderr: r.stderr }).toEqual({ way, status: 0, stderr: '' });
    return JSON.parse(r.stdout);
  };
  return { binding: run('binding', []), childProcess: run('child-process', ['--pending-deprecation']) };
}

describe('spawn errors ChildProcess throws (not one of EACCES, EAGAIN, EMFILE, ENFILE, ENOENT)', () => {
  test.each([
    ['a directory that is a file', { file: 'sh', args: ['-c', 'exit 0'], cwd: aFile }, 'ENOTDIR'],
    ['a directory under a file', { file: 'sh', args: ['-c', 'exit 0'], cwd: path.join(aFile, 'x') }, 'ENOTDIR'],
    [
      'a directory through a loop of links',
      { file: 'sh', args: ['-c', 'exit 0'], cwd: path.join(tmp, 'loop-a') },
      'ELOOP',
    ],
    ['an argument over 128 KiB', { file: 'sh', args: ['-c', 'exit 0'], cwd: tmp, bigArg: 200_000 }, 'E2BIG'],
  ] as const)('%s: thrown by spawnQuiet, as child_process.spawn throws it', (name, c, code) => {
    const errno = -constants.errno[code];
    const { binding, childProcess } = bothWays(name.replace(/\W+/g, '-'), c);
    // What node:child_process does with this call (Node 20's lib/internal/child_process.js: `throw errnoException`).
    expect(childProcess).toEqual({
      thrown: { name: 'Error', message: `spawn ${code}`, code, errno, syscall: 'spawn' },
    });
    // Reported later instead, it was `spawn sh ENOTDIR`: gitRunQuiet rejected with a GitCommandError, not Node's error.
    expect(binding).toEqual(childProcess);
  });
});

test("with NODE_V8_COVERAGE set, a variable the environment inherits from its prototype is passed (as Node's)", () => {
  const c: Case = {
    file: 'sh',
    args: ['-c', 'env | grep -E "^(INHERITED|NODE_V8_COVERAGE)=" | LC_ALL=C sort >&2'],
    cwd: tmp,
    proto: { INHERITED: 'from the prototype' },
  };
  const coverage = path.join(tmp, 'coverage');
  mkdirSync(coverage);
  const { binding, childProcess } = bothWays('coverage', c, { NODE_V8_COVERAGE: coverage });
  expect(childProcess).toMatchObject({
    end: { code: 0, signal: null },
    stderr: `INHERITED=from the prototype\nNODE_V8_COVERAGE=${coverage}\n`,
  });
  // The binding's way copied the environment with a spread (own keys only): INHERITED was not passed.
  expect(binding).toEqual(childProcess);
});

test('a `process.binding` a preload made a getter that throws: node:child_process starts the process, no throw', () => {
  const preload = path.join(tmp, 'binding-taken-away.cjs');
  writeFileSync(
    preload,
    "Object.defineProperty(process, 'binding', { get() { throw new Error('process.binding is disabled here'); } });\n",
  );
  const c: Case = { file: 'sh', args: ['-c', 'echo ran >&2'], cwd: tmp };
  const r = spawnSync(
    process.execPath,
    ['-r', path.join(repoRoot, 'test', 'helpers', 'swc-register.js'), '-r', preload, '-e', program],
    {
      cwd: tmp,
      env: { ...process.env, REVQ_CASE: JSON.stringify(c), REVQ_ERR: path.join(tmp, 'getter') },
      encoding: 'utf8',
    },
  );
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  // The getter was read outside the try that takes a refusal: spawnQuiet threw the preload's error (the step's
  // snapshot failed), where node:child_process, which the old hook used, starts it.
  expect(JSON.parse(r.stdout)).toEqual({ end: { code: 0, signal: null }, synchronous: false, stderr: 'ran\n' });
});

test("a git timeout over a timer's longest (2^31 - 1 ms): the hook's snapshot is made, with no warning", () => {
  const root = initRepo(path.join(tmp, 'repo'), { 'a.txt': 'a\n' });
  writeFileSync(path.join(root, 'b.txt'), 'b\n');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    STEPCHAIN_AUDIT: 'off',
    // "no limit", as a user would write it: setTimeout warned (TimeoutOverflowWarning) and fired after 1 ms.
    STEPCHAIN_SNAPSHOT_TIMEOUT_MS: '9999999999',
    STEPCHAIN_GIT_TIMEOUT_MS: '9999999999',
  };
  delete env.CLAUDE_PROJECT_DIR;
  const payload = JSON.stringify({
    hook_event_name: 'PostToolUse',
    session_id: 's-timeout',
    cwd: root,
    tool_name: 'Bash',
    tool_input: { command: 'ls' },
    tool_response: { ok: true },
    tool_use_id: 'toolu_1',
  });
  const r = spawnSync(process.execPath, [cliPath, 'hook', 'claude'], {
    input: payload,
    env,
    cwd: root,
    encoding: 'utf8',
  });
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  const ref = snapshotRefFor(root, 'claude-s-timeout', 0)!;
  expect(git(root, ['ls-tree', '-r', '--name-only', ref])).toContain('b.txt');
});
