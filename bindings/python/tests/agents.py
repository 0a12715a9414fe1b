"""A real a2a-sdk agent (whichever line is installed: 1.x or 0.3) governed by skillgate.a2a, served
by uvicorn on a loopback port in a background thread, for the tests.

The wrapped executor (`ProbeExecutor`) knows nothing of the draft: it reads plain arguments from
one Data Part and answers with plain artifacts. It counts every request that reaches it, so a
test can prove a refused request never did.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from pathlib import Path

import uvicorn

import skillgate
from skillgate.a2a import SDK_LINE, ExtensionEcho, GovernedExecutor, govern_card

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "examples" / "interfaces"
APPENDIX_B = json.loads((EXAMPLES / "evaluate_resource_condition.json").read_text())
APPENDIX_B_INPUT = json.loads((EXAMPLES / "evaluate_resource_condition.input.json").read_text())

SCHEMA = "https://json-schema.org/draft/2020-12/schema"


def reference(uri: str, schema: dict) -> dict:
    """A Schema Reference with its digest, computed by skillgate itself."""
    return {
        "schema_uri": uri,
        "version": "1.0",
        "dialect": SCHEMA,
        "digest": skillgate.digest(schema),
        "resolution": {"type": "inline", "schema": schema},
    }


def slow_document() -> dict:
    """A cancelable skill that waits `seconds` before answering: the cancellation target."""
    return {
        "interface_version": "1.0",
        "skill_id": "slow_probe",
        "skill_version": "1.0",
        "input_schema": reference(
            "urn:skillgate:test:slow:input",
            {
                "$schema": SCHEMA,
                "type": "object",
                "required": ["seconds"],
                "additionalProperties": False,
                "properties": {"seconds": {"type": "number", "minimum": 0, "maximum": 60}},
            },
        ),
        "output_schema": reference(
            "urn:skillgate:test:slow:output",
            {"$schema": SCHEMA, "type": "object", "required": ["slept"], "properties": {"slept": {"type": "number"}}},
        ),
        "supporting_record_schemas": {},
        "interaction": {"response_modes": ["sync", "stream"], "cancelable": True},
        "authority": {"default_mode": "observe_only", "approval_may_be_required": False},
        "constraints": {"max_input_bytes": 1024, "max_duration_ms": 60000},
    }


if SDK_LINE == "1.x":
    from google.protobuf import json_format
    from starlette.applications import Starlette
    from a2a.helpers.proto_helpers import new_data_part
    from a2a.server.request_handlers import DefaultRequestHandler
    from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
    from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
    from a2a.types.a2a_pb2 import AgentCard

    def _arguments(message):
        return json_format.MessageToDict(message.parts[0].data)

    def _data(value):
        return [new_data_part(value, media_type="application/json")]

    def _card(base: str, skills: list) -> object:
        card = AgentCard()
        json_format.ParseDict(
            {
                "name": "governed probe agent",
                "description": "An a2a-sdk agent governed by skillgate.a2a",
                "version": "1.0.0",
                "supportedInterfaces": [{"url": f"{base}/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
                "capabilities": {"streaming": True},
                "defaultInputModes": ["application/json"],
                "defaultOutputModes": ["application/json"],
                "skills": [
                    {"id": s, "name": s, "description": f"The {s} skill", "tags": ["test"]} for s in skills
                ],
            },
            card,
        )
        return card

    def _app(card, executor):
        handler = DefaultRequestHandler(agent_executor=executor, task_store=InMemoryTaskStore(), agent_card=card)
        routes = create_agent_card_routes(card) + create_jsonrpc_routes(handler, rpc_url="/")
        return Starlette(routes=routes)

else:
    from a2a.server.apps import A2AStarletteApplication
    from a2a.server.request_handlers import DefaultRequestHandler
    from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
    from a2a.types import AgentCapabilities, AgentCard, AgentSkill, DataPart, Part

    def _arguments(message):
        return message.parts[0].root.data

    def _data(value):
        return [Part(root=DataPart(data=value))]

    def _card(base: str, skills: list) -> object:
        return AgentCard(
            name="governed probe agent",
            description="An a2a-sdk 0.3 agent governed by skillgate.a2a",
            version="1.0.0",
            url=f"{base}/",
            preferred_transport="JSONRPC",
            protocol_version="0.3.0",
            capabilities=AgentCapabilities(streaming=True),
            default_input_modes=["application/json"],
            default_output_modes=["application/json"],
            skills=[AgentSkill(id=s, name=s, description=f"The {s} skill", tags=["test"]) for s in skills],
        )

    def _app(card, executor):
        handler = DefaultRequestHandler(agent_executor=executor, task_store=InMemoryTaskStore())
        return A2AStarletteApplication(agent_card=card, http_handler=handler).build()


class ProbeExecutor:
    """A plain executor: `evaluate_resource_condition` arguments get the Appendix B answer
    (resource_id `bad-output` gets output that breaks the schema); `{"seconds": n}` sleeps."""

    def __init__(self):
        self.calls = []
        self.cancelled = []

    async def execute(self, context, event_queue):
        args = _arguments(context.message)
        self.calls.append(args)
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        if "seconds" in args:
            await asyncio.sleep(float(args["seconds"]))
            await updater.add_artifact(_data({"slept": args["seconds"]}), name="answer")
            return await updater.complete()
        if args.get("resource_id") == "bad-output":
            await updater.add_artifact(_data({"result": 7}), name="answer")
            return await updater.complete()
        record = {
            "record_id": "observation-7",
            "resource_id": args["resource_id"],
            "metric": args["condition"]["metric"],
            "value": 42,
            "unit": args["condition"]["unit"],
            "observed_at": "2026-08-11T12:00:01Z",
        }
        output = {
            "result": "condition_not_met",
            "observed_value": 42,
            "unit": args["condition"]["unit"],
            "supporting_record_refs": ["observation-7"],
        }
        await updater.add_artifact(_data(record), artifact_id="observation-7", name="resource-observation")
        await updater.add_artifact(_data(output), name="answer")
        await updater.complete()

    async def cancel(self, context, event_queue):
        self.cancelled.append(context.task_id)
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.cancel()


class GovernedAgent:
    """The probe executor behind GovernedExecutor, served on 127.0.0.1:<free port>."""

    def __init__(self):
        self.gate = skillgate.Gate([APPENDIX_B, slow_document()])
        self.probe = ProbeExecutor()
        self.executor = GovernedExecutor(self.probe, self.gate)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.base = f"http://127.0.0.1:{sock.getsockname()[1]}"
        card = govern_card(_card(self.base, list(self.gate.skill_ids)), self.gate)
        app = ExtensionEcho(_app(card, self.executor))
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True).start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the governed a2a-sdk agent did not start")
            time.sleep(0.02)

    def stop(self):
        self.server.should_exit = True
