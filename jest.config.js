/** Tests run the TypeScript sources through SWC (no TypeScript JS API needed);
 * ESM-only dependencies (@noble, @actions, @octokit) are transformed too. Before any test,
 * test/setup/sequencer.js regenerates the page script and, when a selected test runs dist/,
 * rebuilds dist/ if it is stale. */
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
  testTimeout: 60000,
};
