# The spawner of one Jest worker (test/setup/spawner.js): makes the worker's synchronous spawns for it, as Node's
# spawn_sync binding would, from a process that starts children without fork()'s cost (Python's subprocess uses
# vfork: no copy of page tables, no faults afterwards).
#
# Requests come on the FIFO argv[1]: a 4-byte little-endian length, a JSON header (file, args, cwd, envPairs,
# detached, timeout, maxBuffer, killSignal, stdio: [{type, fd}], umask, inputLength), then the input bytes. Each
# answer goes on the FIFO argv[2]: a 4-byte length, a JSON header (status, signal, pid, error: a negative errno as
# Node's binding gives it, lengths: the bytes of each stdio entry's output, or null), then those bytes. The spawner
# ends when the worker does (end of file on the requests).
import errno
import json
import os
import select
import signal
import struct
import subprocess
import sys
import time


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
    try:
        return signal.Signals(n).name
    except ValueError:
        return None


def slot(stdio, i):
    s = stdio[i] if i < len(stdio) else {"type": "ignore"}
    if s["type"] == "pipe":
        return subprocess.PIPE
    if s["type"] == "ignore":
        return subprocess.DEVNULL
    return s["fd"]  # 'fd' 0-2: the worker's own, which this process has


def run(h, data):
    os.umask(h["umask"])
    env = {}
    for pair in h["envPairs"]:
        key, _, value = pair.partition("=")
        env.setdefault(key, value)
    stdio = h["stdio"]
    try:
        child = subprocess.Popen(
            h["args"] or [h["file"]],
            executable=h["file"],
            cwd=h.get("cwd"),
            env=env,
            stdin=slot(stdio, 0),
            stdout=slot(stdio, 1),
            stderr=slot(stdio, 2),
            start_new_session=bool(h.get("detached")),
            close_fds=True,
            restore_signals=True,
        )
    except OSError as e:
        return {"error": -(e.errno or errno.EIO), "status": None, "signal": None, "pid": 0, "lengths": None}, b""
    kill_signal = h.get("killSignal") or signal.SIGTERM
    deadline = time.monotonic() + h["timeout"] / 1000 if h.get("timeout") else None
    max_buffer = h.get("maxBuffer")
    state = {"error": None, "pipe_error": None, "killed": False, "total": 0}
    outs = {}
    readers = {}
    for i, pipe in ((1, child.stdout), (2, child.stderr)):
        if pipe is not None:
            outs[i] = bytearray()
            readers[pipe.fileno()] = pipe
    pending = memoryview(data)
    writer = child.stdin
    if writer is not None:
        os.set_blocking(writer.fileno(), False)

    def close_writer():
        nonlocal writer
        if writer is not None:
            try:
                writer.close()
            except BrokenPipeError:
                pass
            writer = None

    if writer is not None and not pending:
        close_writer()

    def kill(code):
        # As Node's SyncProcessRunner::Kill: the first error stays; signal the child once (unless it has exited), then
        # close our ends of its pipes (what it writes after is not read) and stop the timer.
        nonlocal deadline
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
        for pipe in readers.values():
            pipe.close()
        readers.clear()
        close_writer()
        deadline = None

    while readers or writer is not None:
        wait = None
        if deadline is not None:
            wait = deadline - time.monotonic()
            if wait <= 0:
                kill(-errno.ETIMEDOUT)
                continue
        r, w, _ = select.select(list(readers), [writer] if writer is not None else [], [], wait)
        for fd in r:
            if fd not in readers:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                readers.pop(fd).close()
                continue
            outs[1 if readers[fd] is child.stdout else 2] += chunk
            state["total"] += len(chunk)
            if max_buffer and state["total"] > max_buffer:
                kill(-errno.ENOBUFS)
        if w and writer is not None:
            try:
                pending = pending[os.write(writer.fileno(), pending):]
            except BrokenPipeError:
                state["pipe_error"] = state["pipe_error"] or -errno.EPIPE
                pending = pending[:0]
            if not pending:
                close_writer()
    if deadline is not None:
        try:
            child.wait(max(0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            kill(-errno.ETIMEDOUT)
    code = child.wait()
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


def main():
    requests, results = sys.argv[1], sys.argv[2]
    out = os.open(results, os.O_WRONLY)  # the worker holds the read end open already
    write_full(out, b"\x01")
    inp = os.open(requests, os.O_RDONLY)
    while True:
        (size,) = struct.unpack("<I", read_full(inp, 4))
        h = json.loads(read_full(inp, size))
        data = read_full(inp, h["inputLength"]) if h["inputLength"] else b""
        header, body = run(h, data)
        text = json.dumps(header).encode()
        write_full(out, struct.pack("<I", len(text)) + text + body)


try:
    main()
except (BrokenPipeError, KeyboardInterrupt):
    pass
