#!/usr/bin/env python3
"""The Python package against the pure-Python tools a Python agent would use otherwise, each
result checked equal before it is timed:

  digest   skillgate.digest vs rfc8785.dumps + hashlib.sha256, on the 30 MB document of
           bench/digest (as bytes read from disk, and as the parsed Python value) and on a
           2 KB skill request (Python value, per call: conversion included)
  validate InterfaceDocument.validate_input vs jsonschema's pre-built Draft202012Validator,
           per call on the Appendix B arguments (valid, and invalid with every error collected)

    micro.py DOC_30MB.json
Prints a Markdown table (best of 5 runs; per-call figures from loops of 2,000).
"""

import hashlib
import json
import sys
import time
from pathlib import Path

import jsonschema
import rfc8785

import skillgate

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "interfaces"


def best(fn, repeat=5, number=1):
    """Best wall time of `repeat` runs of `number` calls, per call, in seconds."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t) / number)
    return min(times)


def ref_digest(value):
    return "sha256:" + hashlib.sha256(rfc8785.dumps(value)).hexdigest()


def row(name, ours, theirs, target):
    ratio = theirs / ours
    unit, scale = ("ms", 1e3) if theirs > 1e-3 else ("µs", 1e6)
    print(f"| {name} | {ours * scale:,.2f} {unit} | {theirs * scale:,.2f} {unit} | {ratio:,.1f}x | {target} |")


def main(doc_path):
    raw = Path(doc_path).read_bytes()
    big = json.loads(raw)
    request = {
        "skill": "evaluate_resource_condition",
        "skill_version": "1.0",
        "interface_digest": "sha256:" + "0" * 64,
        "arguments": {"resource_id": "r1.pop3/eth0", "samples": [
            {"metric": f"m{i}", "value": i * 1.5, "unit": "percent", "labels": {"site": "pop3", "role": "edge"}}
            for i in range(18)]},
    }
    size = len(json.dumps(request))
    assert skillgate.digest(raw) == skillgate.digest(big) == ref_digest(big), "30 MB digests differ"
    assert skillgate.digest(request) == ref_digest(request), "request digests differ"

    doc = skillgate.InterfaceDocument((EXAMPLES / "evaluate_resource_condition.json").read_bytes())
    schema = json.loads((EXAMPLES / "evaluate_resource_condition.json").read_text())["input_schema"]["resolution"]["schema"]
    validator = jsonschema.Draft202012Validator(schema)
    good = json.loads((EXAMPLES / "evaluate_resource_condition.input.json").read_text())
    bad = {"resource_id": 7, "condition": {"metric": "", "operator": "eq", "threshold": "x", "unit": 1}, "extra": 1}
    doc.validate_input(good)
    assert validator.is_valid(good)
    try:
        doc.validate_input(bad)
        raise AssertionError("bad input passed")
    except skillgate.InputInvalid as e:
        ours_errors = len(e.details)
    theirs_errors = len(list(validator.iter_errors(bad)))

    def ours_bad():
        try:
            doc.validate_input(bad)
        except skillgate.InputInvalid:
            pass

    print(f"| measurement | skillgate | pure Python | speed-up | target |")
    print(f"|---|---|---|---|---|")
    row(f"digest, {len(raw) / 1e6:.1f} MB document, bytes (rfc8785 from the parsed value)",
        best(lambda: skillgate.digest(raw), repeat=3), best(lambda: ref_digest(big), repeat=3), ">= 10x")
    row(f"digest, {len(raw) / 1e6:.1f} MB document, Python value",
        best(lambda: skillgate.digest(big), repeat=3), best(lambda: ref_digest(big), repeat=3), ">= 10x")
    row(f"digest, {size:,} B skill request, per call",
        best(lambda: skillgate.digest(request), number=2000), best(lambda: ref_digest(request), number=2000), ">= 10x")
    row("validate valid arguments, per call",
        best(lambda: doc.validate_input(good), number=2000), best(lambda: validator.validate(good), number=2000), ">= 20x")
    row(f"validate invalid arguments, every error ({ours_errors} / {theirs_errors}), per call",
        best(ours_bad, number=2000), best(lambda: list(validator.iter_errors(bad)), number=2000), ">= 20x")


if __name__ == "__main__":
    main(sys.argv[1])
