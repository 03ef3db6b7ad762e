import path from 'node:path';

export const repoRoot = path.resolve(__dirname, '..', '..');
/** The shared conformance files: beside the repository in development and in CI. */
export const conformanceDir = path.resolve(repoRoot, '..', 'shared', 'conformance');
export const cliPath = path.join(repoRoot, 'dist', 'cli.js');
