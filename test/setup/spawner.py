# The spawner of one Jest worker (test/setup/spawner.js): makes the worker's spawns for it, as Node would, from a
# process that starts children without fork()'s cost (Python's subprocess uses vfork: no copy of page tables, no
# faults afterwards).
#
# Requests come on the FIFO argv[1]: a 4-byte little-endian length, a JSON header, then the header's inputLength bytes.
# Each answer goes on the FIFO argv[2]: a 4-byte length, a JSON header, then the bytes it counts. Three kinds:
# - a synchronous spawn (kind "sync"; file, args, workerCwd, cwd, envPairs: strings whose characters are UTF-8 bytes;
#   detached, timeout, maxBuffer, killSignal, stdio: [{type, fd}], umask, input), made and waited for as Node's
#   spawn_sync binding would; the answer: status, signal, pid, error (a negative errno as Node's binding gives it),
#   lengths (the bytes of each stdio entry's output, or null), then those bytes;
# - an asynchronous one (kind "async", the same fields without the input and timeouts): its pipes are made first and
#   answered ({pipes: [the descriptor of the worker's end in this process, or null]}); the worker opens its own ends
#   of them (/proc/<this>/fd/<n>) and writes one byte, 1 (start it) or 0 (it could not: forget it); then the child is
#   started and answered ({pid}). Its end is told later on the FIFO argv[3], a JSON line each: {pid, status, signal}
#   as libuv gives them to Node's onexit;
#   The child is left a zombie until the worker takes that end and asks for its reaping (kind "reap": pid; answer {}),
#   as the worker's own child would be until libuv reaps it and calls onexit at once (a test may look for the zombie);
# - a kill of an asynchronous child (kind "kill": pid, signal): {error: 0 or a negative errno}, as uv_process_kill.
# A header {local: true} instead of an answer: nothing was run, the worker runs that spawn itself. The spawner ends
# when the worker does (end of file on the requests).
import errno
import json
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import time

# close_fds=False would have subprocess use posix_spawn, whose glibc child ignores signals 32 and 33 (and which refuses
# an empty variable name): its vfork path is libuv's fork as a child sees it.
subprocess._USE_POSIX_SPAWN = False

# select() and wait() take no timeout of 2^53 ms (Node's does): a long one is waited in pieces.
LONGEST_WAIT = 3600.0


def read_full(fd, n):
    out = bytearray()
    while len(out) < n:
        chunk = os.read(fd, n - len(out))
        if not chunk:
            sys.exit(0)
        out += chunk
    return bytes(out)


def write_full(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def signal_name(n):
    # Node's signo_string: the names of signals 1-31, and "" for the others (real-time signals).
    return signal.Signals(n).name if n < 32 else ""


class Local(Exception):
    """Nothing was run: the worker runs this spawn itself (Node's own spawn)."""


def stdio_fd(s, i, made):
    """The descriptor the child gets as `i`, as libuv gives it; what this process opens for it goes in `made`."""
    if s["type"] == "pipe":
        # libuv's stdio pipes are socketpairs: a child can write to its stdin, and cannot open /dev/stdin.
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        parent.setblocking(False)
        made["parents"][i] = parent
        made["close"].append(child)
        return child.fileno()
    if s["type"] == "ignore":
        fd = os.open(os.devnull, os.O_RDONLY if i == 0 else os.O_RDWR)
        made["close"].append(fd)
        return fd
    try:
        os.set_blocking(s["fd"], True)  # libuv clears O_NONBLOCK of an inherited 0-2 (a description shared with the worker)
    except OSError:
        pass
    return s["fd"]


def start(h, env, fds):
    """execvp as glibc does it for libuv: each entry of the child's PATH (/bin:/usr/bin without one) is tried; ENOENT
    and the like go on, EACCES is kept, another error ends the search. ENOEXEC: glibc runs the file with /bin/sh, and
    Node's own spawn does that (Local). Returns the child, or an errno."""
    file = h["file"]
    if b"/" in file:
        candidates = [file]
    else:
        path = env.get(b"PATH", b"/bin:/usr/bin")
        candidates = [(d or b".") + b"/" + file for d in path.split(b":")]
    eacces, err = False, errno.ENOENT
    for candidate in candidates:
        if len(candidates) > 1:
            try:
                os.stat(candidate)
            except OSError as e:
                if e.errno in (errno.ENOENT, errno.ENOTDIR):  # what execve would say; a stat is cheaper
                    err = e.errno
                    continue
        try:
            return subprocess.Popen(
                h["args"] or [file],
                executable=candidate,
                env=env,
                stdin=fds[0],
                stdout=fds[1],
                stderr=fds[2],
                start_new_session=bool(h.get("detached")),
                close_fds=False,  # libuv closes nothing: the worker's inheritable descriptors reach its children
                restore_signals=True,
            )
        except ValueError:
            raise Local()  # nothing started: what Python refuses to pass on
        except OSError as e:
            if e.errno == errno.ENOEXEC:
                raise Local()
            if e.errno == errno.EACCES:
                eacces = True
            elif e.errno not in (errno.ENOENT, errno.ESTALE, errno.ENOTDIR, errno.ENODEV, errno.ETIMEDOUT):
                return e.errno
            err = e.errno
    return errno.EACCES if eacces else err


def failed(code):
    return {"error": -(code or errno.EIO), "status": None, "signal": None, "pid": 0, "lengths": None}, b""


def prepare(h):
    """The child's environment, with this process where the child starts (its umask, its working directory); an errno
    when the directory given cannot be entered."""

    def b(s):
        return s.encode("latin-1")  # spawner.js sends a string's UTF-8 bytes as latin-1 characters

    h["file"], h["args"] = b(h["file"]), [b(a) for a in h["args"]]
    try:
        os.chdir(b(h["workerCwd"]))
    except OSError:
        raise Local()
    os.umask(h["umask"])
    if h["cwd"] is not None:
        try:
            os.chdir(b(h["cwd"]))  # after the worker's: a relative one is relative to it, as in Node's child
        except OSError as e:
            return e.errno
    env = {}
    for pair in h["envPairs"]:
        key, _, value = b(pair).partition(b"=")
        env[key] = value  # no key twice: spawner.js sends such a spawn to Node's own
    return env


def spawn(h):
    """The child and the parent's ends of its pipes ({i: socket}), or an answer (nothing ran)."""
    env = prepare(h)
    if not isinstance(env, dict):
        return failed(env), None
    made = {"parents": {}, "close": []}
    child = None
    try:
        stdio = h["stdio"]
        fds = [stdio_fd(stdio[i] if i < len(stdio) else {"type": "ignore"}, i, made) for i in range(3)]
        child = start(h, env, fds)
    finally:
        for c in made["close"]:
            c.close() if isinstance(c, socket.socket) else os.close(c)
        if not isinstance(child, subprocess.Popen):
            for p in made["parents"].values():
                p.close()
    if not isinstance(child, subprocess.Popen):
        return failed(child), None
    return child, made["parents"]


def run(h, data):
    child, parents = spawn(h)
    if parents is None:
        return child
    kill_signal = h.get("killSignal") or signal.SIGTERM
    deadline = time.monotonic() + h["timeout"] / 1000 if h.get("timeout") else None
    max_buffer = h.get("maxBuffer")
    state = {"error": None, "pipe_error": None, "killed": False, "total": 0}
    outs = {i: bytearray() for i in parents if i > 0}
    readers = {parents[i].fileno(): i for i in outs}
    pending = memoryview(data)
    writer = parents.get(0)

    def pipe_error(code):
        state["pipe_error"] = state["pipe_error"] or -code

    def done_writing():
        # As Node's uv_shutdown after the input: the child reads its end; the socket stays open until the end.
        nonlocal writer
        if writer is not None:
            try:
                writer.shutdown(socket.SHUT_WR)
            except OSError as e:
                if e.errno != errno.ENOTCONN:
                    pipe_error(e.errno)
            writer = None

    if writer is not None and not pending:
        done_writing()

    def kill(code):
        # As Node's SyncProcessRunner::Kill: the first error stays; signal the child once (unless it has exited), then
        # close our ends of its pipes (what it writes after is not read) and stop the timer.
        nonlocal deadline, writer
        if state["error"] is None:
            state["error"] = code
        if state["killed"]:
            return
        state["killed"] = True
        if child.poll() is None:
            try:
                child.send_signal(kill_signal)
            except ProcessLookupError:
                pass
            except (OSError, ValueError):
                state["error"] = state["error"] or -errno.EINVAL
                child.kill()
        for p in parents.values():
            p.close()
        readers.clear()
        writer = None
        deadline = None

    while readers or writer is not None:
        wait = None
        if deadline is not None:
            wait = deadline - time.monotonic()
            if wait <= 0:
                kill(-errno.ETIMEDOUT)
                continue
            wait = min(wait, LONGEST_WAIT)
        r, w, _ = select.select(list(readers), [writer] if writer is not None else [], [], wait)
        for fd in r:
            if fd not in readers:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError as e:
                pipe_error(e.errno)  # Node: the error kept, that pipe no longer read
                chunk = b""
            if not chunk:
                readers.pop(fd)
                continue
            outs[readers[fd]] += chunk
            state["total"] += len(chunk)
            if max_buffer and state["total"] > max_buffer:
                kill(-errno.ENOBUFS)
        if w and writer is not None:
            try:
                pending = pending[os.write(writer.fileno(), pending):]
            except OSError as e:
                pipe_error(e.errno)
                pending = pending[:0]
            if not pending:
                done_writing()
    while deadline is not None and child.poll() is None:
        try:
            child.wait(min(max(0, deadline - time.monotonic()), LONGEST_WAIT))
        except subprocess.TimeoutExpired:
            if time.monotonic() >= deadline:
                kill(-errno.ETIMEDOUT)
    code = child.wait()
    for p in parents.values():
        p.close()
    error = state["error"] or state["pipe_error"]
    lengths = [None, None, None]
    body = b""
    for i in (1, 2):
        if i in outs:
            lengths[i] = len(outs[i])
            body += bytes(outs[i])
    header = {
        "status": code if code >= 0 else None,
        "signal": signal_name(-code) if code < 0 else None,
        "pid": child.pid,
        "lengths": lengths,
    }
    if error is not None:
        header["error"] = error
    return header, body


def answer(out, header, body=b""):
    text = json.dumps(header).encode()
    write_full(out, struct.pack("<I", len(text)) + text + body)


def start_async(h, inp, out):
    """An asynchronous spawn: its pipes, answered; the worker's go; the child (a Popen), or None (the worker could not
    open its ends: nothing ran). Raises Local when the child cannot start as Node's would (a working directory or a
    program not there, ...): the worker's own spawn then makes the same error, streams and events as Node's."""
    env = prepare(h)
    if not isinstance(env, dict):
        raise Local()
    made = {"parents": {}, "close": []}
    try:
        fds, pipes = [], [None, None, None]
        for i, s in enumerate(h["stdio"]):
            if s["type"] == "pipe":
                # Pipes, not libuv's socketpairs: the worker can open a pipe of this process by its /proc entry, not a
                # socket. Both ends stay open here until the child has its own, so neither open waits or fails.
                try:
                    r, w = os.pipe()
                except OSError:
                    raise Local()  # (out of descriptors) nothing started
                made["close"] += [r, w]
                fds.append(r if i == 0 else w)
                pipes[i] = w if i == 0 else r
            else:
                fds.append(stdio_fd(s, i, made))
        answer(out, {"pipes": pipes})
        if read_full(inp, 1) != b"\x01":
            return None
        child = start(h, env, fds)
        if not isinstance(child, subprocess.Popen):
            raise Local()
        return child
    finally:
        for c in made["close"]:
            os.close(c)


class Children:
    """The asynchronous children, until each ends; their ends, queued for the worker (never a blocking write: the
    worker may be waiting for an answer in a synchronous call, not reading)."""

    def __init__(self, exits, poller):
        self.exits = exits
        self.poller = poller
        self.by_pid = {}
        self.by_pidfd = {}
        self.unwatched = []  # children without a pidfd (none to be had): polled
        self.queue = bytearray()
        self.polling_exits = False

    def add(self, child):
        self.by_pid[child.pid] = child
        try:
            fd = os.pidfd_open(child.pid)
        except OSError:
            self.unwatched.append(child)
            return
        self.by_pidfd[fd] = child
        self.poller.register(fd, select.POLLIN)

    def ended(self, child):
        """Tells the worker how `child` ended, leaving it a zombie (as the worker's own child is until libuv reaps it
        and calls Node's onexit): the worker asks for the reaping when it takes the end (`reap`)."""
        info = os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        if info is None:
            return False
        # libuv's exit status: the code, or 0 and the signal (Node names none above 31: "")
        exited = info.si_code == os.CLD_EXITED
        status, name = (info.si_status, "") if exited else (0, signal_name(info.si_status))
        self.queue += json.dumps({"pid": child.pid, "status": status, "signal": name}).encode() + b"\n"
        return True

    def reap(self, pid):
        child = self.by_pid.pop(pid, None)
        if child is not None:
            child.wait()

    def kill(self, pid, sig):
        if pid not in self.by_pid:
            return -errno.ESRCH  # reaped (the worker asks only of children it has not seen end: none)
        try:
            os.kill(pid, sig)
            return 0
        except OSError as e:
            return -e.errno

    def tend(self, events):
        """Tells the ends of the children `events` (or a poll) say ended; writes what the worker can take of them."""
        for fd in [fd for fd in events if fd in self.by_pidfd and self.ended(self.by_pidfd[fd])]:
            self.poller.unregister(fd)
            del self.by_pidfd[fd]
            os.close(fd)
        for child in [c for c in self.unwatched if self.ended(c)]:
            self.unwatched.remove(child)
        if self.queue:
            try:
                del self.queue[: os.write(self.exits, self.queue)]
            except BlockingIOError:
                pass
        if bool(self.queue) != self.polling_exits:
            self.polling_exits = bool(self.queue)
            if self.polling_exits:
                self.poller.register(self.exits, select.POLLOUT)
            else:
                self.poller.unregister(self.exits)


def main():
    requests, results, exits = sys.argv[1], sys.argv[2], sys.argv[3]
    out = os.open(results, os.O_WRONLY)  # the worker holds the read ends open already
    poller = select.poll()
    children = Children(os.open(exits, os.O_WRONLY | os.O_NONBLOCK), poller)
    write_full(out, b"\x01")
    inp = os.open(requests, os.O_RDONLY)
    poller.register(inp, select.POLLIN)
    while True:
        events = dict(poller.poll(50 if children.unwatched else None))
        children.tend(events)
        if inp not in events:
            continue
        (size,) = struct.unpack("<I", read_full(inp, 4))
        h = json.loads(read_full(inp, size))
        data = read_full(inp, h["inputLength"]) if h.get("inputLength") else b""
        kind = h.get("kind")
        try:
            if kind == "kill":
                answer(out, {"error": children.kill(h["pid"], h["signal"])})
            elif kind == "reap":
                children.reap(h["pid"])
                answer(out, {})
            elif kind == "async":
                child = start_async(h, inp, out)
                if child is not None:
                    children.add(child)
                    answer(out, {"pid": child.pid})
            else:
                answer(out, *run(h, data))
        except Local:
            answer(out, {"local": True})
        children.tend({})


try:
    main()
except (BrokenPipeError, KeyboardInterrupt):
    pass
