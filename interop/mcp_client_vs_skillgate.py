#!/usr/bin/env python3
"""The official MCP Python SDK (`mcp`) as the client of `skillgate mcp`.

Starts `skillgate serve --listen 127.0.0.1:0` (the netops agent; the binary is argv[1]) and,
in front of its Agent Card only, a small proxy that rewrites the advertised interface digest
of one skill (assess_interface_health): that skill's describe_skill answer then disagrees with
the card (the client's step 4), so it must not be listed as a tool. The other skills' calls go
to the agent's own interface URL, as the card names it.

Then, with the SDK's `Client`, over stdio (`skillgate mcp URL`, the SDK spawning it) and over
Streamable HTTP (`skillgate mcp URL --listen 127.0.0.1:0`), each in the SDK's `auto` mode (the
2026-07-28 `server/discover` probe) and its `legacy` mode (the `initialize` handshake):
  - lists the tools: the governed skills whose interface checks out, not describe_skill and not
    the broken one; schemas, `_meta` (version, digest) and the read-only hint;
  - calls collect_interface_counters: the validated output as structured content (the SDK
    checks it against the tool's outputSchema), the task and records in `_meta`;
  - calls it with a bad argument: `isError` with input_invalid, step 7, the detail's path;
  - calls the broken skill by name: a protocol error (not a tool).
Also checks that `skillgate mcp`'s stderr names the broken skill and why.
"""

import asyncio
import http.server
import json
import socketserver
import subprocess
import sys
import tempfile
import threading
import urllib.request

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

EXT = "https://agentic-network-management.github.io/agent-schema-interfaces/extensions/schema-interface/v1"
BROKEN = "assess_interface_health"
CALLED = "collect_interface_counters"
CARD_PATH = "/.well-known/agent-card.json"
WRONG_DIGEST = "sha256:" + "0" * 64

from checks import check, finish


def start(cmd):
    """Starts a skillgate server command and reads its `listening on URL` line."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline().strip()
    if not line.startswith("listening on "):
        proc.kill()
        raise SystemExit(f"{cmd[1]} did not start: {line!r} {proc.stderr.read()}")
    return proc, line.removeprefix("listening on ")


def stop(proc):
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


def card_proxy(upstream):
    """A loopback HTTP server serving the upstream's Agent Card with BROKEN's digest changed."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            with urllib.request.urlopen(upstream + self.path, timeout=10) as r:
                body = r.read()
                ctype = r.headers.get("Content-Type", "application/json")
            if self.path.split("?")[0] == CARD_PATH:
                card = json.loads(body)
                for ext in card.get("capabilities", {}).get("extensions", []):
                    if ext.get("uri") == EXT:
                        for entry in ext.get("params", {}).get("skills", []):
                            if entry.get("skill_id") == BROKEN:
                                entry["interface_digest"] = WRONG_DIGEST
                body = json.dumps(card).encode()
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


async def scenario(label, server, mode):
    print(f"== {label}, mode {mode}")
    async with Client(server, mode=mode) as client:
        check(client.protocol_version in ("2026-07-28", "2025-11-25", "2025-06-18"),
              f"{label}/{mode}: negotiated MCP {client.protocol_version}")
        if mode == "legacy":
            check(client.protocol_version == "2025-11-25", f"{label}/legacy: initialize gives 2025-11-25")
        else:
            check(client.protocol_version == "2026-07-28", f"{label}/auto: server/discover gives 2026-07-28")
        tools = (await client.list_tools()).tools
        names = sorted(t.name for t in tools)
        check(CALLED in names and "evaluate_resource_condition" in names,
              f"{label}/{mode}: governed skills listed ({names})")
        check("describe_skill" not in names, f"{label}/{mode}: describe_skill is not a tool")
        check(BROKEN not in names, f"{label}/{mode}: {BROKEN} (digest mismatch) is not listed")
        tool = next((t for t in tools if t.name == CALLED), None)
        if tool is None:
            return
        meta = tool.meta or {}
        check(meta.get("skillgate/skill_version") == "1.0", f"{label}/{mode}: _meta skill_version 1.0")
        check(str(meta.get("skillgate/interface_digest", "")).startswith("sha256:"),
              f"{label}/{mode}: _meta interface_digest")
        check(tool.input_schema.get("type") == "object" and tool.output_schema is not None,
              f"{label}/{mode}: inputSchema and outputSchema from the document")
        check(tool.annotations is not None and tool.annotations.read_only_hint is True,
              f"{label}/{mode}: observe_only skill is read-only")

        ok = await client.call_tool(CALLED, {"interface": "lo"})
        check(not ok.is_error, f"{label}/{mode}: call succeeds")
        out = ok.structured_content or {}
        check(out.get("interface") == "lo", f"{label}/{mode}: structured content is the validated output")
        text = "".join(c.text for c in ok.content if getattr(c, "type", "") == "text")
        check(json.loads(text or "null") == out, f"{label}/{mode}: text content renders the same output")
        rmeta = ok.meta or {}
        check(rmeta.get("skillgate/state") == "TASK_STATE_COMPLETED" and rmeta.get("skillgate/task_id"),
              f"{label}/{mode}: task id and state in the result _meta")

        bad = await client.call_tool(CALLED, {"interface": 7})
        check(bad.is_error, f"{label}/{mode}: a bad argument is refused with isError")
        failure = (bad.meta or {}).get("skillgate/failure", {})
        check(failure.get("code") == "input_invalid" and failure.get("where") == "local"
              and (failure.get("step") or {}).get("number") == 7,
              f"{label}/{mode}: input_invalid, local, step 7")
        check(any(d.get("instance_path") == "/interface" for d in failure.get("details", [])),
              f"{label}/{mode}: the detail names /interface")

        try:
            await client.call_tool(BROKEN, {})
            check(False, f"{label}/{mode}: calling the unlisted skill is a protocol error")
        except MCPError as e:
            check("unknown tool" in str(e), f"{label}/{mode}: calling the unlisted skill is a protocol error ({e})")


async def main(binary):
    agent, base = start([binary, "serve", "--listen", "127.0.0.1:0", "--store", "memory"])
    proxy, proxy_url = card_proxy(base)
    try:
        with tempfile.TemporaryFile(mode="w+") as log:
            for mode in ("auto", "legacy"):
                params = StdioServerParameters(command=binary, args=["mcp", proxy_url])
                await scenario("stdio", stdio_client(params, errlog=log), mode)
            log.seek(0)
            logs = log.read()
            check(BROKEN in logs and "not listed" in logs and "interface_invalid" in logs,
                  "stdio: the log (stderr) names the broken skill and why")
        mcp, url = start([binary, "mcp", proxy_url, "--listen", "127.0.0.1:0"])
        try:
            check(url.endswith("/mcp"), f"http: listening at {url}")
            for mode in ("auto", "legacy"):
                await scenario("http", url, mode)
        finally:
            stop(mcp)
    finally:
        proxy.shutdown()
        stop(agent)
    finish("mcp_client_vs_skillgate")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: mcp_client_vs_skillgate.py PATH/TO/skillgate")
    asyncio.run(main(sys.argv[1]))
