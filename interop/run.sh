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
# Group mcp: the official MCP Python SDK (mcp 2.3.0) as the client of `skillgate mcp` over stdio
#   and Streamable HTTP, in front of `skillgate serve` (its own venv: the two SDKs' pins differ).
# `interop/run.sh` runs every group; `interop/run.sh mcp` (or `a2a`) only the ones named.
# Creates a venv per group (INTEROP_VENV, default target/interop-venv, with
# interop/requirements.txt; INTEROP_MCP_VENV, default target/interop-venv-mcp, with
# interop/requirements-mcp.txt), builds `skillgate`, runs every scenario and exits non-zero if
# any failed.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
VENV=${INTEROP_VENV:-target/interop-venv}
MCP_VENV=${INTEROP_MCP_VENV:-target/interop-venv-mcp}
SCENARIO_TIMEOUT=${INTEROP_TIMEOUT:-180}
GROUPS_WANTED=" ${*:-a2a mcp} "
want() { [[ "$GROUPS_WANTED" == *" $1 "* ]]; }

venv() {
    local dir=$1 requirements=$2
    echo "== interop: venv $dir"
    if [ ! -x "$dir/bin/python" ]; then
        "$PYTHON" -m venv "$dir"
    fi
    "$dir/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
}
if want a2a; then venv "$VENV" interop/requirements.txt; fi
if want mcp; then venv "$MCP_VENV" interop/requirements-mcp.txt; fi

echo "== interop: cargo build -p skillgate-cli"
cargo build --quiet -p skillgate-cli
TARGET_DIR=$(cargo metadata --format-version 1 --no-deps \
    | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
SKILLGATE="$TARGET_DIR/debug/skillgate"
[ -x "$SKILLGATE" ] || { echo "interop: $SKILLGATE was not built" >&2; exit 2; }

EXAMPLE=examples/interfaces/evaluate_resource_condition
failed=()
run() {
    local name=$1; shift
    echo "== interop: $name"
    if timeout "$SCENARIO_TIMEOUT" "$PY" "$@"; then
        echo "== interop: $name PASSED"
    else
        echo "== interop: $name FAILED (exit $?)" >&2
        failed+=("$name")
    fi
}

if want a2a; then
    PY="$VENV/bin/python"
    run sdk_client_vs_skillgate interop/sdk_client_vs_skillgate.py "$SKILLGATE"
    run sdk_server_plain interop/sdk_server_plain.py "$SKILLGATE"
    run sdk_server_extension interop/sdk_server_extension.py "$SKILLGATE" \
        "$EXAMPLE.json" "$EXAMPLE.input.json" "$EXAMPLE.output.json" "$EXAMPLE.record.json"
    run gateway_vs_sdk interop/gateway_vs_sdk.py "$SKILLGATE"
    run signing_vs_sdk interop/signing_vs_sdk.py "$SKILLGATE"
    run grpc_vs_sdk interop/grpc_vs_sdk.py "$SKILLGATE"
fi

if want mcp; then
    PY="$MCP_VENV/bin/python"
    run mcp_client_vs_skillgate interop/mcp_client_vs_skillgate.py "$SKILLGATE"
fi

if [ ${#failed[@]} -gt 0 ]; then
    echo "interop: FAILED: ${failed[*]}" >&2
    exit 1
fi
echo "interop: all scenarios passed"
