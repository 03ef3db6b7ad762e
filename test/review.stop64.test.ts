import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { cleanDeadSnapshotDirs } from '../src/git/snapshot-begin';
import { addWorkTree, addWorkTreeAsync } from '../src/git/snapshot-nested';
import { readScratch, scratchFile } from '../src/util/scratch-file';
import { git, initRepo, writeFiles } from './helpers/git';
import { tempDir } from './helpers/tmp';

// Review of the snapshot's pipe-less add (src/git/exec.ts gitRunQuiet): what it does where the piped run
// (gitStream) rejected. Each case runs in a child process of its own, so that an exception thrown out of a child
// process's event (which ends a process) is seen as such and does not end the test worker.

const repo = path.resolve(__dirname, '..');
const tmp = tempDir('stepchain-review64-');

/** What `script` printed and how its process ended, run from the sources. */
function fromSources(script: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['-r', './test/helpers/swc-register.js', '-e', script], {
    cwd: repo,
    env: process.env,
    encoding: 'utf8',
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('a git that cannot be started (its directory gone): the quiet run rejects as the piped run does, once', () => {
  // Node emits 'error' and then 'close' for a process it could not start: the scratch file was closed twice
  // (EBADF thrown out of the 'close' event, the process ended before the promise's rejection was seen).
  const script = `
    const { gitRun, gitRunQuiet } = require('./src/git/exec');
    const missing = ${JSON.stringify(path.join(tmp, 'missing'))};
    const said = (p) => p.then(() => 'resolved', (e) => e.name + ' ' + e.status + ' ' + e.message);
    (async () => {
      const piped = await said(gitRun(missing, ['status'], { readNamed: () => '' }));
      const quiet = await said(gitRunQuiet(missing, ['status'], ${JSON.stringify(tmp)}, { readNamed: () => '' }));
      console.log(JSON.stringify({ piped, quiet }));
    })();
  `;
  const r = fromSources(script);
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  expect(JSON.parse(r.stdout)).toEqual({
    piped: 'GitCommandError null git status: spawn git ENOENT',
    quiet: 'GitCommandError null git status: spawn git ENOENT',
  });
});

// Review of test/setup/runtime.js (the Jest runtime that keeps V8's code cache of each module for the worker's later
// test files): what it keeps must not keep a finished test file alive.
test('the code-cache runtime keeps no finished test file alive: its memory is freed for the next file', () => {
  const dir = mkdtempSync(path.join(tmp, 'jest-'));
  // A module every file loads (its cache made by the first, used by the others); the first file holds ~100 MB.
  writeFileSync(path.join(dir, 'common.js'), 'exports.add = function add(a, b) { return a + b; };\n');
  writeFileSync(
    path.join(dir, 'a.test.js'),
    "const { add } = require('./common');\n" +
      'const held = new Array(3e6).fill(0).map((_, j) => ({ j }));\n' +
      "test('a', () => expect(add(held.length, 1)).toBe(3e6 + 1));\n",
  );
  for (const f of ['b', 'c', 'd'])
    writeFileSync(
      path.join(dir, `${f}.test.js`),
      `const { add } = require('./common');\ntest('${f}', () => expect(add(1, 1)).toBe(2));\n`,
    );
  writeFileSync(
    path.join(dir, 'order.js'),
    `const Sequencer = require(${JSON.stringify(require.resolve('@jest/test-sequencer'))}).default;\n` +
      'module.exports = class extends Sequencer { sort(t) { return [...t].sort((x, y) => (x.path < y.path ? -1 : 1)); } };\n',
  );
  writeFileSync(
    path.join(dir, 'jest.config.js'),
    `module.exports = ${JSON.stringify({
      rootDir: dir,
      testEnvironment: 'node',
      transform: {},
      cacheDirectory: path.join(dir, 'cache'),
      testSequencer: path.join(dir, 'order.js'),
      runtime: path.join(repo, 'test', 'setup', 'runtime.js'),
    })};\n`,
  );
  // --logHeapUsage: each file's heap after a full collection (--expose-gc), once the file is done.
  const jest = path.join(repo, 'node_modules', 'jest', 'bin', 'jest.js');
  const r = spawnSync(process.execPath, ['--expose-gc', jest, '--runInBand', '--logHeapUsage', '--ci'], {
    cwd: dir,
    env: { ...process.env, JEST_WORKER_ID: undefined },
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(r.stderr);
  const heap = Object.fromEntries(
    [...r.stderr.matchAll(/PASS (?:\.\/)?([a-d])\.test\.js .*?(\d+) MB heap size/g)].map((m) => [m[1], Number(m[2])]),
  );
  expect([Object.keys(heap).sort(), r.status]).toEqual([['a', 'b', 'c', 'd'], 0]);
  // The first file's array is there at its end; three files later it is gone.
  expect(heap.a).toBeGreaterThan(80);
  expect(heap.d!).toBeLessThan(heap.a! - 60);
});

// The snapshot's add reads only the first MiB of what git said; the in-line add (gitSync) reads all of it. git
// writes its refusal of a nested repository with no commit after the warnings of the files before it: past a MiB of
// them, the hook's snapshot failed where the in-line one (every other door) was taken.
test("a refusal after a MiB of warnings: the hook's add reads it as the in-line add does", async () => {
  const root = initRepo(mkdtempSync(path.join(tmp, 'loud-')), { 'README.md': '# r\n' });
  // git warns of each file whose line ends it will change (~270 bytes a warning here), in path order; the nested
  // repository, last in that order, is refused after them.
  const files: Record<string, string> = {};
  for (let i = 0; i < 5000; i++) files[`${'w'.repeat(200)}${String(i).padStart(4, '0')}.txt`] = 'a\n';
  writeFiles(root, files);
  mkdirSync(path.join(root, 'zz-fresh'));
  git(path.join(root, 'zz-fresh'), ['init', '-q']);
  const config = ['-c', 'core.autocrlf=true'];
  const run = (name: string): { scratch: string; opts: { extra: { GIT_INDEX_FILE: string } } } => {
    const scratch = mkdtempSync(path.join(tmp, `${name}-`));
    return { scratch, opts: { extra: { GIT_INDEX_FILE: path.join(scratch, 'index') } } };
  };
  const a = run('inline');
  const inline = addWorkTree(root, config, ['.'], a.opts);
  const b = run('quiet');
  const quiet = await addWorkTreeAsync(root, config, ['.'], b.opts, b.scratch);
  expect(inline.unborn).toEqual(['zz-fresh']);
  expect(quiet.unborn).toEqual(inline.unborn);
  // The same files were added both ways: the same tree.
  const tree = (o: { extra: { GIT_INDEX_FILE: string } }): string =>
    git(root, ['write-tree'], { ...process.env, ...o.extra });
  expect(tree(b.opts)).toBe(tree(a.opts));
});

test('the scratch read past its first bytes: whole lines only, those kept in order, a line across reads whole', () => {
  const dir = mkdtempSync(path.join(tmp, 'scratch-'));
  const fd = scratchFile(dir);
  try {
    // 40 bytes of head, then ~200 KiB of warnings (read 64 KiB at a time) with errors among them, one across a read.
    const warn = `warning: ${'w'.repeat(90)}\n`;
    const text =
      'warning: first\nwarning: second line\nwarning: cut here\n' +
      warn.repeat(655) +
      'error: one\n' +
      warn.repeat(1400) +
      `error: ${'e'.repeat(200)}\n` +
      'fatal: last, with no line end';
    writeSync(fd, text);
    const notWarning = (l: string): boolean => !l.startsWith('warning: ');
    expect(readScratch(fd, 40)).toBe(text.slice(0, 40));
    expect(readScratch(fd, 40, notWarning)).toBe('warning: first\nwarning: second line\nerror: one\n');
    expect(readScratch(fd, 300, notWarning)).toBe(
      `${text.slice(0, text.lastIndexOf('\n', 299) + 1)}error: one\nerror: ${'e'.repeat(200)}\nfatal: last, with no line end\n`,
    );
    expect(readScratch(fd, 1 << 20, notWarning)).toBe(text);
  } finally {
    closeSync(fd);
  }
});

// A hook killed mid-add leaves its snapshot's directory in the git dir, for the next step to remove
// (cleanDeadSnapshotDirs). A killed process stays a zombie, its pid taken, until its parent collects it: an agent
// that does so late (or never, for a parent that only waits for its last child) kept the directory judged alive.
test('a killed hook not yet collected by its parent: its snapshot directory is removed as dead', () => {
  const root = initRepo(mkdtempSync(path.join(tmp, 'zombie-')), { 'README.md': '# r\n' });
  const gitDir = path.join(root, '.git');
  // The hook: a snapshot seeded (its directory made), then killed. Its parent, `sleep` (sh replaced by it), never
  // collects it.
  const hook =
    `require('./test/helpers/swc-register.js');` +
    `const { seedSnapshotIndex } = require('./src/git/snapshot-begin');` +
    `const { repoInfo } = require('./src/git/repo');` +
    `seedSnapshotIndex({ root: ${JSON.stringify(root)} }, repoInfo(${JSON.stringify(root)}));` +
    `process.kill(process.pid, 'SIGKILL');`;
  const parent = spawn('sh', ['-c', `"$0" -e "$1" & exec sleep 60`, process.execPath, hook], {
    cwd: repo,
    stdio: 'ignore',
  });
  try {
    let dirs: string[] = [];
    let zombie = false;
    for (let i = 0; i < 300 && !zombie; i++) {
      spawnSync('sleep', ['0.05']);
      dirs = readdirSync(gitDir).filter((n) => n.startsWith('stepchain-snap-'));
      const pid = dirs.length === 1 ? Number(/^stepchain-snap-([0-9]+)-/.exec(dirs[0]!)?.[1]) : NaN;
      zombie = Number.isInteger(pid) && statState(pid) === 'Z';
    }
    expect(zombie).toBe(true);
    expect(cleanDeadSnapshotDirs(gitDir)).toEqual(dirs);
    expect(readdirSync(gitDir).filter((n) => n.startsWith('stepchain-snap-'))).toEqual([]);
  } finally {
    parent.kill('SIGKILL');
  }
});

/** A process's state letter from /proc (Z: a zombie), or undefined. */
function statState(pid: number): string | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return text.slice(text.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}
