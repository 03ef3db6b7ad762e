// Every test file gets its own state directory (audit and checkpoint keys), so the suite never writes keys into the
// user's home and test files never share a key. A test that wants another place passes its own env.
const { mkdtempSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');

if (!process.env.STEPCHAIN_TEST_KEEP_STATE) {
  process.env.XDG_STATE_HOME = mkdtempSync(path.join(tmpdir(), 'stepchain-state-'));
}
