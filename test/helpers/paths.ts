import path from 'node:path';

export const repoRoot = path.resolve(__dirname, '..', '..');
/** The conformance vectors written by the reference implementation (see test/fixtures/conformance/README.md). */
export const conformanceDir = path.join(repoRoot, 'test', 'fixtures', 'conformance');
export const cliPath = path.join(repoRoot, 'dist', 'cli.js');
