"""The serving gate: the runtime's decisions, in the profile's order."""

from __future__ import annotations

import json

import pytest

import skillgate
from agents import APPENDIX_B, APPENDIX_B_INPUT, slow_document


@pytest.fixture(scope="module")
def gate():
    return skillgate.Gate([APPENDIX_B, slow_document()])


def request(gate, skill="evaluate_resource_condition", **over):
    doc = gate.document(skill)
    r = {
        "skill": skill,
        "skill_version": doc.skill_version,
        "interface_digest": doc.digest,
        "arguments": APPENDIX_B_INPUT,
    }
    r.update(over)
    return r


def test_card_members(gate):
    ext = gate.extension
    assert ext["uri"] == skillgate.EXTENSION_URI
    skills = {s["skill_id"]: s for s in ext["params"]["skills"]}
    assert skills["evaluate_resource_condition"]["interface_digest"] == skillgate.digest(APPENDIX_B)
    assert set(skills) == {"evaluate_resource_condition", "slow_probe"}
    assert gate.describe_skill_card_skill["id"] == "describe_skill"
    assert gate.skill_ids == ["evaluate_resource_condition", "slow_probe"]


def test_describe_skill(gate):
    d = gate.decide({"skill": "describe_skill", "arguments": {"skill_id": "evaluate_resource_condition"}})
    assert isinstance(d, skillgate.Described)
    assert d.name == "describe_skill"
    assert d.data["interface_digest"] == skillgate.digest(APPENDIX_B)
    assert skillgate.digest(d.data["skill_interface"]) == d.data["interface_digest"]
    missing = gate.decide({"skill": "describe_skill", "arguments": {"skill_id": "nope"}})
    assert isinstance(missing, skillgate.Refused) and missing.code == "interface_unavailable"
    bad = gate.decide({"skill": "describe_skill", "arguments": {}})
    assert isinstance(bad, skillgate.Refused) and bad.code == "input_invalid"


def test_admission_in_the_profiles_order(gate):
    ok = gate.decide(request(gate))
    assert isinstance(ok, skillgate.Admitted)
    assert ok.arguments == APPENDIX_B_INPUT
    # Integral floats (a protobuf peer's numbers) are normalised for the handler.
    floats = json.loads(json.dumps(APPENDIX_B_INPUT))
    floats["condition"]["threshold"] = 80.0
    assert gate.decide(request(gate, arguments=floats)).arguments["condition"]["threshold"] == 80

    # A wrong digest AND bad input: interface_mismatch comes first.
    r = gate.decide(request(gate, interface_digest="sha256:" + "1" * 64, arguments={"x": 1}))
    assert isinstance(r, skillgate.Refused)
    assert (r.code, r.state, r.phase) == ("interface_mismatch", "rejected", "admission")
    # Too large AND invalid: resource_limit_exceeded before input_invalid.
    big = {"seconds": 1, "pad": "x" * 2000}
    r = gate.decide(request(gate, "slow_probe", arguments=big))
    assert (r.code, r.state) == ("resource_limit_exceeded", "rejected")
    r = gate.decide(request(gate, arguments={"resource_id": 7}))
    assert (r.code, r.state) == ("input_invalid", "rejected")
    assert r.error["details"] and r.error["code"] == "input_invalid"
    exc = r.exception()
    assert isinstance(exc, skillgate.InputInvalid) and exc.details == r.error["details"]
    r = gate.decide({"skill": "nope", "arguments": {}})
    assert (r.code, r.state) == ("interface_unavailable", "failed")
    # Not a governed request at all: the agent decides.
    assert gate.decide({"text": "hello"}) is None
    assert gate.decide([1, 2]) is None


def test_output_check(gate):
    record = json.loads(
        (__import__("agents").EXAMPLES / "evaluate_resource_condition.record.json").read_text()
    )
    output = json.loads((__import__("agents").EXAMPLES / "evaluate_resource_condition.output.json").read_text())
    assert gate.check_output("evaluate_resource_condition", output, [("resource-observation", "observation-7", record)]) is None
    assert gate.check_output(
        "evaluate_resource_condition", output, [{"kind": "resource-observation", "artifact_id": "o7", "data": record}]
    ) is None
    r = gate.check_output("evaluate_resource_condition", {"result": 7})
    assert (r.code, r.state, r.phase) == ("output_invalid", "failed", "processing")
    r = gate.check_output("evaluate_resource_condition", output, [("undeclared", "a1", {})])
    assert r.code == "output_invalid"
    r = gate.check_output("evaluate_resource_condition", output, [("resource-observation", "result", record)])
    assert r.code == "output_invalid"  # the reserved artifact id
    with pytest.raises(skillgate.InterfaceUnavailable):
        gate.check_output("nope", {})


def test_execute_mode_needs_approval():
    doc = json.loads(json.dumps(APPENDIX_B))
    doc["authority"]["default_mode"] = "execute"
    for approve, code in [(None, "authorization_failed"), (True, None), (["evaluate_resource_condition"], None), (["other"], "authorization_failed")]:
        g = skillgate.Gate([doc], approve_execute=approve)
        d = g.decide(request(g))
        assert (d.code if isinstance(d, skillgate.Refused) else None) == code, approve


def test_a_bad_document_is_refused_with_every_finding():
    bad = json.loads(json.dumps(APPENDIX_B))
    bad["output_schema"]["digest"] = "sha256:" + "0" * 64
    with pytest.raises(skillgate.InterfaceInvalid) as e:
        skillgate.Gate([bad])
    assert e.value.findings[0]["path"] == "/output_schema/digest"


def test_protobuf_values_decide_and_check_like_dicts(gate):
    """The a2a-sdk 1.x path: Data Parts as serialized google.protobuf.Value bytes."""
    struct_pb2 = pytest.importorskip("google.protobuf.struct_pb2")
    json_format = pytest.importorskip("google.protobuf.json_format")

    def pb(value):
        v = struct_pb2.Value()
        json_format.ParseDict(value, v)
        return v.SerializeToString()

    for r in (request(gate), request(gate, arguments={"resource_id": 7}), {"skill": "nope"}, {"text": 1}):
        by_dict, by_pb = gate.decide(r), gate.decide_protobuf(pb(r))
        assert type(by_dict) is type(by_pb), r
        if isinstance(by_dict, skillgate.Refused):
            assert (by_dict.code, by_dict.state) == (by_pb.code, by_pb.state)
    # Protobuf numbers are doubles; the admitted arguments are normalised like a dict's.
    admitted = gate.decide_protobuf(pb(request(gate)))
    assert admitted.arguments["condition"]["threshold"] == 80
    output = json.loads((__import__("agents").EXAMPLES / "evaluate_resource_condition.output.json").read_text())
    record = json.loads((__import__("agents").EXAMPLES / "evaluate_resource_condition.record.json").read_text())
    assert gate.check_output_protobuf(
        "evaluate_resource_condition", pb(output), [("resource-observation", "observation-7", pb(record))]
    ) is None
    assert gate.check_output_protobuf("evaluate_resource_condition", pb({"result": 7})).code == "output_invalid"
    with pytest.raises(skillgate.JsonInvalid):
        gate.decide_protobuf(b"\xff\xff\xff")
