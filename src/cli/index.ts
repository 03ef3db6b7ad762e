#!/usr/bin/env node
import { isMainThread, workerData } from 'node:worker_threads';
import { errorDocument, StepchainError } from '../errors';
import { isChunkJob, runChunkJob, setChunkWorkerEntry } from '../journal/parallel';
import { exitQuietlyOnClosedPipe, jsonDocument, processIO, type CommandIO } from './io';
import { runCli } from './main';

// The single-file bundle's entry (dist/cli.js). The same file runs journal
// verification slices when started as a worker thread.
if (!isMainThread && isChunkJob(workerData)) {
  runChunkJob(workerData);
} else {
  setChunkWorkerEntry(__filename);
  exitQuietlyOnClosedPipe();
  const argv = process.argv.slice(2);
  let io: CommandIO | undefined;
  try {
    io = processIO();
  } catch (e) {
    // No usable current directory (removed under the shell): one line, exit 2, as any input error.
    if (!(e instanceof StepchainError)) throw e;
    if (argv.includes('--json')) process.stdout.write(`${jsonDocument(errorDocument(e))}\n`);
    process.stderr.write(`stepchain: ${e.message}\n`);
    // `hook claude` never exits 2 (Claude Code reads 2 as "block the tool call"): its failures are 1.
    process.exitCode = argv[0] === 'hook' ? 1 : e.exitCode;
  }
  if (io !== undefined)
    void runCli(argv, io).then((code) => {
      process.exitCode = code;
    });
}
