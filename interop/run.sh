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
#   (f) the `v03` group, with the A2A 0.3 SDK line (a2a-sdk 0.3.26, interop/requirements-v03.txt,
#       its own venv INTEROP_VENV_V03, default target/interop-venv-v03): its client over 0.3
#       JSON-RPC and 0.3 HTTP+JSON against `skillgate serve` (and its webhook, sent 0.3 tasks),
#       its gRPC client (a2a-sdk[grpc], grpcio wheels) against `serve --grpc-listen`'s
#       `a2a.v1.A2AService`,
#       the gateway in front of a plain 0.3 agent served over JSON-RPC and over HTTP+JSON, our
#       client against a 0.3 agent implementing the extension by hand (JSON-RPC and REST
#       servers), and its signature verifier against the 0.3 card `serve --signing-key` serves;
#       a2a-sdk 1.3.0's 0.3 compatibility line (from the 1.x venv) both ways over both 0.3
#       bindings (its client against `serve --a2a-versions 0.3`, our client against its
#       `enable_v0_3_compat` server); plus the official @a2a-js/sdk 0.3 client
#       over both bindings against `skillgate serve`
#       (interop/js03, npm, installed into target/interop-js03).
#   (g) the `mcp` group: the official MCP Python SDK (mcp 2.3.0) as the client of `skillgate mcp`
#       over stdio and Streamable HTTP, in front of `skillgate serve` (and a long call it
#       cancels, with progress, against a declarative agent; its own venv
#       INTEROP_MCP_VENV, default target/interop-venv-mcp, interop/requirements-mcp.txt); and an
#       MCP server written with that SDK behind `skillgate gateway` (its tools as governed A2A
#       skills, documents from `skillgate interface from-mcp`), called by our client and by
#       a2a-sdk 1.3.0's (so this group also sets up the v10 venv), with the round trip back out
#       through `skillgate mcp`.
# Usage: interop/run.sh [GROUP ...] with groups v10 (a)-(e), v03 (f), mcp (g); no group (or
# `all`) runs every one. Creates each group's venv, installs its pinned requirements, builds
# `skillgate`, runs every scenario of the groups and exits non-zero if any failed.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
VENV=${INTEROP_VENV:-target/interop-venv}
VENV_V03=${INTEROP_VENV_V03:-target/interop-venv-v03}
MCP_VENV=${INTEROP_MCP_VENV:-target/interop-venv-mcp}
SCENARIO_TIMEOUT=${INTEROP_TIMEOUT:-180}
GROUPS_WANTED=" ${*:-all} "
[[ "$GROUPS_WANTED" == " all " ]] && GROUPS_WANTED=" v10 v03 mcp "
for g in $GROUPS_WANTED; do
    case "$g" in
        v10|v03|mcp) ;;
        *) echo "usage: interop/run.sh [all|v10|v03|mcp ...]" >&2; exit 2 ;;
    esac
done
want() { [[ "$GROUPS_WANTED" == *" $1 "* ]]; }

# venv DIR REQUIREMENTS: creates DIR if needed and installs the pinned requirements into it.
venv() {
    echo "== interop: venv $1"
    if [ ! -x "$1/bin/python" ]; then
        "$PYTHON" -m venv "$1"
    fi
    "$1/bin/python" -m pip install --quiet --disable-pip-version-check -r "$2"
}
# The v03 group uses the 1.x venv too (a2a-sdk 1.3.0's 0.3 compatibility client), and so does
# the mcp group (a2a-sdk 1.3.0's client drives the gateway in front of an MCP server).
if want v10 || want v03 || want mcp; then venv "$VENV" interop/requirements.txt; fi
if want v03; then venv "$VENV_V03" interop/requirements-v03.txt; fi
if want mcp; then venv "$MCP_VENV" interop/requirements-mcp.txt; fi

echo "== interop: cargo build -p skillgate-cli"
cargo build --quiet -p skillgate-cli
TARGET_DIR=$(cargo metadata --format-version 1 --no-deps \
    | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
SKILLGATE="$TARGET_DIR/debug/skillgate"
[ -x "$SKILLGATE" ] || { echo "interop: $SKILLGATE was not built" >&2; exit 2; }

EXAMPLE=examples/interfaces/evaluate_resource_condition
failed=()
# run NAME SCRIPT ARGS...: one scenario, run by $PY (the group's python, or node).
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

if want v10; then
    PY="$VENV/bin/python"
    run sdk_client_vs_skillgate interop/sdk_client_vs_skillgate.py "$SKILLGATE"
    run sdk_server_plain interop/sdk_server_plain.py "$SKILLGATE"
    run sdk_server_extension interop/sdk_server_extension.py "$SKILLGATE" \
        "$EXAMPLE.json" "$EXAMPLE.input.json" "$EXAMPLE.output.json" "$EXAMPLE.record.json"
    run gateway_vs_sdk interop/gateway_vs_sdk.py "$SKILLGATE"
    run signing_vs_sdk interop/signing_vs_sdk.py "$SKILLGATE"
    run grpc_vs_sdk interop/grpc_vs_sdk.py "$SKILLGATE"
fi
if want v03; then
    PY="$VENV_V03/bin/python"
    run v03_sdk_client_vs_skillgate interop/v03_sdk_client_vs_skillgate.py "$SKILLGATE"
    run v03_grpc_vs_skillgate interop/v03_grpc_vs_skillgate.py "$SKILLGATE"
    run v03_gateway_vs_sdk interop/v03_gateway_vs_sdk.py "$SKILLGATE"
    run v03_sdk_server_extension interop/v03_sdk_server_extension.py \
        "$SKILLGATE" "$EXAMPLE.json" "$EXAMPLE.input.json" "$EXAMPLE.output.json" "$EXAMPLE.record.json"
    run v03_signing_vs_sdk interop/v03_signing_vs_sdk.py "$SKILLGATE"
    PY="$VENV/bin/python" run v03_compat_client interop/v03_compat_client.py \
        "$SKILLGATE" "$EXAMPLE.json" "$EXAMPLE.input.json" "$EXAMPLE.output.json" "$EXAMPLE.record.json"
    # The JS SDK's 0.3 client: its pinned package, installed once into target/.
    JS03=target/interop-js03
    mkdir -p "$JS03"
    cp interop/js03/package.json interop/js03/v03_js_client_vs_skillgate.mjs "$JS03/"
    [ -d "$JS03/node_modules/@a2a-js/sdk" ] || (cd "$JS03" && npm install --silent --no-audit --no-fund)
    PY=node run v03_js_client_vs_skillgate "$JS03/v03_js_client_vs_skillgate.mjs" "$SKILLGATE"
fi

if want mcp; then
    PY="$MCP_VENV/bin/python"
    run mcp_client_vs_skillgate interop/mcp_client_vs_skillgate.py "$SKILLGATE"
    run mcp_cancel_vs_skillgate interop/mcp_cancel_vs_skillgate.py "$SKILLGATE"
    # The a2a-sdk client drives the gateway; the MCP venv's python runs the MCP server.
    PY="$VENV/bin/python" run mcp_gateway_vs_sdk interop/mcp_gateway_vs_sdk.py "$SKILLGATE" "$MCP_VENV/bin/python"
fi

if [ ${#failed[@]} -gt 0 ]; then
    echo "interop: FAILED: ${failed[*]}" >&2
    exit 1
fi
echo "interop: all scenarios passed"
