// The tests' transform: @swc/jest (TypeScript to CommonJS), then each module's reads of the language's and Node's
// global objects made module-scope bindings.
//
// Why: Jest runs each test file's modules in a vm context of its own, and there every read of a global name (`Math`,
// `Number`, `Buffer`, ...) goes through the context's interceptors into C++: ~0.18 us a read on this kind of machine,
// against ~0.006 us in a plain Node process (2 million `Math.imul` calls: 356 ms against 13; measured Dec 7 with
// node:vm, Node 20). The library's hot loops read them per byte, per digest, per value (a DigestSet's hash, the
// canonical encoder's checks): held-manifest's tests spent 10 of their 22 s reading `Math` (a receipt helper's
// profile). The product runs in a plain process, where the two are the same; here a binding made once per module,
// `const Math = globalThis.Math`, is read like any other variable.
//
// What is bound is the same object the global name holds when the module is loaded (a test that spies on
// `Math.random` or sets `process.env` changes the object, seen either way); no name a test may replace is bound
// (`Date`, the timers, `queueMicrotask`, `performance`: Jest's fake timers put their own in place after modules are
// loaded). `globalThis` itself cannot be bound this way (its own initializer would read the new binding); `undefined`
// needs no binding (V8 reads it as a constant). `Infinity`, `isNaN` and `process` are as slow as `Math` there. A name the module declares itself is left
// alone (a second declaration would not load: the failure is loud, never a wrong value).
const swcJest = require('@swc/jest');

const GLOBALS = [
  'AggregateError',
  'Array',
  'ArrayBuffer',
  'Atomics',
  'BigInt',
  'BigInt64Array',
  'BigUint64Array',
  'Boolean',
  'Buffer',
  'DataView',
  'decodeURIComponent',
  'encodeURIComponent',
  'Error',
  'EvalError',
  'Float32Array',
  'Float64Array',
  'Function',
  'Infinity',
  'Int16Array',
  'Int32Array',
  'Int8Array',
  'Intl',
  'isFinite',
  'isNaN',
  'JSON',
  'Map',
  'Math',
  'NaN',
  'Number',
  'Object',
  'parseFloat',
  'parseInt',
  'process',
  'Promise',
  'Proxy',
  'RangeError',
  'Reflect',
  'RegExp',
  'Set',
  'SharedArrayBuffer',
  'String',
  'Symbol',
  'SyntaxError',
  'TextDecoder',
  'TextEncoder',
  'TypeError',
  'Uint16Array',
  'Uint32Array',
  'Uint8Array',
  'Uint8ClampedArray',
  'URIError',
  'WeakMap',
  'WeakSet',
];

/** Bumped when what this adds changes (Jest's cache key). */
const VERSION = 'swc-globals 3';

function bindings(code) {
  const names = GLOBALS.filter(
    (n) =>
      new RegExp(`\\b${n}\\b`).test(code) &&
      // Declared by the module itself somewhere, by name or in a destructuring (even nested: looked for, not
      // parsed): left as it is.
      !new RegExp(`\\b(?:const|let|var|function|class)\\s+${n}\\b`).test(code) &&
      !new RegExp(`\\b(?:const|let|var)\\s*[{[][^=;]*\\b${n}\\b[^=;]*[}\\]]\\s*=`).test(code),
  );
  return names.length === 0 ? '' : `const { ${names.join(', ')} } = globalThis;`;
}

module.exports = {
  createTransformer(options) {
    const base = swcJest.createTransformer(options);
    return {
      ...base,
      process(src, filename, jestOptions) {
        const out = base.process(src, filename, jestOptions);
        const add = bindings(out.code);
        if (add === '') return out;
        // On the first line, after "use strict" when it is there: the source map's lines stay right.
        const strict = /^(["'])use strict\1;/.exec(out.code);
        const at = strict === null ? 0 : strict[0].length;
        return { ...out, code: `${out.code.slice(0, at)}${add}${out.code.slice(at)}` };
      },
      getCacheKey(...args) {
        return `${base.getCacheKey(...args)}:${VERSION}`;
      },
    };
  },
};
