#!/usr/bin/env python3
"""Hostile journal rows for the differential test of the verify fast paths (test/journal.hostile-rows.test.ts).

  hostile_rows.py FILE -> writes journals <n>.jsonl one after another into FILE (one file, not 20,000: creating
                          them was most of this script's system time), each three rows (or two, the last without its
                          newline) whose middle row spells one hostile value, and prints {"spans": {"<n>.jsonl":
                          [start, end] in FILE}, "verdicts": {"<n>.jsonl": the peer's verdict (stepchain rules)}}

The middle row's step_hash is the hash of its values as json.loads reads them (when it reads them), so a row the
fast paths take must be one the peer takes too. Values: a string with each escape, invalid escape and byte (control
bytes, DEL, invalid UTF-8) at every offset of a 16-byte window and where a string ends at a window's edge; keys of
the same; integers followed by every byte; -0, 01, huge integers; duplicated keys; nesting around the depth limits.
"""
import hashlib
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stepchain_ref  # noqa: E402

ZERO = "0" * 64
IH = "ab" * 32


def step_hash(prev, values):
    model, prompt, tool_call, tool_result = values
    doc = {"prev_hash": prev, "input_hash": IH, "model": model, "prompt": prompt, "tool_call": tool_call,
           "tool_result": tool_result}
    return hashlib.sha256(json.dumps(doc, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()


def row(seq, prev, prompt=b'"p"', tool_call=b"null", model=b'"m"', seq_text=None):
    try:
        h = step_hash(prev, [json.loads(x.decode("utf-8")) for x in (model, prompt, tool_call, b"null")])
    except (ValueError, RecursionError):
        h = "cd" * 32
    line = (b'{"blob_refs":[],"input_hash":"' + IH.encode() + b'","model":' + model + b',"prev_hash":"' + prev.encode()
            + b'","prompt":' + prompt + b',"seq":' + (seq_text or str(seq).encode()) + b',"step_hash":"' + h.encode()
            + b'","tool_call":' + tool_call + b',"tool_result":null,"ts":1.5}')
    return line, h


def main(out):
    verdicts = {}
    spans = {}
    joined = bytearray()
    n = 0

    # The first row is the same in every journal: built once (a row is two json.dumps and four json.loads).
    l0, h0 = row(0, ZERO)

    def emit(**kw):
        nonlocal n
        l1, h1 = row(1, h0, **kw)
        l2, _ = row(2, h1)
        for data in (l0 + b"\n" + l1 + b"\n" + l2 + b"\n", l0 + b"\n" + l1):
            name = f"{n:06d}.jsonl"
            spans[name] = [len(joined), len(joined) + len(data)]
            joined.extend(data)
            verdicts[name] = stepchain_ref.stepchain_verify(data)
            n += 1

    escapes = [b'\\"', b"\\\\", b"\\/", b"\\b", b"\\f", b"\\n", b"\\r", b"\\t", b"\\u0000", b"\\u001f", b"\\u0020",
               b"\\u0041", b"\\u007e", b"\\u007f", b"\\u0080", b"\\u00e9", b"\\u00E9", b"\\ud800", b"\\udc00",
               b"\\ud83d\\ude00", b"\\ud800\\u0041", b"\\ud800\\ud800", b"\\x", b"\\u12", b"\\u12g4", b"\\",
               b"\\u", b"\\u000", b"\\u0008", b"\\u000a", b"\\u000b", b"\\u2028", b"\\uffff",
               b"\\u00e9\\u00e9\\u00e9\\u00e9"]
    raw = [bytes([b]) for b in range(256)] + [b"\xc3\xa9", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xc0\xaf",
                                              b"\xf0\x9f\x98\x80"]
    for pad in range(18):
        for suffix in (0, 15, 16):
            for e in escapes:
                emit(prompt=b'"' + b"a" * pad + e + b"b" * suffix + b'"')
        for e in raw:
            emit(prompt=b'"' + b"a" * pad + e + b'"')
        for e in escapes[:21] + [b"\x7f", b"\xc3\xa9"]:
            k = b'"' + b"a" * pad + e + b'"'
            emit(tool_call=b"{" + k + b':1,"zz":2}')
            emit(tool_call=b'{"a":0,' + k + b":1}")
            emit(tool_call=b"{" + k + b":1," + k + b":2}")
    integers = [b"0", b"-0", b"01", b"-01", b"00", b"10", b"9007199254740993", b"-123456789012345678901", b"9" * 19,
                b"9" * 20, b"1" * 4300, b"1" * 4301, b"-", b"+1"]
    for i in integers:
        for b in range(256):
            emit(tool_call=b"[" + i + bytes([b]) + b"]")
        emit(model=i)
    for s in (b"01", b"1.0", b"-0", b"1e0", b"true", b'"1"', b"10000000000000001"):
        emit(seq_text=s)
    for tc in (b'{"a":1,"a":2}', b'{"a":1,"b":2,"a":3}', b'{"b":1,"a":2}', b'{"\\u00e9":1,"\\u00e9":2}',
               b'{"\\u00e9":1,"\xc3\xa9":2}', b'{"\\ud800":1,"\\ue000":2}', b'{"\\ue000":1,"\\ud800":2}',
               b'{"\\ud83d\\ude00":1,"\\uffff":2}', b'{"\\uffff":1,"\\ud83d\\ude00":2}', b'{"a":1,"a\\u0000":2}',
               b'{"":1,"a":2}'):
        emit(tool_call=tc)
    for d in (255, 256, 511, 512, 513, 514, 899, 900, 901):
        emit(tool_call=b"[" * d + b"]" * d)
        emit(tool_call=b'{"a":' * d + b"1" + b"}" * d)
    with open(out, "wb") as f:
        f.write(joined)
    # json.dumps, not json.dump: dump to a file walks the 5 MB in the pure-Python encoder (861,000 writes); dumps
    # uses the C one: 1.6 s of CPU for the whole script instead of 3.6-5.0 s, the same bytes.
    sys.stdout.write(json.dumps({"spans": spans, "verdicts": verdicts}))


if __name__ == "__main__":
    main(sys.argv[1])
