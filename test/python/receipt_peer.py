#!/usr/bin/env python3
"""An independent Python peer for stepchain receipts (docs/format.md section 3).

Written from the spec with the standard library only (tarfile, json, hashlib,
base64); the Ed25519 signature is checked when the `cryptography` package is
importable. Used by the interop tests and by `npm run bench`.

  receipt_peer.py verify RECEIPT [--public-key PEM] [--expected-head HEX]
      -> one JSON document {ok, head_hash, steps, signed, signature, errors}; exit 0/1
  receipt_peer.py write JOURNAL OUT --agent-id ID [--sign-key PEM] [--blobs-dir CAS] [--gz]
      -> writes a receipt the way a Python implementation would (tarfile, PAX format)
"""
import base64
import hashlib
import io
import json
import re
import sys
import tarfile
import time

ZERO = "0" * 64
SIX = ("prev_hash", "input_hash", "model", "prompt", "tool_call", "tool_result")
ALLOWED = re.compile(r"^(manifest\.json|manifest\.sig|journal/000000\.jsonl|blobs/[0-9a-f]{64})$")


def canonical(v):
    return json.dumps(v, sort_keys=True, separators=(",", ":"))


def verify(path, public_key=None, expected_head=None):
    errors = []
    out = {"ok": False, "head_hash": ZERO, "steps": 0, "signed": False, "signature": "unchecked", "errors": errors}
    with tarfile.open(path, "r:*") as tar:
        members = tar.getmembers()
        names = [m.name for m in members]
        if len(names) != len(set(names)):
            errors.append("duplicate members")
        for m in members:
            if m.isdir() and m.name in ("journal", "blobs"):
                continue
            if not m.isreg() or not ALLOWED.match(m.name):
                errors.append("unsafe or unknown member %r" % m.name)
        if errors:
            return out
        data = {m.name: tar.extractfile(m).read() for m in members if m.isreg()}
    mbytes = data.get("manifest.json")
    journal = data.get("journal/000000.jsonl")
    if mbytes is None or journal is None:
        errors.append("missing manifest or journal")
        return out
    manifest = json.loads(mbytes)
    if canonical(manifest).encode() != mbytes:
        errors.append("manifest is not canonical")
    if manifest.get("format_version") != 1:
        errors.append("unknown format_version")
    if not re.match(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$", manifest.get("created_at", "")):
        errors.append("bad created_at")

    # The reference walk: recompute every step hash from genesis.
    prev = ZERO
    refs = []
    seen = set()
    if not journal.endswith(b"\n"):
        errors.append("journal does not end with a newline")
    lines = journal.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    for i, line in enumerate(lines):
        row = json.loads(line)
        if canonical(row).encode() != line:
            errors.append("line %d is not canonical" % (i + 1))
        if row["seq"] != i:
            errors.append("line %d: seq" % (i + 1))
        if row["prev_hash"] != prev:
            errors.append("line %d: chain break" % (i + 1))
        h = hashlib.sha256(canonical({k: row[k] for k in SIX}).encode()).hexdigest()
        if h != row["step_hash"]:
            errors.append("line %d: step hash" % (i + 1))
        prev = row["step_hash"]
        for r in row["blob_refs"]:
            if r not in seen:
                seen.add(r)
                refs.append(r)
    out["head_hash"] = prev
    out["steps"] = len(lines)
    if manifest.get("head_hash") != prev:
        errors.append("manifest head_hash differs from the chain")
    if manifest.get("steps") != len(lines):
        errors.append("manifest steps differ from the chain")
    if manifest.get("blob_digests") != refs:
        errors.append("blob_digests differ from the chain's refs")
    for name, blob in data.items():
        if name.startswith("blobs/"):
            digest = name[len("blobs/"):]
            if hashlib.sha256(blob).hexdigest() != digest:
                errors.append("blob %s does not match its digest" % digest)
            if digest not in refs:
                errors.append("unexpected blob %s" % digest)
    if expected_head is not None and expected_head != prev:
        errors.append("head differs from the expected head")

    sig = data.get("manifest.sig")
    if sig is not None:
        out["signed"] = True
        raw = base64.b64decode(sig, validate=True)
        if len(raw) != 64:
            errors.append("signature is not 64 bytes")
        if public_key is not None:
            try:
                from cryptography.hazmat.primitives.serialization import load_pem_public_key
                from cryptography.exceptions import InvalidSignature
            except ImportError:
                out["signature"] = "unchecked (no cryptography package)"
            else:
                key = load_pem_public_key(open(public_key, "rb").read())
                try:
                    key.verify(raw, mbytes)
                    out["signature"] = "verified"
                except InvalidSignature:
                    out["signature"] = "invalid"
                    errors.append("signature does not verify")
    out["ok"] = not errors
    return out


def write(journal_path, out_path, agent_id, sign_key=None, blobs_dir=None, gz=False):
    journal = open(journal_path, "rb").read()
    lines = [l for l in journal.split(b"\n") if l]
    rows = [json.loads(l) for l in lines]
    refs = []
    for row in rows:
        for r in row["blob_refs"]:
            if r not in refs:
                refs.append(r)
    manifest = {
        "agent_id": agent_id,
        "head_hash": rows[-1]["step_hash"] if rows else ZERO,
        "steps": len(rows),
        "bernstein_version": "python-peer/1",
        "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "blob_digests": refs,
        "format_version": 1,
    }
    mbytes = canonical(manifest).encode()
    members = [("manifest.json", mbytes)]
    if sign_key is not None:
        from cryptography.hazmat.primitives.serialization import load_pem_private_key
        key = load_pem_private_key(open(sign_key, "rb").read(), password=None)
        members.append(("manifest.sig", base64.b64encode(key.sign(mbytes))))
    members.append(("journal/000000.jsonl", b"".join(canonical(r).encode() + b"\n" for r in rows)))
    if blobs_dir is not None:
        import os
        for d in refs:
            p = os.path.join(blobs_dir, d[:2], d)
            if os.path.exists(p):
                members.append(("blobs/" + d, open(p, "rb").read()))
    with tarfile.open(out_path, "w:gz" if gz else "w", format=tarfile.PAX_FORMAT) as tar:
        for name, payload in members:
            info = tarfile.TarInfo(name)
            info.size = len(payload)
            info.mtime = time.time()  # a float: tarfile records it in a pax header
            tar.addfile(info, io.BytesIO(payload))


def main(argv):
    opts = {}
    pos = []
    i = 0
    while i < len(argv):
        if argv[i].startswith("--"):
            if argv[i] == "--gz":
                opts["gz"] = True
                i += 1
                continue
            opts[argv[i][2:]] = argv[i + 1]
            i += 2
        else:
            pos.append(argv[i])
            i += 1
    if pos and pos[0] == "verify":
        r = verify(pos[1], opts.get("public-key"), opts.get("expected-head"))
        print(json.dumps(r))
        return 0 if r["ok"] else 1
    if pos and pos[0] == "write":
        write(pos[1], pos[2], opts["agent-id"], opts.get("sign-key"), opts.get("blobs-dir"), opts.get("gz", False))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
