"""Interop check: the Python a2a-sdk (1.x) client against a running skillgate server.

Usage:  python3 a2a_sdk_client.py http://127.0.0.1:PORT
(start the server with `skillgate serve --listen 127.0.0.1:0`; needs `pip install a2a-sdk`).

For each binding (JSONRPC, HTTP+JSON) and each mode (blocking, streaming) it fetches the card, runs
describe_skill for evaluate_resource_condition, then calls it with the advertised version and
digest and an integer threshold, which protobuf's Value turns into a double (0 -> 0.0) on the wire.
Prints one line per check and exits 1 if any fails.
"""
import asyncio
import sys
import uuid

from a2a.client import ClientConfig, ClientFactory, ClientCallContext
from a2a.client.service_parameters import ServiceParametersFactory, with_a2a_extensions
from a2a.helpers.proto_helpers import new_data_part
from a2a.types.a2a_pb2 import GetTaskRequest, Message, Role, SendMessageRequest
from google.protobuf.json_format import MessageToDict

EXT = "https://agentic-network-management.github.io/agent-schema-interfaces/extensions/schema-interface/v1"
SKILL = "evaluate_resource_condition"


async def last_task(client, data, ctx):
    msg = Message(role=Role.ROLE_USER, message_id=str(uuid.uuid4()),
                  parts=[new_data_part(data, media_type="application/json")])
    task = None
    async for ev in client.send_message(SendMessageRequest(message=msg), context=ctx):
        kind = ev.WhichOneof("payload")
        if kind == "task":
            task = ev.task
        elif kind in ("status_update", "artifact_update") and task is not None:
            task = await client.get_task(GetTaskRequest(id=task.id))
    return MessageToDict(await client.get_task(GetTaskRequest(id=task.id)))


async def run(base, binding, streaming):
    cfg = ClientConfig(streaming=streaming, supported_protocol_bindings=[binding])
    client = await ClientFactory(cfg).create_from_url(base)
    ctx = ClientCallContext(service_parameters=ServiceParametersFactory.create([with_a2a_extensions([EXT])]))
    card = MessageToDict(client._card) if hasattr(client, "_card") else None
    described = await last_task(client, {"skill": "describe_skill", "arguments": {"skill_id": SKILL}}, ctx)
    assert described["status"]["state"] == "TASK_STATE_COMPLETED", described
    data = described["artifacts"][0]["parts"][0]["data"]
    doc = data["skill_interface"]
    args = {"resource_id": "lo", "condition": {"metric": "rx_errors", "operator": "gte",
                                                "threshold": 0, "unit": "count"}}
    req = {"skill": SKILL, "skill_version": doc["skill_version"],
           "interface_digest": data["interface_digest"], "arguments": args}
    result = await last_task(client, req, ctx)
    await client.close()
    state = result["status"]["state"]
    names = sorted(a.get("name", "") for a in result.get("artifacts", []))
    return state, names, card is not None


async def main(base):
    failed = False
    for binding in ("JSONRPC", "HTTP+JSON"):
        for streaming in (False, True):
            try:
                state, names, _ = await run(base, binding, streaming)
                ok = state == "TASK_STATE_COMPLETED" and SKILL in names
                print(f"{'ok' if ok else 'FAIL'} {binding} streaming={streaming}: {state} {names}")
                failed |= not ok
            except Exception as e:  # report and continue with the next combination
                print(f"FAIL {binding} streaming={streaming}: {type(e).__name__}: {e}")
                failed = True
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
