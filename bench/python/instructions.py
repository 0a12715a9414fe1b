#!/usr/bin/env python3
"""One variant of handler.py's loop, for counting instructions under callgrind (instructions.sh):
load-independent figures on a shared machine, where wall-clock timings of a few hundred
microseconds move by more than the gate costs.

    instructions.py plain|body|governed N

plain     agent.py's `Answer` executor, unwrapped, given the bare arguments (the baseline);
body      the same executor, unwrapped, given the whole governed request (skill, skill_version,
          interface_digest, arguments) and reading the arguments out of it: what the larger
          request costs the SDK with no gate at all;
governed  `Answer` behind skillgate.a2a.GovernedExecutor, given the governed request.

Runs 100 warm-up requests, then N, each checked COMPLETED. The difference between two runs
with different N, divided by the difference in N, is the cost of one request.
"""

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from agent import DOC, Answer, AnswerFromRequest  # noqa: E402
from handler import ARGS, card, run  # noqa: E402

from a2a.server.request_handlers import DefaultRequestHandler  # noqa: E402
from a2a.server.tasks import InMemoryTaskStore  # noqa: E402

import skillgate  # noqa: E402
from skillgate.a2a import GovernedExecutor, govern_card  # noqa: E402


async def main(variant, n):
    gate = skillgate.Gate([DOC])
    doc = gate.document("evaluate_resource_condition")
    governed_request = {"skill": doc.skill_id, "skill_version": doc.skill_version,
                        "interface_digest": doc.digest, "arguments": ARGS}
    if variant == "plain":
        executor, agent_card, data = Answer(), card(), ARGS
    elif variant == "body":
        executor, agent_card, data = AnswerFromRequest(), card(), governed_request
    elif variant == "governed":
        executor, agent_card, data = GovernedExecutor(Answer(), gate), govern_card(card(), gate), governed_request
    else:
        raise SystemExit(f"unknown variant {variant!r}")
    handler = DefaultRequestHandler(agent_executor=executor, task_store=InMemoryTaskStore(), agent_card=agent_card)
    await run(handler, data, 100)
    await run(handler, data, n)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
