"""Core functions against published vectors and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import skillgate
from conftest import REPO, run

JCS = REPO / "crates" / "skillgate-core" / "tests" / "vectors" / "jcs"
EXAMPLES = REPO / "examples" / "interfaces"
DOC = json.loads((EXAMPLES / "evaluate_resource_condition.json").read_text())

# RFC 8785 Appendix B: IEEE 754 doubles (hex) and their canonical JSON numbers.
APPENDIX_B = [
    ("0000000000000000", "0"),
    ("8000000000000000", "0"),
    ("0000000000000001", "5e-324"),
    ("8000000000000001", "-5e-324"),
    ("7fefffffffffffff", "1.7976931348623157e+308"),
    ("ffefffffffffffff", "-1.7976931348623157e+308"),
    ("4340000000000000", "9007199254740992"),
    ("c340000000000000", "-9007199254740992"),
    ("4430000000000000", "295147905179352830000"),
    ("44b52d02c7e14af5", "9.999999999999997e+22"),
    ("44b52d02c7e14af6", "1e+23"),
    ("44b52d02c7e14af7", "1.0000000000000001e+23"),
    ("444b1ae4d6e2ef4e", "999999999999999700000"),
    ("444b1ae4d6e2ef4f", "999999999999999900000"),
    ("444b1ae4d6e2ef50", "1e+21"),
    ("3eb0c6f7a0b5ed8c", "9.999999999999997e-7"),
    ("3eb0c6f7a0b5ed8d", "0.000001"),
    ("41b3de4355555553", "333333333.3333332"),
    ("41b3de4355555554", "333333333.33333325"),
    ("41b3de4355555555", "333333333.3333333"),
    ("41b3de4355555556", "333333333.3333334"),
    ("41b3de4355555557", "333333333.33333343"),
    ("becbf647612f3696", "-0.0000033333333333333333"),
    ("43143ff3c1cb0959", "1424953923781206.2"),
]


def double(hexbits: str) -> float:
    import struct

    return struct.unpack(">d", bytes.fromhex(hexbits))[0]


@pytest.mark.parametrize("bits,want", APPENDIX_B)
def test_rfc8785_appendix_b_numbers(bits, want):
    assert skillgate.canonicalize([double(bits)]) == f"[{want}]".encode()


@pytest.mark.parametrize("bits", ["7fffffffffffffff", "7ff0000000000000"])
def test_nan_and_infinity_are_refused(bits):
    with pytest.raises(skillgate.JsonInvalid) as e:
        skillgate.canonicalize(double(bits))
    assert e.value.code == "number_out_of_range"


@pytest.mark.parametrize("name", sorted(p.name for p in (JCS / "input").iterdir()))
def test_reference_vectors_byte_exact(name):
    data = (JCS / "input" / name).read_bytes()
    want = (JCS / "output" / name).read_bytes()
    assert skillgate.canonicalize(data) == want
    assert skillgate.canonicalize(data.decode("utf-8")) == want
    # The same value handed over as Python objects canonicalizes the same.
    assert skillgate.canonicalize(json.loads(data)) == want


def test_strict_text_parsing():
    for text, code in [
        (b'{"a":1,"a":2}', "duplicate_member"),
        (b'"\\ud800"', "lone_surrogate"),
        (b"[1,]", "syntax"),
        (b"[1] x", "trailing_characters"),
        (b"[" * 200 + b"]" * 200, "too_deep"),
        (b"\xff", "invalid_utf8"),
    ]:
        with pytest.raises(skillgate.JsonInvalid) as e:
            skillgate.digest(text)
        assert e.value.code == code, text[:20]


def test_bytearray_is_json_text_and_a_list_of_ints_a_value():
    assert skillgate.canonicalize(bytearray(b'{"b":1,"a":2}')) == b'{"a":2,"b":1}'
    assert skillgate.canonicalize([1, 2]) == b"[1,2]"


def test_str_is_json_text():
    assert skillgate.canonicalize('{"b": 1, "a": "x"}') == b'{"a":"x","b":1}'
    assert skillgate.canonicalize('"text"') == b'"text"'
    with pytest.raises(skillgate.JsonInvalid):
        skillgate.digest("not json")


def test_python_values_are_bounded_and_exact():
    deep = []
    for _ in range(200):
        deep = [deep]
    with pytest.raises(skillgate.JsonInvalid) as e:
        skillgate.digest(deep)
    assert e.value.code == "too_deep"
    with pytest.raises(skillgate.JsonInvalid) as e:
        skillgate.digest({1: "a"})
    assert e.value.code == "non_string_key"
    with pytest.raises(skillgate.JsonInvalid):
        skillgate.digest(2**70)
    with pytest.raises(TypeError):
        skillgate.digest({"a": object()})
    # Tuples are arrays; bool is not int.
    assert skillgate.canonicalize((1, True, None)) == b"[1,true,null]"


# Names and strings the canonical order is sensitive to: ASCII, Latin-1, the BMP above U+E000
# (where UTF-8 and UTF-16 order disagree), and non-BMP characters (surrogate pairs in UTF-16).
_tricky = st.text(
    alphabet=st.sampled_from("aAbZ_é\u00ff\u0100\ud7ff\ue000\uff21\uffff\U00010000\U0001f600\U0010ffff\"\\\n\x01"),
    max_size=6,
)
_texts = _tricky | st.text(max_size=8)
_leaves = (
    st.none()
    | st.booleans()
    # The whole 64-bit range the value path takes, 2^53 and its neighbours among them.
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.sampled_from([2**53 - 1, 2**53, 2**53 + 1, -(2**53) - 1, 2**63, 2**64 - 1])
    | st.floats(allow_nan=False, allow_infinity=False)
    | _texts
)
nested_values = st.recursive(
    _leaves,
    lambda inner: st.lists(inner, max_size=6)
    | st.tuples(inner, inner)
    | st.dictionaries(_texts, inner, max_size=6),
    max_leaves=40,
)


@settings(max_examples=300, deadline=None)
@given(nested_values, st.booleans())
def test_python_value_and_json_text_paths_agree(value, ascii_only):
    # The value path walks the Python objects; the text path parses json.dumps of them. Both
    # must give the same bytes, whatever the order of the dicts' members. (A str argument is
    # itself JSON text, so a string value is wrapped.)
    if isinstance(value, str):
        value = [value]
    text = json.dumps(value, ensure_ascii=ascii_only).encode("utf-8")
    canonical = skillgate.canonicalize(text)
    assert skillgate.canonicalize(value) == canonical
    assert skillgate.digest(value) == skillgate.digest(text)


def test_python_value_faults_keep_their_codes():
    class Key(str):
        # Two keys with the same text stay two members of a dict.
        def __hash__(self):
            return id(self)

        def __eq__(self, other):
            return self is other

    cyclic: list = []
    cyclic.append(cyclic)
    cases = [
        ({1: "a"}, "non_string_key"),
        ({"a": [{"b": float("nan")}]}, "number_out_of_range"),
        ([float("-inf")], "number_out_of_range"),
        ({"a": 2**64}, "number_out_of_range"),
        ([-(2**63) - 1], "number_out_of_range"),
        (cyclic, "too_deep"),
        ({Key("k"): 1, Key("k"): 2}, "duplicate_member"),
    ]
    for value, code in cases:
        for fn in (skillgate.digest, skillgate.canonicalize):
            with pytest.raises(skillgate.JsonInvalid) as e:
                fn(value)
            assert e.value.code == code, (value, fn)
    for fn in (skillgate.digest, skillgate.canonicalize):
        with pytest.raises(TypeError):
            fn({"a": {1, 2}})
        # A lone surrogate has no UTF-8: Python's own error, as the text encoders raise it.
        with pytest.raises(UnicodeEncodeError):
            fn(["\ud800"])
    # The depth limit is the strict parser's: 128 levels pass, 129 do not, on both paths.
    deep: list = []
    for _ in range(127):
        deep = [deep]
    assert skillgate.canonicalize(deep) == skillgate.canonicalize(b"[" * 128 + b"]" * 128)
    with pytest.raises(skillgate.JsonInvalid) as e:
        skillgate.digest([deep])
    assert e.value.code == "too_deep"
    with pytest.raises(skillgate.JsonInvalid) as e:
        skillgate.digest(b"[" * 129 + b"]" * 129)
    assert e.value.code == "too_deep"


def test_str_subclass_keys_and_int_subclass_values_are_plain_json():
    import enum

    class Level(enum.IntEnum):
        HIGH = 3

    class Name(str):
        pass

    value = {Name("b"): Level.HIGH, "a": Name("x"), "\U0001f600": 1, "\ue000": 2}
    assert skillgate.canonicalize(value) == '{"a":"x","b":3,"\U0001f600":1,"\ue000":2}'.encode()


def test_document_digest_matches_the_cli(skillgate_bin):
    path = EXAMPLES / "evaluate_resource_condition.json"
    cli = run(skillgate_bin, "digest", str(path))
    assert cli.returncode == 0, cli.stderr
    assert skillgate.digest(path.read_bytes()) == cli.stdout.strip()
    assert skillgate.InterfaceDocument(DOC).digest == cli.stdout.strip()


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=20,
)


@settings(max_examples=40, deadline=None)
@given(json_values)
def test_python_and_cli_digests_agree(skillgate_bin, tmp_path_factory, value):
    path = tmp_path_factory.mktemp("d") / "v.json"
    path.write_text(json.dumps(value), encoding="utf-8")
    cli = run(skillgate_bin, "digest", str(path))
    assert cli.returncode == 0, cli.stderr
    # A str argument is JSON text (as bytes are): a string value goes in as its JSON text.
    as_given = json.dumps(value) if isinstance(value, str) else value
    assert skillgate.digest(as_given) == cli.stdout.strip()
    assert skillgate.digest(path.read_bytes()) == cli.stdout.strip()


def test_interface_document_checks_and_validates():
    doc = skillgate.InterfaceDocument(json.dumps(DOC))
    assert (doc.skill_id, doc.skill_version) == ("evaluate_resource_condition", "1.0")
    assert doc.record_kinds == ["resource-observation"]
    assert doc.canonical_bytes() == skillgate.canonicalize(DOC)
    assert skillgate.InterfaceDocument.check(DOC) == []
    doc.validate_input(json.loads((EXAMPLES / "evaluate_resource_condition.input.json").read_text()))
    doc.validate_output(json.loads((EXAMPLES / "evaluate_resource_condition.output.json").read_text()))
    doc.validate_record(
        "resource-observation", json.loads((EXAMPLES / "evaluate_resource_condition.record.json").read_text())
    )
    with pytest.raises(skillgate.InputInvalid) as e:
        doc.validate_input({"resource_id": 7, "condition": {}})
    err = e.value
    assert err.code == "input_invalid"
    paths = {d["instance_path"] for d in err.details}
    assert "/resource_id" in paths
    assert all("keyword" in d for d in err.details)
    # Details name types, never the offending value.
    assert "7" not in json.dumps([d.get("actual") for d in err.details])
    with pytest.raises(skillgate.OutputInvalid):
        doc.validate_output({"result": 7})
    with pytest.raises(skillgate.OutputInvalid):
        doc.validate_record("no-such-kind", {})


def test_exceptions_raised_by_the_extension_are_whole():
    """The extension builds its exceptions without running ``__init__`` (design.md D332): each
    must still read like one built in Python, every attribute present."""
    doc = skillgate.InterfaceDocument(json.dumps(DOC))
    bad = {"resource_id": 7, "condition": {"metric": "", "operator": "eq", "threshold": "x", "unit": 1}, "extra": 1}
    with pytest.raises(skillgate.InputInvalid) as e:
        doc.validate_input(bad)
    err = e.value
    assert isinstance(err, skillgate.SkillgateError) and isinstance(err, Exception)
    assert str(err) == err.message and err.message.startswith("arguments do not conform")
    assert err.args == (err.message,)
    assert (err.where, err.step, err.step_name, err.task_id, err.state) == (None,) * 5
    assert [d["keyword"] for d in err.details] == [
        "minLength", "enum", "type", "type", "type", "additionalProperties"]
    assert err.details[1] == {
        "instance_path": "/condition/operator",
        "schema_path": "/properties/condition/properties/operator/enum",
        "keyword": "enum",
        "expected": 'one of ["gt","gte","lt","lte"]',
        "actual": "string",
    }
    assert err.to_error_object() == {"code": "input_invalid", "message": err.message, "details": err.details}
    assert repr(err).startswith("InputInvalid(code='input_invalid'")
    # Instances do not share their details, and the class defaults stay untouched.
    with pytest.raises(skillgate.InputInvalid) as again:
        doc.validate_input(bad)
    assert again.value.details == err.details and again.value.details is not err.details
    # Each detail is a dict of its own, and changing one changes no later raise.
    assert len({id(d) for d in err.details + again.value.details}) == 12
    err.details[0]["keyword"] = "changed"
    del err.details[1]["expected"]
    with pytest.raises(skillgate.InputInvalid) as third:
        doc.validate_input(bad)
    assert third.value.details == again.value.details
    err.details.clear()
    assert again.value.details and skillgate.SkillgateError.where is None
    # A JSON refusal is a JsonInvalid (and a ValueError) with the kind as its code, no details.
    with pytest.raises(skillgate.JsonInvalid) as j:
        skillgate.canonicalize(b'{"a": 1, "a": 2}')
    assert isinstance(j.value, ValueError)
    assert (j.value.code, j.value.details) == ("duplicate_member", [])


def test_invalid_documents_list_every_finding():
    bad = json.loads(json.dumps(DOC))
    bad["input_schema"]["digest"] = "sha256:" + "0" * 64
    bad["skill_version"] = "01.0"
    findings = skillgate.InterfaceDocument.check(bad)
    assert {f["path"] for f in findings} >= {"/input_schema/digest", "/skill_version"}
    assert all(f["code"] == "interface_invalid" for f in findings)
    with pytest.raises(skillgate.InterfaceInvalid) as e:
        skillgate.InterfaceDocument(bad)
    assert len(e.value.findings) == len(findings)
    remote = json.loads(json.dumps(DOC))
    remote["input_schema"]["resolution"]["schema"]["properties"]["x"] = {"$ref": "https://example.com/s.json"}
    # Refused, never fetched.
    assert any(f["path"] == "/input_schema/resolution/schema/properties/x/$ref"
               for f in skillgate.InterfaceDocument.check(remote))


def test_compose_keeps_the_drafts_rule_and_reports_inclusion():
    same = skillgate.compose(DOC, DOC)
    # Appendix B's output is not its own input: different schema_uri.
    assert same["composable"] is False and same["field"] == "schema_uri"
    assert same["inclusion"]["inclusion"] in ("included", "not_included", "undecided")
    down = json.loads(json.dumps(DOC))
    down["input_schema"] = DOC["output_schema"]
    assert skillgate.compose(DOC, down)["composable"] is True
    assert skillgate.compose(DOC, down)["inclusion"]["inclusion"] == "included"


def test_lint_card(serve):
    import urllib.request

    req = urllib.request.Request(f"{serve}/.well-known/agent-card.json", headers={"A2A-Version": "1.0"})
    card = urllib.request.urlopen(req, timeout=10).read()
    report = skillgate.lint_card(card, profile="a2a-1.0")
    assert report["profile"] == "a2a-1.0"
    assert not [f for f in report["findings"] if f["severity"] == "error"]
    broken = json.loads(card)
    del broken["name"]
    errors = [f for f in skillgate.lint_card(broken)["findings"] if f["severity"] == "error"]
    assert any(f["path"] == "/name" for f in errors)
    with pytest.raises(skillgate.UsageError):
        skillgate.lint_card(card, profile="a2a-9")
