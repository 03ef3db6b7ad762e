// Runs before any test file: regenerates the report page script and the worker script (cheap, written only when they
// changed), and when a selected test file runs the built bundles (dist/cli.js, dist/index.js,
// dist/lib, or the packed package) rebuilds dist/ if an input changed since its last build
// (scripts/build.mjs --if-stale), so a stale bundle is never what a test runs; when one runs a real agent, the
// pinned agents are installed into their cache (test/agents/install.mjs, nothing when they are there already). Unit tests on the
// sources alone do not wait for a build. The run's temporary files go to a directory of its own, in memory when there
// is room (see `runTmpDir`).
// Then the longest files first (see `longestFirst`), so the workers finish together.
const { spawnSync } = require('node:child_process');
const {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statfsSync,
  writeFileSync,
} = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const root = path.resolve(__dirname, '..', '..');
/** What a file that runs the built output mentions. */
const USES_DIST = /\b(cliPath|actionPath)\b|dist\/(cli|index)\.js|dist\/lib\b|npm pack/;
const HELPER_IMPORT = /from '\.\.?\/(?:helpers\/)?([a-z0-9-]+)'/g;

function node(args) {
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} failed (exit ${r.status})`);
}

/** Whether a test file or a helper it imports (transitively) matches `pattern` (helpers/paths excepted). */
function mentions(pattern, memo) {
  const visit = (file, seen = new Set()) => {
    if (memo.has(file)) return memo.get(file);
    if (seen.has(file) || !existsSync(file)) return false;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    let uses = pattern.test(text);
    for (const m of text.matchAll(HELPER_IMPORT)) {
      if (uses) break;
      // helpers/paths only names the bundles: a test that runs one says cliPath/actionPath itself.
      if (m[1] === 'paths') continue;
      uses = visit(path.join(root, 'test', 'helpers', `${m[1]}.ts`), seen);
    }
    memo.set(file, uses);
    return uses;
  };
  return visit;
}
const usesDist = mentions(USES_DIST, new Map());
/** A test that runs a real agent (test/helpers/agents.ts): the pinned agents are installed first, once. */
const usesAgents = mentions(/\bagentBinary\b/, new Map());

/**
 * Each file's seconds in a full run on a 2-core machine (test/setup/durations.json; refresh it with
 * `node test/setup/sequencer.js <jest --json output>`). Jest orders by the durations it cached on this machine, but a
 * fresh clone has none and Jest falls back to file size: a 39 s file of average size then starts near the end and the
 * other worker idles for most of its length.
 */
const DURATIONS = path.join(__dirname, 'durations.json');
const recorded = existsSync(DURATIONS) ? JSON.parse(readFileSync(DURATIONS, 'utf8')) : {};

/**
 * The run's directory for its temporary files: os.tmpdir() in the tests and in every process they start (the
 * repositories, projects, agents' homes and databases, each test file's state directory). One directory per run,
 * removed at its end (test/setup/teardown.js), and those of runs that were killed are removed at the next one, so
 * nothing a test leaves behind stays: in memory (ramTmpDir) when the machine has room there and TMPDIR was not
 * chosen, else under the temporary directory the run was given (TMPDIR, or the system's).
 */
function runTmpDir() {
  return ramTmpDir() ?? runDirIn(os.tmpdir());
}

/**
 * A run directory on a RAM-backed file system. git, the journals and the agents' databases sync what they write
 * (fsync), and on a disk other work is writing to, each sync waits for it: git.fork.test.ts took 76 s of wall time
 * on the disk against 21 s on tmpfs, for the same 8 s of CPU. The same code runs either way (the syncs are made;
 * only the device differs).
 */
const TMPFS_MAGIC = 0x01021994;
const RAM_ROOM = 4 * 2 ** 30;
function ramTmpDir() {
  if (process.env.TMPDIR !== undefined || process.platform !== 'linux') return undefined;
  const shm = '/dev/shm';
  try {
    const fs = statfsSync(shm);
    if (fs.type !== TMPFS_MAGIC || fs.bavail * fs.bsize < RAM_ROOM || os.freemem() < RAM_ROOM) return undefined;
    const dir = runDirIn(shm);
    if (dir === undefined) return undefined;
    // The tests run programs they write there (stub bins, hooks); a tmpfs mounted noexec (Docker's default for
    // /dev/shm) would fail them, so the run stays on the disk.
    if (!canExecuteIn(dir)) {
      removeQuietly(dir);
      return undefined;
    }
    return dir;
  } catch {
    return undefined;
  }
}

/** A new run directory in `base`, after removing those of runs no longer alive there; undefined if none can be made. */
function runDirIn(base) {
  try {
    for (const name of readdirSync(base)) {
      const pid = /^stepchain-test-(\d+)-/.exec(name)?.[1];
      if (pid !== undefined && !alive(Number(pid))) removeQuietly(path.join(base, name));
    }
    const dir = mkdtempSync(path.join(base, `stepchain-test-${process.pid}-`));
    // As /tmp is: the tests that run the CLI as another user (test/helpers/unprivileged.ts) reach their files in it.
    chmodSync(dir, 0o1777);
    return dir;
  } catch {
    return undefined;
  }
}

function canExecuteIn(dir) {
  const probe = path.join(dir, 'exec-probe');
  try {
    writeFileSync(probe, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    return spawnSync(probe, [], { stdio: 'ignore' }).status === 0;
  } catch {
    return false;
  } finally {
    rmSync(probe, { force: true });
  }
}

/** Another user's leftover is theirs to remove: it does not keep this run off tmpfs. */
function removeQuietly(dir) {
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch {
    /* not ours */
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

/** The absolute path of the interpreter `python3` on the PATH runs; undefined when there is none (the tests say so). */
function pythonInterpreter() {
  const r = spawnSync('python3', ['-c', 'import sys; sys.stdout.write(sys.executable or "")'], { encoding: 'utf8' });
  return r.status === 0 && path.isAbsolute(r.stdout) ? r.stdout : undefined;
}

/**
 * The bin's code caches (scripts/build-launcher.mjs), made once for the run and handed to every test file's own
 * state directory (test/setup/state-dir.js): each file has a fresh XDG_STATE_HOME, so without them the first call of
 * each of the bin's three programs in each file compiled it whole and wrote its cache, ~65 ms of CPU more than a call
 * that finds one (measured: an `append` that fails, 120 against 55 ms), in each of the ~100 files that run the bin.
 * A user's calls find the cache their first call left; the tests now start where a user's second call does. Each
 * program is run once, on a command line that ends at once (its cache is written at its exit whatever the exit
 * code); the files are made in the run's directory, removed with it (teardown.js).
 */
function warmCodeCaches() {
  if (process.env.STEPCHAIN_TEST_CODE_CACHE !== undefined) return;
  const run = process.env.STEPCHAIN_TEST_RUN_TMP;
  const dir =
    run === undefined ? mkdtempSync(path.join(os.tmpdir(), 'stepchain-code-cache-')) : path.join(run, 'code-cache');
  if (run === undefined) process.env.STEPCHAIN_TEST_CODE_CACHE_OWN = dir;
  const cli = path.join(root, 'dist', 'cli.js');
  const env = { ...process.env, XDG_STATE_HOME: dir, STEPCHAIN_AUDIT: 'off' };
  delete env.NODE_EXTRA_CA_CERTS;
  delete env.STEPCHAIN_CODE_CACHE;
  for (const args of [['--help'], ['hook', 'claude'], ['verify', path.join(dir, 'none.jsonl')]])
    spawnSync(process.execPath, [cli, ...args], {
      cwd: os.tmpdir(),
      env,
      input: '',
      stdio: ['pipe', 'ignore', 'ignore'],
    });
  const caches = path.join(dir, 'stepchain', 'code-cache');
  if (existsSync(caches)) process.env.STEPCHAIN_TEST_CODE_CACHE = caches;
}

class BuildFirst extends Sequencer {
  async sort(tests) {
    if (process.env.STEPCHAIN_TEST_RUN_TMP === undefined) {
      const dir = runTmpDir();
      if (dir !== undefined) {
        // Set before Jest starts its workers, so they and everything they start inherit it.
        process.env.TMPDIR = dir;
        process.env.STEPCHAIN_TEST_RUN_TMP = dir;
      }
    }
    // The python3 the tests run (the differential peers, the spawner), found once: `python3` on the PATH may be a
    // version manager's shim (pyenv's runs eight programs to pick the version, ~210 ms of CPU each time).
    // Where the children that load the TypeScript sources keep what they transpiled (test/helpers/swc-register.js):
    // the run's directory, else one of its own, removed at the end (teardown.js).
    if (process.env.STEPCHAIN_TEST_SWC_CACHE === undefined) {
      const run = process.env.STEPCHAIN_TEST_RUN_TMP;
      process.env.STEPCHAIN_TEST_SWC_CACHE =
        run === undefined ? mkdtempSync(path.join(os.tmpdir(), 'stepchain-swc-cache-')) : path.join(run, 'swc-cache');
      if (run === undefined) process.env.STEPCHAIN_TEST_SWC_CACHE_OWN = '1';
    }
    if (process.env.STEPCHAIN_TEST_PYTHON === undefined) {
      const python = pythonInterpreter();
      if (python !== undefined) process.env.STEPCHAIN_TEST_PYTHON = python;
    }
    node([path.join(root, 'scripts', 'generate.mjs')]);
    if (tests.some((t) => usesDist(t.path))) {
      node([path.join(root, 'scripts', 'build.mjs'), '--if-stale']);
      warmCodeCaches();
    }
    if (tests.some((t) => usesAgents(t.path))) node([path.join(root, 'test', 'agents', 'install.mjs')]);
    return this.longestFirst(super.sort(tests));
  }

  /** Failed files first (as Jest does), then by expected length, longest first; a file never timed leads. */
  longestFirst(tests) {
    const expected = (t) => this.time(t) ?? recordedMs(t.path);
    const rank = (t) => [this.hasFailed(t) ? 0 : 1, expected(t) === undefined ? 0 : 1, -(expected(t) ?? 0)];
    const order = new Map(tests.map((t, i) => [t, [...rank(t), i]]));
    return [...tests].sort((a, b) => {
      const x = order.get(a);
      const y = order.get(b);
      for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] - y[i];
      return 0;
    });
  }
}

function recordedMs(file) {
  const s = recorded[path.relative(root, file).split(path.sep).join('/')];
  return typeof s === 'number' ? s * 1000 : undefined;
}

/** `test/...` of a test file of this checkout or of another (a result from another clone). */
function inTest(file) {
  const rel = path.relative(root, file).split(path.sep).join('/');
  return rel.startsWith('../') ? rel.slice(rel.lastIndexOf('/test/') + 1) : rel;
}

/** Writes durations.json from a `jest --json` result: each file's seconds, longest first. */
function recordDurations(resultFile) {
  const { testResults } = JSON.parse(readFileSync(resultFile, 'utf8'));
  const rows = testResults.map((r) => [inTest(r.name), (r.endTime - r.startTime) / 1000]).sort((a, b) => b[1] - a[1]);
  const out = Object.fromEntries(rows.map(([f, s]) => [f, Math.round(s * 10) / 10]));
  writeFileSync(DURATIONS, `${JSON.stringify(out, null, 2)}\n`);
}

if (require.main === module) {
  if (process.argv.length !== 3) {
    console.error('usage: node test/setup/sequencer.js <jest --json output>');
    process.exit(2);
  }
  recordDurations(process.argv[2]);
}

module.exports = BuildFirst;
