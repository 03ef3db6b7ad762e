import { createRequire, isBuiltin } from 'node:module';
import { compileFunction } from 'node:vm';
import type * as SigstoreProgram from './sigstore-program';
import { SIGSTORE_PROGRAM_SOURCE } from './sigstore-program.generated';

export type Sigstore = typeof SigstoreProgram;

let loaded: Sigstore | undefined;

/**
 * The Sigstore packages (./sigstore-program.ts), compiled from the text the
 * bundle carries on first use: only a command that signs or checks a keyless
 * receipt pays for them. The same text runs from the sources and from the
 * bundles. It requires Node's own modules only; the optional packages left out
 * of it (a charset converter its HTTP client tries in a `try`, a dynamic import
 * on a path we never take) are not found, as they were not in the bundle.
 */
export function sigstore(): Sigstore {
  if (loaded !== undefined) return loaded;
  const nodeRequire = createRequire(process.execPath);
  const builtinsOnly = (id: string): unknown => {
    if (isBuiltin(id)) return nodeRequire(id) as unknown;
    throw Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' });
  };
  const module = { exports: {} as Sigstore };
  const params = ['exports', 'require', 'module'];
  compileFunction(SIGSTORE_PROGRAM_SOURCE, params, { filename: 'stepchain-sigstore.js' })(
    module.exports,
    builtinsOnly,
    module,
  );
  loaded = module.exports;
  return loaded;
}
