#!/usr/bin/env python3
"""The bench's upstream: a plain a2a-sdk 1.3.0 agent (no extension) serving skill `sum`
({"a","b"} -> artifact `result` {"sum"} and a `trace` record), non-streaming card.
Prints `listening on http://127.0.0.1:PORT` and serves until killed."""

import os
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "interop"))

from google.protobuf import json_format  # noqa: E402
from a2a.helpers.proto_helpers import new_data_part  # noqa: E402
from a2a.server.agent_execution.agent_executor import AgentExecutor  # noqa: E402
from a2a.server.tasks import TaskUpdater  # noqa: E402
from a2a.types.a2a_pb2 import Task, TaskState, TaskStatus  # noqa: E402

from interop_common import bind_loopback, serve  # noqa: E402


class Sum(AgentExecutor):
    async def execute(self, context, event_queue):
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        if context.current_task is None:
            await event_queue.enqueue_event(Task(
                id=context.task_id, context_id=context.context_id,
                status=TaskStatus(state=TaskState.TASK_STATE_SUBMITTED), history=[context.message]))
        args = json_format.MessageToDict(context.message.parts[0].data)
        await updater.add_artifact(parts=[new_data_part({"step": "added"})], name="trace")
        await updater.add_artifact(parts=[new_data_part({"sum": args["a"] + args["b"]})], name="result")
        await updater.complete()

    async def cancel(self, context, event_queue):
        raise NotImplementedError


sock, base = bind_loopback()
card = {
    "name": "bench sum agent", "description": "plain a2a-sdk agent", "version": "1.0.0",
    "supportedInterfaces": [{"url": f"{base}/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
    "capabilities": {"streaming": False},
    "defaultInputModes": ["application/json"], "defaultOutputModes": ["application/json"],
    "skills": [{"id": "sum", "name": "Sum", "description": "adds a and b", "tags": ["math"]}],
}
serve(card, Sum(), sock)
print(f"listening on {base}", flush=True)
threading.Event().wait()
