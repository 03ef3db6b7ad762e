// Every test file gets its own state directory (audit and checkpoint keys), so the suite never writes keys into the
// user's home and test files never share a key. A test that wants another place passes its own env.
const { copyFileSync, linkSync, mkdirSync, mkdtempSync, readdirSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');

if (!process.env.STEPCHAIN_TEST_KEEP_STATE) {
  process.env.XDG_STATE_HOME = mkdtempSync(path.join(tmpdir(), 'stepchain-state-'));
  // The bin's code caches the run made once (sequencer.js, warmCodeCaches), linked in (the launcher replaces a
  // cache by renaming a new file over it, never by writing into it, so no file's change reaches another's).
  const warm = process.env.STEPCHAIN_TEST_CODE_CACHE;
  if (warm !== undefined) {
    const into = path.join(process.env.XDG_STATE_HOME, 'stepchain', 'code-cache');
    mkdirSync(into, { recursive: true, mode: 0o700 });
    for (const f of readdirSync(warm)) {
      try {
        linkSync(path.join(warm, f), path.join(into, f));
      } catch {
        copyFileSync(path.join(warm, f), path.join(into, f));
      }
    }
  }
}

// NODE_EXTRA_CA_CERTS (set on some machines, this workplace's among them) makes every Node process load the
// whole certificate bundle when it starts: ~45 ms of each of the suite's ~750 CLI and Action processes, none
// of which speaks TLS (their servers are local, plain HTTP). It is kept aside for the one test that runs npm
// against a registry (test/package.consumer.test.ts).
if (process.env.NODE_EXTRA_CA_CERTS !== undefined) {
  process.env.STEPCHAIN_TEST_EXTRA_CA_CERTS = process.env.NODE_EXTRA_CA_CERTS;
  delete process.env.NODE_EXTRA_CA_CERTS;
}
