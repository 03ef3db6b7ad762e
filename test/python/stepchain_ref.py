#!/usr/bin/env python3
"""An independent Python peer of stepchain's journal format (docs/journal.md).

Two models of how a journal is read, written from the prose of the reference
implementation's reading rules (bernstein's JournalReader.verify and
Journal.open), not from stepchain's TypeScript:

  reference   the reference's own verdicts: text-mode lines (universal newlines),
              str.strip(), blank lines skipped, json.loads, seq read with int()
              and defaulted to -1, fields read with str(), the expected seq
              counting the rows walked. Where the reference raises (invalid
              UTF-8, an int() it cannot take...), this model says "crash".
  stepchain   the same walk with stepchain's documented deliberate differences
              (docs/journal.md, "Where stepchain is stricter"): a row of the
              wrong shape is a fault naming the field, invalid UTF-8 and too
              deep lines are faults, an empty journal is a fault, --strict notes.

The test suite runs both against stepchain (differential tests), and
`npm run bench` times `verify` as the Python peer.

  stepchain_ref.py verify FILE [EXPECTED_HEAD]            -> {"ok","head_hash","steps","errors"} (stepchain rules)
  stepchain_ref.py verify-strict FILE [EXPECTED_HEAD]     -> the same, with --strict notes
  stepchain_ref.py verify-reference FILE [EXPECTED_HEAD]  -> the reference's verdict, or {"crash": "..."}
  stepchain_ref.py recover FILE                           -> stepchain's recovery-on-open decision
  stepchain_ref.py write FILE < steps.jsonl               -> appends one row per input step object
  stepchain_ref.py batch < [[COMMAND, FILE, EXPECTED_HEAD|null], ...]  -> a JSON list of the answers
"""
import hashlib
import json
import re
import sys
import threading
import time

ZERO = "0" * 64
HASHED = ("prev_hash", "input_hash", "model", "prompt", "tool_call", "tool_result")
ROW_KEYS = ("blob_refs", "input_hash", "model", "prev_hash", "prompt", "seq", "step_hash", "tool_call", "tool_result", "ts")
MAX_NESTING = 900
HEX64 = re.compile(r"[0-9a-f]{64}\Z")


def canonical(v):
    return json.dumps(v, sort_keys=True, separators=(",", ":"))


def step_hash(fields):
    payload = {k: fields.get(k) for k in HASHED}
    return hashlib.sha256(canonical(payload).encode("utf-8")).hexdigest()


def text_lines(data):
    """(line bytes, ending) as Python's text mode frames them: \\n, \\r\\n or a bare \\r end a line.

    bytes.splitlines() splits at exactly those three (str.splitlines() would also split at \\v, \\f,
    \\x1c-\\x1e, NEL and U+2028/U+2029, which a text-mode file keeps inside the line).
    """
    out = []
    for piece in data.splitlines(True):
        if piece.endswith(b"\r\n"):
            out.append((piece[:-2], "crlf"))
        elif piece.endswith(b"\n"):
            out.append((piece[:-1], "lf"))
        elif piece.endswith(b"\r"):
            out.append((piece[:-1], "cr"))
        else:
            out.append((piece, "eof"))
    return out


def nesting(text):
    """The deepest nesting of [ and { outside strings (lines deeper than MAX_NESTING are faults)."""
    if text.count("[") + text.count("{") <= MAX_NESTING:
        return 0  # cannot be deeper
    depth = deepest = 0
    in_str = esc = False
    for ch in text:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def reference_verify(path, expected_head=None):
    """JournalReader.verify's verdict, or raises where it would (it reads a text-mode file)."""
    errors = []
    prev = ZERO
    steps = 0
    expected_seq = 0
    fh = open(path, encoding="utf-8")
    for line_no, raw in enumerate(fh, start=1):
        stripped = raw.strip()
        if not stripped:
            continue
        try:
            row = json.loads(stripped)
        except json.JSONDecodeError:
            errors.append((line_no, "malformed_json"))
            continue
        if not isinstance(row, dict):
            errors.append((line_no, "malformed_json"))
            continue
        seq = int(row.get("seq", -1))
        if seq != expected_seq:
            errors.append((line_no, "seq_mismatch"))
        stored_prev = str(row.get("prev_hash", ""))
        if stored_prev != prev:
            errors.append((line_no, "prev_hash_mismatch"))
        recomputed = step_hash(
            {
                "prev_hash": stored_prev,
                "input_hash": str(row.get("input_hash", "")),
                "model": row.get("model"),
                "prompt": row.get("prompt"),
                "tool_call": row.get("tool_call"),
                "tool_result": row.get("tool_result"),
            }
        )
        stored = str(row.get("step_hash", ""))
        if recomputed != stored:
            errors.append((line_no, "step_hash_mismatch"))
        prev = stored
        steps += 1
        expected_seq += 1
    fh.close()
    if expected_head is not None and expected_head != prev:
        errors.append((None, "head_mismatch"))
    return {"ok": not errors, "head_hash": prev, "steps": steps, "errors": [{"line": l, "kind": k} for l, k in errors]}


def read_line(raw):
    """stepchain's reading of one line: ('blank',) | ('malformed', why) | ('row', dict, stripped text)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return ("malformed", "invalid UTF-8")
    stripped = text.strip()
    if not stripped:
        return ("blank",)
    if nesting(stripped) > MAX_NESTING:
        return ("malformed", "too deep")
    try:
        value = json.loads(stripped)
    except (ValueError, RecursionError) as e:  # JSONDecodeError, and integers over 4,300 digits
        return ("malformed", str(e))
    if not isinstance(value, dict):
        return ("malformed", "not an object")
    return ("row", value, stripped, stripped == text)


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def shape_faults(row):
    bad = []
    for k in ROW_KEYS:
        if k not in row:
            bad.append(k)
    checks = {
        "seq": is_int(row.get("seq")),
        "prev_hash": isinstance(row.get("prev_hash"), str),
        "step_hash": isinstance(row.get("step_hash"), str),
        "input_hash": isinstance(row.get("input_hash"), str),
        "blob_refs": isinstance(row.get("blob_refs"), list)
        and all(isinstance(r, str) and HEX64.match(r) for r in row.get("blob_refs")),
        "ts": isinstance(row.get("ts"), (int, float)) and not isinstance(row.get("ts"), bool),
    }
    for k, ok in checks.items():
        if k in row and not ok:
            bad.append(k)
    return bad


def stepchain_verify(data, expected_head=None, strict=False):
    errors = []
    prev = ZERO
    steps = 0
    for line_no, (raw, ending) in enumerate(text_lines(data), start=1):
        r = read_line(raw)
        if r[0] == "blank":
            if strict:
                errors.append((line_no, "non_canonical"))
            continue
        if r[0] == "malformed":
            errors.append((line_no, "malformed_json"))
            continue
        row, exact = r[1], r[3]
        bad = shape_faults(row)
        if bad:
            errors.append((line_no, "malformed_json"))
        if "seq" not in bad and row["seq"] != steps:
            errors.append((line_no, "seq_mismatch"))
        if "prev_hash" not in bad and row["prev_hash"] != prev:
            errors.append((line_no, "prev_hash_mismatch"))
        hashable = not any(k in bad for k in HASHED)
        if hashable and "step_hash" not in bad and step_hash(row) != row["step_hash"]:
            errors.append((line_no, "step_hash_mismatch"))
        if strict:
            if not bad and not (exact and len(row) == len(ROW_KEYS) and _canonical_text(row) == r[2]):
                errors.append((line_no, "non_canonical"))
            if ending != "lf":
                errors.append((line_no, "non_canonical"))
        prev = row["step_hash"] if isinstance(row.get("step_hash"), str) else None
        steps += 1
    head = ZERO if steps == 0 else (prev if prev is not None else "")
    # No row: an empty file is a journal whose first write never happened (ok, 0 steps, as the reference says);
    # only blank lines is empty_journal; malformed lines are their own faults and nothing more.
    if steps == 0 and len(data) > 0 and not any(k == "malformed_json" for _, k in errors):
        errors.append((None, "empty_journal"))
    if expected_head is not None and expected_head != head:
        errors.append((None, "head_mismatch"))
    return {"ok": not errors, "head_hash": head, "steps": steps, "errors": [{"line": l, "kind": k} for l, k in errors]}


def _canonical_text(row):
    try:
        return canonical(row)
    except (ValueError, RecursionError):
        return None


def parses_at_all(raw):
    """Whether a line is JSON text at all (any depth, any integer size, a BOM or bad UTF-8 aside)."""
    text = raw.decode("utf-8", "replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.strip()
    result = []

    def run():
        try:
            json.loads(text)
            result.append(True)
        except json.JSONDecodeError:
            result.append(False)
        except (ValueError, RecursionError):
            result.append(True)

    old_digits = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else None
    if old_digits is not None:
        sys.set_int_max_str_digits(0)
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1_000_000)
    threading.stack_size(512 * 1024 * 1024)
    t = threading.Thread(target=run)
    t.start()
    t.join()
    sys.setrecursionlimit(old_limit)
    if old_digits is not None:
        sys.set_int_max_str_digits(old_digits)
    return result[0]


def stepchain_recover(data):
    """Recovery on open: {"refuse": line, "kind": k} or {"steps", "head", "torn_from", "newline_at"}."""
    prev = ZERO
    steps = 0
    offset = 0
    valid_end = 0
    last_parsing = None  # (next offset, ending)
    torn = []  # lines that do not parse: (line_no, offset)
    refusal = None
    last_ending = None
    for line_no, (raw, ending) in enumerate(text_lines(data), start=1):
        start = offset
        offset += len(raw) + {"lf": 1, "cr": 1, "crlf": 2, "eof": 0}[ending]
        last_ending = ending
        r = read_line(raw)
        if r[0] == "blank":
            continue
        if r[0] == "malformed" and not parses_at_all(raw):
            torn.append((line_no, start))
            continue
        if torn and refusal is None:
            refusal = (torn[0][0], "malformed_json")
        last_parsing = (offset, ending)
        if refusal is not None:
            continue
        if r[0] == "malformed":
            refusal = (line_no, "malformed_json")
            continue
        row = r[1]
        if shape_faults(row):
            refusal = (line_no, "malformed_json")
        elif row["seq"] != steps:
            refusal = (line_no, "seq_mismatch")
        elif row["prev_hash"] != prev:
            refusal = (line_no, "prev_hash_mismatch")
        elif step_hash(row) != row["step_hash"]:
            refusal = (line_no, "step_hash_mismatch")
        prev = row.get("step_hash")
        steps += 1
    if refusal is None and len(torn) > 1:
        refusal = (torn[0][0], "malformed_json")
    if refusal is not None:
        return {"refuse": refusal[0], "kind": refusal[1]}
    last_next = last_parsing[0] if last_parsing else 0
    out = {"steps": steps, "head": prev, "torn_from": None, "newline_at": None}
    if last_parsing and last_parsing[1] == "eof":
        out["newline_at"] = last_next
    elif last_next < len(data) and (torn or last_ending == "eof"):
        out["torn_from"] = last_next
    # What an append would extend must verify: bytes of only blank lines hold no row (empty_journal).
    kept = out["torn_from"] if out["torn_from"] is not None else len(data)
    if steps == 0 and kept > 0:
        return {"refuse": 1, "kind": "empty_journal"}
    return out


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


def answer(cmd, path, head):
    if cmd == "verify-reference":
        try:
            return reference_verify(path, head)
        except Exception as e:  # the reference raises here: no verdict
            return {"crash": type(e).__name__}
    with open(path, "rb") as f:
        data = f.read()
    if cmd in ("verify", "verify-strict"):
        return stepchain_verify(data, head, strict=cmd == "verify-strict")
    if cmd == "recover":
        return stepchain_recover(data)
    sys.exit("unknown command %r" % cmd)


def main():
    cmd = sys.argv[1]
    if cmd == "write":
        write(sys.argv[2], [json.loads(l) for l in sys.stdin if l.strip()])
        return 0
    if cmd == "batch":
        print(json.dumps([answer(c, p, h) for c, p, h in json.load(sys.stdin)]))
        return 0
    result = answer(cmd, sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
    print(json.dumps(result))
    return 0 if result.get("ok", True) else 1


if __name__ == "__main__":
    sys.exit(main())
