import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { isChunkIdle, isChunkJob, isChunkScanner, runChunkJob } from '../parallel';
import { adoptWasmModule, wasmScanner } from '../wasm/scanner';

/**
 * A verification worker thread's whole program: walk the slices it is handed, at its start (workerData) or,
 * started ahead of its job (prestartChunkWorkers), in the job message it waits for, its scanner made meanwhile.
 * Bundled alone (scripts/build-worker.mjs) so a thread loads only this, not the CLI.
 */
if (!isMainThread && isChunkJob(workerData)) runChunkJob(workerData);
else if (!isMainThread && isChunkIdle(workerData)) {
  // The scanner comes with the idle data or as a message before the job (prestartChunkWorkers), and is made while
  // the thread waits for its job; a job that finds none made makes it from the job's own.
  if (workerData.wasm !== undefined) {
    adoptWasmModule(workerData.wasm);
    wasmScanner();
  }
  const onMessage = (message: unknown): void => {
    if (isChunkScanner(message)) {
      adoptWasmModule(message.wasm);
      wasmScanner();
    } else if (isChunkJob(message)) {
      parentPort?.off('message', onMessage);
      runChunkJob(message);
    }
  };
  parentPort?.on('message', onMessage);
}
