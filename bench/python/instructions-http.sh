#!/usr/bin/env bash
# Instructions per request of the whole agent over HTTP (uvicorn, the JSON-RPC route, the SDK,
# the executor, and for `governed` the gate and ExtensionEcho), counted by callgrind: agent.py
# runs under callgrind in each mode (plain, body, governed; see agent.py), send.py sends it LOW
# and then, in a second run, HIGH sequential SendMessage requests, and the agent is stopped
# (SIGINT: uvicorn shuts down and callgrind writes its count). The difference divided by
# HIGH - LOW is one request; start-up and shutdown cancel out. Not a load test: one connection,
# one request at a time. Needs valgrind and target/bench-py-venv (bench/python/run.sh makes it).
# Usage: bench/python/instructions-http.sh [LOW HIGH] (default 50 250); env MODES.
set -euo pipefail
cd "$(dirname "$0")/../.."
LOW=${1:-50}
HIGH=${2:-250}
PY=target/bench-py-venv/bin/python
OUT=target/bench-py
PORT=18190
mkdir -p "$OUT"

DIGEST=$("$PY" -c 'import skillgate,sys; print(skillgate.digest(open(sys.argv[1],"rb").read()))' \
    examples/interfaces/evaluate_resource_condition.json)
ARGS=$(tr -d '\n' < examples/interfaces/evaluate_resource_condition.input.json)
GOVERNED="{\"skill\":\"evaluate_resource_condition\",\"skill_version\":\"1.0\",\"interface_digest\":\"$DIGEST\",\"arguments\":$ARGS}"

count() { # MODE DATA N -> instructions of the agent's whole run
    local log="$OUT/cg-http.$1.$3.log"
    valgrind --tool=callgrind --callgrind-out-file="$OUT/cg-http.$1.$3" "$PY" bench/python/agent.py "$1" "$PORT" \
        > /dev/null 2> "$log" &
    local pid=$!
    for _ in $(seq 1 600); do curl -sf "http://127.0.0.1:$PORT/.well-known/agent-card.json" >/dev/null && break; sleep 0.2; done
    "$PY" bench/python/send.py "$PORT" 20 "$2" # warm-up
    "$PY" bench/python/send.py "$PORT" "$3" "$2"
    kill -INT "$pid"; wait "$pid" 2>/dev/null || true
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$log"
}

echo "| mode | instructions per request | added to plain |"
echo "|---|---|---|"
base=
for m in ${MODES:-plain body governed}; do
    if [ "$m" = plain ]; then data=$ARGS; else data=$GOVERNED; fi
    lo=$(count "$m" "$data" "$LOW")
    hi=$(count "$m" "$data" "$HIGH")
    per=$(( (hi - lo) / (HIGH - LOW) ))
    [ -n "$base" ] || base=$per
    echo "| $m | $per | $(( per - base )) ($(awk -v a="$per" -v b="$base" 'BEGIN{printf "%+.1f%%", (a/b-1)*100}')) |"
done
echo
echo "callgrind, agent.py over HTTP, $LOW and $HIGH sequential requests after 20 of warm-up; skillgate $(git rev-parse --short HEAD)"
