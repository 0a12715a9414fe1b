#!/usr/bin/env python3
"""An a2a-sdk 1.x agent for the gate's overhead: the same trivial executor served plain, or
wrapped by skillgate.a2a (GovernedExecutor + govern_card + ExtensionEcho). uvicorn, one worker,
on 127.0.0.1:PORT. The executor answers the Appendix B skill from its arguments.

    agent.py plain|body|governed PORT

body: the plain agent given the governed request (see AnswerFromRequest).
"""

import json
import sys
from pathlib import Path

import uvicorn
from google.protobuf import json_format
from starlette.applications import Starlette
from a2a.helpers.proto_helpers import new_data_part
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types.a2a_pb2 import AgentCard

import skillgate
from skillgate.a2a import ExtensionEcho, GovernedExecutor, govern_card

REPO = Path(__file__).resolve().parents[2]
DOC = (REPO / "examples" / "interfaces" / "evaluate_resource_condition.json").read_text()


class Answer:
    """Reads the arguments from the one Data Part, answers with the output and one record."""

    async def execute(self, context, event_queue):
        args = json_format.MessageToDict(context.message.parts[0].data)
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        record = {"record_id": "observation-7", "resource_id": args["resource_id"], "metric": "utilization",
                  "value": 42, "unit": "percent", "observed_at": "2026-08-11T12:00:01Z"}
        output = {"result": "condition_not_met", "observed_value": 42, "unit": "percent",
                  "supporting_record_refs": ["observation-7"]}
        await updater.add_artifact([new_data_part(record, media_type="application/json")],
                                   artifact_id="observation-7", name="resource-observation")
        await updater.add_artifact([new_data_part(output, media_type="application/json")], name="answer")
        await updater.complete()

    async def cancel(self, context, event_queue):
        raise NotImplementedError


class AnswerFromRequest(Answer):
    """`Answer`, unwrapped, given a whole governed request (skill, skill_version,
    interface_digest, arguments): it reads the arguments out of it. What the larger request
    costs the SDK with no gate at all (mode `body`)."""

    async def execute(self, context, event_queue):
        data = context.message.parts[0].data
        data.CopyFrom(data.struct_value.fields["arguments"])
        await super().execute(context, event_queue)


def main(mode, port):
    card = AgentCard()
    json_format.ParseDict({
        "name": f"bench agent ({mode})", "description": "skillgate.a2a overhead bench", "version": "1.0.0",
        "supportedInterfaces": [{"url": f"http://127.0.0.1:{port}/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": True},
        "defaultInputModes": ["application/json"], "defaultOutputModes": ["application/json"],
        "skills": [{"id": "evaluate_resource_condition", "name": "evaluate", "description": "Appendix B", "tags": ["b"]}],
    }, card)
    executor = AnswerFromRequest() if mode == "body" else Answer()
    if mode == "governed":
        gate = skillgate.Gate([DOC])
        card = govern_card(card, gate)
        executor = GovernedExecutor(executor, gate)
    handler = DefaultRequestHandler(agent_executor=executor, task_store=InMemoryTaskStore(), agent_card=card)
    app = Starlette(routes=create_agent_card_routes(card) + create_jsonrpc_routes(handler, rpc_url="/"))
    if mode == "governed":
        app = ExtensionEcho(app)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
