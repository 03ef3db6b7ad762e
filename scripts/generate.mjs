// The generated modules that are not committed (src/**/*.generated.ts but the WebAssembly
// scanner's): the report page script, the verification worker's script and the Sigstore program. `npm ci` (prepare),
// `npm run typecheck`, `npm run build` and the test setup run this first.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPage } from './build-page.mjs';
import { buildWorkerSource } from './build-worker.mjs';
import { buildSigstoreSource } from './build-sigstore.mjs';

export async function generate() {
  await Promise.all([buildPage(), buildWorkerSource(), buildSigstoreSource()]);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await generate();
}
