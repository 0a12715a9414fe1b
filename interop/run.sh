#!/usr/bin/env bash
# Interop with the official Python A2A SDK (a2a-sdk 1.3.0), both ways:
#   (a) the SDK's client against our netops agent (`skillgate serve`);
#   (b) our client (`skillgate call` / `describe` / `conformance`) against a2a-sdk servers,
#       one without the schema-interface extension (must be refused, nothing delegated) and one
#       implementing it by hand with our Appendix B document (must succeed, over JSON-RPC and,
#       served by the SDK's gRPC server, with `--binding grpc`);
#   (c) `skillgate gateway` in front of a plain a2a-sdk agent, driven by our client and the SDK's.
#   (d) signed Agent Cards: the SDK verifies ours and we verify the SDK signer's, per algorithm.
#   (e) the SDK's gRPC client against `skillgate serve --grpc-listen` (a2a-sdk[grpc]).
# Creates a venv (INTEROP_VENV, default target/interop-venv), installs interop/requirements.txt,
# builds `skillgate`, runs every scenario and exits non-zero if any failed.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
VENV=${INTEROP_VENV:-target/interop-venv}
SCENARIO_TIMEOUT=${INTEROP_TIMEOUT:-180}

echo "== interop: venv $VENV"
if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r interop/requirements.txt

echo "== interop: cargo build -p skillgate-cli"
cargo build --quiet -p skillgate-cli
TARGET_DIR=$(cargo metadata --format-version 1 --no-deps \
    | "$VENV/bin/python" -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
SKILLGATE="$TARGET_DIR/debug/skillgate"
[ -x "$SKILLGATE" ] || { echo "interop: $SKILLGATE was not built" >&2; exit 2; }

EXAMPLE=examples/interfaces/evaluate_resource_condition
failed=()
run() {
    local name=$1; shift
    echo "== interop: $name"
    if timeout "$SCENARIO_TIMEOUT" "$VENV/bin/python" "$@"; then
        echo "== interop: $name PASSED"
    else
        echo "== interop: $name FAILED (exit $?)" >&2
        failed+=("$name")
    fi
}

run sdk_client_vs_skillgate interop/sdk_client_vs_skillgate.py "$SKILLGATE"
run sdk_server_plain interop/sdk_server_plain.py "$SKILLGATE"
run sdk_server_extension interop/sdk_server_extension.py "$SKILLGATE" \
    "$EXAMPLE.json" "$EXAMPLE.input.json" "$EXAMPLE.output.json" "$EXAMPLE.record.json"
run gateway_vs_sdk interop/gateway_vs_sdk.py "$SKILLGATE"
run signing_vs_sdk interop/signing_vs_sdk.py "$SKILLGATE"
run grpc_vs_sdk interop/grpc_vs_sdk.py "$SKILLGATE"

if [ ${#failed[@]} -gt 0 ]; then
    echo "interop: FAILED: ${failed[*]}" >&2
    exit 1
fi
echo "interop: all scenarios passed"
