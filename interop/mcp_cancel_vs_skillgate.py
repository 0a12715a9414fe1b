#!/usr/bin/env python3
"""The official MCP Python SDK (`mcp`) cancelling a long call through `skillgate mcp`.

Starts `skillgate serve --config` on a declarative agent made by `skillgate init` whose one skill
(echo_latency, cancelable, offered in stream mode) is replaced by a program that waits 4 s for
host "slow". Then, with the SDK's `Client` over stdio and over Streamable HTTP:
  - a call with a progress callback receives progress notifications (the A2A task and its
    state) while it runs;
  - cancelling the awaiting asyncio task makes the SDK send `notifications/cancelled`, and the
    A2A task ends CANCELED on the agent (read back with `skillgate task get`), not COMPLETED;
  - a short call still completes with its validated output;
  - a call with invalid input is refused (isError, input_invalid naming /host), nothing run.
The same against the agent's own MCP endpoint (`serve --mcp-listen`, no A2A hop): a second
`skillgate serve` on the same agent directory, the SDK's client over Streamable HTTP.
Usage: mcp_cancel_vs_skillgate.py PATH/TO/skillgate
"""

import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from checks import check, finish

SLOW_SKILL = '''import json, sys, time
args = json.load(sys.stdin)
if args["host"] == "slow":
    time.sleep(4)
print(json.dumps({"output": {"host": args["host"], "samples": args["samples"], "latency_ms": 0.5},
                  "records": [{"kind": "latency-samples", "data": {"samples_ms": [0.5]}}]}))
'''


def start(cmd, mcp=False):
    """Starts cmd and returns it with its base URL (and, with `mcp`, its MCP endpoint: the
    second line `serve --mcp-listen` prints)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline().strip()
    if not line.startswith("listening on "):
        proc.kill()
        raise SystemExit(f"{cmd[1]} did not start: {line!r}")
    if not mcp:
        return proc, line.removeprefix("listening on ")
    second = proc.stdout.readline().strip()
    if not second.startswith("mcp listening on "):
        proc.kill()
        raise SystemExit(f"{cmd[1]} did not print its MCP endpoint: {second!r}")
    return proc, line.removeprefix("listening on "), second.removeprefix("mcp listening on ")


def stop(proc):
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()


def task_state(binary, base, task_id):
    p = subprocess.run([binary, "task", "get", base, task_id, "--format", "json"],
                       capture_output=True, text=True, timeout=30)
    try:
        return json.loads(p.stdout)["task"]["status"]["state"]
    except (ValueError, KeyError):
        return f"unreadable: {p.stdout[:200]} {p.stderr[:200]}"


async def scenario(label, server, binary, base):
    print(f"== {label}")
    async with Client(server) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        check("echo_latency" in names, f"{label}: echo_latency is a tool ({names})")
        messages = []
        started = asyncio.Event()

        async def on_progress(progress, total, message):
            messages.append(message or "")
            if message and message.startswith("task "):
                started.set()

        call = asyncio.create_task(
            client.call_tool("echo_latency", {"host": "slow", "samples": 1}, progress_callback=on_progress))
        try:
            await asyncio.wait_for(started.wait(), 10)
        except asyncio.TimeoutError:
            pass
        check(started.is_set(), f"{label}: a progress notification names the A2A task ({messages})")
        task_id = next((m.split(" ")[1] for m in messages if m.startswith("task ")), None)
        call.cancel()
        try:
            await call
        except asyncio.CancelledError:
            pass
        if task_id is None:
            return
        deadline = time.monotonic() + 10
        state = task_state(binary, base, task_id)
        while state in ("TASK_STATE_SUBMITTED", "TASK_STATE_WORKING") and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
            state = task_state(binary, base, task_id)
        check(state == "TASK_STATE_CANCELED",
              f"{label}: the cancelled call's A2A task {task_id} ended CANCELED ({state})")

        ok = await client.call_tool("echo_latency", {"host": "localhost", "samples": 1})
        check(not ok.is_error and (ok.structured_content or {}).get("host") == "localhost",
              f"{label}: a short call still completes with its validated output")

        bad = await client.call_tool("echo_latency", {"host": 7, "samples": 1})
        text = " ".join(getattr(c, "text", "") for c in bad.content)
        check(bad.is_error and "input_invalid" in text and "/host" in text,
              f"{label}: invalid input is refused with input_invalid at /host ({text[:200]!r})")


async def main(binary):
    with tempfile.TemporaryDirectory() as tmp:
        agent_dir = Path(tmp) / "agent"
        subprocess.run([binary, "init", str(agent_dir)], check=True, capture_output=True)
        (agent_dir / "skills" / "echo_latency.py").write_text(SLOW_SKILL)
        agent, base = start([binary, "serve", "--listen", "127.0.0.1:0", "--store", "memory",
                             "--config", str(agent_dir / "agent.toml")])
        try:
            params = StdioServerParameters(command=binary, args=["mcp", base])
            await scenario("stdio", stdio_client(params), binary, base)
            mcp, url = start([binary, "mcp", base, "--listen", "127.0.0.1:0"])
            try:
                await scenario("http", url, binary, base)
            finally:
                stop(mcp)
        finally:
            stop(agent)
        # The agent's own MCP endpoint: no `skillgate mcp`, no A2A hop.
        direct, base, url = start([binary, "serve", "--listen", "127.0.0.1:0", "--store", "memory",
                                   "--config", str(agent_dir / "agent.toml"),
                                   "--mcp-listen", "127.0.0.1:0"], mcp=True)
        try:
            await scenario("serve --mcp-listen", url, binary, base)
        finally:
            stop(direct)
    finish("mcp_cancel_vs_skillgate")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: mcp_cancel_vs_skillgate.py PATH/TO/skillgate")
    asyncio.run(main(sys.argv[1]))
