#!/usr/bin/env node
import { isMainThread, workerData } from 'node:worker_threads';
import { isChunkJob, runChunkJob, setChunkWorkerEntry } from '../journal/parallel';
import { exitQuietlyOnClosedPipe } from './io';
import { runCli } from './main';

// The single-file bundle's entry (dist/cli.js). The same file runs journal
// verification slices when started as a worker thread.
if (!isMainThread && isChunkJob(workerData)) {
  runChunkJob(workerData);
} else {
  setChunkWorkerEntry(__filename);
  exitQuietlyOnClosedPipe();
  void runCli(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
