import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { isChunkIdle, isChunkJob, runChunkJob } from '../parallel';
import { adoptWasmModule, wasmScanner } from '../wasm/scanner';

/**
 * A verification worker thread's whole program: walk the slices it is handed, at its start (workerData) or,
 * started ahead of its job (prestartChunkWorkers), in the one message it waits for, its scanner made meanwhile.
 * Bundled alone (scripts/build-worker.mjs) so a thread loads only this, not the CLI.
 */
if (!isMainThread && isChunkJob(workerData)) runChunkJob(workerData);
else if (!isMainThread && isChunkIdle(workerData)) {
  adoptWasmModule(workerData.wasm);
  wasmScanner();
  parentPort?.once('message', (job: unknown) => {
    if (isChunkJob(job)) runChunkJob(job);
  });
}
