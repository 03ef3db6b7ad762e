import { isMainThread, workerData } from 'node:worker_threads';
import { isChunkJob, runChunkJob } from '../parallel';

/**
 * A verification worker thread's whole program: walk the slices it is handed.
 * Bundled alone (scripts/build-worker.mjs) so a thread loads only this, not the CLI.
 */
if (!isMainThread && isChunkJob(workerData)) runChunkJob(workerData);
