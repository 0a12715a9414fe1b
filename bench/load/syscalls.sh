#!/usr/bin/env bash
# System calls and context switches of `skillgate serve` under load (run by hand, not in CI):
# starts a server on STORE, loads it with wrk (64 connections, 8 s, the scenario's SendMessage,
# every response checked by sendmessage.lua), and from the 2nd to the 6th second counts, with
# `perf stat`, the server's fsync, pwrite64, pread64 and futex calls and its context switches.
# Prints the counts, the server's CPU and wrk's summary. Needs perf (linux-perf) and root or
# kernel.perf_event_paranoid <= 1.
#
# usage: bench/load/syscalls.sh memory|sqlite|postgres://... describe|evaluate
# Environment: BENCH_BIN (default target/release/skillgate), SERVE_ARGS (extra serve arguments).
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -eq 2 ] || { sed -n 2,10p "$0" >&2; exit 2; }
BIN=${BENCH_BIN:-target/release/skillgate}
d=$(mktemp -d)
PID=""
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$d"; }
trap cleanup EXIT
case $1 in sqlite) store=sqlite:$d/tasks.db ;; *) store=$1 ;; esac
# shellcheck disable=SC2086 # SERVE_ARGS is a list of words
"$BIN" serve --listen 127.0.0.1:0 --store "$store" ${SERVE_ARGS:-} >"$d/out" 2>&1 &
PID=$!
for _ in $(seq 50); do grep -q 'http://127.0.0.1:' "$d/out" && break; sleep 0.1; done
URL=$(grep -o 'http://127.0.0.1:[0-9]*' "$d/out" | head -1)
case $2 in
    describe) DATA='{"skill":"describe_skill","arguments":{"skill_id":"evaluate_resource_condition"}}' ;;
    evaluate) DATA=$("$BIN" describe "$URL" evaluate_resource_condition --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(json.dumps({"skill": d["skill_id"], "skill_version": d["skill_version"],
    "interface_digest": d["interface_digest"],
    "arguments": {"resource_id": "lo", "condition": {"metric": "rx_errors", "operator": "gt",
                  "threshold": 0, "unit": "count"}}}, separators=(",", ":")))') ;;
    *) echo "syscalls.sh: scenario describe or evaluate" >&2; exit 2 ;;
esac
BENCH_DATA=$DATA BENCH_LIMIT=0 BENCH_THREADS=2 wrk -t2 -c64 -d8s --latency \
    -s bench/load/sendmessage.lua "$URL/" >"$d/wrk" 2>&1 &
WRK=$!
sleep 2
t0=$(awk '{print $14 + $15}' "/proc/$PID/stat")
perf stat -e 'syscalls:sys_enter_fsync,syscalls:sys_enter_pwrite64,syscalls:sys_enter_pread64,syscalls:sys_enter_futex,cs' \
    -p "$PID" -- sleep 4 2>&1 | awk '/sys_enter|cs/ {printf "%s=%s per 4 s\n", $2, $1}'
t1=$(awk '{print $14 + $15}' "/proc/$PID/stat")
echo "server CPU: $(( (t1 - t0) * 100 / 4 / $(getconf CLK_TCK) ))% of a core"
wait "$WRK"
grep -E 'Requests/sec|^BENCH ' "$d/wrk"
