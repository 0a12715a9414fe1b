#!/usr/bin/env python3
"""The official Python a2a-sdk client against our netops agent.

Starts `skillgate serve --listen 127.0.0.1:0` (the binary is argv[1]), reads the
`listening on http://HOST:PORT` line, then with the a2a-sdk client:
  - fetches and strictly parses the Agent Card (ProtoJSON + required fields);
  - sends describe_skill and evaluate_resource_condition as Data Parts with A2A-Extensions,
    over JSON-RPC and HTTP+JSON, and checks tasks, artifacts and the extension echo;
  - sends integers the way protobuf peers do (as floats: 200.0), which must still be integers;
  - sends a wrong skill_version and expects interface_mismatch / TASK_STATE_REJECTED;
  - reads the task back with GetTask;
  - streams evaluate_resource_condition with SendStreamingMessage.
Exits non-zero on the first failed expectation.
"""

import asyncio
import subprocess
import sys
import uuid

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
from a2a.utils.proto_utils import validate_proto_required_fields

EXT = "https://agentic-network-management.github.io/agent-schema-interfaces/extensions/schema-interface/v1"
SKILL = "evaluate_resource_condition"

CHECKS = []
FAILURES = []


def check(cond, what):
    """Records one expectation; a failed one is printed and counted, and the run goes on."""
    CHECKS.append(what)
    if not cond:
        FAILURES.append(what)
        print(f"  FAIL: {what}")
    else:
        print(f"  ok: {what}")


def start_agent(binary):
    proc = subprocess.Popen(
        [binary, "serve", "--listen", "127.0.0.1:0", "--store", "memory"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = proc.stdout.readline().strip()
    prefix = "listening on "
    if not line.startswith(prefix):
        proc.kill()
        raise SystemExit(f"skillgate serve did not start: {line!r} {proc.stderr.read()}")
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


def as_dict(msg):
    return json_format.MessageToDict(msg)


class Echoes:
    """Records the A2A-Extensions header of every POST response."""

    def __init__(self):
        self.seen = []

    async def hook(self, response):
        if response.request.method == "POST":
            self.seen.append(response.headers.get("a2a-extensions"))


async def send(client, payload):
    events = []
    async for ev in client.send_message(SendMessageRequest(message=data_message(payload)), context=ctx()):
        events.append(ev)
    return events


def final_task(events):
    tasks = [e.task for e in events if e.WhichOneof("payload") == "task"]
    check(len(tasks) >= 1, "a blocking SendMessage returns a Task")
    return tasks[-1]


def expect_completed(task, what):
    if task.status.state != TaskState.TASK_STATE_COMPLETED:
        print(f"  seen: {json_format.MessageToDict(task.status)}")
    check(task.status.state == TaskState.TASK_STATE_COMPLETED,
          f"{what} (got {TaskState.Name(task.status.state)})")


def error_of(task):
    parts = task.status.message.parts
    check(len(parts) == 1 and parts[0].WhichOneof("content") == "data",
          "the error status message has exactly one Data Part")
    return json_format.MessageToDict(parts[0].data)


async def card_checks(base, http):
    resp = await http.get(f"{base}/.well-known/agent-card.json", headers={"A2A-Version": "1.0"})
    check(resp.status_code == 200, "the Agent Card is served")
    card = AgentCard()
    json_format.ParseDict(resp.json(), card)  # strict: unknown or 0.3 fields raise
    validate_proto_required_fields(card)
    check(True, "the card passes a2a-sdk's strict ProtoJSON parse and required-field check")
    ext = [e for e in card.capabilities.extensions if e.uri == EXT]
    check(len(ext) == 1, "the card advertises the schema-interface extension")
    params = json_format.MessageToDict(ext[0].params)
    adv = {s["skill_id"]: s for s in params["skills"]}
    check(SKILL in adv, f"params.skills advertises {SKILL}")
    bindings = {i.protocol_binding for i in card.supported_interfaces}
    check({"JSONRPC", "HTTP+JSON"} <= bindings, "the card offers JSONRPC and HTTP+JSON")
    return adv[SKILL]


async def run_binding(base, binding, advertised):
    echoes = Echoes()
    http = httpx.AsyncClient(timeout=30, event_hooks={"response": [echoes.hook]})
    cfg = ClientConfig(streaming=False, supported_protocol_bindings=[binding], httpx_client=http)
    client = await ClientFactory(cfg).create_from_url(base)
    print(f"[{binding}]")

    # describe_skill
    events = await send(client, {"skill": "describe_skill", "arguments": {"skill_id": SKILL}})
    task = final_task(events)
    check(task.status.state == TaskState.TASK_STATE_COMPLETED, "describe_skill completes")
    check(len(task.artifacts) == 1 and task.artifacts[0].name == "describe_skill",
          "describe_skill returns one Artifact named describe_skill")
    data = json_format.MessageToDict(task.artifacts[0].parts[0].data)
    check(data["interface_digest"] == advertised["interface_digest"],
          "the returned interface_digest equals the advertised one")
    doc = data["skill_interface"]
    check(doc["skill_id"] == SKILL and doc["skill_version"] == advertised["skill_version"],
          "skill_interface names the advertised skill and version")

    # A valid call. The optional integer window_ms is left out here: the SDK sends every
    # integer as a float, which gets its own section below.
    request = {
        "skill": SKILL,
        "skill_version": advertised["skill_version"],
        "interface_digest": advertised["interface_digest"],
        "arguments": {
            "resource_id": "lo",
            "condition": {"metric": "rx_bytes_per_second", "operator": "gte",
                          "threshold": 0, "unit": "bytes_per_second"},
        },
    }
    task = final_task(await send(client, request))
    expect_completed(task, f"{SKILL} completes")
    names = sorted(a.name for a in task.artifacts)
    check(names == sorted([SKILL, "resource-observation"]),
          f"artifacts are named the skill id and the record kind ({names})")
    primary = next(a for a in task.artifacts if a.name == SKILL)
    out = json_format.MessageToDict(primary.parts[0].data)
    record_ids = {a.artifact_id for a in task.artifacts if a.name == "resource-observation"}
    check(set(out["supporting_record_refs"]) == record_ids,
          "the output references the record Artifacts by artifactId")

    got = await client.get_task(GetTaskRequest(id=task.id), context=ctx())
    check(got.id == task.id and got.status.state == TaskState.TASK_STATE_COMPLETED,
          "GetTask returns the completed task")

    # A wrong skill_version must be refused before input checks.
    wrong = dict(request, skill_version="999.0", arguments={"resource_id": 7})
    task = final_task(await send(client, wrong))
    check(task.status.state == TaskState.TASK_STATE_REJECTED, "a wrong skill_version is REJECTED")
    err = error_of(task)
    check(err["code"] == "interface_mismatch", f"... with interface_mismatch (got {err.get('code')})")

    # Invalid arguments: input_invalid with details[].instance_path.
    bad = dict(request, arguments={"resource_id": "lo"})
    task = final_task(await send(client, bad))
    err = error_of(task)
    check(task.status.state == TaskState.TASK_STATE_REJECTED and err["code"] == "input_invalid",
          "arguments missing a required member are input_invalid / REJECTED")
    check(any(d.get("instance_path") == "/condition" for d in err.get("details", [])),
          "details[].instance_path names /condition")

    # Integers as the SDK sends them (window_ms 200 arrives as 200.0): JSON Schema says 200.0
    # is an integer, so the call must be served like window_ms 200.
    floats = dict(request, arguments=dict(request["arguments"], window_ms=200))
    task = final_task(await send(client, floats))
    expect_completed(task, f"{SKILL} with window_ms sent by the SDK as 200.0 completes")

    check(len(echoes.seen) >= 5 and all(h is not None and EXT in h for h in echoes.seen),
          f"every response echoes A2A-Extensions ({len(echoes.seen)} responses)")
    await client.close()

    # Streaming.
    http = httpx.AsyncClient(timeout=30)
    cfg = ClientConfig(streaming=True, supported_protocol_bindings=[binding], httpx_client=http)
    client = await ClientFactory(cfg).create_from_url(base)
    events = await send(client, request)
    kinds = [e.WhichOneof("payload") for e in events]
    check(kinds and kinds[0] == "task", f"the stream starts with the Task ({kinds})")
    artifacts = [e.artifact_update.artifact.name for e in events if e.WhichOneof("payload") == "artifact_update"]
    check(sorted(artifacts) == sorted([SKILL, "resource-observation"]),
          f"the stream carries both artifacts ({artifacts})")
    last = events[-1]
    final_state = (last.status_update.status.state if kinds[-1] == "status_update"
                   else last.task.status.state)
    check(final_state == TaskState.TASK_STATE_COMPLETED, "the stream ends COMPLETED")
    await client.close()


async def main(binary):
    proc, base = start_agent(binary)
    try:
        async with httpx.AsyncClient(timeout=30) as http:
            advertised = await card_checks(base, http)
        for binding in ("JSONRPC", "HTTP+JSON"):
            await run_binding(base, binding, advertised)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    passed = len(CHECKS) - len(FAILURES)
    print(f"sdk_client_vs_skillgate: {passed} of {len(CHECKS)} checks passed")
    if FAILURES:
        for f in FAILURES:
            print(f"  failed: {f}")
        raise SystemExit(1)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: sdk_client_vs_skillgate.py PATH/TO/skillgate")
    asyncio.run(main(sys.argv[1]))
