import { isMainThread, workerData } from 'node:worker_threads';
import { isChunkJob, runChunkJob } from '../journal/parallel';

/** dist/lib/chunk-worker.mjs: a worker thread of the built library walking journal slices. */
if (!isMainThread && isChunkJob(workerData)) runChunkJob(workerData);
