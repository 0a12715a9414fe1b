#!/usr/bin/env python3
"""MCP tools as governed A2A skills: an MCP server written with the official MCP Python SDK
(interop/mcp_tools_server.py, run by the MCP venv's python) behind `skillgate gateway`, called
by our client and by the a2a-sdk 1.3.0 client (this script runs in the v10 venv).

  - `skillgate interface from-mcp --command ...` writes one document per tool (the fallback
    output schema for tools without outputSchema) without calling any tool, and the same
    documents from the server over Streamable HTTP (`from-mcp URL`);
  - the gateway starts the server itself ([mcp] command) and serves the tools as skills:
    our client and the SDK's get lookup's output; input the gate refuses (sent raw by the SDK
    client) never reaches the tool (the server counts its calls); structured output that
    breaks the tool's own outputSchema is output_invalid; isError is execution_failed with
    the tool's reason; the content fallback is the output of a tool without outputSchema;
  - a cancel through the gateway (SDK client, streaming) reaches the tool as
    notifications/cancelled;
  - a round trip: the gateway's skills served back out by `skillgate mcp --listen`: the MCP
    Python SDK's client lists them with the server's own schemas (the fallback as outputSchema
    for tools without one) and the imported documents' digests in `_meta`, and `from-mcp`
    reads them back as the same documents, digest for digest;
  - drift: lookup's input schema changes on the server; after a refresh the gateway refuses
    lookup (execution_failed, the tool not called, the report on stderr), a reload (SIGHUP)
    with the old document still refuses it, and one with a regenerated document serves it.
Usage: mcp_gateway_vs_sdk.py PATH/TO/skillgate PATH/TO/mcp-venv/bin/python
"""

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid

import httpx
from google.protobuf import json_format
from a2a.client import ClientCallContext, ClientConfig, ClientFactory
from a2a.client.card_resolver import A2ACardResolver
from a2a.client.service_parameters import ServiceParametersFactory, with_a2a_extensions
from a2a.helpers.proto_helpers import new_data_part
from a2a.types.a2a_pb2 import CancelTaskRequest, GetTaskRequest, Message, Role, SendMessageRequest, TaskState

from interop_common import EXT, check, finish, parse_json, result_json, skillgate

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = ["lookup", "echo", "fails", "slow"]


def calls(state, tool):
    try:
        with open(os.path.join(state, "calls"), encoding="utf-8") as f:
            return sum(1 for line in f if line.strip() == tool)
    except FileNotFoundError:
        return 0


def start(cmd, log):
    """Starts a skillgate server command (stderr to `log`) and reads its `listening on` line."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=open(log, "w"), text=True)
    line = proc.stdout.readline().strip()
    if not line.startswith("listening on "):
        proc.kill()
        with open(log, encoding="utf-8") as f:
            raise SystemExit(f"{cmd[1]} did not start: {line!r} {f.read()[-2000:]}")
    return proc, line.removeprefix("listening on ")


def halt(proc):
    if proc and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def ctx():
    return ClientCallContext(service_parameters=ServiceParametersFactory.create([with_a2a_extensions([EXT])]))


def governed(card_json, skill, args):
    params = card_json["capabilities"]["extensions"][0]["params"]["skills"]
    adv = next(s for s in params if s["skill_id"] == skill)
    return {"skill": skill, "skill_version": adv["skill_version"],
            "interface_digest": adv["interface_digest"], "arguments": args}


def message(payload):
    return Message(role=Role.ROLE_USER, message_id=str(uuid.uuid4()),
                   parts=[new_data_part(payload, media_type="application/json")])


def call(binary, gw, skill, args):
    code, out, err = skillgate(binary, "call", gw, skill, "--args", json.dumps(args), "--format", "json")
    return code, result_json(out) or {}, err


async def sdk_checks(gw, state):
    async with httpx.AsyncClient(timeout=30) as http:
        card_json = (await http.get(f"{gw}/.well-known/agent-card.json")).json()
        ids = sorted(s["id"] for s in card_json["skills"])
        check(ids == sorted(TOOLS + ["describe_skill"]), f"the gateway's card lists the four tools as skills ({ids})")
        check(card_json["name"] == "interop-mcp-tools", f"the card names the MCP server ({card_json['name']})")
        card = await A2ACardResolver(http, gw).get_agent_card()
        client = ClientFactory(ClientConfig(httpx_client=http, streaming=False)).create(card)

        async def send(skill, args):
            req = SendMessageRequest(message=message(governed(card_json, skill, args)))
            events = [e async for e in client.send_message(req, context=ctx())]
            tasks = [e.task for e in events if e.WhichOneof("payload") == "task"]
            return tasks[-1] if tasks else None

        before = calls(state, "lookup")
        task = await send("lookup", {"host": "abcd"})
        out = [json_format.MessageToDict(a.parts[0].data) for a in task.artifacts if a.name == "lookup"] if task else []
        check(task is not None and task.status.state == TaskState.TASK_STATE_COMPLETED and out == [{"rtt_ms": 6.0}],
              f"the a2a-sdk client gets lookup's output through the gateway ({out})")
        check(calls(state, "lookup") == before + 1, "... and the tool ran once")

        before = calls(state, "lookup")
        task = await send("lookup", {"host": 5})
        err = json_format.MessageToDict(task.status.message.parts[0].data) if task else {}
        check(err.get("code") == "input_invalid", f"input the gate refuses: input_invalid ({err.get('code')})")
        check(calls(state, "lookup") == before, "refused input never reached the MCP tool")

        # Cancel: stream a slow call, learn the gateway task id, cancel it.
        sclient = ClientFactory(ClientConfig(httpx_client=http, streaming=True)).create(card)
        req = SendMessageRequest(message=message(governed(card_json, "slow", {})))
        stream = sclient.send_message(req, context=ctx())
        task_id = None
        async for ev in stream:
            kind = ev.WhichOneof("payload")
            if kind == "task":
                task_id = ev.task.id
            elif kind == "status_update":
                task_id = ev.status_update.task_id
            # The task id is all the cancel needs; the tool may not have started yet (events
            # are not held back, so the first ones can arrive before it runs): waited for below.
            if task_id:
                break
        deadline = time.monotonic() + 10
        while calls(state, "slow") == 0 and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        check(task_id is not None and calls(state, "slow") == 1, "the slow tool is running behind a streamed task")
        await sclient.cancel_task(CancelTaskRequest(id=task_id), context=ctx())
        got = await client.get_task(GetTaskRequest(id=task_id), context=ctx())
        check(got.status.state == TaskState.TASK_STATE_CANCELED, "the gateway task is CANCELED")
        cancelled = os.path.join(state, "cancelled")
        deadline = time.monotonic() + 10
        while not os.path.exists(cancelled) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        check(os.path.exists(cancelled), "the cancel reached the MCP tool (notifications/cancelled)")


def import_docs(binary, source, out, *extra):
    code, stdout, err = skillgate(binary, "interface", "from-mcp", *source, "--out", out, "--format", "json", *extra)
    return code, parse_json(stdout) or {}, err


def write_config(d, mcp_python, state):
    command = json.dumps([mcp_python, os.path.join(HERE, "mcp_tools_server.py"), state])
    lines = ["[gateway]", 'refresh = "1s"', "", "[mcp]", f"command = {command}", ""]
    for t in TOOLS:
        lines += ["[[skills]]", f'interface = "interfaces/{t}.json"', f'tool = "{t}"', ""]
    path = os.path.join(d, "gateway.toml")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    return path


def sdk_tools(mcp_python, *target):
    """The tools the MCP Python SDK's client lists at `target` (URL, or --command ...), by name."""
    p = subprocess.run([mcp_python, os.path.join(HERE, "mcp_list_tools.py"), *target],
                       capture_output=True, text=True, timeout=60)
    listed = parse_json(p.stdout) or {}
    return {t["name"]: t for t in listed.get("tools", [])}, p.stderr


def http_import(binary, mcp_python, d, state, originals):
    """The same documents from the server over Streamable HTTP."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([mcp_python, os.path.join(HERE, "mcp_tools_server.py"), state, "--http", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        out = os.path.join(d, "over-http")
        os.mkdir(out)
        code, summary, err = import_docs(binary, [f"http://127.0.0.1:{port}/mcp"], out)
        got = {e["tool"]: e.get("interface_digest") for e in summary.get("documents", [])}
        want = {t: e.get("interface_digest") for t, e in originals.items()}
        check(code == 0 and got == want, f"from-mcp over Streamable HTTP writes the same documents (exit {code} {err[-200:]})")
    finally:
        halt(server)


def round_trip(binary, mcp_python, gw, d, state, originals):
    mcp, url = start([binary, "mcp", gw, "--listen", "127.0.0.1:0"], os.path.join(d, "mcp.log"))
    try:
        back = os.path.join(d, "back")
        os.mkdir(back)
        code, summary, err = import_docs(binary, [url], back)
        check(code == 0, f"from-mcp reads the tools `skillgate mcp` serves from the gateway (exit {code} {err[-300:]})")
        again = {e["tool"]: e for e in summary.get("documents", [])}
        source, _ = sdk_tools(mcp_python, "--command", mcp_python, os.path.join(HERE, "mcp_tools_server.py"), state)
        back, err = sdk_tools(mcp_python, url)
        check(sorted(back) == sorted(TOOLS), f"the MCP Python SDK lists the four tools served back ({sorted(back)} {err[-200:]})")
        for t in TOOLS:
            with open(os.path.join(d, "interfaces", f"{t}.json"), encoding="utf-8") as f:
                doc = json.load(f)
            s, b = source.get(t, {}), back.get(t, {})
            out = s.get("outputSchema", doc["output_schema"]["resolution"]["schema"])
            check(b.get("inputSchema") == s.get("inputSchema") and b.get("outputSchema") == out,
                  f"round trip of {t} (MCP SDK client): the server's schemas{'' if 'outputSchema' in s else ', the fallback as outputSchema'}")
            check((b.get("_meta") or {}).get("skillgate/interface_digest") == originals.get(t, {}).get("interface_digest"),
                  f"round trip of {t} (MCP SDK client): _meta names the imported document's digest")
        for t in TOOLS:
            o, a = originals.get(t, {}), again.get(t, {})
            check(a.get("input_schema_digest") == o.get("input_schema_digest")
                  and a.get("output_schema_digest") == o.get("output_schema_digest")
                  and a.get("interface_digest") == o.get("interface_digest"),
                  f"round trip of {t}: MCP -> gateway (A2A) -> skillgate mcp -> the same document ({a.get('interface_digest')})")
    finally:
        halt(mcp)


def drift_checks(binary, gw, gw_proc, d, state, source, log):
    with open(os.path.join(state, "drift"), "w", encoding="utf-8") as f:
        f.write("1")
    time.sleep(3)  # more than two refreshes of 1 s
    before = calls(state, "lookup")
    code, res, _ = call(binary, gw, "lookup", {"host": "abc"})
    check(code == 1 and res.get("code") == "execution_failed"
          and "refused until the gateway is reloaded" in res.get("message", ""),
          f"the drifted tool is refused ({code} {res.get('code')}: {res.get('message', '')[:160]})")
    check(calls(state, "lookup") == before, "the drifted tool was not called")
    code, res, _ = call(binary, gw, "echo", {"text": "still"})
    check(code == 0, f"the other tools still serve ({code})")
    with open(log, encoding="utf-8") as f:
        text = f.read()
    check("MCP tool `lookup` changed (its input schema has digest" in text,
          "the gateway reports the drift on stderr with both digests")
    # A reload with the old document: start-up refuses the mismatch, the old agent stays.
    gw_proc.send_signal(signal.SIGHUP)
    time.sleep(2)
    code, res, _ = call(binary, gw, "lookup", {"host": "abc"})
    check(code == 1 and res.get("code") == "execution_failed", "after a reload with the old document: still refused")
    code, summary, err = import_docs(binary, source, os.path.join(d, "interfaces"), "--tool", "lookup", "--force")
    check(code == 0, f"from-mcp regenerates lookup's document (exit {code} {err[-200:]})")
    gw_proc.send_signal(signal.SIGHUP)
    time.sleep(2)
    code, res, err = call(binary, gw, "lookup", {"host": "abc", "port": 443})
    check(code == 0 and res.get("output") == {"rtt_ms": 4.5},
          f"after a reload with the regenerated document, lookup serves its new input ({code} {err.strip()[-200:]})")


def main(binary, mcp_python):
    d = tempfile.mkdtemp()
    state = os.path.join(d, "state")
    os.mkdir(state)
    interfaces = os.path.join(d, "interfaces")
    os.mkdir(interfaces)
    source = ["--command", f"{mcp_python} {os.path.join(HERE, 'mcp_tools_server.py')} {state}"]
    code, summary, err = import_docs(binary, source, interfaces)
    docs = {e["tool"]: e for e in summary.get("documents", [])}
    check(code == 0 and sorted(docs) == sorted(TOOLS), f"from-mcp writes one document per tool (exit {code} {err[-300:]})")
    check([t for t in TOOLS if docs.get(t, {}).get("output_fallback")] == ["echo", "fails", "slow"],
          "tools without outputSchema get the content fallback, lookup its own")
    check(calls(state, "lookup") + calls(state, "echo") == 0, "no tool was called to write the documents")

    log = os.path.join(d, "gateway.log")
    gw_proc = None
    try:
        gw_proc, gw = start([binary, "gateway", "--config", write_config(d, mcp_python, state),
                             "--listen", "127.0.0.1:0", "--store", "memory"], log)
        code, res, err = call(binary, gw, "lookup", {"host": "abc"})
        check(code == 0 and res.get("output") == {"rtt_ms": 4.5},
              f"skillgate call through the gateway: lookup's structured output ({code} {err.strip()[-200:]})")
        check(calls(state, "lookup") == 1, "the MCP tool ran once")
        code, res, _ = call(binary, gw, "lookup", {"host": "bad-output"})
        check(code == 1 and res.get("code") == "output_invalid",
              f"structured output that breaks the tool's outputSchema is output_invalid ({res.get('code')})")
        code, res, _ = call(binary, gw, "fails", {})
        check(code == 1 and res.get("code") == "execution_failed" and "the backend is down" in res.get("message", ""),
              f"isError is execution_failed with the tool's reason ({res.get('message', '')[:120]})")
        code, res, _ = call(binary, gw, "echo", {"text": "hi"})
        check(code == 0 and res.get("output") == {"content": [{"type": "text", "text": "hi"}]},
              f"a tool without outputSchema: its content blocks are the output ({res.get('output')})")
        asyncio.run(sdk_checks(gw, state))
        http_import(binary, mcp_python, d, state, docs)
        round_trip(binary, mcp_python, gw, d, state, docs)
        drift_checks(binary, gw, gw_proc, d, state, source, log)
    finally:
        halt(gw_proc)
    finish("mcp_gateway_vs_sdk")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: mcp_gateway_vs_sdk.py PATH/TO/skillgate PATH/TO/mcp-venv/bin/python")
    # Absolute: the gateway starts the server in its config's directory.
    main(sys.argv[1], os.path.abspath(sys.argv[2]))
