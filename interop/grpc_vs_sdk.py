#!/usr/bin/env python3
"""The official Python a2a-sdk gRPC client against `skillgate serve --grpc-listen`.

Starts `skillgate serve --listen 127.0.0.1:0 --grpc-listen 127.0.0.1:0` (the binary is
argv[1]), reads the card over HTTP, then with the a2a-sdk client on the card's GRPC interface:
  - the card parses strictly and lists GRPC last of its 1.0 interfaces, as host:port;
  - describe_skill completes and returns the advertised interface digest;
  - a governed evaluate_resource_condition call completes (integers travel as doubles);
  - invalid arguments are input_invalid / TASK_STATE_REJECTED;
  - GetTask reads the task back, and an unknown task raises the SDK's TaskNotFoundError
    (mapped from the status's ErrorInfo);
  - SendStreamingMessage streams the task to COMPLETED.
Exits non-zero if any expectation failed.
"""

import asyncio
import subprocess
import sys
import uuid

import grpc
import httpx
from google.protobuf import json_format
from a2a.client import ClientCallContext, ClientConfig, ClientFactory
from a2a.client.service_parameters import ServiceParametersFactory, with_a2a_extensions
from a2a.helpers.proto_helpers import new_data_part
from a2a.types.a2a_pb2 import (
    AgentCard,
    GetTaskRequest,
    Message,
    Role,
    SendMessageRequest,
    TaskState,
)
from a2a.utils.errors import TaskNotFoundError
from a2a.utils.proto_utils import validate_proto_required_fields

EXT = "https://agentic-network-management.github.io/agent-schema-interfaces/extensions/schema-interface/v1"
SKILL = "evaluate_resource_condition"

CHECKS = []
FAILURES = []


def check(cond, what):
    """Records one expectation; a failed one is printed and counted, and the run goes on."""
    CHECKS.append(what)
    if cond:
        print(f"  ok: {what}")
    else:
        FAILURES.append(what)
        print(f"  FAIL: {what}")


def start_agent(binary):
    proc = subprocess.Popen(
        [binary, "serve", "--listen", "127.0.0.1:0", "--grpc-listen", "127.0.0.1:0",
         "--store", "memory"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    line = proc.stdout.readline().strip()
    prefix = "listening on "
    if not line.startswith(prefix):
        proc.kill()
        raise SystemExit(f"skillgate serve did not start: {line!r}")
    return proc, line[len(prefix):]


def ctx():
    return ClientCallContext(
        service_parameters=ServiceParametersFactory.create([with_a2a_extensions([EXT])])
    )


def data_message(payload):
    return Message(
        role=Role.ROLE_USER,
        message_id=str(uuid.uuid4()),
        parts=[new_data_part(payload, media_type="application/json")],
    )


async def send(client, payload):
    events = []
    async for ev in client.send_message(SendMessageRequest(message=data_message(payload)), context=ctx()):
        events.append(ev)
    return events


def final_task(events):
    tasks = [e.task for e in events if e.WhichOneof("payload") == "task"]
    check(len(tasks) >= 1, "SendMessage returns a Task")
    return tasks[-1]


async def card_of(base):
    async with httpx.AsyncClient(timeout=30) as http:
        # A 1.0 reader says so: without the header a server that also speaks 0.3 (ours, by
        # default) hands out the 0.3 card, whose 0.3 members a strict 1.0 parse refuses.
        resp = await http.get(f"{base}/.well-known/agent-card.json", headers={"A2A-Version": "1.0"})
    card = AgentCard()
    json_format.ParseDict(resp.json(), card)  # strict: unknown fields raise
    validate_proto_required_fields(card)
    check(True, "the card passes a2a-sdk's strict ProtoJSON parse and required-field check")
    # The 1.0 interfaces come first, GRPC last among them; the 0.3 interfaces (served by
    # default) follow them.
    v1 = [i for i in card.supported_interfaces if i.protocol_version.startswith("1.")]
    last = v1[-1]
    check(last.protocol_binding == "GRPC" and last.url.startswith("127.0.0.1:"),
          f"the card lists GRPC last of its 1.0 interfaces, as host:port ({last.protocol_binding} {last.url})")
    ext = [e for e in card.capabilities.extensions if e.uri == EXT]
    params = json_format.MessageToDict(ext[0].params)
    return {s["skill_id"]: s for s in params["skills"]}[SKILL]


async def client_for(base, streaming):
    cfg = ClientConfig(
        streaming=streaming,
        supported_protocol_bindings=["GRPC"],
        grpc_channel_factory=grpc.aio.insecure_channel,
        httpx_client=httpx.AsyncClient(timeout=30),
    )
    return await ClientFactory(cfg).create_from_url(base)


async def main(binary):
    proc, base = start_agent(binary)
    try:
        advertised = await card_of(base)
        client = await client_for(base, streaming=False)

        task = final_task(await send(client, {"skill": "describe_skill",
                                              "arguments": {"skill_id": SKILL}}))
        check(task.status.state == TaskState.TASK_STATE_COMPLETED, "describe_skill completes over gRPC")
        data = json_format.MessageToDict(task.artifacts[0].parts[0].data)
        check(data.get("interface_digest") == advertised["interface_digest"],
              "describe_skill returns the advertised interface digest")

        request = {
            "skill": SKILL,
            "skill_version": advertised["skill_version"],
            "interface_digest": advertised["interface_digest"],
            "arguments": {
                "resource_id": "lo",
                "condition": {"metric": "rx_bytes_per_second", "operator": "gte",
                              "threshold": 0, "unit": "bytes_per_second"},
                "window_ms": 200,
            },
        }
        task = final_task(await send(client, request))
        check(task.status.state == TaskState.TASK_STATE_COMPLETED,
              f"a governed call completes over gRPC (got {TaskState.Name(task.status.state)})")
        names = sorted(a.name for a in task.artifacts)
        check(SKILL in names, f"the output artifact is named {SKILL} ({names})")

        got = await client.get_task(GetTaskRequest(id=task.id), context=ctx())
        check(got.id == task.id and got.status.state == TaskState.TASK_STATE_COMPLETED,
              "GetTask over gRPC returns the completed task")

        bad = dict(request, arguments={"resource_id": "lo"})
        task = final_task(await send(client, bad))
        err = json_format.MessageToDict(task.status.message.parts[0].data)
        check(task.status.state == TaskState.TASK_STATE_REJECTED and err.get("code") == "input_invalid",
              "invalid arguments are input_invalid / REJECTED over gRPC")

        try:
            await client.get_task(GetTaskRequest(id="no-such-task"), context=ctx())
            check(False, "an unknown task raises TaskNotFoundError")
        except TaskNotFoundError:
            check(True, "an unknown task raises TaskNotFoundError (ErrorInfo TASK_NOT_FOUND)")
        await client.close()

        client = await client_for(base, streaming=True)
        events = await send(client, request)
        kinds = [e.WhichOneof("payload") for e in events]
        check(kinds and kinds[0] == "task", f"the gRPC stream starts with the Task ({kinds})")
        last = events[-1]
        state = (last.status_update.status.state if kinds[-1] == "status_update"
                 else last.task.status.state)
        check(state == TaskState.TASK_STATE_COMPLETED, "the gRPC stream ends COMPLETED")
        await client.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
    check(proc.returncode == 0, f"SIGTERM stops skillgate serve cleanly (exit {proc.returncode})")
    passed = len(CHECKS) - len(FAILURES)
    print(f"grpc_vs_sdk: {passed} of {len(CHECKS)} checks passed")
    if FAILURES:
        for f in FAILURES:
            print(f"  failed: {f}")
        raise SystemExit(1)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: grpc_vs_sdk.py PATH/TO/skillgate")
    asyncio.run(main(sys.argv[1]))
