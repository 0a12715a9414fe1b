#!/usr/bin/env python3
"""Summarises an A2A TCK (1.0-dev) run: MUST requirements per group and transport, from the
TCK's reports/compatibility.json. Usage: tck_summary.py REPORT [TRANSPORT ...]
Run the TCK once per transport (--transport jsonrpc, then http_json) for exact counts."""

import collections
import json
import sys


def main(path, transports):
    with open(path) as f:
        report = json.load(f)
    groups = collections.OrderedDict()
    failing = []
    for rid, r in report["per_requirement"].items():
        if r.get("level") != "MUST":
            continue
        group = rid.rsplit("-", 1)[0]
        for t, status in r.get("transports", {}).items():
            if transports and t not in transports and t != "agent_card":
                continue
            # The per-transport value is the last test's; a requirement that failed in any of
            # its tests failed (run one transport at a time for exact per-transport counts).
            if status == "PASS" and r.get("status") == "FAIL":
                status = "FAIL"
            counts = groups.setdefault((group, t), collections.Counter())
            counts[status] += 1
            if status == "FAIL":
                failing.append((rid, t, "; ".join(r.get("errors", []))[:300]))
    print(f"{'group':<22} {'transport':<11} pass fail skip")
    totals = collections.Counter()
    for (group, t), c in groups.items():
        skip = sum(v for k, v in c.items() if k not in ("PASS", "FAIL"))
        print(f"{group:<22} {t:<11} {c['PASS']:>4} {c['FAIL']:>4} {skip:>4}")
        totals["PASS"] += c["PASS"]
        totals["FAIL"] += c["FAIL"]
        totals["SKIP"] += skip
    print(f"{'total':<34} {totals['PASS']:>4} {totals['FAIL']:>4} {totals['SKIP']:>4}")
    for rid, t, err in failing:
        print(f"FAIL {rid} ({t}): {err}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit("usage: tck_summary.py REPORT [TRANSPORT ...]")
    main(sys.argv[1], set(sys.argv[2:]))
