#!/usr/bin/env python3
"""An MCP server written with the official MCP Python SDK (`mcp`, its low-level `Server`),
over stdio, for interop/mcp_gateway_vs_sdk.py: MCP tools behind `skillgate gateway`.

Tools (every one hinted read-only, so the documents `skillgate interface from-mcp` writes are
observe_only):
  - `lookup`: {"host": string} -> structured {"rtt_ms": number}; host "bad-output" answers
    {"rtt_ms": "fast"}, which breaks its own outputSchema (this server does not check it);
  - `echo`: no outputSchema, answers its text as a text block;
  - `fails`: answers isError with a reason;
  - `slow`: sleeps 30 s unless cancelled (notifications/cancelled), and notes the cancel.

State lives in the directory STATE_DIR (argv[1]), so the scenario can read it while the
gateway owns this process: every call that reaches a tool appends the tool's name to
`calls`; a cancelled `slow` writes `cancelled`; while a file `drift` exists, `lookup` lists
another input schema (a `port` property more), read at every tools/list.
With `--http PORT` it serves Streamable HTTP at http://127.0.0.1:PORT/mcp instead of stdio.
Usage: mcp_tools_server.py STATE_DIR [--http PORT]
"""

import json
import os
import sys

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

STATE = sys.argv[1] if len(sys.argv) > 1 else "."
READ_ONLY = types.ToolAnnotations(read_only_hint=True)


def lookup_input():
    schema = {
        "type": "object",
        "properties": {"host": {"type": "string", "minLength": 1}},
        "required": ["host"],
        "additionalProperties": False,
    }
    if os.path.exists(os.path.join(STATE, "drift")):
        schema["properties"]["port"] = {"type": "integer"}
    return schema


def note(name, line):
    with open(os.path.join(STATE, name), "a", encoding="utf-8") as f:
        f.write(line + "\n")


async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[
        types.Tool(
            name="lookup", description="Round-trip time to a host", annotations=READ_ONLY,
            input_schema=lookup_input(),
            output_schema={"type": "object", "properties": {"rtt_ms": {"type": "number"}},
                           "required": ["rtt_ms"]},
        ),
        types.Tool(name="echo", description="Echoes its text", annotations=READ_ONLY,
                   input_schema={"type": "object", "properties": {"text": {"type": "string"}},
                                 "required": ["text"]}),
        types.Tool(name="fails", description="Always fails", annotations=READ_ONLY,
                   input_schema={"type": "object"}),
        types.Tool(name="slow", description="Waits to be cancelled", annotations=READ_ONLY,
                   input_schema={"type": "object"}),
    ])


def text(t):
    return [types.TextContent(type="text", text=t)]


async def call_tool(ctx, params):
    name, args = params.name, params.arguments or {}
    note("calls", name)
    if name == "lookup":
        host = args.get("host", "")
        out = {"rtt_ms": "fast"} if host == "bad-output" else {"rtt_ms": len(host) * 1.5}
        return types.CallToolResult(content=text(json.dumps(out)), structured_content=out)
    if name == "echo":
        return types.CallToolResult(content=text(args.get("text", "")))
    if name == "fails":
        return types.CallToolResult(content=text("the backend is down"), is_error=True)
    try:
        await anyio.sleep(30)
    except anyio.get_cancelled_exc_class():
        note("cancelled", "slow")
        raise
    return types.CallToolResult(content=text("done"))


def server():
    return Server("interop-mcp-tools", version="1.0.0", on_list_tools=list_tools, on_call_tool=call_tool)


async def main():
    s = server()
    async with stdio_server() as (read, write):
        await s.run(read, write, s.create_initialization_options())


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[2] == "--http":
        import uvicorn

        uvicorn.run(server().streamable_http_app(), host="127.0.0.1", port=int(sys.argv[3]), log_level="warning")
    else:
        anyio.run(main)
