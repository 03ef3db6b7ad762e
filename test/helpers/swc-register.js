// Lets child node processes in tests `require` the TypeScript sources: each .ts
// file is transpiled with @swc/core (the same transform Jest uses) on load.
//
// Under the test suite, the transpiled text is kept in the run's own directory ($STEPCHAIN_TEST_SWC_CACHE, made by
// test/setup/sequencer.js and removed with the run), named by a hash of everything the output depends on: the
// source, its path, the options and @swc/core's version. A child that loads the library transpiled ~230 files each
// time (~0.6 s of CPU; a run starts ~30 such children); with the files kept, it loads neither them nor @swc/core's
// native module again. A directory that is not this user's alone (a link, another owner, anyone else may write) is
// not used, nor one named by a relative path: everything is transpiled as before, as it is outside the suite.
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');

const OPTIONS = {
  jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
  module: { type: 'commonjs' },
};
const SWC_VERSION = require('@swc/core/package.json').version;

const resolveTs = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  try {
    return resolveTs.call(this, request, parent, ...rest);
  } catch (e) {
    for (const ext of ['.ts', '/index.ts']) {
      try {
        return resolveTs.call(this, request + ext, parent, ...rest);
      } catch {
        // not this extension: try the next
      }
    }
    throw e;
  }
};

/** The run's cache directory (made 0700 when missing), or undefined when there is none or it is not safely ours. */
function cacheDir() {
  const dir = process.env.STEPCHAIN_TEST_SWC_CACHE;
  if (dir === undefined || !path.isAbsolute(dir) || typeof process.getuid !== 'function') return undefined;
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (e) {
    if (e.code !== 'EEXIST') return undefined;
  }
  try {
    const st = fs.lstatSync(dir);
    return st.isDirectory() && st.uid === process.getuid() && (st.mode & 0o077) === 0 ? dir : undefined;
  } catch {
    return undefined;
  }
}

let dir;
let swc;
const transpile = (src, filename) => {
  swc ??= require('@swc/core');
  return swc.transformSync(src, { filename, ...OPTIONS }).code;
};

function compiled(src, filename) {
  dir ??= cacheDir() ?? null;
  if (dir === null) return transpile(src, filename);
  const key = createHash('sha256')
    .update(JSON.stringify([SWC_VERSION, OPTIONS, filename]))
    .update('\0')
    .update(src)
    .digest('hex');
  const file = path.join(dir, `${key}.js`);
  try {
    // O_NOFOLLOW: a name in the directory that is a link is not read through (nobody else can put one there).
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    try {
      return fs.readFileSync(fd, 'utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // not kept yet
  }
  const code = transpile(src, filename);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, code, { flag: 'wx', mode: 0o600 });
    fs.renameSync(tmp, file); // whole or not at all: a reader never sees half a file
  } catch {
    fs.rmSync(tmp, { force: true });
  }
  return code;
}

require.extensions['.ts'] = function (module, filename) {
  module._compile(compiled(fs.readFileSync(filename, 'utf8'), filename), filename);
};
