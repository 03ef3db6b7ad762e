// The spawner of one Jest worker (test/setup/spawner.js): a small process that makes the worker's synchronous spawns
// for it. It reads requests (a 4-byte length, then v8.serialize({ options, cwd, umask }): the options the worker's
// spawnSync, execFileSync or execSync handed to Node's spawn_sync binding) from the FIFO named by argv[2], runs each
// with the same binding, and writes back the binding's result (same framing) to the FIFO named by argv[3]. It ends
// when the worker does (end of file on the requests), quietly.
'use strict';
const fs = require('node:fs');
const v8 = require('node:v8');

const [requests, results] = process.argv.slice(2);
const binding = process.binding('spawn_sync');

function readFull(fd, buf) {
  for (let at = 0; at < buf.length;) {
    const n = fs.readSync(fd, buf, at, buf.length - at, null);
    if (n === 0) process.exit(0);
    at += n;
  }
}

function writeFull(fd, buf) {
  for (let at = 0; at < buf.length;) at += fs.writeSync(fd, buf, at, buf.length - at);
}

try {
  // The worker holds the results' read end open already: this open does not wait. One byte says the spawner is up.
  const out = fs.openSync(results, 'w');
  writeFull(out, Buffer.from([1]));
  const inp = fs.openSync(requests, 'r');
  const head = Buffer.alloc(4);
  for (;;) {
    readFull(inp, head);
    const body = Buffer.allocUnsafe(head.readUInt32LE(0));
    readFull(inp, body);
    const { options, cwd, umask } = v8.deserialize(body);
    process.umask(umask);
    let result;
    try {
      result = binding.spawn({ ...options, cwd: options.cwd ?? cwd });
    } catch (e) {
      result = { thrown: e instanceof Error ? e.message : String(e) };
    }
    const data = v8.serialize(result);
    const len = Buffer.alloc(4);
    len.writeUInt32LE(data.length);
    writeFull(out, Buffer.concat([len, data]));
  }
} catch {
  // The worker went away (a write with no reader): nothing to report to anyone.
  process.exit(0);
}
