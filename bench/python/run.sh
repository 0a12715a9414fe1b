#!/usr/bin/env bash
# The Python package's benchmarks (issue 22): figures go to docs/benchmarks.md by hand.
#   1. micro.py: skillgate.digest vs rfc8785 + hashlib (30 MB document, 2 KB request) and
#      InterfaceDocument.validate_input vs jsonschema with a pre-built validator;
#   2. handler.py: the gate's cost per request inside the a2a-sdk 1.3.0 request handler, no
#      HTTP (on_message_send in a loop, plain vs governed, best of 5);
#   3. the gate's overhead: the same a2a-sdk 1.3.0 agent (agent.py) plain and governed by
#      skillgate.a2a, side by side, wrk -c$CONNS for $DURATION s each, alternating ROUNDS times,
#      every response checked for TASK_STATE_COMPLETED (bench/load/sendmessage.lua); between
#      them (MODES), the plain agent given the governed request: the larger request's own cost.
# The package is pip-installed from the repository, optimized (the README's command), into
# target/bench-py-venv. Usage: bench/python/run.sh [ROUNDS] (env DURATION, CONNS, MODES).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-3}
DURATION=${DURATION:-10}
CONNS=${CONNS:-16}
# body: the plain agent given the governed request, what the larger request costs without a gate.
MODES=${MODES:-plain body governed}
VENV=target/bench-py-venv
OUT=target/bench-py
mkdir -p "$OUT"
log() { echo "== bench/python: $*" >&2; }

command -v wrk >/dev/null || { apt-get install -y wrk >&2 || { apt-get update >&2 && apt-get install -y wrk >&2; }; }
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
log "pip install (optimized build of bindings/python, minutes the first time)"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check rfc8785==0.1.4 jsonschema==4.26.0 \
    'a2a-sdk[http-server]==1.3.0' 'uvicorn[standard]==0.55.0'
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check ./bindings/python

DOC=$OUT/digest-30mb.json
[ -s "$DOC" ] || python3 bench/digest/gen.py "$DOC"
log "micro"
"$VENV/bin/python" bench/python/micro.py "$DOC"

log "handler"
"$VENV/bin/python" bench/python/handler.py 1000

DIGEST=$("$VENV/bin/python" -c 'import skillgate,sys; print(skillgate.digest(open(sys.argv[1],"rb").read()))' \
    examples/interfaces/evaluate_resource_condition.json)
ARGS=$(tr -d '\n' < examples/interfaces/evaluate_resource_condition.input.json)
GOVERNED="{\"skill\":\"evaluate_resource_condition\",\"skill_version\":\"1.0\",\"interface_digest\":\"$DIGEST\",\"arguments\":$ARGS}"

run_one() { # MODE DATA PORT
    "$VENV/bin/python" bench/python/agent.py "$1" "$3" 2>"$OUT/agent-$1.log" &
    local pid=$!
    for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$3/.well-known/agent-card.json" >/dev/null && break; sleep 0.1; done
    # Warm-up, then the measured run.
    BENCH_DATA=$2 wrk -t1 -c"$CONNS" -d2s -s bench/load/sendmessage.lua "http://127.0.0.1:$3/" >/dev/null
    # The agent's CPU time (user + system clock ticks, /proc/PID/stat) over the measured run:
    # per request, it moves far less than req/s when other work shares the cores.
    local before; before=$(cpu_ticks "$pid")
    BENCH_DATA=$2 wrk -t1 -c"$CONNS" -d"${DURATION}s" --timeout 10s --latency -s bench/load/sendmessage.lua \
        "http://127.0.0.1:$3/" > "$OUT/wrk-$1.txt"
    local ticks=$(( $(cpu_ticks "$pid") - before ))
    kill "$pid"; wait "$pid" 2>/dev/null || true
    grep '^BENCH ' "$OUT/wrk-$1.txt" | sed "s/^BENCH /$1 cpu_ticks=$ticks /"
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
HZ=$(getconf CLK_TCK)

echo
echo "| round | agent | req/s | p50 ms | p99 ms | agent CPU µs/request | bad responses |"
echo "|---|---|---|---|---|---|---|"
for r in $(seq 1 "$ROUNDS"); do
    for mode in $MODES; do
        if [ "$mode" = plain ]; then data=$ARGS; else data=$GOVERNED; fi
        line=$(run_one "$mode" "$data" $((18000 + r)))
        rps=$(sed -n 's/.* rps=\([0-9.]*\).*/\1/p' <<<"$line")
        p50=$(sed -n 's/.* p50_ms=\([0-9.]*\).*/\1/p' <<<"$line")
        p99=$(sed -n 's/.* p99_ms=\([0-9.]*\).*/\1/p' <<<"$line")
        bad=$(sed -n 's/.* non200=\([0-9]*\) not_completed=\([0-9]*\).*/\1+\2/p' <<<"$line")
        ticks=$(sed -n 's/.* cpu_ticks=\([0-9]*\) .*/\1/p' <<<"$line")
        reqs=$(sed -n 's/.* requests=\([0-9]*\) .*/\1/p' <<<"$line")
        cpu=$(awk -v t="$ticks" -v n="$reqs" -v hz="$HZ" 'BEGIN{printf "%.0f", t / hz / n * 1e6}')
        echo "| $r | $mode | $rps | $p50 | $p99 | $cpu | $bad |"
    done
done
echo
echo "wrk -t1 -c$CONNS -d${DURATION}s; $(nproc) cores; load before: $(cut -d' ' -f1-3 /proc/loadavg); skillgate $(git rev-parse --short HEAD)"
