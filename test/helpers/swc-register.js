// Lets child node processes in tests `require` the TypeScript sources: each .ts
// file is transpiled with @swc/core (the same transform Jest uses) on load.
const { transformSync } = require('@swc/core');
const fs = require('node:fs');
const Module = require('node:module');

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
require.extensions['.ts'] = function (module, filename) {
  const src = fs.readFileSync(filename, 'utf8');
  const { code } = transformSync(src, {
    filename,
    jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};
