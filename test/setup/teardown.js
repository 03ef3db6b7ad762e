// After the last test file: removes the run's temporary directory (made by test/setup/sequencer.js).
const { rmSync } = require('node:fs');

module.exports = () => {
  const dir = process.env.STEPCHAIN_TEST_RUN_TMP;
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
};
