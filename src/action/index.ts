import { run } from './run';

// The Action's entry point (bundled to dist/index.js; action.yml runs it on node24).
void run();
