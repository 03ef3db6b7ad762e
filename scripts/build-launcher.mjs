// The `stepchain` bin (dist/cli.js) is one file that carries its programs as text and compiles only the one a
// command line runs: V8 scans a string literal far faster than it pre-parses code, so a program that does not run
// costs its bytes' reading, not its compilation. `hook <agent>` (what an agent starts, and waits for, on every tool
// call) runs the hook entry (src/cli/hook-entry.ts, a small bundle) and falls back to the whole CLI for any command
// line the entry does not take (help, an unknown agent, options that do not parse): the same command line, nothing
// read or printed yet.
import { build } from 'esbuild';
import path from 'node:path';

/** The hook entry as one small CommonJS program (it exports `runHook`). */
export async function bundleHookEntry(root) {
  const result = await build({
    entryPoints: [path.join(root, 'src', 'cli', 'hook-entry.ts')],
    bundle: true,
    write: false,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    minify: true,
    keepNames: true,
    charset: 'ascii',
    legalComments: 'eof',
    logLevel: 'warning',
  });
  return result.outputFiles[0].text;
}

/**
 * The bin's text: `programs.main` is the whole CLI (a script), `programs.hook` the hook entry (a module exporting
 * `runHook(argv)`, true when it took the command line). Each program is compiled as a CommonJS module of this file
 * (its require, __filename and __dirname), only when it runs. Both texts are pure ASCII, so JSON.stringify writes
 * them as JavaScript string literals.
 */
export function launcherSource(programs) {
  return `#!/usr/bin/env node
'use strict';
// stepchain: the CLI and the hook entry, carried as text and compiled only when run (scripts/build-launcher.mjs).
const programs = { hook: ${JSON.stringify(programs.hook)}, main: ${JSON.stringify(programs.main)} };
function load(name) {
  const m = { exports: {} };
  const params = ['exports', 'require', 'module', '__filename', '__dirname'];
  require('node:vm').compileFunction(programs[name], params, { filename: __filename })(m.exports, require, m, __filename, __dirname);
  return m.exports;
}
const argv = process.argv.slice(2);
if (!(argv[0] === 'hook' && load('hook').runHook(argv))) load('main');
`;
}
