#!/usr/bin/env bash
# Where a request's CPU goes, counted rather than timed: runs `skillgate serve --store memory`
# (and the axum floor of run.sh) under valgrind's callgrind, sends a warm-up, zeroes the
# counters, sends exactly N JSON-RPC SendMessage requests over one keep-alive connection, and
# reports instructions per request for each scenario plus the functions that cost the most.
# Instruction counts do not depend on what else the machine is doing, so this is the one
# measurement here that is honest on a shared, noisy machine (wall-clock throughput is not).
#
# usage: bench/load/callgrind.sh [N] [scenario ...]   (default N=400; scenarios: floor describe evaluate;
#        describe03 and evaluate03 send the same calls as A2A 0.3 `message/send`, no A2A-Version;
#        card sends `GET /.well-known/agent-card.json` instead, the Agent Card)
# Environment: BENCH_BIN (default target/release/skillgate; needs symbols, which the release
# profile keeps), BENCH_OUT (default target/bench-callgrind/TIME), BENCH_TOP (functions listed, 25),
# BENCH_PRELOAD (an allocator to LD_PRELOAD into the server, as run.sh --preload), BENCH_STORE
# (memory, the default, or sqlite: a fresh database file per scenario in the output directory;
# the SQL store's writer and sqlx's worker thread are counted with the rest of the process),
# BENCH_CONNECTIONS (unset: one connection, N requests; C > 1: `wrk -t1 -cC` for BENCH_SECONDS,
# default 20, instead of N requests, divided by the responses wrk counted, every one checked:
# with a SQL store that is group commit at work, batches as large as C while the slowed server
# commits; SendMessage scenarios only).
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-400}
shift || true
SCENARIOS=("$@")
[ ${#SCENARIOS[@]} -gt 0 ] || SCENARIOS=(floor describe evaluate)
BIN=${BENCH_BIN:-target/release/skillgate}
FLOOR_BIN=target/release/examples/axum_floor
OUT=${BENCH_OUT:-target/bench-callgrind/$(date -u +%Y%m%dT%H%M%SZ)}
TOP=${BENCH_TOP:-25}
mkdir -p "$OUT"
command -v valgrind >/dev/null || apt-get install -y valgrind >&2
[ -x "$BIN" ] || { echo "callgrind.sh: $BIN missing: cargo build --release -p skillgate-cli" >&2; exit 2; }
if [[ " ${SCENARIOS[*]} " == *" floor "* ]] && [ ! -x "$FLOOR_BIN" ]; then
    cargo build --release -p skillgate-server --example axum_floor >&2
fi

PID=""
cleanup() { [ -z "$PID" ] || kill -TERM "$PID" 2>/dev/null || true; }
trap cleanup EXIT

# Sends N+W requests on one connection, checking each answer; prints nothing.
drive() { # $1 url, $2 data part JSON ('' = text part), $3 count, $4 label (`*03*`: A2A 0.3)
    python3 - "$@" <<'EOF'
import http.client, json, sys, urllib.parse
url, data, count, label = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
v03 = "03" in label
u = urllib.parse.urlsplit(url)
conn = http.client.HTTPConnection(u.hostname, u.port, timeout=120)
if label.startswith("card"):
    for i in range(count):
        conn.request("GET", "/.well-known/agent-card.json")
        r = conn.getresponse()
        text = r.read()
        if r.status != 200 or b'"skills"' not in text:
            sys.exit(f"callgrind.sh: bad answer to {label} request {i}: {r.status} {text[:300]!r}")
    sys.exit(0)
if v03:
    part = {"kind": "text", "text": "ping"} if not data else {"kind": "data", "data": json.loads(data)}
    method, role, headers, done = "message/send", "user", {}, b'"completed"'
else:
    part = {"text": "ping"} if not data else {"data": json.loads(data), "mediaType": "application/json"}
    method, role, headers, done = "SendMessage", "ROLE_USER", {"A2A-Version": "1.0"}, b"TASK_STATE_COMPLETED"
for i in range(count):
    message = {"role": role, "messageId": f"cg-{label}-{i}", "parts": [part]}
    if v03:
        message["kind"] = "message"
    body = json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": {"message": message}})
    conn.request("POST", "/", body, dict(headers, **{"Content-Type": "application/json"}))
    r = conn.getresponse()
    text = r.read()
    if r.status != 200 or done not in text:
        sys.exit(f"callgrind.sh: bad answer to {label} request {i}: {r.status} {text[:300]!r}")
EOF
}

data_part() {
    case $1 in
        describe|describe03) echo '{"skill":"describe_skill","arguments":{"skill_id":"evaluate_resource_condition"}}' ;;
        evaluate|evaluate03)
            "$BIN" describe "$URL" evaluate_resource_condition --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(json.dumps({"skill": d["skill_id"], "skill_version": d["skill_version"],
    "interface_digest": d["interface_digest"],
    "arguments": {"resource_id": "lo",
                  "condition": {"metric": "rx_errors", "operator": "gt", "threshold": 0, "unit": "count"}}}))' ;;
        *) echo '' ;;
    esac
}

ROWS=()
for scen in "${SCENARIOS[@]}"; do
    out=$OUT/$scen.out
    case ${BENCH_STORE:-memory} in
        memory) store=memory ;;
        sqlite) store=sqlite:$(cd "$OUT" && pwd)/tasks-$scen.db ;;
        *) echo "callgrind.sh: BENCH_STORE is memory or sqlite" >&2; exit 2 ;;
    esac
    if [ "$scen" = floor ]; then cmd=("$FLOOR_BIN" 127.0.0.1:0); else cmd=("$BIN" serve --listen 127.0.0.1:0 --store "$store"); fi
    LD_PRELOAD=${BENCH_PRELOAD:-} valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.$scen" --instr-atstart=no \
        "${cmd[@]}" >"$out" 2>"$OUT/$scen.err" &
    PID=$!
    URL=""
    for _ in $(seq 1 600); do
        URL=$(sed -n 's/^listening on \(http:[^ ]*\).*/\1/p' "$out" 2>/dev/null | head -1 || true)
        [ -n "$URL" ] && break
        sleep 0.1
    done
    [ -n "$URL" ] || { cat "$OUT/$scen.err" >&2; exit 1; }
    data=$(data_part "$scen")
    drive "$URL" "$data" 50 "$scen-warm"
    callgrind_control --instr=on "$PID" >/dev/null
    if [ "${BENCH_CONNECTIONS:-1}" -gt 1 ]; then
        BENCH_DATA=$data wrk -t1 -c"$BENCH_CONNECTIONS" -d"${BENCH_SECONDS:-20}s" --timeout 30s \
            -s bench/load/sendmessage.lua "$URL/" >"$OUT/$scen.wrk"
        N=$(sed -n 's/^BENCH .* checked=\([0-9]*\).*/\1/p' "$OUT/$scen.wrk")
        bad=$(sed -n 's/^BENCH .* non200=\([0-9]*\) not_completed=\([0-9]*\).*/\1\2/p' "$OUT/$scen.wrk")
        [ -n "$N" ] && [ "$N" -gt 0 ] && [ "$bad" = 00 ] || { cat "$OUT/$scen.wrk" >&2; exit 1; }
    else
        drive "$URL" "$data" "$N" "$scen"
    fi
    callgrind_control --instr=off "$PID" >/dev/null
    kill -TERM "$PID"; wait "$PID" 2>/dev/null || true; PID=""
    file=$(ls "$OUT"/callgrind."$scen"* | head -1)
    total=$(callgrind_annotate "$file" 2>/dev/null | awk '/PROGRAM TOTALS/ && !t {gsub(",", "", $1); t = $1} END {print t}')
    per=$((total / N))
    ROWS+=("| $scen | $N | $total | $per |")
    callgrind_annotate --inclusive=yes "$file" 2>/dev/null | sed -n '/^-- Auto-annotated\|Ir *file:function/,$p' \
        | head -$((TOP + 3)) >"$OUT/$scen.top.txt" || true
    echo "== $scen: $per instructions per request; top $TOP inclusive: $OUT/$scen.top.txt" >&2
done
echo
conns="one keep-alive connection, $N requests"
[ "${BENCH_CONNECTIONS:-1}" -le 1 ] || conns="wrk -t1 -c$BENCH_CONNECTIONS for ${BENCH_SECONDS:-20} s"
echo "callgrind, instructions per JSON-RPC SendMessage (0.3 scenarios: message/send; card: GET of the Agent Card; $conns after 50 warm-up, ${BENCH_STORE:-memory} store); skillgate $(git rev-parse --short HEAD); preload: ${BENCH_PRELOAD:-none}"
echo
echo "| scenario | requests | instructions | per request |"
echo "|---|---|---|---|"
printf '%s\n' "${ROWS[@]}"
