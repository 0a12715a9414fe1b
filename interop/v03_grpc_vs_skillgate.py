#!/usr/bin/env python3
"""The official Python a2a-sdk **0.3** gRPC client (a2a-sdk[grpc] 0.3.26) against
`skillgate serve --grpc-listen`, which serves A2A 0.3's `a2a.v1.A2AService` beside 1.0's
`lf.a2a.v1.A2AService` on the same port.

Starts `skillgate serve --conformance-agent --grpc-listen 127.0.0.1:0 --push ...` (the binary
is argv[1]), reads the 0.3 card with no A2A-Version, and with the SDK's ClientFactory limited
to the GRPC transport (the extension activated, which the SDK sends as `x-a2a-extensions`
metadata):
  - the 0.3 card lists GRPC in additionalInterfaces at the 1.0 card's GRPC 0.3 address;
  - describe_skill completes with the describe_skill artifact and the advertised digest;
  - a governed call completes; a wrong skill_version is interface_mismatch and invalid
    arguments input_invalid, both `rejected` with the error in the status data part;
  - streaming ends with a completed status update marked final;
  - GetTask reads the task back; an unknown task is NOT_FOUND `TaskNotFoundError: ...`;
  - a slow task sent non-blocking is resubscribed to (TaskSubscription) to completion, and
    another is canceled;
  - push configs are created and read back by resource name;
  - GetAgentCard answers the 0.3 card in proto form, which the SDK's converter reads.
Exits non-zero when any check failed.
"""

import asyncio
import subprocess
import sys
import uuid

import grpc
import httpx
from a2a.client import ClientConfig, ClientFactory
from a2a.grpc import a2a_pb2, a2a_pb2_grpc
from a2a.types import (
    AgentCard,
    DataPart,
    GetTaskPushNotificationConfigParams,
    Message,
    MessageSendConfiguration,
    Part,
    PushNotificationConfig,
    Role,
    TaskIdParams,
    TaskPushNotificationConfig,
    TaskQueryParams,
    TaskState,
    TaskStatusUpdateEvent,
    TextPart,
)
from a2a.utils import proto_utils

from checks import check, finish

EXT = "https://agentic-network-management.github.io/agent-schema-interfaces/extensions/schema-interface/v1"
SKILL = "evaluate_resource_condition"
SLOW = "test-resubscribe-message-id"  # the conformance agent keeps this task working ~4.5 s


def start_agent(binary):
    proc = subprocess.Popen(
        [binary, "serve", "--listen", "127.0.0.1:0", "--grpc-listen", "127.0.0.1:0",
         "--store", "memory", "--conformance-agent", "--push", "--allow-http-push",
         "--push-allow-cidr", "127.0.0.0/8"],
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


def data_message(payload):
    return Message(role=Role.user, message_id=str(uuid.uuid4()),
                   parts=[Part(root=DataPart(data=payload))])


def text_message(text, message_id):
    return Message(role=Role.user, message_id=message_id, parts=[Part(root=TextPart(text=text))])


async def client_for(base, http, streaming):
    cfg = ClientConfig(streaming=streaming, supported_transports=["GRPC"], httpx_client=http,
                       grpc_channel_factory=grpc.aio.insecure_channel, extensions=[EXT])
    return await ClientFactory.connect(base, client_config=cfg)


async def send(client, message, configuration=None):
    return [ev async for ev in client.send_message(message, configuration=configuration)]


def task_of(events):
    tasks = [e[0] for e in events if isinstance(e, tuple)]
    check(len(tasks) >= 1, "SendMessage answers with a Task")
    return tasks[-1] if tasks else None


def error_of(task):
    parts = task.status.message.parts if task.status.message else []
    check(len(parts) == 1 and isinstance(parts[0].root, DataPart),
          "the error status message has exactly one data part")
    return parts[0].root.data if parts else {}


async def card_checks(base, http):
    card = AgentCard.model_validate((await http.get(f"{base}/.well-known/agent-card.json")).json())
    grpc_ifaces = [i for i in (card.additional_interfaces or []) if i.transport == "GRPC"]
    check(len(grpc_ifaces) == 1, f"the 0.3 card lists one GRPC interface ({card.additional_interfaces})")
    check(card.preferred_transport == "JSONRPC", "JSON-RPC stays the 0.3 card's preferred transport")
    pure = (await http.get(f"{base}/.well-known/agent-card.json", headers={"A2A-Version": "1.0"})).json()
    g03 = [i for i in pure["supportedInterfaces"]
           if i["protocolBinding"] == "GRPC" and i.get("protocolVersion") == "0.3"]
    check(len(g03) == 1 and grpc_ifaces and g03[0]["url"] == grpc_ifaces[0].url,
          "the 1.0 card lists GRPC 0.3 at the same address")
    ext = [e for e in (card.capabilities.extensions or []) if e.uri == EXT]
    adv = {s["skill_id"]: s for s in ext[0].params["skills"]} if ext else {}
    check(SKILL in adv, f"the 0.3 card advertises {SKILL}")
    return adv.get(SKILL, {}), (grpc_ifaces[0].url if grpc_ifaces else "")


async def governed_calls(base, http, advertised):
    client = await client_for(base, http, streaming=False)
    task = task_of(await send(client, data_message(
        {"skill": "describe_skill", "arguments": {"skill_id": SKILL}}),
        MessageSendConfiguration(blocking=True)))
    check(task.status.state == TaskState.completed, f"describe_skill completes ({task.status.state})")
    check(len(task.artifacts or []) == 1 and task.artifacts[0].name == "describe_skill",
          "describe_skill returns one artifact named describe_skill")
    data = task.artifacts[0].parts[0].root.data if task.artifacts else {}
    check(data.get("interface_digest") == advertised.get("interface_digest"),
          "the returned interface_digest equals the advertised one")

    request = {
        "skill": SKILL, "skill_version": advertised.get("skill_version"),
        "interface_digest": advertised.get("interface_digest"),
        "arguments": {"resource_id": "lo",
                      "condition": {"metric": "rx_bytes_per_second", "operator": "gte",
                                    "threshold": 0, "unit": "bytes_per_second"},
                      "window_ms": 200},
    }
    blocking = MessageSendConfiguration(blocking=True)
    task = task_of(await send(client, data_message(request), blocking))
    check(task.status.state == TaskState.completed, f"{SKILL} completes ({task.status.state})")
    names = sorted(a.name for a in task.artifacts or [])
    check(names == sorted([SKILL, "resource-observation"]),
          f"artifacts are named the skill id and the record kind ({names})")
    got = await client.get_task(TaskQueryParams(id=task.id))
    check(got.id == task.id and got.status.state == TaskState.completed,
          "GetTask returns the completed task")

    task = task_of(await send(client, data_message(dict(request, skill_version="999.0")), blocking))
    err = error_of(task)
    check(task.status.state == TaskState.rejected and err.get("code") == "interface_mismatch",
          f"a wrong skill_version is rejected with interface_mismatch ({task.status.state}, {err.get('code')})")
    task = task_of(await send(client, data_message(dict(request, arguments={"resource_id": "lo"})),
                              blocking))
    err = error_of(task)
    check(task.status.state == TaskState.rejected and err.get("code") == "input_invalid",
          "arguments missing a required member are input_invalid / rejected")
    check(any(d.get("instance_path") == "/condition" for d in err.get("details", [])),
          "details[].instance_path names /condition")

    try:
        await client.get_task(TaskQueryParams(id="nope"))
        check(False, "GetTask of an unknown task fails")
    except Exception as e:  # the SDK wraps the RpcError; its text carries the status
        text = str(e)
        check("TaskNotFoundError" in text, f"an unknown task is TaskNotFoundError ({text[:160]})")

    streaming = await client_for(base, http, streaming=True)
    events = await send(streaming, data_message(request))
    updates = [e[1] for e in events if isinstance(e, tuple) and e[1] is not None]
    statuses = [u for u in updates if isinstance(u, TaskStatusUpdateEvent)]
    check(statuses and statuses[-1].final and statuses[-1].status.state == TaskState.completed,
          "the stream ends with a completed status update marked final")


async def slow_tasks(base, http):
    plain = await client_for(base, http, streaming=False)
    streaming = await client_for(base, http, streaming=True)
    cfg = MessageSendConfiguration(blocking=False)
    task = task_of(await send(plain, text_message("slow", f"{SLOW}-{uuid.uuid4()}"), cfg))
    check(task.status.state in (TaskState.submitted, TaskState.working),
          f"a non-blocking send answers before the task ends ({task.status.state})")
    seen = [ev async for ev in streaming.resubscribe(TaskIdParams(id=task.id))]
    last = seen[-1][0] if seen else None
    check(last is not None and last.status.state == TaskState.completed,
          "TaskSubscription follows the task to completed")

    task = task_of(await send(plain, text_message("slow", f"{SLOW}-{uuid.uuid4()}"), cfg))
    canceled = await plain.cancel_task(TaskIdParams(id=task.id))
    check(canceled.status.state == TaskState.canceled, f"CancelTask cancels ({canceled.status.state})")

    made = await plain.set_task_callback(TaskPushNotificationConfig(
        task_id=task.id, push_notification_config=PushNotificationConfig(
            id="hook-1", url="https://127.0.0.1:9/hook", token="secret-token")))
    check(made.task_id == task.id and made.push_notification_config.id == "hook-1",
          "CreateTaskPushNotificationConfig stores the config")
    got = await plain.get_task_callback(
        GetTaskPushNotificationConfigParams(id=task.id, push_notification_config_id="hook-1"))
    check(got.push_notification_config.url == "https://127.0.0.1:9/hook",
          "GetTaskPushNotificationConfig returns it by resource name")


async def agent_card_rpc(address):
    async with grpc.aio.insecure_channel(address) as channel:
        stub = a2a_pb2_grpc.A2AServiceStub(channel)
        card_pb = await stub.GetAgentCard(a2a_pb2.GetAgentCardRequest(),
                                          metadata=[("x-a2a-extensions", EXT)])
        card = proto_utils.FromProto.agent_card(card_pb)
        check(card.protocol_version.startswith("0.3") and card.preferred_transport == "JSONRPC",
              f"GetAgentCard answers the 0.3 card ({card.protocol_version}, {card.preferred_transport})")
        check(any(e.uri == EXT for e in card.capabilities.extensions or []),
              "the GetAgentCard card advertises the extension")


async def main(binary):
    proc, base = start_agent(binary)
    try:
        async with httpx.AsyncClient(timeout=30) as http:
            advertised, address = await card_checks(base, http)
            await governed_calls(base, http, advertised)
            await slow_tasks(base, http)
            if address:
                await agent_card_rpc(address)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    finish("v03_grpc_vs_skillgate")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: v03_grpc_vs_skillgate.py PATH/TO/skillgate")
    asyncio.run(main(sys.argv[1]))
