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
      '@swc/jest',
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
  globalTeardown: '<rootDir>/test/setup/teardown.js',
  setupFiles: ['<rootDir>/test/setup/state-dir.js'],
  // Most test files wait on child processes (the CLI, git, python3, Chromium): two workers keep both cores of a
  // 2-core machine busy where Jest's default (cores - 1) would run one file at a time.
  maxWorkers: Math.max(2, availableParallelism() - 1),
  testTimeout: 60000,
};
