#!/usr/bin/env python3
"""Our client against an a2a-sdk server that implements the schema-interface extension by hand.

The server serves one of our documents (DOCUMENT, checked with `skillgate interface check`;
its digest computed with `skillgate digest`, never re-implemented here), advertises it in its
card's extension params, answers describe_skill, enforces the interface selection, and
returns the skill's output and supporting record as Data Part artifacts (which the SDK
re-encodes through protobuf: integers come back as floats). `skillgate describe` and
`skillgate call` (blocking and streaming) must succeed, and `skillgate conformance` is run
against it too (reported; its verdict is checked for the requirements this server meets).
The same executor is also served by the SDK's gRPC server (GrpcHandler), listed as the card's
GRPC interface: `skillgate describe` and `skillgate call` (blocking and streaming) with
`--binding grpc` must succeed against it too.
Usage: sdk_server_extension.py PATH/TO/skillgate DOCUMENT INPUT OUTPUT RECORD
"""

import json
import sys

from google.protobuf import json_format
from a2a.helpers.proto_helpers import new_data_part
from a2a.server.agent_execution.agent_executor import AgentExecutor
from a2a.server.tasks import TaskUpdater
from a2a.types.a2a_pb2 import Task, TaskState, TaskStatus

from interop_common import (bind_loopback, check, finish, free_loopback_port, parse_json, result_json,
                            serve, serve_grpc, skillgate, stop)

EXT = "https://agentic-network-management.github.io/agent-schema-interfaces/extensions/schema-interface/v1"


class HandWrittenExtension(AgentExecutor):
    """describe_skill plus one domain skill, following the skillgate wire profile."""

    def __init__(self, document, digest, output, record):
        self.document = document
        self.digest = digest
        self.skill = document["skill_id"]
        self.output = output
        self.record = record
        self.requests = []

    async def execute(self, context, event_queue):
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        # The SDK's v2 handler wants the Task itself before any update event.
        if context.current_task is None:
            await event_queue.enqueue_event(Task(
                id=context.task_id,
                context_id=context.context_id,
                status=TaskStatus(state=TaskState.TASK_STATE_SUBMITTED),
                history=[context.message],
            ))
        parts = context.message.parts
        request = json_format.MessageToDict(parts[0].data) if len(parts) == 1 else None
        self.requests.append(request)

        async def error(state, code, message, details=None):
            body = {"code": code, "message": message}
            if details:
                body["details"] = details
            msg = updater.new_agent_message(parts=[new_data_part(body, media_type="application/json")])
            await (updater.reject(msg) if state == "rejected" else updater.failed(msg))

        if not isinstance(request, dict) or "skill" not in request:
            return await error("rejected", "input_invalid", "expected one Data Part with a request object")
        if request["skill"] == "describe_skill":
            wanted = (request.get("arguments") or {}).get("skill_id")
            if wanted != self.skill:
                return await error("failed", "interface_unavailable", "no such skill")
            data = {"interface_digest": self.digest, "skill_interface": self.document}
            await updater.add_artifact(
                parts=[new_data_part(data, media_type="application/json")], name="describe_skill"
            )
            return await updater.complete()
        if request["skill"] != self.skill:
            return await error("failed", "interface_unavailable", "no such skill")
        if (request.get("skill_version") != self.document["skill_version"]
                or request.get("interface_digest") != self.digest):
            return await error("rejected", "interface_mismatch", "not the active interface")
        args = request.get("arguments")
        schema = self.document["input_schema"]["resolution"]["schema"]
        missing = [k for k in schema.get("required", []) if not isinstance(args, dict) or k not in args]
        if missing:
            details = [{"instance_path": f"/{k}", "keyword": "required"} for k in missing]
            return await error("rejected", "input_invalid", "arguments do not match", details)
        await updater.start_work()
        record_id = self.output["supporting_record_refs"][0]
        await updater.add_artifact(
            parts=[new_data_part(self.record, media_type="application/json")],
            artifact_id=record_id,
            name="resource-observation",
        )
        await updater.add_artifact(
            parts=[new_data_part(self.output, media_type="application/json")], name=self.skill
        )
        await updater.complete()

    async def cancel(self, context, event_queue):
        raise NotImplementedError


def main(binary, doc_path, input_path, output_path, record_path):
    code, out, err = skillgate(binary, "interface", "check", doc_path)
    check(code == 0, f"skillgate interface check accepts the document ({out.strip() or err.strip()})")
    code, digest, err = skillgate(binary, "digest", doc_path)
    digest = digest.strip()
    check(code == 0 and digest.startswith("sha256:"), f"skillgate digest gives {digest}")
    with open(doc_path) as f:
        document = json.load(f)
    with open(output_path) as f:
        output = json.load(f)
    with open(record_path) as f:
        record = json.load(f)
    skill = document["skill_id"]

    sock, base = bind_loopback()
    grpc_port = free_loopback_port()
    card = {
        "name": "hand-written extension agent",
        "description": "An a2a-sdk agent implementing the schema-interface extension by hand",
        "version": "1.0.0",
        "supportedInterfaces": [
            {"url": f"{base}/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": f"127.0.0.1:{grpc_port}", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
        ],
        "capabilities": {
            "streaming": True,
            "extensions": [{
                "uri": EXT,
                "description": "Schema interfaces for skills (describe_skill)",
                "params": {"interface_version": "1.0", "skills": [
                    {"skill_id": skill, "skill_version": document["skill_version"], "interface_digest": digest}
                ]},
            }],
        },
        "defaultInputModes": ["application/json"],
        "defaultOutputModes": ["application/json"],
        "skills": [
            {"id": "describe_skill", "name": "Describe skill", "description": "Returns a skill's interface", "tags": ["meta"]},
            {"id": skill, "name": "Evaluate resource condition", "description": "Appendix B", "tags": ["netops"]},
        ],
    }
    executor = HandWrittenExtension(document, digest, output, record)
    server, log = serve(card, executor, sock, echo=True)
    stop_grpc = serve_grpc(card, executor, grpc_port)
    try:
        code, out, err = skillgate(binary, "describe", base, skill, "--format", "json")
        print(f"[skillgate describe] exit {code}")
        check(code == 0, f"skillgate describe succeeds ({err.strip()[:300]})")
        described = parse_json(out) or {}
        check(digest in out, "skillgate describe reports the advertised digest")

        for extra in ([], ["--stream"]):
            code, out, err = skillgate(binary, "call", base, skill, "--args", f"@{input_path}",
                                       "--format", "json", *extra)
            label = "call" + (" --stream" if extra else "")
            print(f"[skillgate {label}] exit {code}")
            check(code == 0, f"skillgate {label} succeeds ({(out + err).strip()[:400]})")
            result = result_json(out) or {}
            text = json.dumps(result)
            check(output["result"] in text and "observation-7" in text,
                  f"skillgate {label} prints the validated output and record reference")

        # The same agent over gRPC: our client on the card's GRPC interface.
        code, out, err = skillgate(binary, "describe", base, skill, "--binding", "grpc", "--format", "json")
        print(f"[skillgate describe --binding grpc] exit {code}")
        check(code == 0 and digest in out,
              f"skillgate describe --binding grpc succeeds with the advertised digest ({err.strip()[:300]})")
        for extra in ([], ["--stream"]):
            code, out, err = skillgate(binary, "call", base, skill, "--args", f"@{input_path}",
                                       "--binding", "grpc", "--format", "json", *extra)
            label = "call --binding grpc" + (" --stream" if extra else "")
            print(f"[skillgate {label}] exit {code}")
            check(code == 0, f"skillgate {label} succeeds ({(out + err).strip()[:400]})")
            text = json.dumps(result_json(out) or {})
            check(output["result"] in text and "observation-7" in text,
                  f"skillgate {label} prints the validated output and record reference")

        requests = [r for r in executor.requests if r]
        domain = [r for r in requests if r.get("skill") == skill]
        check(len(domain) == 4, f"four domain requests were delegated, two per binding ({len(domain)})")
        check(all(r.get("interface_digest") == digest and r.get("skill_version") == document["skill_version"]
                  for r in domain), "each names the advertised skill_version and interface_digest")

        code, out, err = skillgate(binary, "conformance", base, "--format", "json")
        report = parse_json(out) or {}
        failed = sorted({c["id"] for c in report.get("checks", []) if c.get("verdict") == "fail"})
        print(f"[skillgate conformance] exit {code}, failed: {failed}")
        check(code in (0, 1) and report.get("checks"), "skillgate conformance ran against the SDK server")
        for must_pass in ("SI-EXT-001", "SI-DESC-001", "SI-DESC-002", "SI-DESC-003", "SI-MISMATCH-001",
                          "SI-MISMATCH-002", "SI-DESC-004", "SI-ECHO-001"):
            check(must_pass not in failed, f"conformance {must_pass} passes on the hand-written server")
    finally:
        stop(server)
        stop_grpc()
    finish("sdk_server_extension")


if __name__ == "__main__":
    if len(sys.argv) != 6:
        raise SystemExit("usage: sdk_server_extension.py PATH/TO/skillgate DOCUMENT INPUT OUTPUT RECORD")
    main(*sys.argv[1:])
