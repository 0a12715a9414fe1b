#!/usr/bin/env bash
# Runs the A2A 0.3 TCK (a2aproject/a2a-tck, branch 0.3.x; on no registry and never committed here)
# against `skillgate serve --conformance-agent` speaking A2A 0.3, `--category mandatory`, one
# transport per run, and prints pytest's pass / fail / skip line per transport.
#   TCK03_DIR   an exported 0.3.x tree (required), e.g. git --git-dir=<mirror> archive 0.3.x | tar -x -C "$TCK03_DIR"
#   TCK03_VENV  venv for the TCK (default target/tck03-venv; created and filled on first use)
#   TCK03_TRANSPORTS  space-separated (default "jsonrpc": skillgate serves A2A 0.3 over JSON-RPC only)
set -euo pipefail
cd "$(dirname "$0")/.."
: "${TCK03_DIR:?set TCK03_DIR to an exported a2a-tck 0.3.x tree}"
VENV=${TCK03_VENV:-$PWD/target/tck03-venv}
if [ ! -x "$VENV/bin/python" ]; then
    python3 -m venv "$VENV"
    # requirements.txt of the branch lacks two modules its runner and tests import.
    "$VENV/bin/pip" install --quiet -r "$TCK03_DIR/requirements.txt" python-dotenv pyopenssl
fi
cargo build --quiet -p skillgate-cli
TARGET_DIR=$(cargo metadata --format-version 1 --no-deps \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
OUT=$(mktemp)
"$TARGET_DIR/debug/skillgate" serve --listen 127.0.0.1:0 --store memory --a2a-versions 0.3 \
    --conformance-agent --push --allow-http-push >"$OUT" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; rm -f "$OUT"' EXIT
for _ in $(seq 50); do
    grep -q '^listening on ' "$OUT" && break
    sleep 0.1
done
URL=$(sed -n 's/^listening on //p' "$OUT" | head -1)
[ -n "$URL" ] || { echo "tck03: skillgate serve did not start: $(cat "$OUT")" >&2; exit 2; }
status=0
for transport in ${TCK03_TRANSPORTS:-jsonrpc}; do
    echo "== TCK 0.3 mandatory $transport against $URL"
    log=$(mktemp)
    (cd "$TCK03_DIR" && "$VENV/bin/python" run_tck.py --sut-url "$URL" --category mandatory \
        --transports "$transport") >"$log" 2>&1 || status=1
    grep -E '^FAILED' "$log" || true
    grep -E '[0-9]+ (passed|failed)' "$log" | tail -1
    rm -f "$log"
done
exit $status
