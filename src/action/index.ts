import { rememberNamedConfig } from '../git/exec';
import { setChunkWorkerEntry } from '../journal/parallel';
import { CHUNK_WORKER_SOURCE } from '../journal/worker/source.generated';
import { run } from './run';

// The Action's entry point (bundled to dist/index.js; action.yml runs it on node24).
// Verification worker threads run their own small script, carried here as text.
setChunkWorkerEntry({ source: CHUNK_WORKER_SOURCE });
// One run reads the repository's configuration once (src/git/exec.ts says when that is safe).
rememberNamedConfig();
void run();
