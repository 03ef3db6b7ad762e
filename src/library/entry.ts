import { fileURLToPath } from 'node:url';
import { setChunkWorkerEntry } from '../journal/parallel';

/**
 * The built library's entry (dist/lib/index.mjs, bundled by scripts/build.mjs): the
 * public API of src/index.ts, plus the worker file that lets a large journal be
 * verified in parallel slices (dist/lib/chunk-worker.mjs, from ./chunk-worker.ts).
 */
export * from '../index';

setChunkWorkerEntry(fileURLToPath(new URL('./chunk-worker.mjs', import.meta.url)));
