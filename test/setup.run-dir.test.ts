import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './helpers/paths';
import { tempDir } from './helpers/tmp';

/**
 * A test run keeps its temporary files in a directory of its own (test/setup/sequencer.js, runTmpDir), in memory when
 * there is room, else under the temporary directory it was given, and removes it at its end (teardown.js): a run
 * leaves nothing in TMPDIR, each test file's state directory included, and the directory of a run that was killed is
 * removed by the next one. Checked with a run of Jest on a probe test file, TMPDIR given (so never in memory).
 */
jest.setTimeout(120000);

const setup = path.join(repoRoot, 'test', 'setup');
const work = tempDir('stepchain-run-dir-');

/** Runs Jest on one probe test with TMPDIR `given`; the probe writes `left-behind` into its os.tmpdir(). */
function runProbe(given: string): { status: number | null; out: string; report: Record<string, string> } {
  const probe = path.join(work, `probe-${readdirSync(work).length}`);
  mkdirSync(probe);
  const report = path.join(probe, 'report.json');
  writeFileSync(
    path.join(probe, 'probe.test.js'),
    `const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
test('probe', () => {
  fs.writeFileSync(path.join(os.tmpdir(), 'left-behind'), 'x');
  fs.writeFileSync(path.join(process.env.XDG_STATE_HOME, 'state-file'), 'x');
  fs.writeFileSync(${JSON.stringify(report)}, JSON.stringify({ tmp: os.tmpdir(), state: process.env.XDG_STATE_HOME }));
});
`,
  );
  const config = {
    rootDir: probe,
    testMatch: ['**/probe.test.js'],
    transform: {},
    cacheDirectory: path.join(probe, 'jest-cache'),
    testSequencer: path.join(setup, 'sequencer.js'),
    globalTeardown: path.join(setup, 'teardown.js'),
    setupFiles: [path.join(setup, 'state-dir.js')],
  };
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: given };
  // The outer run's directories are its own: the probe run makes and removes its own.
  const outer = ['STEPCHAIN_TEST_RUN_TMP', 'STEPCHAIN_TEST_SWC_CACHE', 'STEPCHAIN_TEST_SWC_CACHE_OWN'];
  // The bin's code caches too (sequencer.js, warmCodeCaches): the probe's teardown removes an _OWN one.
  for (const v of [...outer, 'STEPCHAIN_TEST_CODE_CACHE', 'STEPCHAIN_TEST_CODE_CACHE_OWN']) delete env[v];
  const r = spawnSync(
    process.execPath,
    [path.join(repoRoot, 'node_modules', 'jest', 'bin', 'jest.js'), '--ci', '--config', JSON.stringify(config)],
    { cwd: probe, env, encoding: 'utf8' },
  );
  const out = `${r.stdout}${r.stderr}`;
  return { status: r.status, out, report: existsSync(report) ? JSON.parse(readFileSync(report, 'utf8')) : {} };
}

/** A pid no process has now (a child that has exited and been reaped). */
function deadPid(): number {
  const r = spawnSync('sh', ['-c', 'echo $$']);
  return Number(String(r.stdout).trim());
}

test('a run given TMPDIR works in a directory of its own there and leaves nothing behind', () => {
  const given = path.join(work, 'given');
  mkdirSync(given);
  const { status, out, report } = runProbe(given);
  expect([status, out]).toEqual([0, expect.stringContaining('1 passed')]);
  // The probe's temporary directory and state directory were inside the run's directory, in the one given.
  expect(path.dirname(report.tmp!)).toBe(given);
  expect(path.basename(report.tmp!)).toMatch(/^stepchain-test-\d+-/);
  expect(report.state!.startsWith(`${report.tmp}${path.sep}`)).toBe(true);
  expect(readdirSync(given)).toEqual([]);
});

test("the directory of a run that was killed is removed by the next run; a live run's is left", () => {
  const given = path.join(work, 'given-leftovers');
  mkdirSync(given);
  const dead = path.join(given, `stepchain-test-${deadPid()}-AbCdEf`);
  const live = path.join(given, `stepchain-test-${process.pid}-AbCdEf`);
  const other = path.join(given, 'someone-elses');
  for (const d of [dead, live, other]) mkdirSync(path.join(d, 'inside'), { recursive: true });
  const { status, out } = runProbe(given);
  expect([status, out]).toEqual([0, expect.stringContaining('1 passed')]);
  expect(readdirSync(given).sort()).toEqual([path.basename(live), 'someone-elses'].sort());
});
