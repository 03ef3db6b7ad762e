// After the last test file: removes the run's temporary directory (made by test/setup/sequencer.js).
const { rmSync } = require('node:fs');

module.exports = () => {
  // The transpile cache the sequencer made outside the run's directory (when the run has none in memory).
  if (process.env.STEPCHAIN_TEST_SWC_CACHE_OWN === '1' && process.env.STEPCHAIN_TEST_SWC_CACHE !== undefined)
    rmSync(process.env.STEPCHAIN_TEST_SWC_CACHE, { recursive: true, force: true });
  // The bin's code caches, made there too when the run has no directory of its own (sequencer.js, warmCodeCaches).
  if (process.env.STEPCHAIN_TEST_CODE_CACHE_OWN !== undefined)
    rmSync(process.env.STEPCHAIN_TEST_CODE_CACHE_OWN, { recursive: true, force: true });
  const dir = process.env.STEPCHAIN_TEST_RUN_TMP;
  if (dir === undefined) return;
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch (e) {
    // A file a test made as another user, say: the next run removes what is left (sequencer.js, ramTmpDir).
    console.warn(`test teardown: ${dir} not removed: ${e.message}`);
  }
};
