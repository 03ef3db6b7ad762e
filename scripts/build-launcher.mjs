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
 * The bin's text: `programs.hook` is the hook entry (a module exporting `runHook(argv)`, true when it took the
 * command line), `programs.main` the whole CLI (a script). Each program is compiled as a CommonJS module of this
 * file (its require, __filename and __dirname), only when it runs. The hook entry is a string literal; the whole
 * CLI is the file's last line, a `//` comment holding it as JSON: V8 skips a comment faster than it scans a string
 * literal of the same length (every hook call scanned the CLI's 1.3 MB as a literal, ~5 ms of a ~30 ms budget), and
 * the CLI reads it back from the file only when it runs. Both texts are pure ASCII, so JSON.stringify writes them
 * with no line terminator and the file reads the same as latin1.
 */
export function launcherSource(programs) {
  for (const [name, text] of Object.entries(programs))
    if (/[^\x00-\x7f]/.test(text)) throw new Error(`build-launcher: the ${name} program is not pure ASCII`);
  return `#!/usr/bin/env node
'use strict';
// stepchain: the CLI and the hook entry, carried as text and compiled only when run (scripts/build-launcher.mjs).
const hook = ${JSON.stringify(programs.hook)};
function run(text) {
  const m = { exports: {} };
  const params = ['exports', 'require', 'module', '__filename', '__dirname'];
  require('node:vm').compileFunction(text, params, { filename: __filename })(m.exports, require, m, __filename, __dirname);
  return m.exports;
}
/** The whole CLI: the JSON of this file's last line, after its \`//\`. */
function main() {
  const own = require('node:fs').readFileSync(__filename, 'latin1');
  return JSON.parse(own.slice(own.lastIndexOf('\\n//', own.length - 2) + 3));
}
const argv = process.argv.slice(2);
if (!(argv[0] === 'hook' && run(hook).runHook(argv))) run(main());
//${JSON.stringify(programs.main)}
`;
}
