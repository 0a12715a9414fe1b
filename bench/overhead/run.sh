#!/usr/bin/env bash
# Per-call overhead of skills behind skillgate, measured with wrk (bench/load/sendmessage.lua:
# JSON-RPC SendMessage, every response checked for TASK_STATE_COMPLETED):
#   - exec skills: the same `sum` skill as a shell program and as a Python program (a process
#     spawned per call), at 1 connection (latency) and N connections (throughput);
#   - the gateway hop: a plain a2a-sdk agent alone vs `skillgate gateway` in front of it, same
#     load (the gateway adds describe-free governance: input check, upstream call, output check).
# Not run in CI. Needs wrk (installed from Debian if missing) and the interop venv
# (interop/run.sh makes it). Prints a Markdown table.
set -euo pipefail
cd "$(dirname "$0")/../.."
DURATION=${BENCH_DURATION:-10}
CONNS=${BENCH_CONNECTIONS:-8}
VENV=${INTEROP_VENV:-target/interop-venv}
command -v wrk >/dev/null || apt-get install -y wrk >&2
[ -x "$VENV/bin/python" ] || { python3 -m venv "$VENV"; "$VENV/bin/python" -m pip install -q -r interop/requirements.txt; }
# SKILLGATE_BIN: an already built binary (else a release build, several minutes).
SG=${SKILLGATE_BIN:-}
if [ -z "$SG" ]; then
    cargo build -q --release -p skillgate-cli
    SG=target/release/skillgate
fi
WORK=$(mktemp -d)
PIDS=()
trap 'kill "${PIDS[@]}" 2>/dev/null || true; rm -rf "$WORK"' EXIT

# The sum interface and an agent with the skill twice: sh and python3.
echo '{"type":"object","required":["a","b"],"additionalProperties":false,"properties":{"a":{"type":"number"},"b":{"type":"number"}}}' >"$WORK/in.json"
echo '{"type":"object","required":["sum"],"properties":{"sum":{"type":"number"}}}' >"$WORK/out.json"
echo '{"type":"object","required":["step"],"properties":{"step":{"type":"string"}}}' >"$WORK/trace.json"
mkdir -p "$WORK/agent/skills" "$WORK/gw"
for id in sum sum_py; do
    "$SG" interface new --skill-id "$id" --skill-version 1.0 --input "$WORK/in.json" --output "$WORK/out.json" \
        --record trace="$WORK/trace.json" >"$WORK/agent/$id.json" 2>/dev/null
done
cp "$WORK/agent/sum.json" "$WORK/gw/sum.json"
cat >"$WORK/agent/skills/sum.sh" <<'SH'
read -r line
printf '{"output":{"sum":5},"records":[{"kind":"trace","data":{"step":"added"}}]}'
SH
cat >"$WORK/agent/skills/sum.py" <<'PY'
import json, sys
a = json.load(sys.stdin)
print(json.dumps({"output": {"sum": a["a"] + a["b"]}, "records": [{"kind": "trace", "data": {"step": "added"}}]}))
PY
cat >"$WORK/agent/agent.toml" <<TOML
[agent]
name = "bench exec agent"
description = "exec skills"
version = "1.0.0"

[[skills]]
interface = "sum.json"
exec = ["sh", "skills/sum.sh"]
max_concurrency = 64

[[skills]]
interface = "sum_py.json"
exec = ["python3", "skills/sum.py"]
max_concurrency = 64
TOML
printf '[[skills]]\ninterface = "sum.json"\noutput = { artifact = "result" }\nmax_concurrency = 64\n' >"$WORK/gw/gateway.toml"

start() { # $1 log name, rest: command; prints the URL
    "${@:2}" >"$WORK/$1.out" 2>"$WORK/$1.err" &
    PIDS+=($!)
    for _ in $(seq 1 100); do
        if grep -q '^listening on ' "$WORK/$1.out"; then sed -n 's/^listening on //p' "$WORK/$1.out" | head -1; return; fi
        sleep 0.1
    done
    echo "$1 did not start: $(cat "$WORK/$1.err")" >&2; exit 1
}
request() { # $1 base URL, $2 skill, $3 arguments: the governed request with the card's digest
    curl -s "$1/.well-known/agent-card.json" | python3 -c '
import json, sys
card = json.load(sys.stdin)
skill, args = sys.argv[1], json.loads(sys.argv[2])
adv = next(s for s in card["capabilities"]["extensions"][0]["params"]["skills"] if s["skill_id"] == skill)
print(json.dumps({"skill": skill, "skill_version": adv["skill_version"], "interface_digest": adv["interface_digest"], "arguments": args}))' "$2" "$3"
}
measure() { # $1 label, $2 URL, $3 data part, $4 connections; prints a table row
    local out="$WORK/wrk.$1.$4.txt"
    BENCH_DATA="$3" BENCH_THREADS=1 wrk -t1 -c"$4" -d"${DURATION}s" --timeout 10s --latency \
        -s bench/load/sendmessage.lua "$2/" >"$out" 2>&1
    local line; line=$(grep '^BENCH ' "$out" | head -1)
    [ -n "$line" ] || { echo "wrk printed no result: $(cat "$out")" >&2; exit 1; }
    field() { echo "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
    local rps p50 p99 bad
    rps=$(printf '%.0f' "$(field rps)"); p50="$(field p50_ms) ms"; p99="$(field p99_ms) ms"
    bad=$(( $(field non200) + $(field not_completed) ))
    echo "| $1 | $4 | $rps | $p50 | $p99 | ${bad:-?} |"
}

AGENT=$(start agent "$SG" serve --config "$WORK/agent/agent.toml" --listen 127.0.0.1:0 --store memory)
UP=$(start upstream "$VENV/bin/python" bench/overhead/sum_upstream.py)
GW=$(start gateway "$SG" gateway --upstream "$UP" --config "$WORK/gw/gateway.toml" --listen 127.0.0.1:0 --store memory)

echo "| scenario | connections | req/s | p50 | p99 | bad responses |"
echo "|---|---|---|---|---|---|"
for c in 1 "$CONNS"; do
    measure "exec skill, sh" "$AGENT" "$(request "$AGENT" sum '{"a":2,"b":3}')" "$c"
    measure "exec skill, python3" "$AGENT" "$(request "$AGENT" sum_py '{"a":2,"b":3}')" "$c"
    measure "a2a-sdk agent alone (plain message)" "$UP" '{"a":2,"b":3}' "$c"
    measure "gateway + a2a-sdk agent (governed)" "$GW" "$(request "$GW" sum '{"a":2,"b":3}')" "$c"
done
echo
echo "wrk -t1, ${DURATION}s per row; $(nproc) cores; $(uname -sr); skillgate $(git rev-parse --short HEAD)"
