#!/usr/bin/env python3
"""An independent Python peer of stepchain's journal format (docs/format.md §2).

It follows the reference implementation's verify loop (json.loads each line,
json.dumps the six hashed fields with sort_keys and compact separators,
SHA-256) and its writer. The test suite uses it for differential tests, and
`npm run bench` times it as the Python peer.

  stepchain_ref.py verify FILE [EXPECTED_HEAD]   -> prints {"ok","head_hash","steps","errors"} as JSON
  stepchain_ref.py write FILE < steps.jsonl     -> appends one row per input step object
"""
import hashlib
import json
import sys
import time

ZERO = "0" * 64
HASHED = ("prev_hash", "input_hash", "model", "prompt", "tool_call", "tool_result")


def canonical(v):
    return json.dumps(v, sort_keys=True, separators=(",", ":"))


def step_hash(fields):
    payload = {k: fields[k] for k in HASHED}
    return hashlib.sha256(canonical(payload).encode("utf-8")).hexdigest()


def verify(path, expected_head=None):
    errors = []
    prev = ZERO
    seq = 0
    steps = 0
    with open(path, "rb") as f:
        for lineno, raw in enumerate(f, start=1):
            try:
                row = json.loads(raw.decode("utf-8"))
                if not isinstance(row, dict):
                    raise ValueError("not an object")
                fields = {k: row[k] for k in HASHED}
                stored = row["step_hash"]
                row_seq = row["seq"]
            except (ValueError, KeyError, UnicodeDecodeError) as e:
                errors.append({"line": lineno, "kind": "malformed_json", "message": str(e)})
                continue
            if row_seq != seq:
                errors.append({"line": lineno, "kind": "seq_mismatch", "message": "seq %r, expected %d" % (row_seq, seq)})
            if fields["prev_hash"] != prev:
                errors.append({"line": lineno, "kind": "prev_hash_mismatch", "message": "chain break"})
            if step_hash(fields) != stored:
                errors.append({"line": lineno, "kind": "step_hash_mismatch", "message": "field tamper"})
            seq = (row_seq + 1) if isinstance(row_seq, int) else seq + 1
            prev = stored
            steps += 1
    head = prev if steps else ZERO
    if expected_head is not None and expected_head != head:
        errors.append({"line": None, "kind": "head_mismatch", "message": "head mismatch"})
    return {"ok": not errors, "head_hash": head, "steps": steps, "errors": errors}


def write(path, steps):
    prev, seq = ZERO, 0
    try:
        with open(path, "rb") as f:
            for raw in f:
                row = json.loads(raw)
                prev, seq = row["step_hash"], row["seq"] + 1
    except FileNotFoundError:
        pass
    with open(path, "a", encoding="utf-8") as out:
        for step in steps:
            row = {
                "prev_hash": prev,
                "input_hash": step.get("input_hash") or hashlib.sha256(b"").hexdigest(),
                "model": step.get("model"),
                "prompt": step.get("prompt"),
                "tool_call": step.get("tool_call"),
                "tool_result": step.get("tool_result"),
            }
            row["step_hash"] = step_hash(row)
            row["seq"] = seq
            row["ts"] = time.time()
            row["blob_refs"] = step.get("blob_refs", [])
            out.write(canonical(row) + "\n")
            prev, seq = row["step_hash"], seq + 1


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "verify":
        result = verify(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
        print(json.dumps(result))
        sys.exit(0 if result["ok"] else 1)
    elif cmd == "write":
        write(sys.argv[2], [json.loads(l) for l in sys.stdin if l.strip()])
    else:
        sys.exit("unknown command %r" % cmd)
