// Runs before any test file: regenerates the report page script and the worker script (cheap, written only when they
// changed), and when a selected test file runs the built bundles (dist/cli.js, dist/index.js,
// dist/lib, or the packed package) rebuilds dist/ if an input changed since its last build
// (scripts/build.mjs --if-stale), so a stale bundle is never what a test runs; when one runs a real agent, the
// pinned agents are installed into their cache (test/agents/install.mjs, nothing when they are there already). Unit tests on the
// sources alone do not wait for a build. Then Jest's own order.
const { spawnSync } = require('node:child_process');
const { existsSync, readFileSync } = require('node:fs');
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

class BuildFirst extends Sequencer {
  async sort(tests) {
    node([path.join(root, 'scripts', 'generate.mjs')]);
    if (tests.some((t) => usesDist(t.path))) node([path.join(root, 'scripts', 'build.mjs'), '--if-stale']);
    if (tests.some((t) => usesAgents(t.path))) node([path.join(root, 'test', 'agents', 'install.mjs')]);
    return super.sort(tests);
  }
}

module.exports = BuildFirst;
