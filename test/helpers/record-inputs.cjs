// Preloaded into the built Action (NODE_OPTIONS=--require) by test/action.yml.test.ts:
// records every INPUT_* variable the Action reads, and writes the names to the file
// named by STEPCHAIN_TEST_INPUT_READS when the process exits.
'use strict';
const { writeFileSync } = require('node:fs');

const real = process.env;
const out = real.STEPCHAIN_TEST_INPUT_READS;
const reads = new Set();
process.env = new Proxy(real, {
  get(target, key) {
    if (typeof key === 'string' && key.startsWith('INPUT_')) reads.add(key);
    return Reflect.get(target, key);
  },
});
process.on('exit', () => {
  if (out) writeFileSync(out, JSON.stringify([...reads].sort()));
});
