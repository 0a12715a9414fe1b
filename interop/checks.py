"""The expectation log every interop scenario shares: `check` records one expectation (a failed
one is printed and the run goes on), `finish` prints the count and exits non-zero on any failure.
Standard library only, so scenarios in every venv (a2a-sdk 1.x, 0.3.x, mcp) import it."""

CHECKS = []
FAILURES = []


def check(cond, what):
    """Records one expectation; a failed one is printed and counted, and the run goes on."""
    CHECKS.append(what)
    if cond:
        print(f"  ok: {what}")
    else:
        FAILURES.append(what)
        print(f"  FAIL: {what}")


def finish(name):
    """Prints `NAME: P of N checks passed` and exits 1 when any check failed."""
    passed = len(CHECKS) - len(FAILURES)
    print(f"{name}: {passed} of {len(CHECKS)} checks passed")
    if FAILURES:
        for f in FAILURES:
            print(f"  failed: {f}")
        raise SystemExit(1)
