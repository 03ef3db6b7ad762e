import { verifyCommand } from './commands/verify';
import { runWholeCommandLine } from './small-entry';
import { setChunkWorkerEntry } from '../journal/parallel';
import { CHUNK_WORKER_SOURCE } from '../journal/worker/source.generated';

/**
 * The verify entry: the program `dist/cli.js` runs for `stepchain verify`, a check whose whole cost is the
 * process (a 130 MB journal verifies in a few hundred milliseconds, of which compiling the whole CLI's bundle was a
 * sixth). It holds the verify command and what it imports; any command line it does not take (help, options
 * that do not parse) the launcher hands to the whole CLI (./small-entry.ts).
 */
export function runVerify(argv: string[]): boolean {
  if (argv[0] !== verifyCommand.name[0] || verifyCommand.name.length !== 1) return false;
  // Verification worker threads run their own small script, carried here as text (as the whole CLI does).
  setChunkWorkerEntry({ source: CHUNK_WORKER_SOURCE });
  return runWholeCommandLine(verifyCommand, argv.slice(1));
}
