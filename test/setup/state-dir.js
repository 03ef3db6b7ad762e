// Every test file gets its own state directory (audit and checkpoint keys), so the suite never writes keys into the
// user's home and test files never share a key. A test that wants another place passes its own env.
const { mkdtempSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');

if (!process.env.STEPCHAIN_TEST_KEEP_STATE) {
  process.env.XDG_STATE_HOME = mkdtempSync(path.join(tmpdir(), 'stepchain-state-'));
}

// NODE_EXTRA_CA_CERTS (set on some machines, this workplace's among them) makes every Node process load the
// whole certificate bundle when it starts: ~45 ms of each of the suite's ~750 CLI and Action processes, none
// of which speaks TLS (their servers are local, plain HTTP). It is kept aside for the one test that runs npm
// against a registry (test/package.consumer.test.ts).
if (process.env.NODE_EXTRA_CA_CERTS !== undefined) {
  process.env.STEPCHAIN_TEST_EXTRA_CA_CERTS = process.env.NODE_EXTRA_CA_CERTS;
  delete process.env.NODE_EXTRA_CA_CERTS;
}
