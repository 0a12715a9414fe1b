#!/usr/bin/env python3
"""Writes the digest benchmark's input: one JSON document of many small records.

    python3 bench/digest/gen.py OUT.json [RECORDS]

The default, 120,000 records, makes a 30.7 MB (29.3 MiB) document: json.dumps' default
separators, keys in producer order (not sorted), the records array beside three other members of
an unsorted top-level object. Deterministic: the same arguments always write the same bytes, so
`skillgate digest` of it is a fixed value to compare against. Not committed: generate it.
"""

import json
import random
import sys


def record(i, rng):
    """One interface-telemetry record, the shape a netops skill hands out in bulk."""
    host = f"r{rng.randrange(1, 400)}.pop{rng.randrange(1, 40)}"
    return {
        "resource_id": f"{host}/eth{rng.randrange(0, 8)}",
        "timestamp": f"2026-12-03T{(i // 3600) % 24:02d}:{(i // 60) % 60:02d}:{i % 60:02d}.{rng.randrange(0, 1000):03d}Z",
        "metric": rng.choice(["rx_bytes", "tx_bytes", "rx_errors", "tx_dropped", "utilization"]),
        "value": rng.randrange(0, 10**12) if rng.random() < 0.7 else round(rng.random() * 100, 6),
        "unit": rng.choice(["count", "bytes", "percent", "Grün"]),
        "interval": rng.choice([1, 5, 10, 60]),
        "ok": rng.random() < 0.95,
        "labels": {"site": f"pop{rng.randrange(1, 40)}", "role": rng.choice(["core", "edge", "access"])},
        "samples": [rng.randrange(0, 100000) for _ in range(rng.randrange(1, 4))],
        "note": None if rng.random() < 0.8 else rng.choice(["link flap \"suspected\"", "maintenance\twindow", "température élevée", "ok"]),
    }


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "digest-input.json"
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 120_000
    rng = random.Random(15)
    doc = {
        "schema_version": "1.0.0",
        "source": "bench/digest/gen.py",
        "records": [record(i, rng) for i in range(count)],
        "count": count,
    }
    with open(out, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False)


if __name__ == "__main__":
    main()
