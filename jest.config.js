/** Tests run the TypeScript sources through SWC (no TypeScript JS API needed);
 * ESM-only dependencies (@noble, @actions, @octokit) are transformed too. Before any test,
 * test/setup/sequencer.js regenerates the page script and, when a selected test runs dist/,
 * rebuilds dist/ if it is stale; it also puts the run's temporary files in memory when there is room (removed by
 * test/setup/teardown.js) and starts the longest files first. */
const { availableParallelism } = require('node:os');

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(t|j|mj)sx?$': [
      // @swc/jest, then the globals a module reads bound once in it (see the file: a vm context's are slow to read).
      '<rootDir>/test/setup/swc-globals.js',
      {
        jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
        module: { type: 'commonjs' },
      },
    ],
  },
  transformIgnorePatterns: [
    '/node_modules/(?!(@noble|@actions|@octokit|universal-user-agent|before-after-hook|get-east-asian-width)/)',
  ],
  testSequencer: '<rootDir>/test/setup/sequencer.js',
  // V8's code cache of each module, made by a worker's first test file that loads it (see the file).
  runtime: '<rootDir>/test/setup/runtime.js',
  globalTeardown: '<rootDir>/test/setup/teardown.js',
  setupFiles: ['<rootDir>/test/setup/state-dir.js', '<rootDir>/test/setup/spawner.js'],
  // Test files wait as well as compute: on timers and locks, on their child processes' pipes and syncs, on an
  // agent's retries. Sampled every 100 ms (every process of a file's tree asleep at once), nine of the longest files
  // slept 54 s for 124 s of CPU (report.browser 8.3 s for 20.4, receipt.tar 15.8 for 12.4, check.append-only 8.5
  // for 20.8, claude.session 5.8 for 13.9, lock 5.4 for 6.3, journal.wasm 3.4 for 16.4, action.limits 3.6 for
  // 16.8, rollback 2.0 for 10.0, git.fork 1.1 for 7.1): one worker more than the cores keeps them busy while a file
  // waits. (Jest's default, cores - 1, would run one file at a time on a 2-core machine.)
  maxWorkers: availableParallelism() + 1,
  testTimeout: 60000,
};
