"""Independent Python implementation of the reference run journal (docs/format.md §5),
for differential tests. Standard library only.

  write  <journal> <spec.json>   append the events in spec (a JSON list) as the reference EventJournal.record does
  verify <journal>               print the reference verify + provider-state result as JSON
  diff   <a> <b>                 print the reference first-divergence result as JSON
"""
import hashlib
import json
import os
import sys
import time

EXCLUDED = {"ts", "elapsed_s", "index", "prev_hash", "payload_hash", "event_hash"}
MUTATION = "provider_state_mutation"
CAPABILITY = "provider_state_capability"


def sha(obj):
    return hashlib.sha256(json.dumps(obj, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()


def payload_hash(event_type, payload):
    projected = {k: v for k, v in payload.items() if k not in EXCLUDED}
    projected["event"] = event_type
    return sha(projected)


def event_hash(prev_hash, event_type, p_hash, index):
    return sha({"prev_hash": prev_hash, "event_type": event_type, "payload_hash": p_hash, "index": index})


def load(path):
    rows = []
    if not os.path.exists(path):
        return rows
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = raw.strip()
            if not line:
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return rows


def mutation_payload(kind, detail, step_index, flagged, agent_id):
    before = {k: v for k, v in detail.items() if k.startswith(("pre_", "before_"))}
    m = {"kind": kind, "before_digest": sha(before), "after_digest": sha(detail), "step_index": step_index}
    return {
        "mutation_kind": kind,
        "before_digest": m["before_digest"],
        "after_digest": m["after_digest"],
        "step_index": step_index,
        "content_address": sha(m),
        "flagged": flagged,
        "agent_id": agent_id,
    }


def write(path, spec):
    rows = load(path)
    index = len(rows)
    head = rows[-1]["event_hash"] if rows else ""
    start = time.time()
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "a", encoding="utf-8") as f:
        for item in spec:
            if "mutation" in item:
                m = item["mutation"]
                event = MUTATION
                data = mutation_payload(m["kind"], m.get("detail", {}), m["step_index"], m.get("flagged", False), m["agent_id"])
            elif "capability" in item:
                event = CAPABILITY
                data = {"adapter": item["capability"]["adapter"], "capability": item["capability"]["capability"]}
            else:
                event = item["event"]
                data = item.get("data", {})
            p = payload_hash(event, data)
            e = event_hash(head, event, p, index)
            entry = {
                "ts": time.time(),
                "elapsed_s": round(time.time() - start, 3),
                "index": index,
                "event": event,
                "prev_hash": head,
                "payload_hash": p,
                "event_hash": e,
            }
            entry.update(data)
            f.write(json.dumps(entry) + "\n")
            head = e
            index += 1


def verify(path):
    rows = load(path)
    out = {"ok": True, "chain_ok": True, "count": len(rows), "divergent_index": None,
           "expected_hash": None, "actual_hash": None, "mutation_count": 0, "flagged_indices": [], "errors": []}
    prev = ""
    for i, row in enumerate(rows):
        et = str(row.get("event", ""))
        payload = {k: v for k, v in row.items() if k not in EXCLUDED}
        expected = event_hash(prev, et, payload_hash(et, payload), i)
        stored = str(row.get("event_hash", ""))
        if str(row.get("prev_hash", "")) != prev or stored != expected:
            out.update(ok=False, chain_ok=False, divergent_index=i, expected_hash=expected, actual_hash=stored)
            out["errors"].append("step %d: %s" % (i, "prev_hash break" if str(row.get("prev_hash", "")) != prev else "event_hash mismatch"))
            break
        prev = stored
    for i, row in enumerate(rows):
        if str(row.get("event", "")) != MUTATION:
            continue
        out["mutation_count"] += 1
        addr = sha({"kind": str(row.get("mutation_kind", "")), "before_digest": str(row.get("before_digest", "")),
                    "after_digest": str(row.get("after_digest", "")), "step_index": int(row.get("step_index", 0))})
        if str(row.get("content_address", "")) != addr:
            out["errors"].append("step %d: content address mismatch" % i)
        if bool(row.get("flagged", False)):
            out["flagged_indices"].append(i)
            out["errors"].append("step %d: flagged" % i)
    out["ok"] = out["chain_ok"] and not out["errors"]
    return out


def diff(a_path, b_path):
    a, b = load(a_path), load(b_path)

    def comparable(e):
        return (e.get("kind"), e.get("key"), e.get("response"), e.get("event"), e.get("payload_hash"))

    def mkind(e):
        if e is None or MUTATION not in (e.get("event"), e.get("kind")):
            return None
        return str(e.get("mutation_kind", "")) or "unknown"

    def attribute(i, ea, eb, code):
        k = mkind(ea) or mkind(eb)
        if k is not None:
            return {"diverged": True, "index": i, "reason_code": "provider_state_mutation", "mutation_kind": k}
        return {"diverged": True, "index": i, "reason_code": code, "mutation_kind": None}

    n = min(len(a), len(b))
    for i in range(n):
        if comparable(a[i]) != comparable(b[i]):
            return attribute(i, a[i], b[i], "response_mismatch")
    if len(a) == len(b):
        return {"diverged": False, "index": None, "reason_code": None, "mutation_kind": None}
    return attribute(n, a[n] if n < len(a) else None, b[n] if n < len(b) else None, "length_mismatch")


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "write":
        with open(sys.argv[3], encoding="utf-8") as f:
            write(sys.argv[2], json.load(f))
    elif cmd == "verify":
        print(json.dumps(verify(sys.argv[2])))
    elif cmd == "diff":
        print(json.dumps(diff(sys.argv[2], sys.argv[3])))
    else:
        sys.exit("unknown command " + cmd)
