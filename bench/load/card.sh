#!/usr/bin/env bash
# The Agent Card against the axum floor under load (run by hand, not in CI): starts
# `skillgate serve --store memory` and the floor of run.sh, then ROUNDS times runs
# `wrk -t2 -c64 -d10s` on `GET /.well-known/agent-card.json` and right after on the floor
# (a POST), printing both rates and the card's share. The server logs at the default level
# (RUST_LOG passes through) to a file, as a service's stderr would be.
#
# usage: bench/load/card.sh [ROUNDS]   (default 2)
# Environment: BENCH_BIN (default target/release/skillgate).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROUNDS=${1:-2}
BIN=${BENCH_BIN:-target/release/skillgate}
FLOOR_BIN=target/release/examples/axum_floor
command -v wrk >/dev/null || apt-get install -y wrk >&2
[ -x "$BIN" ] || { echo "card.sh: $BIN missing: cargo build --release -p skillgate-cli" >&2; exit 2; }
[ -x "$FLOOR_BIN" ] || cargo build --release -p skillgate-server --example axum_floor >&2
d=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$d"; }
trap cleanup EXIT
cat >"$d/post.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"x","params":{}}'
wrk.headers["Content-Type"] = "application/json"
LUA
"$FLOOR_BIN" 127.0.0.1:0 >"$d/floor.out" 2>&1 & PIDS+=($!)
"$BIN" serve --listen 127.0.0.1:0 --store memory >"$d/sg.out" 2>"$d/sg.err" & PIDS+=($!)
for _ in $(seq 50); do
    grep -q 'http://127.0.0.1:' "$d/floor.out" && grep -q 'http://127.0.0.1:' "$d/sg.out" && break
    sleep 0.1
done
FLOOR=$(grep -o 'http://127.0.0.1:[0-9]*' "$d/floor.out" | head -1)
CARD=$(grep -o 'http://127.0.0.1:[0-9]*' "$d/sg.out" | head -1)/.well-known/agent-card.json
code=$(curl -s -o /dev/null -w '%{http_code}' "$CARD")
[ "$code" = 200 ] || { echo "card.sh: the card answered $code" >&2; exit 1; }
rate() { sed -n 's/^Requests\/sec: *//p'; }
echo "| round | card req/s | floor req/s | card / floor |"
echo "|---|---|---|---|"
for r in $(seq "$ROUNDS"); do
    c=$(wrk -t2 -c64 -d10s "$CARD" | rate)
    f=$(wrk -t2 -c64 -d10s -s "$d/post.lua" "$FLOOR/" | rate)
    echo "| $r | $c | $f | $(python3 -c "print(f'{$c / $f:.1%}')") |"
done
