#!/usr/bin/env python3
"""Our client against an a2a-sdk server WITHOUT the schema-interface extension.

The server advertises a skill with the same id as one of ours, but no extension and no
interface. `skillgate call` and `skillgate describe` must refuse it locally
(skill_not_advertised: the skill has no schema interface), and nothing may be delegated: the
server must see no request other than Agent Card fetches, and its executor must never run.
Usage: sdk_server_plain.py PATH/TO/skillgate
"""

import sys

from a2a.helpers.proto_helpers import new_text_part
from a2a.server.agent_execution.agent_executor import AgentExecutor
from a2a.server.tasks import TaskUpdater

from interop_common import bind_loopback, check, finish, parse_json, serve, skillgate, stop

SKILL = "evaluate_resource_condition"


class CountingExecutor(AgentExecutor):
    def __init__(self):
        self.executions = 0

    async def execute(self, context, event_queue):
        self.executions += 1
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.add_artifact(parts=[new_text_part("done")], name=SKILL)
        await updater.complete()

    async def cancel(self, context, event_queue):
        raise NotImplementedError


def main(binary):
    sock, base = bind_loopback()
    card = {
        "name": "plain a2a-sdk agent",
        "description": "An A2A 1.0 agent without schema interfaces",
        "version": "1.0.0",
        "supportedInterfaces": [{"url": f"{base}/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": True},
        "defaultInputModes": ["application/json"],
        "defaultOutputModes": ["application/json"],
        "skills": [{"id": SKILL, "name": "Evaluate", "description": "free-form", "tags": ["netops"]}],
    }
    executor = CountingExecutor()
    server, log = serve(card, executor, sock)
    try:
        args = '{"resource_id": "eth0", "condition": {"metric": "utilization", "operator": "gte", "threshold": 80, "unit": "percent"}}'
        for cmd in (
            ["call", base, SKILL, "--args", args, "--format", "json"],
            ["call", base, SKILL, "--args", args, "--stream", "--format", "json"],
            ["describe", base, SKILL, "--format", "json"],
        ):
            code, out, err = skillgate(binary, *cmd)
            label = cmd[0] + (" --stream" if "--stream" in cmd else "")
            print(f"[skillgate {label}] exit {code}")
            check(code == 1, f"skillgate {cmd[0]} exits 1 (a draft error), got {code}")
            report = parse_json(out) or {}
            text = out + err
            check("skill_not_advertised" in text,
                  f"skillgate {cmd[0]} reports skill_not_advertised ({(report.get('error') or report or text)!s:.200})")
        posts = [r for r in log.requests if r[0] != "GET"]
        gets = [r for r in log.requests if r[0] == "GET"]
        check(posts == [], f"the server saw no SendMessage / POST at all ({posts})")
        check(all(p == "/.well-known/agent-card.json" for _, p in gets) and len(gets) >= 1,
              f"the server only served its Agent Card ({len(gets)} GETs)")
        check(executor.executions == 0, f"nothing was delegated (executor ran {executor.executions} times)")
    finally:
        stop(server)
    finish("sdk_server_plain")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: sdk_server_plain.py PATH/TO/skillgate")
    main(sys.argv[1])
