#!/usr/bin/env node
import { errorDocument, StepchainError } from '../errors';
import { setChunkWorkerEntry } from '../journal/parallel';
import { CHUNK_WORKER_SOURCE } from '../journal/worker/source.generated';
import { assertCommandLineText } from './argv-text';
import { exitQuietlyOnClosedPipe, jsonDocument, processIO, type CommandIO } from './io';
import { runCli } from './main';
import { clipLine, sanitize } from '../util/terminal';
import { isAppendWorker, runAppendWorker, setAppendWorkerEntry } from '../proxy/append-worker';

// The single-file bundle's entry (dist/cli.js). Verification worker threads run
// their own small script, carried here as text.
setChunkWorkerEntry({ source: CHUNK_WORKER_SOURCE });
// `stepchain record` appends on a worker thread running this same file (src/proxy/append-worker.ts).
setAppendWorkerEntry(process.argv[1]);
if (isAppendWorker()) runAppendWorker();
else main();

function main(): void {
  exitQuietlyOnClosedPipe();
  const argv = process.argv.slice(2);
  let io: CommandIO | undefined;
  try {
    assertCommandLineText();
    io = processIO();
  } catch (e) {
    // An argument that is not UTF-8, or no usable current directory (removed under the shell): one line, exit 2, as
    // any input error.
    if (!(e instanceof StepchainError)) throw e;
    if (argv.includes('--json')) process.stdout.write(`${jsonDocument(errorDocument(e))}\n`);
    process.stderr.write(`stepchain: ${clipLine(sanitize(e.message))}\n`);
    // `hook claude` never exits 2 (Claude Code reads 2 as "block the tool call"): its failures are 1.
    process.exitCode = argv[0] === 'hook' ? 1 : e.exitCode;
  }
  if (io !== undefined)
    void runCli(argv, io).then((code) => {
      process.exitCode = code;
    });
}
