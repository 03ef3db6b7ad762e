// Synchronous and asynchronous child processes of a Jest worker are started by a small process of its own
// (./spawner.py).
//
// Node starts every child with fork(): the kernel copies the parent's page tables and write-protects all of its
// memory, and afterwards each page the parent writes faults once more. A Jest worker is a large process (100-300 MB
// resident), and on this kind of machine a page fault is dear (a VM in a VM: ~13 us for a fresh page, ~29 us for a
// page written after a fork, measured): after one spawnSync, writing 100 MB of a process's memory again took 740 ms
// (25,600 faults); a spawnSync of `true` took 10-17 ms from a bare Node process, 20-40 from one of 100 MB and 55-90
// from one of 250 MB, against ~3 ms from Python, whose subprocess starts a child with vfork (no copy, no faults).
// Test files that run git or the CLI spent half their own CPU so (git.tree-diff: 65,000 faults, 1.8 s of system time
// in 3.6 s).
//
// Every synchronous spawn (spawnSync, execFileSync and execSync all end in Node's spawn_sync binding, with options
// already checked and normalised) is sent to the spawner, which makes it as the binding would: the same program
// (found on the child's PATH), arguments, environment, working directory (the worker's when none is given), umask,
// stdio, input, timeout, maxBuffer and kill signal, and the binding's result (status, signal, pid, output, error as a
// negative errno), with libuv's stdio (socketpairs, /dev/null read-only as stdin, inherited 0-2 made blocking, no
// descriptor closed) and glibc's execvp (PATH search). A spawn that asks for another user or group, or whose stdio names
// a descriptor other than 0-2 (the spawner's are the worker's own) or a handle, or whose environment names a variable
// twice, runs in the worker as before; so does one the spawner finds it cannot run as Node would (a program without
// `#!`, which glibc runs with /bin/sh; a worker whose working directory is gone).
//
// Every asynchronous spawn (spawn, execFile, exec: a ChildProcess, whose spawn calls the process_wrap binding's
// Process#spawn with the stdio pipes it made) whose stdio is those pipes, ignored or the worker's 0-2 (no IPC channel,
// no stream of the worker's), and that asks for no other user, group or session, is started by the spawner too (2,033
// of the suite's 2,317 were git, from src/git/exec.ts's gitStream): its pipes are the spawner's, which the worker opens
// again by their /proc entries and gives to the handles Node made; the spawner tells each child's end (code, or signal)
// on a FIFO the worker reads, leaving it a zombie until the worker takes that end, has it reaped and calls Node's
// onexit with it, as libuv would. kill() is asked of the spawner (it knows whether the child is still its own); ref,
// unref and hasRef keep the worker alive while a child it has not unref'd runs, as libuv's process handle does. One
// difference is left: the child's pipes are pipes, not libuv's socketpairs (a child can open /dev/stdin, cannot write
// to its stdin); nothing in the suite asks. A spawn the spawner cannot start as Node would (a program or working
// directory not there, ...) runs in the worker, which gives Node's own error, events and streams.
//
// test/setup.spawner.test.ts compares the two ways on each kind of case. STEPCHAIN_TEST_SPAWNER=off turns it off, =sync
// leaves asynchronous spawns in the worker; if the spawner cannot start (python3 and mkfifo are taken from the PATH the
// worker started with), or is gone before a request reached it, spawns run in the worker as before. A spawner that
// ends after it took a request fails that call (the command may have run: it is never run a second time); one that
// ends while asynchronous children run fails each of them (an 'error' event, spawn EIO: their ends are not known).
// Every module it uses is required here, when the file is set up: under --runInBand the spawner is connected (on the
// first spawn) from a later test file than the one it was installed in, whose `require` Jest refuses once that file's
// environment is torn down.
const cp = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const net = require('node:net');
const path = require('node:path');

const INSTALLED = Symbol.for('stepchain.test.spawner');
const binding = process.binding('spawn_sync');

/** Sleeps `ms` milliseconds without the event loop (the worker is inside a synchronous call). */
const pause = (() => {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  return (ms) => Atomics.wait(cell, 0, 0, ms);
})();

/** A wait while the spawner starts: short first (it is usually up within tens of ms), growing to 2 ms. */
function backoff() {
  let ms = 0.05;
  return () => {
    pause(ms);
    ms = Math.min(2, ms * 2);
  };
}

/** A string as the bytes Node's binding gives the child (UTF-8, a lone surrogate as U+FFFD), one character a byte. */
const bytes = (s) => Buffer.from(String(s)).toString('latin1');

/**
 * The worker's working directory as the kernel has it (what Node's child inherits), not `process.cwd()`: a module run
 * in the worker may replace that with a cache of its own (graceful-fs, loaded with the @sigstore packages
 * receipt.keyless imports, caches it until a chdir made through its own replacement), and a chdir made another way then
 * went unseen (the spawner ran children in the directory the worker had left). Undefined when the directory is gone
 * (or renamed away).
 */
function kernelCwd() {
  try {
    const dir = fs.readlinkSync('/proc/self/cwd');
    const here = fs.statSync('/proc/self/cwd');
    const there = fs.statSync(dir);
    return here.dev === there.dev && here.ino === there.ino ? dir : undefined;
  } catch {
    return undefined;
  }
}

/** A request for the spawner: what the binding reads of its options (src/spawn_sync.cc, ParseOptions), and the input;
 * undefined when the worker has no working directory (deleted): Node's child starts in it, the spawner cannot. */
function request(options, kind) {
  const workerCwd = kernelCwd();
  if (workerCwd === undefined) return undefined;
  const input = options.stdio[0]?.input;
  const data = input === undefined ? Buffer.alloc(0) : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  const header = {
    kind,
    file: bytes(options.file),
    args: Array.from(options.args ?? [], bytes),
    workerCwd: bytes(workerCwd),
    cwd: options.cwd == null ? null : bytes(options.cwd),
    envPairs: Array.from(options.envPairs ?? [], bytes),
    detached: options.detached === true,
    timeout: options.timeout > 0 ? options.timeout : 0,
    maxBuffer: Number.isFinite(options.maxBuffer) ? options.maxBuffer : 0,
    killSignal: options.killSignal,
    stdio: options.stdio.map((s) => ({ type: s.type, fd: s.fd })),
    umask: process.umask(),
    inputLength: data.length,
  };
  return frame(header, data);
}

/** Whether two of the environment's entries name one variable (`{'A=B': 1, A: 2}`: "A=B=1" and "A=2"): Node gives the
 * child both; the spawner's Python takes a mapping. */
function envTwice(pairs) {
  const names = new Set();
  for (const pair of pairs ?? []) {
    const name = String(pair).split('=', 1)[0];
    if (names.has(name)) return true;
    names.add(name);
  }
  return false;
}

const forwardable = (options) =>
  options.uid === undefined &&
  !envTwice(options.envPairs) &&
  options.gid === undefined &&
  Array.isArray(options.stdio) &&
  options.stdio.length <= 3 &&
  options.stdio.every(
    (s) =>
      s.type === 'pipe' || s.type === 'ignore' || s.type === 'inherit' || (s.type === 'fd' && s.fd >= 0 && s.fd <= 2),
  );

/** `name` on the PATH the worker started with (a test may change process.env.PATH later, or put a stand-in there). */
function which(name) {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const file = path.join(dir || '.', name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (path.isAbsolute(file) && fs.statSync(file).isFile()) return file;
    } catch {
      // not there
    }
  }
  return undefined;
}
// The interpreter test/setup/sequencer.js found for the run (`python3` on the PATH, past a version manager's shim).
const runPython = process.env.STEPCHAIN_TEST_PYTHON;
const PROGRAMS = {
  python3: runPython !== undefined && path.isAbsolute(runPython) ? runPython : which('python3'),
  mkfifo: which('mkfifo'),
};
const ENV = { ...process.env };

/** Whether process `pid` has ended (a zombie: the worker reaps nothing while it waits here). */
function ended(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch (e) {
    return e.code === 'ENOENT';
  }
}

/** The spawner's ends: requests written to `req`, results read from `res` (both blocking); undefined: none. */
function connect() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stepchain-spawner-'));
  const req = path.join(dir, 'req');
  const res = path.join(dir, 'res');
  const exits = path.join(dir, 'exits');
  let child;
  let fds = [];
  try {
    if (PROGRAMS.python3 === undefined || PROGRAMS.mkfifo === undefined) return undefined;
    const made = cp.spawnSync(PROGRAMS.mkfifo, ['-m', '600', req, res, exits], { env: ENV });
    if (made.status !== 0) return undefined;
    const resFd = fs.openSync(res, O_RDONLY | O_NONBLOCK);
    fds.push(resFd);
    // Opened before the spawner opens it for writing (before it writes the byte awaited below), kept by the worker.
    const exitsFd = fs.openSync(exits, O_RDONLY | O_NONBLOCK);
    fds.push(exitsFd);
    child = cp.spawn(PROGRAMS.python3, ['-I', '-S', path.join(__dirname, 'spawner.py'), req, res, exits], {
      // The worker's stdio, process group and session: its children get what the worker's would.
      stdio: 'inherit',
      env: ENV,
    });
    child.on('error', () => {}); // told after this call, which has seen no pid
    child.unref();
    if (child.pid === undefined) return undefined;
    const deadline = Date.now() + 20_000;
    const ready = Buffer.alloc(1);
    // Until the spawner opens the results for writing, a read finds no writer and returns 0: not yet.
    for (const wait = backoff(); ; wait()) {
      if (Date.now() > deadline || ended(child.pid)) return undefined;
      try {
        if (fs.readSync(resFd, ready, 0, 1, null) === 1) break;
      } catch (e) {
        if (e.code !== 'EAGAIN') throw e;
      }
    }
    let reqFd;
    for (const wait = backoff(); reqFd === undefined; wait()) {
      if (Date.now() > deadline || ended(child.pid)) return undefined;
      try {
        reqFd = fs.openSync(req, O_WRONLY | O_NONBLOCK);
      } catch (e) {
        if (e.code !== 'ENXIO') throw e; // no reader yet
      }
    }
    // Both ends are there now, so blocking opens return at once: a request then waits for the spawner's answer in
    // read(2) (the end of file when it ends), not in a loop of sleeps and retries.
    const link = { req: fs.openSync(req, O_WRONLY), res: fs.openSync(res, O_RDONLY), exits: exitsFd, pid: child.pid };
    fs.closeSync(reqFd);
    fs.closeSync(resFd);
    fds = [];
    return link;
  } catch {
    return undefined;
  } finally {
    for (const fd of fds) fs.closeSync(fd);
    if (fds.length > 0) child?.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function writeAll(fd, buf) {
  for (let at = 0; at < buf.length;) at += fs.writeSync(fd, buf, at, buf.length - at);
}

function readAll(fd, buf) {
  for (let at = 0; at < buf.length;) {
    const n = fs.readSync(fd, buf, at, buf.length - at, null);
    if (n === 0) throw new Error('the test spawner (test/setup/spawner.js) ended during a spawn');
    at += n;
  }
}

/** A message for the spawner: a 4-byte length, the JSON header, then `data`. */
function frame(header, data = Buffer.alloc(0)) {
  const text = Buffer.from(JSON.stringify(header));
  const head = Buffer.alloc(4);
  head.writeUInt32LE(text.length);
  return Buffer.concat([head, text, data]);
}

/** The header of the spawner's next answer (throws when the spawner has ended). */
function answer(link) {
  const head = Buffer.alloc(4);
  readAll(link.res, head);
  const text = Buffer.allocUnsafe(head.readUInt32LE(0));
  readAll(link.res, text);
  return JSON.parse(text.toString());
}

/** What an asynchronous spawn (Node's process_wrap binding: lib/internal/child_process.js, ChildProcess#spawn) asks
 * that the spawner can give as libuv would: stdio pipes Node made, ignored, or the worker's 0-2; no IPC channel (its
 * pipe is Node's own protocol), no other user or group, no session of its own, an environment given. */
const forwardableAsync = (options) =>
  options.uid === undefined &&
  options.gid === undefined &&
  options.detached !== true &&
  typeof options.file === 'string' &&
  Array.isArray(options.envPairs) &&
  !envTwice(options.envPairs) &&
  Array.isArray(options.stdio) &&
  options.stdio.length === 3 &&
  options.stdio.every(
    (s) =>
      (s.type === 'pipe' && s.handle !== undefined && s.ipc !== true) ||
      s.type === 'ignore' ||
      s.type === 'inherit' ||
      (s.type === 'fd' && s.fd >= 0 && s.fd <= 2),
  );

const { O_RDONLY, O_WRONLY, O_NONBLOCK } = fs.constants;
const ENDED = 'the test spawner (test/setup/spawner.js) ended during a spawn';
// Captured now: a test file's fake timers replace its realm's process.nextTick and setImmediate, and a later file's
// spawns still run this file's code.
const { nextTick, kill: processKill } = process;
const { setImmediate: immediately } = require('node:timers');
const UV_EIO = -os.constants.errno.EIO;

function install() {
  const local = binding.spawn;
  const processWrap = process.binding('process_wrap').Process.prototype;
  const localAsync = processWrap.spawn;
  let link; // undefined: not started yet; null: none (spawns run in the worker)
  let exits; // the spawner's reports of its asynchronous children's ends (a net.Socket on its FIFO)
  /** The asynchronous children the spawner runs, by pid, until their ends are given to Node. */
  const children = new Map();

  /** Keeps the worker alive while a child it has not unref'd runs (libuv: an active process handle), no longer. */
  function refresh() {
    if ([...children.values()].some((c) => c.ref && !c.ended)) exits.ref();
    else exits.unref();
  }

  /** Node's onexit, as libuv calls it: (exit code, signal name), or (negative errno) for a child whose end is unknown.
   * A listener that throws throws as it would from libuv's callback, and the other ends are still given. */
  function ended(child, status, signal) {
    if (child.ended) return;
    child.ended = true;
    refresh();
    try {
      child.handle.onexit(status, signal);
    } catch (e) {
      nextTick(() => {
        throw e;
      });
    }
  }

  /** Has the spawner reap `pid` (a zombie until now, as libuv leaves a child until it calls onexit): then the pid is
   * no longer the child's, and Node is told. */
  function reap(l, pid) {
    if (link !== l) return;
    try {
      writeAll(l.req, frame({ kind: 'reap', pid }));
      answer(l);
    } catch {
      link = null;
    }
  }

  function listen(l) {
    let pending = '';
    exits = new net.Socket({ fd: l.exits, readable: true, writable: false });
    exits.unref();
    exits.on('data', (chunk) => {
      const lines = (pending + chunk.toString('latin1')).split('\n');
      pending = lines.pop();
      for (const line of lines) {
        const { pid, status, signal } = JSON.parse(line);
        reap(l, pid);
        const child = children.get(pid);
        if (child !== undefined) ended(child, status, signal);
      }
    });
    exits.on('error', () => {});
    // The spawner is gone: the children it started are not (they were its), but their ends will never be told. Each
    // fails (an 'error' event, spawn EIO), never runs again; later spawns run in the worker.
    exits.on('close', () => {
      if (link === l) link = null;
      for (const child of children.values()) ended(child, UV_EIO, '');
    });
  }

  /** The spawner, started on the first spawn; null: none. */
  function linked() {
    if (link === undefined) {
      link = null; // the spawns connect() makes run in the worker
      link = connect() ?? null;
      if (link !== null) listen(link);
    }
    return link;
  }

  binding.spawn = function spawn(options) {
    if (link === null || !forwardable(options) || linked() === null) return local.call(this, options);
    const message = request(options, 'sync');
    if (message === undefined) return local.call(this, options);
    try {
      writeAll(link.req, message);
    } catch {
      // The spawner is gone before it had the whole request, so it ran nothing: the worker runs this one, and the rest.
      link = null;
      return local.call(this, options);
    }
    const { lengths, local: unrun, ...result } = answer(link);
    if (unrun === true) return local.call(this, options); // nothing ran (spawner.py: Local)
    if (lengths === null) return { ...result, output: null };
    const output = [];
    for (const n of lengths) {
      if (n === null) output.push(null);
      else {
        const bytes = Buffer.allocUnsafe(n);
        readAll(link.res, bytes);
        output.push(bytes);
      }
    }
    return { ...result, output };
  };

  /** The child's pid, its pipes given to the handles Node made; undefined: nothing ran (the worker's spawn runs it). */
  function forward(l, options) {
    const message = request(options, 'async');
    if (message === undefined) return undefined;
    let pipes;
    try {
      writeAll(l.req, message);
      const first = answer(l);
      if (first.local === true) return undefined;
      pipes = first.pipes;
    } catch {
      link = null; // gone before the go below: nothing started
      return undefined;
    }
    // The worker's ends: the spawner's pipes opened again by their /proc entries (a pipe of its own, no descriptor
    // passed), while the spawner still holds both ends; the child is started after this byte says they are open.
    const ends = [];
    let go = 1;
    try {
      for (let i = 0; i < 3; i++) {
        if (pipes[i] !== null)
          ends[i] = fs.openSync(`/proc/${l.pid}/fd/${pipes[i]}`, (i === 0 ? O_WRONLY : O_RDONLY) | O_NONBLOCK);
      }
    } catch {
      go = 0;
    }
    const unopened = () => ends.forEach((fd) => fs.closeSync(fd));
    try {
      writeAll(l.req, Buffer.from([go]));
    } catch {
      link = null;
      go = 0;
    }
    if (go === 0) {
      unopened();
      return undefined;
    }
    let second;
    try {
      second = answer(l);
    } catch {
      unopened();
      link = null;
      throw new Error(ENDED); // it may have started the child: never run twice
    }
    if (second.local === true) {
      unopened();
      return undefined;
    }
    ends.forEach((fd, i) => options.stdio[i].handle.open(fd));
    return second.pid;
  }

  /** uv_process_kill's result (0, or a negative errno), asked of the spawner: it knows whether the child is still
   * its own (not reaped: running, or a zombie whose end the worker has not taken). */
  function kill(pid, signal) {
    if (link) {
      try {
        writeAll(link.req, frame({ kind: 'kill', pid, signal }));
        return answer(link).error;
      } catch {
        link = null;
      }
    }
    try {
      processKill(pid, signal);
      return 0;
    } catch (e) {
      return -(os.constants.errno[e.code] ?? os.constants.errno.EINVAL);
    }
  }

  /** The process handle Node made, given the spawner's child: what ChildProcess calls of it (lib/internal/
   * child_process.js: pid, kill, ref, unref, close; hasRef as HandleWrap's), as libuv's process handle behaves. Its
   * native object, never spawned, is left as it is (closing one does nothing: a few hundred bytes each, not freed). */
  function adopt(handle, pid) {
    const child = { handle, ref: true, ended: false, closed: false };
    children.set(pid, child);
    handle.pid = pid;
    handle.kill = (signal) => kill(pid, signal);
    handle.ref = () => {
      if (child.closed) return;
      child.ref = true;
      refresh();
    };
    handle.unref = () => {
      if (child.closed) return;
      child.ref = false;
      refresh();
    };
    handle.hasRef = () => !child.closed && child.ref;
    handle.close = (callback) => {
      if (child.closed) return;
      child.closed = true;
      children.delete(pid);
      refresh();
      if (typeof callback === 'function') immediately(() => callback.call(handle));
    };
    refresh();
  }

  if (process.env.STEPCHAIN_TEST_SPAWNER === 'sync') return localAsync;
  processWrap.spawn = function spawn(options) {
    if (link === null || !forwardableAsync(options) || linked() === null) return localAsync.call(this, options);
    const pid = forward(link, options);
    if (pid === undefined) return localAsync.call(this, options);
    adopt(this, pid);
    return 0;
  };
  return localAsync;
}

// Linux only: what it copies of Node's spawn is libuv's there, with glibc's execvp (and /proc tells a spawner's end).
if (binding[INSTALLED] === undefined && process.platform === 'linux' && process.env.STEPCHAIN_TEST_SPAWNER !== 'off') {
  // Kept on the binding (one per process, whatever realm a test file runs in): Node's own spawns, for the test of this.
  binding[INSTALLED] = { local: binding.spawn };
  binding[INSTALLED].localAsync = install();
}
