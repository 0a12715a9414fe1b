#!/usr/bin/env python3
"""The gate's cost per request inside the a2a-sdk 1.x request handler, without HTTP: the same
trivial executor (agent.py's `Answer`) plain and wrapped by skillgate.a2a.GovernedExecutor,
`DefaultRequestHandler.on_message_send` awaited N times in a loop, alternating, best of 5, with
the call context the JSON-RPC dispatcher builds for SendMessage. Every answer is checked
COMPLETED with its output artifact.

    handler.py [N]             the table: plain vs governed, per request
    handler.py N --profile     cProfile of N governed requests (after the warm-up): the 40
                               functions with the most time of their own, then by cumulative time
"""

import asyncio
import json
import sys
import time
import uuid
from pathlib import Path

from google.protobuf import json_format
from a2a.server.context import ServerCallContext
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.tasks import InMemoryTaskStore
from a2a.types.a2a_pb2 import AgentCard, Message, Part, Role, SendMessageRequest, TaskState

import skillgate
from skillgate.a2a import GovernedExecutor, govern_card

sys.path.insert(0, str(Path(__file__).parent))
from agent import DOC, Answer  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
ARGS = json.loads((REPO / "examples" / "interfaces" / "evaluate_resource_condition.input.json").read_text())


def card():
    c = AgentCard()
    json_format.ParseDict({
        "name": "bench", "description": "bench", "version": "1.0.0",
        "supportedInterfaces": [{"url": "http://127.0.0.1:1/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {}, "defaultInputModes": ["application/json"], "defaultOutputModes": ["application/json"],
        "skills": [{"id": "evaluate_resource_condition", "name": "e", "description": "e", "tags": ["b"]}],
    }, c)
    return c


def request(data):
    part = Part(media_type="application/json")
    json_format.ParseDict(data, part.data)
    return SendMessageRequest(message=Message(message_id=str(uuid.uuid4()), role=Role.ROLE_USER, parts=[part]))


async def run(handler, data, n):
    # As the JSON-RPC dispatcher calls the handler for SendMessage: it records the method.
    ctx = ServerCallContext(state={"method": "SendMessage"})
    t = time.perf_counter()
    for _ in range(n):
        task = await handler.on_message_send(request(data), ctx)
        if task.status.state != TaskState.TASK_STATE_COMPLETED or not task.artifacts:
            raise SystemExit(f"not completed: {task}")
    return (time.perf_counter() - t) / n


async def profile(handler, data, n):
    import cProfile
    import pstats

    prof = cProfile.Profile()
    prof.enable()
    await run(handler, data, n)
    prof.disable()
    stats = pstats.Stats(prof).strip_dirs()
    stats.sort_stats("tottime").print_stats(40)
    stats.sort_stats("cumulative").print_stats(40)


async def main(n, profiling=False):
    gate = skillgate.Gate([DOC])
    doc = gate.document("evaluate_resource_condition")
    governed_request = {"skill": doc.skill_id, "skill_version": doc.skill_version,
                        "interface_digest": doc.digest, "arguments": ARGS}
    plain = DefaultRequestHandler(agent_executor=Answer(), task_store=InMemoryTaskStore(), agent_card=card())
    governed = DefaultRequestHandler(agent_executor=GovernedExecutor(Answer(), gate), task_store=InMemoryTaskStore(),
                                     agent_card=govern_card(card(), gate))
    await run(plain, ARGS, 200)
    await run(governed, governed_request, 200)
    if profiling:
        return await profile(governed, governed_request, n)
    best_p, best_g = float("inf"), float("inf")
    for _ in range(5):
        best_p = min(best_p, await run(plain, ARGS, n))
        best_g = min(best_g, await run(governed, governed_request, n))
    print(f"| handler, per request | plain | governed | added |")
    print(f"|---|---|---|---|")
    print(f"| on_message_send x{n}, best of 5 | {best_p * 1e6:,.0f} µs | {best_g * 1e6:,.0f} µs | "
          f"{(best_g - best_p) * 1e6:+,.0f} µs ({(best_g / best_p - 1) * 100:+.1f}%) |")


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000, "--profile" in sys.argv[2:]))
