#!/usr/bin/env python3
"""`skillgate gateway` in front of a plain a2a-sdk **0.3.26** agent (the A2A 0.3 line CrewAI,
Strands and ADK ship), with no schema-interface extension.

The upstream agent serves skill `sum` ({"a", "b"} -> {"sum"}, one `trace` record) over 0.3
JSON-RPC only and counts every execution and cancel. The interface document is written with
`skillgate interface new`. Then:
  - the gateway starts (it reads the upstream's 0.3 card);
  - our client (`skillgate call`, blocking and --stream) gets the sum through the gateway;
  - the a2a-sdk 0.3 client gets it through the gateway's 0.3 front (JSON-RPC, and HTTP+JSON
    with its REST transport);
  - input the gateway refuses never reaches the upstream (its execution count does not move);
  - upstream output of the wrong type is output_invalid;
  - a cancel through the gateway cancels the upstream task;
  - `skillgate conformance` passes on the gateway;
  - the same with the upstream served by a2a-sdk 0.3.26's REST application (its card offering
    only A2A 0.3 HTTP+JSON): the gateway reaches it over `/v1/...`, calls and streams succeed,
    tampered output is refused;
  - our client against the plain 0.3 upstream directly is refused (no extension), nothing sent.
Usage: v03_gateway_vs_sdk.py PATH/TO/skillgate  (run with the a2a-sdk 0.3.26 venv's python)
"""

import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid

import httpx
import uvicorn
from a2a.client import ClientConfig, ClientFactory
from a2a.server.agent_execution import AgentExecutor
from a2a.server.apps import A2ARESTFastAPIApplication, A2AStarletteApplication
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentSkill,
    DataPart,
    Message,
    Part,
    Role,
    TaskIdParams,
    TaskQueryParams,
    TaskState,
    TaskStatusUpdateEvent,
)
from a2a.utils import new_task

EXT = "https://agentic-network-management.github.io/agent-schema-interfaces/extensions/schema-interface/v1"
SKILL = "sum"
TAMPER = 666   # a == TAMPER: the upstream answers {"sum": "tampered"}
SLOW = 999     # a == SLOW: the upstream works for 30 s unless canceled

from checks import check, finish


def skillgate(binary, *args, timeout=60):
    p = subprocess.run([binary, *args], capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def result_json(text):
    for candidate in (text, (text.strip().splitlines() or [""])[-1]):
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    return None


class SumExecutor(AgentExecutor):
    def __init__(self):
        self.executions = 0
        self.cancels = 0

    async def execute(self, context, event_queue):
        self.executions += 1
        task = context.current_task or new_task(context.message)
        if context.current_task is None:
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        args = context.message.parts[0].root.data
        await updater.start_work()
        if args.get("a") == SLOW:
            for _ in range(300):
                await asyncio.sleep(0.1)
            return
        result = {"sum": "tampered"} if args.get("a") == TAMPER else {"sum": args["a"] + args["b"]}
        await updater.add_artifact([Part(root=DataPart(data={"step": "added"}))], name="trace")
        await updater.add_artifact([Part(root=DataPart(data=result))], name="result")
        await updater.complete()

    async def cancel(self, context, event_queue):
        self.cancels += 1
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.cancel()


class PathLog:
    """ASGI middleware: records the path of every HTTP request."""

    def __init__(self, app):
        self.app = app
        self.paths = []

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http":
            self.paths.append(scope["path"])
        return await self.app(scope, receive, send)


def serve_upstream(executor, rest=False):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    card = AgentCard(
        name="plain sum agent (0.3)", description="An a2a-sdk 0.3 agent without schema interfaces",
        version="3.0.0", url=base if rest else f"{base}/",
        preferred_transport="HTTP+JSON" if rest else "JSONRPC", protocol_version="0.3.0",
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["application/json"], default_output_modes=["application/json"],
        skills=[AgentSkill(id=SKILL, name="Sum", description="adds a and b", tags=["math"]),
                AgentSkill(id="other", name="Other", description="not governed", tags=["x"])],
    )
    handler = DefaultRequestHandler(agent_executor=executor, task_store=InMemoryTaskStore())
    make = A2ARESTFastAPIApplication if rest else A2AStarletteApplication
    app = PathLog(make(agent_card=card, http_handler=handler).build())
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline:
            raise SystemExit("the a2a-sdk 0.3 server did not start")
        time.sleep(0.05)
    server.paths = app.paths
    return server, base


def write_interface(binary, d):
    schemas = {
        "in.json": {"type": "object", "required": ["a", "b"], "additionalProperties": False,
                    "properties": {"a": {"type": "number"}, "b": {"type": "number"}}},
        "out.json": {"type": "object", "required": ["sum"], "properties": {"sum": {"type": "number"}}},
        "trace.json": {"type": "object", "required": ["step"], "properties": {"step": {"type": "string"}}},
    }
    for name, schema in schemas.items():
        with open(os.path.join(d, name), "w") as f:
            json.dump(schema, f)
    code, doc, err = skillgate(binary, "interface", "new", "--skill-id", SKILL, "--skill-version", "1.0",
                               "--input", os.path.join(d, "in.json"), "--output", os.path.join(d, "out.json"),
                               "--record", "trace=" + os.path.join(d, "trace.json"), "--cancelable")
    check(code == 0, f"skillgate interface new writes the document ({err.strip()[:200]})")
    with open(os.path.join(d, "sum.json"), "w") as f:
        f.write(doc)
    with open(os.path.join(d, "gateway.toml"), "w") as f:
        f.write('[[skills]]\ninterface = "sum.json"\noutput = { artifact = "result" }\n')


def start_gateway(binary, upstream, config):
    proc = subprocess.Popen(
        [binary, "gateway", "--upstream", upstream, "--config", config,
         "--listen", "127.0.0.1:0", "--store", "memory"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline().strip()
    if not line.startswith("listening on "):
        proc.kill()
        return None, f"{line!r} {proc.stderr.read()[-600:]}"
    return proc, line[len("listening on "):]


def governed(card_json, args):
    params = card_json["capabilities"]["extensions"][0]["params"]["skills"]
    adv = next(s for s in params if s["skill_id"] == SKILL)
    return {"skill": SKILL, "skill_version": adv["skill_version"],
            "interface_digest": adv["interface_digest"], "arguments": args}


def message(payload):
    return Message(role=Role.user, message_id=str(uuid.uuid4()), parts=[Part(root=DataPart(data=payload))])


async def sdk_checks(gw, executor):
    async with httpx.AsyncClient(timeout=30) as http:
        card_json = (await http.get(f"{gw}/.well-known/agent-card.json")).json()
        check(card_json.get("name") == "plain sum agent (0.3)",
              "the gateway's 0.3 card carries the upstream identity")
        cfg = ClientConfig(httpx_client=http, streaming=False, supported_transports=["JSONRPC"],
                           extensions=[EXT])
        client = await ClientFactory.connect(gw, client_config=cfg)

        async def send(c, args):
            events = [e async for e in c.send_message(message(governed(card_json, args)))]
            tasks = [e[0] for e in events if isinstance(e, tuple)]
            return tasks[-1] if tasks else None

        task = await send(client, {"a": 2, "b": 40})
        check(task is not None and task.status.state == TaskState.completed,
              "the a2a-sdk 0.3 client gets a completed task through the gateway")
        out = [a.parts[0].root.data for a in (task.artifacts or []) if a.name == SKILL] if task else []
        check(out in ([{"sum": 42}], [{"sum": 42.0}]), f"... with the upstream's sum ({out})")

        before = executor.executions
        task = await send(client, {"a": "two", "b": 1})
        err = task.status.message.parts[0].root.data if task and task.status.message else {}
        check(err.get("code") == "input_invalid", f"invalid input is refused by the gateway ({err.get('code')})")
        check(executor.executions == before, "invalid input never reached the upstream agent")

        scfg = ClientConfig(httpx_client=http, streaming=True, supported_transports=["JSONRPC"],
                            extensions=[EXT])
        sclient = await ClientFactory.connect(gw, client_config=scfg)
        task_id = None
        async for ev in sclient.send_message(message(governed(card_json, {"a": SLOW, "b": 0}))):
            if isinstance(ev, tuple):
                task_id = ev[0].id
                update = ev[1]
                if isinstance(update, TaskStatusUpdateEvent) and update.status.message and any(
                        "upstream task" in getattr(p.root, "text", "") for p in update.status.message.parts):
                    break
        check(task_id is not None, "the gateway streamed the task and relayed the upstream's progress")
        await client.cancel_task(TaskIdParams(id=task_id))
        got = await client.get_task(TaskQueryParams(id=task_id))
        check(got.status.state == TaskState.canceled, f"the gateway task is canceled ({got.status.state})")
        deadline = time.monotonic() + 10
        while executor.cancels == 0 and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        check(executor.cancels == 1, f"the cancel reached the upstream 0.3 task ({executor.cancels})")

        # The gateway's own 0.3 HTTP+JSON front (`/v1`), with the SDK's REST transport.
        rcfg = ClientConfig(httpx_client=http, streaming=False, supported_transports=["HTTP+JSON"],
                            extensions=[EXT])
        rclient = await ClientFactory.connect(gw, client_config=rcfg)
        task = await send(rclient, {"a": 2, "b": 40})
        out = [a.parts[0].root.data for a in (task.artifacts or []) if a.name == SKILL] if task else []
        check(task is not None and task.status.state == TaskState.completed and out in ([{"sum": 42}], [{"sum": 42.0}]),
              f"[HTTP+JSON] the a2a-sdk 0.3 REST client gets the sum through the gateway ({out})")
        before = executor.executions
        task = await send(rclient, {"a": "two", "b": 1})
        err = task.status.message.parts[0].root.data if task and task.status.message else {}
        check(err.get("code") == "input_invalid" and executor.executions == before,
              f"[HTTP+JSON] invalid input is refused by the gateway, nothing sent upstream ({err.get('code')})")
        await client.close()
        await sclient.close()
        await rclient.close()


def main(binary):
    executor = SumExecutor()
    server, base = serve_upstream(executor)
    d = tempfile.mkdtemp()
    gw_proc = None
    try:
        before = executor.executions
        code, out, err = skillgate(binary, "call", base, SKILL, "--args", '{"a": 2, "b": 3}')
        check(code != 0 and executor.executions == before,
              f"our client refuses the plain 0.3 agent directly, nothing sent (exit {code}: {err.strip()[:160]})")
        write_interface(binary, d)
        gw_proc, gw = start_gateway(binary, base, os.path.join(d, "gateway.toml"))
        check(gw_proc is not None, f"the gateway starts in front of a 0.3 agent ({gw if gw_proc is None else 'ok'})")
        if gw_proc is None:
            return
        for extra in ([], ["--stream"]):
            code, out, err = skillgate(binary, "call", gw, SKILL, "--args", '{"a": 2, "b": 3}', "--format", "json", *extra)
            res = result_json(out) or {}
            check(code == 0 and res.get("output", {}).get("sum") == 5,
                  f"skillgate call {' '.join(extra)} through the gateway: sum 5 (exit {code}, {err.strip()[:200]})")
        code, out, err = skillgate(binary, "call", gw, SKILL, "--args", json.dumps({"a": TAMPER, "b": 1}), "--format", "json")
        check(code == 1 and "output_invalid" in out, f"tampered upstream output is output_invalid (exit {code})")
        asyncio.run(sdk_checks(gw, executor))
        code, out, err = skillgate(binary, "conformance", gw, timeout=120)
        check(code == 0, f"skillgate conformance passes on the gateway (exit {code}) {out[-400:]}")
    finally:
        server.should_exit = True
        if gw_proc:
            gw_proc.terminate()
            gw_proc.wait(10)
    rest_upstream_checks(binary, d)
    finish("v03_gateway_vs_sdk")


def rest_upstream_checks(binary, d):
    """The gateway in front of the same agent served over A2A 0.3 HTTP+JSON only."""
    executor = SumExecutor()
    server, base = serve_upstream(executor, rest=True)
    gw_proc = None
    try:
        gw_proc, gw = start_gateway(binary, base, os.path.join(d, "gateway.toml"))
        check(gw_proc is not None, f"[HTTP+JSON] the gateway starts in front of a 0.3 REST agent ({gw if gw_proc is None else 'ok'})")
        if gw_proc is None:
            return
        for extra in ([], ["--stream"]):
            code, out, err = skillgate(binary, "call", gw, SKILL, "--args", '{"a": 2, "b": 3}', "--format", "json", *extra)
            res = result_json(out) or {}
            check(code == 0 and res.get("output", {}).get("sum") == 5,
                  f"[HTTP+JSON] skillgate call {' '.join(extra)} through the gateway: sum 5 (exit {code}, {err.strip()[:200]})")
        code, out, err = skillgate(binary, "call", gw, SKILL, "--args", json.dumps({"a": TAMPER, "b": 1}), "--format", "json")
        check(code == 1 and "output_invalid" in out, f"[HTTP+JSON] tampered upstream output is output_invalid (exit {code})")
        a2a = [p for p in server.paths if p != "/.well-known/agent-card.json"]
        check(a2a and all(p.startswith("/v1/") for p in a2a),
              f"[HTTP+JSON] the gateway spoke to the upstream on /v1/... only ({sorted(set(a2a))})")
        check(executor.executions == 3, f"[HTTP+JSON] three executions reached the upstream ({executor.executions})")
    finally:
        server.should_exit = True
        if gw_proc:
            gw_proc.terminate()
            gw_proc.wait(10)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: v03_gateway_vs_sdk.py PATH/TO/skillgate")
    main(sys.argv[1])
