"""A real a2a-sdk agent (the installed line: 1.x or 0.3) governed by skillgate.a2a, driven by the
`skillgate` CLI (Rust client, conformance), the Python client and raw JSON-RPC requests that
bypass every client-side check."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
import uuid

import pytest

import skillgate
from agents import APPENDIX_B, APPENDIX_B_INPUT, EXAMPLES
from conftest import run
from skillgate.a2a import SDK_LINE

SKILL = "evaluate_resource_condition"


def raw_send(base: str, data: dict) -> dict:
    """One blocking send of a message with one Data Part, in the agent's A2A version, with the
    extension activated; returns the task as a dict with `state` and `error` normalized."""
    if SDK_LINE == "1.x":
        body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {
            "messageId": str(uuid.uuid4()), "role": "ROLE_USER",
            "parts": [{"data": data, "mediaType": "application/json"}]}}}
        headers = {"A2A-Version": "1.0", "A2A-Extensions": skillgate.EXTENSION_URI}
    else:
        body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": {
            "messageId": str(uuid.uuid4()), "role": "user", "kind": "message",
            "parts": [{"kind": "data", "data": data}]}}}
        headers = {"X-A2A-Extensions": skillgate.EXTENSION_URI}
    req = urllib.request.Request(
        f"{base}/", data=json.dumps(body).encode(), headers={"Content-Type": "application/json", **headers}
    )
    with urllib.request.urlopen(req, timeout=30) as resp:
        echoed = resp.headers.get("A2A-Extensions") or resp.headers.get("X-A2A-Extensions")
        answer = json.loads(resp.read())
    task = answer["result"].get("task", answer["result"])
    state = task["status"]["state"].lower().removeprefix("task_state_")
    parts = task["status"].get("message", {}).get("parts", [])
    error = parts[0].get("data") if parts else None
    return {"state": state, "error": error, "artifacts": task.get("artifacts", []), "echoed": echoed}


def request(gate, skill=SKILL, **over):
    doc = gate.document(skill)
    r = {"skill": skill, "skill_version": doc.skill_version, "interface_digest": doc.digest,
         "arguments": APPENDIX_B_INPUT}
    r.update(over)
    return r


def test_the_cli_describes_and_calls_the_governed_agent(governed, skillgate_bin):
    d = run(skillgate_bin, "describe", governed.base, SKILL, "--format", "json")
    assert d.returncode == 0, d.stdout + d.stderr
    assert skillgate.digest(APPENDIX_B) in d.stdout
    before = len(governed.probe.calls)
    for extra in ([], ["--stream"]):
        c = run(skillgate_bin, "call", governed.base, SKILL, "--args",
                f"@{EXAMPLES / 'evaluate_resource_condition.input.json'}", "--format", "json", *extra)
        assert c.returncode == 0, c.stdout + c.stderr
        assert "condition_not_met" in c.stdout and "observation-7" in c.stdout
    assert len(governed.probe.calls) == before + 2


def test_bad_calls_never_reach_the_wrapped_executor(governed):
    gate = governed.gate
    before = len(governed.probe.calls)
    cases = [
        (request(gate, interface_digest="sha256:" + "2" * 64), "interface_mismatch", "rejected"),
        (request(gate, skill_version="9.9"), "interface_mismatch", "rejected"),
        (request(gate, "slow_probe", arguments={"seconds": 1, "pad": "x" * 4000}), "resource_limit_exceeded", "rejected"),
        (request(gate, arguments={"resource_id": 7}), "input_invalid", "rejected"),
        ({"skill": "unknown_skill", "arguments": {}}, "interface_unavailable", "failed"),
    ]
    for data, code, state in cases:
        got = raw_send(governed.base, data)
        assert (got["state"], got["error"]["code"]) == (state, code), data
        assert got["artifacts"] == []
        assert got["echoed"] == skillgate.EXTENSION_URI
    bad = raw_send(governed.base, request(gate, arguments={"resource_id": 7}))
    assert "/resource_id" in {d["instance_path"] for d in bad["error"]["details"]}
    # Five refusals, counted by the gate; the executor saw none of them.
    assert len(governed.probe.calls) == before
    assert governed.executor.refused >= len(cases)


def _rpc(base: str, method: str, message: dict) -> bytes:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {"message": message}}
    headers = {"Content-Type": "application/json", "A2A-Version": "1.0", "A2A-Extensions": skillgate.EXTENSION_URI}
    req = urllib.request.Request(f"{base}/", data=json.dumps(body).encode(), headers=headers)
    with urllib.request.urlopen(req, timeout=30) as resp:
        return resp.read()


@pytest.mark.skipif(SDK_LINE != "1.x", reason="the task is announced lazily on the 1.x line only")
def test_what_blocking_and_streaming_callers_see(governed):
    # A blocking caller sees only the final task: whether the gate announced it first or the
    # SDK created it for the first artifact, it holds the request once, the record, then the
    # output under the skill's name.
    def message():
        return {"messageId": str(uuid.uuid4()), "role": "ROLE_USER",
                "parts": [{"data": request(governed.gate), "mediaType": "application/json"}]}

    sent = message()
    task = json.loads(_rpc(governed.base, "SendMessage", sent))["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    assert [m["messageId"] for m in task["history"]] == [sent["messageId"]]
    assert [a["name"] for a in task["artifacts"]] == ["resource-observation", SKILL]
    # A streaming caller gets the task first (its id, to cancel it), then the checked result.
    stream = _rpc(governed.base, "SendStreamingMessage", message()).decode()
    events = [json.loads(line[len("data:"):])["result"] for line in stream.splitlines() if line.startswith("data:")]
    assert [next(iter(e)) for e in events] == ["task", "artifactUpdate", "artifactUpdate", "statusUpdate"]
    assert events[0]["task"]["status"]["state"] == "TASK_STATE_SUBMITTED"
    assert events[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"


def test_describe_skill_is_answered_by_the_gate(governed):
    got = raw_send(governed.base, {"skill": "describe_skill", "arguments": {"skill_id": SKILL}})
    assert got["state"] == "completed"
    (artifact,) = got["artifacts"]
    assert artifact["name"] == "describe_skill"


def test_bad_output_is_output_invalid_and_never_sent(governed):
    before = len(governed.probe.calls)
    bad = dict(APPENDIX_B_INPUT, resource_id="bad-output")
    got = raw_send(governed.base, request(governed.gate, arguments=bad))
    assert len(governed.probe.calls) == before + 1  # it ran...
    assert (got["state"], got["error"]["code"]) == ("failed", "output_invalid")
    assert got["artifacts"] == []  # ...and its output never left
    with pytest.raises(skillgate.SkillgateError) as e:
        skillgate.BlockingClient().call(governed.base, SKILL, bad)
    assert (e.value.code, e.value.where) == ("output_invalid", "remote")


def test_python_client_calls_the_governed_agent(governed):
    async def main():
        client = skillgate.Client(timeout=10)
        return await client.call(governed.base, SKILL, APPENDIX_B_INPUT)

    r = asyncio.run(main())
    assert r.state == "TASK_STATE_COMPLETED"
    assert r.output["result"] == "condition_not_met"
    assert [rec["kind"] for rec in r.records] == ["resource-observation"]
    assert r.interface_digest == skillgate.digest(APPENDIX_B)


def test_cancelling_the_coroutine_cancels_the_remote_task(governed):
    async def main():
        client = skillgate.Client(timeout=60)
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(client.call(governed.base, "slow_probe", {"seconds": 30}), 1.5)

    before = len(governed.probe.cancelled)
    started = time.monotonic()
    asyncio.run(main())
    deadline = time.monotonic() + 10
    while len(governed.probe.cancelled) == before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(governed.probe.cancelled) == before + 1, "the remote task was not cancelled"
    assert time.monotonic() - started < 15


def test_conformance(governed, skillgate_bin):
    c = run(skillgate_bin, "conformance", governed.base, "--format", "json")
    report = json.loads(c.stdout) if c.stdout.strip().startswith("{") else {}
    failed = sorted({x["id"] for x in report.get("checks", []) if x.get("verdict") == "fail"})
    assert c.returncode == 0 and not failed, (c.returncode, failed, c.stderr[-500:])
    # A 0.3.x agent is probed over 0.3 (its only version), a 1.x agent over 1.0.
    assert report.get("a2a_version") == ("1.0" if SDK_LINE == "1.x" else "0.3"), report


@pytest.mark.skipif(SDK_LINE != "1.x", reason="the task is announced lazily on the 1.x line only")
def test_a_blocking_call_announces_the_task_before_a_status_the_executor_passes_through(governed):
    # In process, with the call context the JSON-RPC dispatcher builds for SendMessage: an
    # executor that reports WORKING before its artifacts gets the task announced first (a 1.x
    # handler refuses a status update before its Task); a refusal too.
    from a2a.helpers.proto_helpers import new_data_part
    from a2a.server.context import ServerCallContext
    from a2a.server.request_handlers import DefaultRequestHandler
    from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
    from a2a.types.a2a_pb2 import Message, Part, Role, SendMessageRequest, TaskState
    from google.protobuf import json_format

    from skillgate.a2a import GovernedExecutor

    class Working:
        async def execute(self, context, event_queue):
            updater = TaskUpdater(event_queue, context.task_id, context.context_id)
            await updater.start_work()
            await updater.add_artifact([new_data_part({"slept": 0}, media_type="application/json")], name="answer")
            await updater.complete()

        async def cancel(self, context, event_queue):
            raise NotImplementedError

    handler = DefaultRequestHandler(agent_executor=GovernedExecutor(Working(), governed.gate),
                                    task_store=InMemoryTaskStore(), agent_card=None)

    async def send(data):
        part = Part(media_type="application/json")
        json_format.ParseDict(data, part.data)
        message = Message(message_id=str(uuid.uuid4()), role=Role.ROLE_USER, parts=[part])
        return await handler.on_message_send(SendMessageRequest(message=message),
                                             ServerCallContext(state={"method": "SendMessage"}))

    done = asyncio.run(send(request(governed.gate, "slow_probe", arguments={"seconds": 0})))
    assert done.status.state == TaskState.TASK_STATE_COMPLETED
    assert [a.name for a in done.artifacts] == ["slow_probe"]
    assert len(done.history) == 1
    refused = asyncio.run(send(request(governed.gate, "slow_probe", arguments={"seconds": -1})))
    assert refused.status.state == TaskState.TASK_STATE_REJECTED
