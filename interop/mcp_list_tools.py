#!/usr/bin/env python3
"""Lists an MCP server's tools with the official MCP Python SDK's client and prints them as one
JSON object, `{"tools": [...]}` (each tool as the wire spells it: `inputSchema`,
`outputSchema`, `annotations`, `_meta`). Run by the MCP venv's python for
interop/mcp_gateway_vs_sdk.py, whose own venv has the a2a-sdk instead.
Usage: mcp_list_tools.py URL | mcp_list_tools.py --command PROGRAM ARG...
"""

import asyncio
import json
import sys

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main(argv):
    if argv[0] == "--command":
        target = stdio_client(StdioServerParameters(command=argv[1], args=argv[2:]))
    else:
        target = argv[0]
    async with Client(target) as client:
        tools = (await client.list_tools()).tools
    print(json.dumps({"tools": [t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in tools]}))


if __name__ == "__main__":
    if not sys.argv[1:]:
        raise SystemExit("usage: mcp_list_tools.py URL | mcp_list_tools.py --command PROGRAM ARG...")
    asyncio.run(main(sys.argv[1:]))
