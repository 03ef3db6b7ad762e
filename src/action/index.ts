import { isMainThread, workerData } from 'node:worker_threads';
import { isChunkJob, runChunkJob, setChunkWorkerEntry } from '../journal/parallel';
import { run } from './run';

// The Action's entry point (bundled to dist/index.js; action.yml runs it on node24).
// The same file runs journal verification slices when started as a worker thread.
if (!isMainThread && isChunkJob(workerData)) {
  runChunkJob(workerData);
} else {
  setChunkWorkerEntry(__filename);
  void run();
}
