"""Reads tar archives with Python's tarfile, as a verifier would, and prints one JSON line per archive.

Usage: python3 read_tars.py FILE...
Each line: {"file": F, "ok": true, "members": [{"name", "type", "size", "sha256"}]} or {"file": F, "ok": false, "error": E}.
`type` is "file" (tarfile's isreg), "dir" or the raw type byte; data is read with extractfile for files.
"""

import hashlib
import json
import sys
import tarfile


def read(path):
    members = []
    with tarfile.open(path, "r:") as tar:
        for m in tar.getmembers():
            if m.isreg():
                data = tar.extractfile(m).read()
                kind = "file"
            elif m.isdir():
                data = b""
                kind = "dir"
            else:
                data = b""
                kind = m.type.decode("latin1")
            members.append(
                {
                    "name": m.name.encode("utf-8", "surrogateescape").hex(),
                    "type": kind,
                    "size": len(data),
                    "sha256": hashlib.sha256(data).hexdigest(),
                }
            )
    return members


for path in sys.argv[1:]:
    try:
        out = {"file": path, "ok": True, "members": read(path)}
    except Exception as e:  # a reader's refusal is an answer, not a crash
        out = {"file": path, "ok": False, "error": f"{type(e).__name__}: {e}"}
    print(json.dumps(out), flush=True)
