// Jest's module runtime, with V8's code cache for the modules it compiles, kept for the worker's later test files.
//
// Why: every test file loads its modules anew (a registry of its own), and Jest compiles each module's transformed
// source from its text each time (vm.compileFunction, no cache): the library's ~300 modules parsed again by each of
// the ~100 files that load the CLI or most of the library, ~100 ms of each such file (a profile of six files that
// load the CLI: 594 ms of 2.3 s in the compile). A worker runs one test file after another: the first compile of a
// module makes V8's cache of it, and a later file's compile of the same source (Jest hands out the same transformed
// text) starts from that cache. V8 checks a cache against the source it is given and rejects one that does not
// match; the module then compiles from its text, as it does without this. Measured on 22 files of the suite, three
// workers: 10.1-11.1 s of CPU against 11.7-12.2 s without.
//
// The cache holds what V8 compiles when the module is compiled (its wrapper); functions compiled later, when first
// called, compile as they did.
const vm = require('node:vm');
const Runtime = require('jest-runtime').default;

/** This worker's caches by module (its file and the wrapper's parameters): the source compiled and V8's cache. */
const held = new Map();

const compileFunction = vm.compileFunction;
/** Whether the runtime is in use in this worker (a test file's runtime was made): only then is a compile cached. */
let inUse = false;

vm.compileFunction = function cachedCompileFunction(code, params, options) {
  // Jest's compiles of a module into a test file's context; any other caller's is left as it was.
  if (!inUse || options?.parsingContext === undefined || options.cachedData !== undefined)
    return compileFunction.call(this, code, params, options);
  const name = `${options.filename}\0${(params ?? []).join(',')}`;
  const mine = held.get(name);
  if (mine !== undefined && mine.code === code) {
    const fn = compileFunction.call(this, code, params, { ...options, cachedData: mine.data });
    if (!fn.cachedDataRejected) return fn;
  }
  const fn = compileFunction.call(this, code, params, { ...options, produceCachedData: true });
  // A copy: the Buffer the cache comes in, kept as it is, keeps the test file it was made in alive (its context, its
  // module registry, what its tests held) for the rest of the worker. Measured: a file's 100 MB array still in the
  // heap after four later files (test/review.stop64.test.ts); 40 files in band, 321 MB of heap after GC at the end
  // against 105 MB without this runtime.
  if (fn.cachedData !== undefined) held.set(name, { code, data: Buffer.from(fn.cachedData) });
  return fn;
};

class CachedRuntime extends Runtime {
  constructor(...args) {
    super(...args);
    inUse = true;
  }
}

module.exports = CachedRuntime;
