#!/usr/bin/env python3
"""The official Python a2a-sdk **0.3** client (0.3.26) against `skillgate serve`, over A2A 0.3
JSON-RPC and over A2A 0.3 HTTP+JSON (its REST transport, `/v1/...` in ProtoJSON), as the
agents people run today (CrewAI, Strands, ADK) would call it.

Starts `skillgate serve --conformance-agent --push --allow-http-push --push-allow-cidr 127.0.0.0/8` (the binary is
argv[1]; the conformance agent is the netops agent plus a slow plain task to cancel and
resubscribe to), then:
  - fetches the card with no A2A-Version (what 0.3 clients send) and parses it with the SDK's
    0.3 model: `url`, `preferredTransport`, `protocolVersion`, the extension advertisement, and
    `Vary: A2A-Version`; with `A2A-Version: 1.0` the card is a pure 1.0 card (no `url`);
  - describe_skill with the extension activated by `X-A2A-Extensions`, digest equal to the
    advertised one;
  - on each transport (JSONRPC, HTTP+JSON): describe_skill, a governed call, blocking and
    streaming (`final` on the last status update), get task; a wrong skill_version
    (interface_mismatch, `rejected`) and invalid arguments (input_invalid with details) in the
    status message's data part; a slow task sent non-blocking, resubscribed to, and another
    one canceled; push notification configs set, get, list and delete;
  - the HTTP+JSON dialect's own answers: 0.3 error bodies and statuses, -32009 for
    `A2A-Version: 1.0` on `/v1`, `X-A2A-Extensions` echoed;
  - a webhook registered by the 0.3 client is sent 0.3 Tasks the SDK's model parses;
  - `message/send` with `A2A-Version: 1.0` is refused with -32009 (the method is 0.3).
Exits non-zero when any check failed.
"""

import asyncio
import json
import subprocess
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
from a2a.client import ClientConfig, ClientFactory
from a2a.types import (
    AgentCard,
    DataPart,
    Task,
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

EXT = "https://agentic-network-management.github.io/agent-schema-interfaces/extensions/schema-interface/v1"
SKILL = "evaluate_resource_condition"
SLOW = "test-resubscribe-message-id"  # the conformance agent keeps this task working ~4.5 s

from checks import check, finish

# The transport the SDK client is built for (JSONRPC or HTTP+JSON); checks made through it say
# which, so a failure names its binding.
TRANSPORT = "JSONRPC"


def tcheck(cond, what):
    check(cond, f"[{TRANSPORT}] {what}")


def start_agent(binary):
    proc = subprocess.Popen(
        [binary, "serve", "--listen", "127.0.0.1:0", "--store", "memory",
         "--conformance-agent", "--push", "--allow-http-push", "--push-allow-cidr", "127.0.0.0/8"],
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


def data_message(payload, message_id=None):
    return Message(
        role=Role.user,
        message_id=message_id or str(uuid.uuid4()),
        parts=[Part(root=DataPart(data=payload))],
    )


def text_message(text, message_id):
    return Message(role=Role.user, message_id=message_id, parts=[Part(root=TextPart(text=text))])


async def client_for(base, http, streaming, polling=False):
    cfg = ClientConfig(streaming=streaming, polling=polling, supported_transports=[TRANSPORT],
                       httpx_client=http, extensions=[EXT])
    return await ClientFactory.connect(base, client_config=cfg)


async def send(client, message, configuration=None):
    events = []
    async for ev in client.send_message(message, configuration=configuration):
        events.append(ev)
    return events


def task_of(events):
    tasks = [e[0] for e in events if isinstance(e, tuple)]
    tcheck(len(tasks) >= 1, "message/send answers with a Task")
    return tasks[-1] if tasks else None


def error_of(task):
    parts = task.status.message.parts if task.status.message else []
    tcheck(len(parts) == 1 and isinstance(parts[0].root, DataPart),
          "the error status message has exactly one data part")
    return parts[0].root.data if parts else {}


async def card_checks(base, http):
    resp = await http.get(f"{base}/.well-known/agent-card.json")
    check(resp.status_code == 200, "the Agent Card is served without A2A-Version")
    check("a2a-version" in resp.headers.get("vary", "").lower(), "the card varies on A2A-Version")
    card = AgentCard.model_validate(resp.json())
    check(card.url.startswith(base), f"the 0.3 card names the JSON-RPC url ({card.url})")
    check(card.preferred_transport == "JSONRPC", "preferredTransport is JSONRPC")
    check(card.protocol_version.startswith("0.3"), f"protocolVersion is 0.3 ({card.protocol_version})")
    ext = [e for e in (card.capabilities.extensions or []) if e.uri == EXT]
    check(len(ext) == 1, "the 0.3 card advertises the schema-interface extension")
    adv = {s["skill_id"]: s for s in ext[0].params["skills"]} if ext else {}
    check(SKILL in adv, f"params.skills advertises {SKILL}")

    pure = await http.get(f"{base}/.well-known/agent-card.json", headers={"A2A-Version": "1.0"})
    body = pure.json()
    check("url" not in body and "supportedInterfaces" in body,
          "with A2A-Version: 1.0 the card is a pure 1.0 card")
    versions = {(i["protocolBinding"], i.get("protocolVersion")) for i in body["supportedInterfaces"]}
    check(("JSONRPC", "0.3") in versions and ("JSONRPC", "1.0") in versions,
          f"the 1.0 card lists the 0.3 JSON-RPC interface beside the 1.0 ones ({sorted(versions)})")
    check(("HTTP+JSON", "0.3") in versions,
          f"the 1.0 card lists the 0.3 HTTP+JSON interface ({sorted(versions)})")
    rest = [i for i in (card.additional_interfaces or []) if i.transport == "HTTP+JSON"]
    check(len(rest) == 1 and rest[0].url.rstrip("/") == base,
          "the 0.3 card's additionalInterfaces offer HTTP+JSON at the base URL")
    return adv.get(SKILL, {})


async def governed_calls(base, http, advertised):
    client = await client_for(base, http, streaming=False)
    task = task_of(await send(client, data_message(
        {"skill": "describe_skill", "arguments": {"skill_id": SKILL}})))
    tcheck(task.status.state == TaskState.completed, "describe_skill completes")
    tcheck(len(task.artifacts or []) == 1 and task.artifacts[0].name == "describe_skill",
          "describe_skill returns one artifact named describe_skill")
    data = task.artifacts[0].parts[0].root.data
    tcheck(data.get("interface_digest") == advertised.get("interface_digest"),
          "the returned interface_digest equals the advertised one")

    request = {
        "skill": SKILL,
        "skill_version": advertised.get("skill_version"),
        "interface_digest": advertised.get("interface_digest"),
        "arguments": {
            "resource_id": "lo",
            "condition": {"metric": "rx_bytes_per_second", "operator": "gte",
                          "threshold": 0, "unit": "bytes_per_second"},
            "window_ms": 200,
        },
    }
    task = task_of(await send(client, data_message(request)))
    tcheck(task.status.state == TaskState.completed, f"{SKILL} completes (got {task.status.state})")
    names = sorted(a.name for a in task.artifacts or [])
    tcheck(names == sorted([SKILL, "resource-observation"]),
          f"artifacts are named the skill id and the record kind ({names})")
    got = await client.get_task(TaskQueryParams(id=task.id))
    tcheck(got.id == task.id and got.status.state == TaskState.completed,
          "tasks/get returns the completed task")

    wrong = dict(request, skill_version="999.0")
    task = task_of(await send(client, data_message(wrong)))
    err = error_of(task)
    tcheck(task.status.state == TaskState.rejected and err.get("code") == "interface_mismatch",
          f"a wrong skill_version is rejected with interface_mismatch ({task.status.state}, {err.get('code')})")

    bad = dict(request, arguments={"resource_id": "lo"})
    task = task_of(await send(client, data_message(bad)))
    err = error_of(task)
    tcheck(task.status.state == TaskState.rejected and err.get("code") == "input_invalid",
          "arguments missing a required member are input_invalid / rejected")
    tcheck(any(d.get("instance_path") == "/condition" for d in err.get("details", [])),
          "details[].instance_path names /condition")

    client = await client_for(base, http, streaming=True)
    events = await send(client, data_message(request))
    updates = [e[1] for e in events if isinstance(e, tuple) and e[1] is not None]
    statuses = [u for u in updates if isinstance(u, TaskStatusUpdateEvent)]
    tcheck(statuses and statuses[-1].final and statuses[-1].status.state == TaskState.completed,
          "the stream ends with a completed status update marked final")
    tcheck(all(not s.final for s in statuses[:-1]), "only the last status update is final")


async def slow_tasks(base, http):
    client = await client_for(base, http, streaming=True, polling=True)
    cfg = MessageSendConfiguration(blocking=False)
    # Non-blocking send over the non-streaming path, then resubscribe.
    plain = await client_for(base, http, streaming=False, polling=True)
    task = task_of(await send(plain, text_message("slow", f"{SLOW}-{uuid.uuid4()}"), cfg))
    tcheck(task.status.state in (TaskState.submitted, TaskState.working),
          f"a non-blocking send answers before the task ends ({task.status.state})")
    seen = []
    async for ev in client.resubscribe(TaskIdParams(id=task.id)):
        seen.append(ev)
    last = seen[-1][0] if seen else None
    tcheck(last is not None and last.status.state == TaskState.completed,
          "tasks/resubscribe follows the task to completed")

    task = task_of(await send(plain, text_message("slow", f"{SLOW}-{uuid.uuid4()}"), cfg))
    canceled = await plain.cancel_task(TaskIdParams(id=task.id))
    tcheck(canceled.status.state == TaskState.canceled, f"tasks/cancel cancels ({canceled.status.state})")

    config = TaskPushNotificationConfig(
        task_id=task.id,
        push_notification_config=PushNotificationConfig(
            id="hook-1", url="https://127.0.0.1:9/hook", token="secret-token"),
    )
    made = await plain.set_task_callback(config)
    tcheck(made.task_id == task.id and made.push_notification_config.id == "hook-1",
          "tasks/pushNotificationConfig/set stores the config")
    got = await plain.get_task_callback(
        GetTaskPushNotificationConfigParams(id=task.id, push_notification_config_id="hook-1"))
    tcheck(got.push_notification_config.url == "https://127.0.0.1:9/hook",
          "tasks/pushNotificationConfig/get returns it")

    if TRANSPORT == "HTTP+JSON":
        # The SDK's REST transport has no list or delete: the wire by hand, in ProtoJSON.
        configs = f"{base}/v1/tasks/{task.id}/pushNotificationConfigs"
        listed = (await http.get(configs)).json()
        tcheck(len(listed.get("configs", [])) == 1
               and listed["configs"][0]["name"] == f"tasks/{task.id}/pushNotificationConfigs/hook-1",
               f"GET .../pushNotificationConfigs lists the config by resource name ({listed})")
        r = await http.delete(f"{configs}/hook-1")
        tcheck(r.status_code == 200 and r.json() == {}, f"DELETE .../hook-1 answers {{}} ({r.text})")
        r = await http.get(f"{configs}/hook-1")
        tcheck(r.status_code == 404 and "message" in r.json(), "the deleted config is gone (404)")
        return
    rpc = lambda method, params, rid: {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}
    listed = (await http.post(base + "/", json=rpc("tasks/pushNotificationConfig/list",
                                                   {"id": task.id}, 7))).json()
    tcheck(isinstance(listed.get("result"), list) and len(listed["result"]) == 1,
          "tasks/pushNotificationConfig/list answers an array with the config")
    deleted = (await http.post(base + "/", json=rpc("tasks/pushNotificationConfig/delete",
               {"id": task.id, "pushNotificationConfigId": "hook-1"}, 8))).json()
    tcheck("result" in deleted and deleted["result"] is None,
          f"tasks/pushNotificationConfig/delete answers null ({deleted})")


class Webhook:
    """A webhook receiver on 127.0.0.1:0 recording (headers, body) of every POST."""

    def __init__(self):
        seen = self.seen = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                seen.append((dict(self.headers.items()), body))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()


async def push_delivery(base, http):
    hook = Webhook()
    try:
        plain = await client_for(base, http, streaming=False)
        cfg = MessageSendConfiguration(blocking=True, push_notification_config=PushNotificationConfig(
            url=hook.url, token="tok-03"))
        task = task_of(await send(plain, data_message(
            {"skill": "describe_skill", "arguments": {"skill_id": SKILL}}), cfg))
        deadline = time.monotonic() + 10
        tasks = []
        while time.monotonic() < deadline:
            tasks = []
            for headers, body in list(hook.seen):
                try:
                    tasks.append(Task.model_validate(json.loads(body)))
                except Exception as e:  # a body the SDK cannot read fails the check below
                    print(f"  (push body not a 0.3 Task: {e})")
            if any(t.status.state == TaskState.completed for t in tasks):
                break
            await asyncio.sleep(0.05)
        check(tasks and len(tasks) == len(hook.seen) and all(t.id == task.id for t in tasks),
              f"every push body is a 0.3 Task of the task ({len(tasks)} of {len(hook.seen)})")
        check(any(t.status.state == TaskState.completed and t.artifacts for t in tasks),
              "the last push body is the completed task with its artifact")
        heads = [{k.lower(): v for k, v in h.items()} for h, _ in hook.seen]
        check(heads and all(h.get("content-type") == "application/json"
                            and h.get("x-a2a-notification-token") == "tok-03" for h in heads),
              "push bodies are application/json with X-A2A-Notification-Token")
    finally:
        hook.close()


async def dialect_checks(base, http):
    body = {"jsonrpc": "2.0", "id": 1, "method": "message/send",
            "params": {"message": {"kind": "message", "messageId": "m-1", "role": "user",
                                   "parts": [{"kind": "text", "text": "hi"}]}}}
    r = await http.post(base + "/", json=body, headers={"A2A-Version": "1.0"})
    check(r.json().get("error", {}).get("code") == -32009,
          "message/send with A2A-Version: 1.0 is refused with -32009")
    r = await http.post(base + "/", json=body, headers={"X-A2A-Extensions": EXT})
    check(EXT in r.headers.get("x-a2a-extensions", ""),
          "X-A2A-Extensions is echoed under its own name")
    check(r.json().get("result", {}).get("kind") == "task", "a 0.3 result carries kind: task")
    r = await http.post(base + "/", json=dict(body, method="tasks/get", params={"id": "nope"}))
    err = r.json().get("error", {})
    check(err.get("code") == -32001 and "data" not in err,
          f"tasks/get of an unknown task: -32001 with no data member ({err})")


async def rest_dialect_checks(base, http):
    body = {"message": {"messageId": "m-2", "role": "ROLE_USER", "content": [{"text": "hi"}]},
            "configuration": {"blocking": True}}
    r = await http.post(base + "/v1/message:send", json=body, headers={"A2A-Version": "1.0"})
    check(r.status_code == 400 and r.json().get("code") == -32009,
          f"/v1/message:send with A2A-Version: 1.0 is 400 with code -32009 ({r.status_code} {r.text})")
    r = await http.post(base + "/v1/message:send", json=body, headers={"X-A2A-Extensions": EXT})
    check(r.status_code == 200 and "kind" not in r.json().get("task", {"kind": 1}),
          "a /v1 answer is a ProtoJSON {task} without kind")
    check(EXT in r.headers.get("x-a2a-extensions", ""), "X-A2A-Extensions is echoed on /v1")
    r = await http.get(base + "/v1/tasks/nope")
    check(r.status_code == 404 and r.json().get("code") == -32001,
          f"GET /v1/tasks/nope: 404 {{code: -32001}} ({r.text})")
    r = await http.post(base + "/v1/message:send", json={"message": {"kind": "message"}})
    check(r.status_code == 422 and r.json().get("code") == -32602,
          f"a 0.3 JSON-RPC message on /v1 is 422 InvalidParams ({r.text[:200]})")


async def main(binary):
    proc, base = start_agent(binary)
    try:
        async with httpx.AsyncClient(timeout=30) as http:
            advertised = await card_checks(base, http)
            global TRANSPORT
            for TRANSPORT in ("JSONRPC", "HTTP+JSON"):
                print(f"== transport {TRANSPORT}")
                await governed_calls(base, http, advertised)
                await slow_tasks(base, http)
            TRANSPORT = "JSONRPC"
            await rest_dialect_checks(base, http)
            await push_delivery(base, http)
            await dialect_checks(base, http)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    finish("v03_sdk_client_vs_skillgate")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: v03_sdk_client_vs_skillgate.py PATH/TO/skillgate")
    asyncio.run(main(sys.argv[1]))
