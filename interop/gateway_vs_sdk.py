#!/usr/bin/env python3
"""`skillgate gateway` in front of a plain a2a-sdk 1.3.0 agent (no schema-interface extension).

The upstream a2a-sdk agent streams, serves skill `sum` ({"a", "b"} -> {"sum"}, one `trace`
record) and counts every execution and cancel. The interface document is written with
`skillgate interface new`. Then:
  - our client (`skillgate call`, blocking and --stream) and the a2a-sdk client get the sum
    through the gateway;
  - input the gateway refuses (sent raw by the a2a-sdk client, past our client's own check)
    never reaches upstream (its execution count does not move);
  - upstream output of the wrong type is output_invalid;
  - a cancel through the gateway cancels the upstream task;
  - `skillgate conformance` passes on the gateway;
  - with the upstream stopped, a call is execution_failed.
Usage: gateway_vs_sdk.py PATH/TO/skillgate
"""

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid

import httpx
from google.protobuf import json_format
from a2a.client import ClientCallContext, ClientConfig, ClientFactory
from a2a.client.service_parameters import ServiceParametersFactory, with_a2a_extensions
from a2a.helpers.proto_helpers import new_data_part, new_text_part
from a2a.server.agent_execution.agent_executor import AgentExecutor
from a2a.server.tasks import TaskUpdater
from a2a.types.a2a_pb2 import (
    CancelTaskRequest,
    GetTaskRequest,
    Message,
    Role,
    SendMessageRequest,
    Task,
    TaskState,
    TaskStatus,
)

from interop_common import EXT, bind_loopback, check, finish, parse_json, result_json, serve, skillgate, stop

SKILL = "sum"
TAMPER = 666   # a == TAMPER: the upstream answers {"sum": "tampered"}
SLOW = 999     # a == SLOW: the upstream works for 30 s unless canceled


class SumExecutor(AgentExecutor):
    def __init__(self):
        self.executions = 0
        self.cancels = 0

    async def execute(self, context, event_queue):
        self.executions += 1
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        if context.current_task is None:
            await event_queue.enqueue_event(Task(
                id=context.task_id, context_id=context.context_id,
                status=TaskStatus(state=TaskState.TASK_STATE_SUBMITTED), history=[context.message],
            ))
        args = json_format.MessageToDict(context.message.parts[0].data)
        await updater.start_work(updater.new_agent_message(parts=[new_text_part("adding")]))
        if args.get("a") == SLOW:
            for _ in range(300):
                await asyncio.sleep(0.1)
            return
        result = {"sum": "tampered"} if args.get("a") == TAMPER else {"sum": args["a"] + args["b"]}
        await updater.add_artifact(parts=[new_data_part({"step": "added"})], name="trace")
        await updater.add_artifact(parts=[new_data_part(result)], name="result")
        await updater.complete()

    async def cancel(self, context, event_queue):
        self.cancels += 1
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.cancel()


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
        raise SystemExit(f"skillgate gateway did not start: {line!r} {proc.stderr.read()}")
    return proc, line[len("listening on "):]


def ctx():
    return ClientCallContext(service_parameters=ServiceParametersFactory.create([with_a2a_extensions([EXT])]))


def governed(card_json, args):
    params = card_json["capabilities"]["extensions"][0]["params"]["skills"]
    adv = next(s for s in params if s["skill_id"] == SKILL)
    return {"skill": SKILL, "skill_version": adv["skill_version"],
            "interface_digest": adv["interface_digest"], "arguments": args}


def message(payload):
    return Message(role=Role.ROLE_USER, message_id=str(uuid.uuid4()),
                   parts=[new_data_part(payload, media_type="application/json")])


async def sdk_checks(gw, executor):
    async with httpx.AsyncClient(timeout=30) as http:
        card_json = (await http.get(f"{gw}/.well-known/agent-card.json")).json()
        check(card_json["name"] == "plain sum agent", "the gateway's card carries the upstream identity")
        check([s["id"] for s in card_json["skills"]] == ["describe_skill", SKILL] or
              sorted(s["id"] for s in card_json["skills"]) == ["describe_skill", SKILL],
              "the gateway exposes the governed skill and describe_skill only")
        factory = ClientFactory(ClientConfig(httpx_client=http, streaming=False))
        client = factory.create(await _card(http, gw))

        async def send(args):
            events = [e async for e in client.send_message(SendMessageRequest(message=message(governed(card_json, args))), context=ctx())]
            tasks = [e.task for e in events if e.WhichOneof("payload") == "task"]
            return tasks[-1] if tasks else None

        task = await send({"a": 2, "b": 40})
        check(task is not None and task.status.state == TaskState.TASK_STATE_COMPLETED,
              "the a2a-sdk client gets a COMPLETED task through the gateway")
        out = [json_format.MessageToDict(a.parts[0].data) for a in task.artifacts if a.name == SKILL]
        check(out == [{"sum": 42}] or out == [{"sum": 42.0}], f"... with the upstream's sum ({out})")

        before = executor.executions
        task = await send({"a": "two", "b": 1})
        err = json_format.MessageToDict(task.status.message.parts[0].data) if task else {}
        check(err.get("code") == "input_invalid", f"invalid input is refused by the gateway ({err.get('code')})")
        check(executor.executions == before, "invalid input never reached the upstream agent")

        # Cancel through the gateway: stream, learn the gateway task id, cancel it.
        sclient = ClientFactory(ClientConfig(httpx_client=http, streaming=True)).create(await _card(http, gw))
        stream = sclient.send_message(SendMessageRequest(message=message(governed(card_json, {"a": SLOW, "b": 0}))), context=ctx())
        task_id = None
        async for ev in stream:
            kind = ev.WhichOneof("payload")
            if kind == "task":
                task_id = ev.task.id
            elif kind == "status_update":
                task_id = ev.status_update.task_id
                if any("upstream task" in p.text for p in ev.status_update.status.message.parts):
                    break
        check(task_id is not None, "the gateway streamed the task and relayed the upstream's progress")
        await sclient.cancel_task(CancelTaskRequest(id=task_id), context=ctx())
        got = await client.get_task(GetTaskRequest(id=task_id), context=ctx())
        check(got.status.state == TaskState.TASK_STATE_CANCELED, "the gateway task is CANCELED")
        deadline = time.monotonic() + 10
        while executor.cancels == 0 and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        check(executor.cancels == 1, f"the cancel reached the upstream task ({executor.cancels})")


async def _card(http, base):
    from a2a.client.card_resolver import A2ACardResolver
    return await A2ACardResolver(http, base).get_agent_card()


def main(binary):
    sock, base = bind_loopback()
    card = {
        "name": "plain sum agent", "description": "An a2a-sdk agent without schema interfaces", "version": "3.0.0",
        "supportedInterfaces": [{"url": f"{base}/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": True},
        "defaultInputModes": ["application/json"], "defaultOutputModes": ["application/json"],
        "skills": [{"id": SKILL, "name": "Sum", "description": "adds a and b", "tags": ["math"]},
                   {"id": "other", "name": "Other", "description": "not governed", "tags": ["x"]}],
    }
    executor = SumExecutor()
    server, _log = serve(card, executor, sock)
    d = tempfile.mkdtemp()
    gw_proc = None
    try:
        write_interface(binary, d)
        gw_proc, gw = start_gateway(binary, base, os.path.join(d, "gateway.toml"))
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
        stop(server)
        time.sleep(0.5)
        code, out, err = skillgate(binary, "call", gw, SKILL, "--args", '{"a": 2, "b": 3}', "--format", "json")
        check(code == 1 and "execution_failed" in out, f"upstream down: execution_failed (exit {code})")
    finally:
        stop(server)
        if gw_proc:
            gw_proc.terminate()
            gw_proc.wait(10)
    finish("gateway_vs_sdk")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: gateway_vs_sdk.py PATH/TO/skillgate")
    main(sys.argv[1])
