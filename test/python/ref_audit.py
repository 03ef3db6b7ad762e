"""Independent Python implementation of the reference HMAC audit chain (docs/format.md §5),
for differential tests. Standard library only.

  genkey <keyfile>                       create a key as the reference does (64 hex chars, mode 0600)
  write  <dir> <keyfile> <events.json>   append events (a JSON list); an event may pin its "timestamp" and "day"
  verify <dir> <keyfile>                 print {"ok": bool, "errors": [...]} as the reference verify does
  archive <dir> <day>                    gzip every dated *.jsonl before <day> into archive/ and remove it, as the
                                         newer reference's archive() does with a retention cutoff
"""
import gzip
import hashlib
import hmac
import shutil
import json
import os
import secrets
import sys
from datetime import datetime, timezone
from pathlib import Path

GENESIS = "0" * 64


def load_key(path):
    mode = os.stat(path).st_mode & 0o777
    if mode & 0o077:
        raise SystemExit("insecure key mode %o" % mode)
    return Path(path).read_bytes().strip()


def genkey(path):
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(str(p), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, secrets.token_hex(32).encode())
    os.close(fd)


def compute(key, prev, entry):
    return hmac.new(key, (prev + json.dumps(entry, sort_keys=True)).encode(), hashlib.sha256).hexdigest()


def split(raw):
    parts = raw.split(b"\n")
    if parts and parts[-1] == b"":
        parts.pop()
    return parts


def tail(d):
    for p in sorted(d.glob("*.jsonl"), reverse=True):
        for line in reversed(split(p.read_bytes())):
            if not line:
                continue
            try:
                e = json.loads(line)
            except (json.JSONDecodeError, UnicodeDecodeError):
                continue
            if isinstance(e, dict) and json.dumps(e, sort_keys=True).encode() == line and "hmac" in e:
                return str(e["hmac"])
    return GENESIS


def write(d, key, events):
    d = Path(d)
    d.mkdir(parents=True, exist_ok=True)
    prev = tail(d)
    for ev in events:
        now = datetime.now(tz=timezone.utc)
        entry = {
            "timestamp": ev.get("timestamp") or now.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            "event_type": ev["event_type"],
            "actor": ev["actor"],
            "resource_type": ev["resource_type"],
            "resource_id": ev["resource_id"],
            "details": ev.get("details") or {},
            "prev_hmac": prev,
        }
        entry["hmac"] = compute(key, prev, entry)
        day = ev.get("day") or now.strftime("%Y-%m-%d")
        with (d / ("%s.jsonl" % day)).open("a", encoding="utf-8", newline="") as f:
            f.write(json.dumps(entry, sort_keys=True) + "\n")
        prev = entry["hmac"]


def archived(d):
    """archive/*.jsonl.gz by the date their name starts with; undated names last."""
    a = Path(d) / "archive"
    if not a.is_dir():
        return []

    def key(p):
        token = p.name.split(".", 1)[0]
        try:
            datetime.strptime(token, "%Y-%m-%d")
        except ValueError:
            return (1, "", p.name)
        return (0, token, p.name)

    return sorted(a.glob("*.jsonl.gz"), key=key)


def archive(d, before):
    a = Path(d) / "archive"
    a.mkdir(parents=True, exist_ok=True)
    for p in sorted(Path(d).glob("*.jsonl")):
        if p.stem >= before:
            continue
        gz = a / (p.name + ".gz")
        with p.open("rb") as fi, gzip.open(gz, "wb") as fo:
            shutil.copyfileobj(fi, fo)
        p.unlink()


def verify(d, key):
    errors = []
    prev = GENESIS
    segments = []
    for gz in archived(d):
        try:
            with gzip.open(gz, "rb") as f:
                segments.append((gz.name, f.read()))
        except (OSError, EOFError) as exc:
            errors.append("%s: unreadable archived segment - %s" % (gz.name, exc))
            return {"ok": False, "errors": errors}
    for p in sorted(Path(d).glob("*.jsonl")):
        segments.append((p.name, p.read_bytes()))
    for name, raw in segments:
        p = Path(name)
        if raw and not raw.endswith(b"\n"):
            errors.append("%s: missing trailing newline" % p.name)
        for n, line in enumerate(split(raw), start=1):
            if line == b"":
                continue
            try:
                e = json.loads(line)
            except json.JSONDecodeError as exc:
                errors.append("%s:%d: invalid JSON - %s" % (p.name, n, exc))
                continue
            if not isinstance(e, dict):
                errors.append("%s:%d: not an object" % (p.name, n))
                continue
            if json.dumps(e, sort_keys=True).encode() != line:
                errors.append("%s:%d: non-canonical line bytes" % (p.name, n))
                continue
            stored = str(e.pop("hmac", ""))
            if not hmac.compare_digest(str(e.get("prev_hmac", "")), prev):
                errors.append("%s:%d: prev_hmac mismatch" % (p.name, n))
            if not hmac.compare_digest(stored, compute(key, prev, e)):
                errors.append("%s:%d: HMAC mismatch" % (p.name, n))
            prev = stored
    return {"ok": not errors, "errors": errors}


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "genkey":
        genkey(sys.argv[2])
    elif cmd == "write":
        with open(sys.argv[4], encoding="utf-8") as f:
            write(sys.argv[2], load_key(sys.argv[3]), json.load(f))
    elif cmd == "archive":
        archive(sys.argv[2], sys.argv[3])
    elif cmd == "verify":
        print(json.dumps(verify(sys.argv[2], load_key(sys.argv[3]))))
    else:
        sys.exit("unknown command " + cmd)
