#!/usr/bin/env python3
"""a2a-sdk **1.3.0**'s 0.3 compatibility line, both ways.

(a) Its client (the `a2a.compat.v0_3` transports, chosen by the client factory for an
interface whose protocolVersion is 0.3) against `skillgate serve --a2a-versions 0.3`, whose card
offers only 0.3 interfaces. Per binding (JSONRPC and HTTP+JSON):
  - describe_skill through the compat transport, digest equal to the advertised one;
  - a governed call, GetTask, invalid arguments (input_invalid in the status Data Part), and a
    stream ending COMPLETED;
  - every A2A request said `A2A-Version: 0.3`; on HTTP+JSON every one went to `/v1/...`.
(b) Our client against an a2a-sdk 1.3.0 server with `enable_v0_3_compat` (the hand-written
extension agent of sdk_server_extension.py, its mixed card listing 1.0 and 0.3 interfaces),
forced to 0.3 with `--a2a-version 0.3`: describe and call over 0.3 JSON-RPC, and with
`--binding http-json` over 0.3 HTTP+JSON (`/v1/...`, `A2A-Version: 0.3`).
Usage: v03_compat_client.py PATH/TO/skillgate DOCUMENT INPUT OUTPUT RECORD
       (run with the a2a-sdk 1.3.0 venv's python)
"""

import asyncio
import json
import subprocess
import sys
import uuid

import httpx
from google.protobuf import json_format
from a2a.client import ClientCallContext, ClientConfig, ClientFactory
from a2a.client.service_parameters import ServiceParametersFactory, with_a2a_extensions
from a2a.helpers.proto_helpers import new_data_part
from a2a.types.a2a_pb2 import GetTaskRequest, Message, Role, SendMessageRequest, TaskState

from checks import check, finish
from interop_common import bind_loopback, result_json, serve, skillgate, stop
from sdk_server_extension import HandWrittenExtension

EXT = "https://agentic-network-management.github.io/agent-schema-interfaces/extensions/schema-interface/v1"
SKILL = "evaluate_resource_condition"


def start_agent(binary):
    proc = subprocess.Popen(
        [binary, "serve", "--listen", "127.0.0.1:0", "--store", "memory", "--a2a-versions", "0.3"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline().strip()
    prefix = "listening on "
    if not line.startswith(prefix):
        proc.kill()
        raise SystemExit(f"skillgate serve did not start: {line!r} {proc.stderr.read()}")
    return proc, line[len(prefix):]


def ctx():
    return ClientCallContext(
        service_parameters=ServiceParametersFactory.create([with_a2a_extensions([EXT])]))


def data_message(payload):
    return Message(role=Role.ROLE_USER, message_id=str(uuid.uuid4()),
                   parts=[new_data_part(payload, media_type="application/json")])


async def send(client, payload):
    return [ev async for ev in client.send_message(SendMessageRequest(message=data_message(payload)),
                                                   context=ctx())]


def final_task(events, label):
    tasks = [e.task for e in events if e.WhichOneof("payload") == "task"]
    check(len(tasks) >= 1, f"[{label}] a blocking send returns a Task")
    return tasks[-1] if tasks else None


class Requests:
    """Records (method, path, A2A-Version) of every request the SDK makes."""

    def __init__(self):
        self.seen = []

    async def hook(self, request):
        self.seen.append((request.method, request.url.path, request.headers.get("a2a-version")))


async def run_binding(base, binding, advertised):
    log = Requests()
    http = httpx.AsyncClient(timeout=30, event_hooks={"request": [log.hook]})
    cfg = ClientConfig(streaming=False, supported_protocol_bindings=[binding], httpx_client=http)
    client = await ClientFactory(cfg).create_from_url(base)
    check(type(client._transport).__name__.startswith("Compat"),
          f"[{binding}] the SDK chose its 0.3 compat transport ({type(client._transport).__name__})")

    task = final_task(await send(client, {"skill": "describe_skill", "arguments": {"skill_id": SKILL}}), binding)
    data = json_format.MessageToDict(task.artifacts[0].parts[0].data) if task and task.artifacts else {}
    check(data.get("interface_digest") == advertised["interface_digest"],
          f"[{binding}] describe_skill returns the advertised interface_digest")

    request = {
        "skill": SKILL, "skill_version": advertised["skill_version"],
        "interface_digest": advertised["interface_digest"],
        "arguments": {"resource_id": "lo", "condition": {"metric": "rx_bytes_per_second",
                      "operator": "gte", "threshold": 0, "unit": "bytes_per_second"}},
    }
    task = final_task(await send(client, request), binding)
    check(task is not None and task.status.state == TaskState.TASK_STATE_COMPLETED,
          f"[{binding}] {SKILL} completes")
    names = sorted(a.name for a in task.artifacts) if task else []
    check(names == sorted([SKILL, "resource-observation"]), f"[{binding}] output and record artifacts ({names})")
    got = await client.get_task(GetTaskRequest(id=task.id), context=ctx())
    check(got.id == task.id and got.status.state == TaskState.TASK_STATE_COMPLETED,
          f"[{binding}] GetTask returns the completed task")

    bad = dict(request, arguments={"resource_id": "lo"})
    task = final_task(await send(client, bad), binding)
    parts = task.status.message.parts if task else []
    err = json_format.MessageToDict(parts[0].data) if len(parts) == 1 else {}
    check(task is not None and task.status.state == TaskState.TASK_STATE_REJECTED
          and err.get("code") == "input_invalid",
          f"[{binding}] invalid arguments are input_invalid / REJECTED ({err.get('code')})")
    await client.close()

    cfg = ClientConfig(streaming=True, supported_protocol_bindings=[binding], httpx_client=http)
    client = await ClientFactory(cfg).create_from_url(base)
    events = await send(client, request)
    last = events[-1] if events else None
    kind = last.WhichOneof("payload") if last else None
    state = (last.status_update.status.state if kind == "status_update"
             else last.task.status.state if kind == "task" else None)
    check(state == TaskState.TASK_STATE_COMPLETED, f"[{binding}] the stream ends COMPLETED ({kind})")
    await client.close()

    a2a = [(m, p, v) for m, p, v in log.seen if p != "/.well-known/agent-card.json"]
    check(a2a and all(v == "0.3" for _, _, v in a2a),
          f"[{binding}] every A2A request said A2A-Version: 0.3 ({sorted({v or '' for _, _, v in a2a})})")
    if binding == "HTTP+JSON":
        check(all(p.startswith("/v1/") for _, p, _ in a2a),
              f"[{binding}] every request went to /v1/... ({sorted({p for _, p, _ in a2a})[:4]})")
    await http.aclose()


def compat_server_checks(binary, doc_path, input_path, output_path, record_path):
    with open(doc_path) as f:
        document = json.load(f)
    with open(output_path) as f:
        output = json.load(f)
    with open(record_path) as f:
        record = json.load(f)
    code, digest, _ = skillgate(binary, "digest", doc_path)
    digest = digest.strip()
    skill = document["skill_id"]
    sock, base = bind_loopback()
    card = {
        "name": "hand-written extension agent (1.3.0 with 0.3 compat)",
        "description": "An a2a-sdk 1.3.0 agent serving A2A 0.3 too",
        "version": "1.0.0",
        "supportedInterfaces": [
            {"url": f"{base}/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": f"{base}/", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
            {"url": base, "protocolBinding": "HTTP+JSON", "protocolVersion": "0.3"},
        ],
        "capabilities": {"streaming": True, "extensions": [{
            "uri": EXT, "description": "Schema interfaces for skills (describe_skill)",
            "params": {"interface_version": "1.0", "skills": [
                {"skill_id": skill, "skill_version": document["skill_version"], "interface_digest": digest}]},
        }]},
        "defaultInputModes": ["application/json"],
        "defaultOutputModes": ["application/json"],
        "skills": [
            {"id": "describe_skill", "name": "Describe skill", "description": "Returns a skill's interface", "tags": ["meta"]},
            {"id": skill, "name": "Evaluate resource condition", "description": "Appendix B", "tags": ["netops"]},
        ],
    }
    executor = HandWrittenExtension(document, digest, output, record)
    server, log = serve(card, executor, sock, compat=True)
    try:
        for binding, shown in (([], "interface JSONRPC"), (["--binding", "http-json"], "interface HTTP+JSON")):
            label = "0.3 " + ("HTTP+JSON" if binding else "JSONRPC")
            code, out, err = skillgate(binary, "describe", base, skill, "--a2a-version", "0.3", *binding)
            check(code == 0 and shown in out and "(A2A 0.3)" in out and digest in out,
                  f"[compat server, {label}] describe picks it and checks the digest ({(out + err).strip()[-300:]})")
            code, out, err = skillgate(binary, "call", base, skill, "--args", f"@{input_path}",
                                       "--format", "json", "--a2a-version", "0.3", *binding)
            text = json.dumps(result_json(out) or {})
            check(code == 0 and output["result"] in text,
                  f"[compat server, {label}] call succeeds with the validated output ({(out + err).strip()[-300:]})")
        posts = [p for m, p in log.requests if m == "POST"]
        check(any(p == "/" for p in posts) and any(p.startswith("/v1/message:") for p in posts),
              f"[compat server] our calls reached / (0.3 JSON-RPC) and /v1/... (0.3 HTTP+JSON) ({sorted(set(posts))})")
    finally:
        stop(server)


async def main(binary):
    proc, base = start_agent(binary)
    try:
        async with httpx.AsyncClient(timeout=30) as http:
            card = (await http.get(f"{base}/.well-known/agent-card.json", headers={"A2A-Version": "1.0"})).json()
        versions = {(i["protocolBinding"], i.get("protocolVersion")) for i in card.get("supportedInterfaces", [])}
        check(versions == {("JSONRPC", "0.3"), ("HTTP+JSON", "0.3")},
              f"narrowed to 0.3, the card offers 0.3 JSONRPC and HTTP+JSON only ({sorted(versions)})")
        ext = [e for e in card["capabilities"].get("extensions", []) if e["uri"] == EXT]
        advertised = {s["skill_id"]: s for s in ext[0]["params"]["skills"]}[SKILL] if ext else {}
        for binding in ("JSONRPC", "HTTP+JSON"):
            await run_binding(base, binding, advertised)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    compat_server_checks(binary, *sys.argv[2:])
    finish("v03_compat_client")


if __name__ == "__main__":
    if len(sys.argv) != 6:
        raise SystemExit("usage: v03_compat_client.py PATH/TO/skillgate DOCUMENT INPUT OUTPUT RECORD")
    asyncio.run(main(sys.argv[1]))
