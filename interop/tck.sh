#!/usr/bin/env bash
# Runs the A2A TCK (a2aproject/a2a-tck, branch 1.0-dev; not on any registry and never committed
# here) against `skillgate serve --conformance-agent`, MUST level, one binding at a time, and
# prints the MUST counts per group (interop/tck_summary.py).
#   TCK_DIR   an exported 1.0-dev tree (required), e.g. git --git-dir=<mirror> archive 1.0-dev | tar -x -C "$TCK_DIR"
#   TCK_VENV  venv for the TCK (default target/tck-venv; created and filled on first use)
#   TCK_LEVEL must|should|may (default must)
#   TCK_TRANSPORTS  space-separated (default "jsonrpc http_json grpc")
set -euo pipefail
cd "$(dirname "$0")/.."
: "${TCK_DIR:?set TCK_DIR to an exported a2a-tck 1.0-dev tree}"
TCK_VENV=${TCK_VENV:-$PWD/target/tck-venv}
LEVEL=${TCK_LEVEL:-must}
REPORTS=${TCK_REPORTS:-$PWD/target/tck-reports}
mkdir -p "$REPORTS"

if [ ! -x "$TCK_VENV/bin/python" ]; then
    python3 -m venv "$TCK_VENV"
    "$TCK_VENV/bin/pip" install --quiet "pytest>=8.0" "pytest-asyncio>=0.23" "httpx>=0.27" \
        "grpcio>=1.60" "protobuf>=4.25" "googleapis-common-protos>=1.62" "jsonschema>=4.21" \
        "pytest-html>=4.1" "gherkin-official>=29.0" "Jinja2>=3.1"
fi

cargo build --quiet -p skillgate-cli
TARGET_DIR=$(cargo metadata --format-version 1 --no-deps \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
OUT=$(mktemp)
# gRPC on a second port; push notifications on, with the TCK's webhook receiver on loopback.
# A2A 1.0 only: the 1.0 TCK fetches the card without an A2A-Version header, which a server that
# also speaks 0.3 (the default) answers with its 0.3 card.
"$TARGET_DIR/debug/skillgate" serve --listen 127.0.0.1:0 --grpc-listen 127.0.0.1:0 --store memory \
    --a2a-versions 1.0 --conformance-agent --push --allow-http-push >"$OUT" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; rm -f "$OUT"' EXIT
for _ in $(seq 50); do
    grep -q '^listening on ' "$OUT" && break
    sleep 0.1
done
URL=$(sed -n 's/^listening on //p' "$OUT" | head -1)
[ -n "$URL" ] || { echo "tck: skillgate serve did not start: $(cat "$OUT")" >&2; exit 2; }

status=0
for transport in ${TCK_TRANSPORTS:-jsonrpc http_json grpc}; do
    echo "== TCK $LEVEL $transport against $URL"
    (cd "$TCK_DIR" && "$TCK_VENV/bin/python" run_tck.py --sut-host "$URL" \
        --transport "$transport" --level "$LEVEL") >"$REPORTS/$transport.log" 2>&1 || status=1
    tail -1 "$REPORTS/$transport.log"
    cp "$TCK_DIR/reports/compatibility.json" "$REPORTS/$transport.json"
    python3 interop/tck_summary.py "$REPORTS/$transport.json" "$transport"
done
exit $status
