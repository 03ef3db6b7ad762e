/** dist/lib/chunk-worker.mjs: a worker thread of the built library walking journal slices. */
import '../journal/worker/main';
