"""The Python clients against a real `skillgate serve` (the netops agent)."""

from __future__ import annotations

import asyncio
import json

import pytest

import skillgate
from conftest import REPO

COUNTERS = "collect_interface_counters"


def test_blocking_describe_and_call(serve):
    client = skillgate.BlockingClient()
    d = client.describe(serve, COUNTERS)
    assert d.skill_id == COUNTERS and d.interface_digest.startswith("sha256:")
    assert d.source == "describe_skill"
    assert isinstance(d.document, skillgate.InterfaceDocument)
    # The second describe is answered from the cache bound to the card.
    assert client.describe(serve, COUNTERS).source == "cache"
    r = client.call(serve, COUNTERS, {"interface": "lo", "window_ms": 100})
    assert r.state == "TASK_STATE_COMPLETED"
    assert r.output["interface"] == "lo"
    assert r.interface_digest == d.interface_digest
    assert r.task_id


def test_async_call_stream_and_block(serve):
    async def main():
        client = skillgate.Client(timeout=10)
        streamed = await client.call(serve, COUNTERS, {"interface": "lo", "window_ms": 100}, stream=True)
        blocked = await client.call(serve, COUNTERS, {"interface": "lo", "window_ms": 100}, stream=False)
        both = await asyncio.gather(*[client.describe(serve, COUNTERS) for _ in range(4)])
        return streamed, blocked, both

    streamed, blocked, both = asyncio.run(main())
    assert streamed.output["interface"] == blocked.output["interface"] == "lo"
    assert streamed.task_id != blocked.task_id
    assert len({d.interface_digest for d in both}) == 1


def test_local_refusal_sends_nothing(serve):
    client = skillgate.BlockingClient()
    with pytest.raises(skillgate.InputInvalid) as e:
        client.call(serve, COUNTERS, {"interface": 7})
    err = e.value
    assert (err.code, err.where, err.step, err.step_name) == ("input_invalid", "local", 7, "validate_input")
    assert err.task_id is None  # no task: nothing was delegated
    assert err.details[0]["instance_path"] == "/interface"


def test_remote_refusal_and_unknown_skill(serve):
    client = skillgate.BlockingClient()
    with pytest.raises(skillgate.SkillNotAdvertised) as e:
        client.call(serve, "no_such_skill", {})
    assert e.value.where == "local" and e.value.step == 2
    # Passes the input schema, refused by the agent's domain rule: a remote failure.
    with pytest.raises(skillgate.SkillgateError) as e:
        client.call(serve, COUNTERS, {"interface": "no-such-if0"})
    assert e.value.where == "remote" and e.value.task_id and e.value.state


def test_transport_and_usage_errors():
    client = skillgate.BlockingClient(timeout=2)
    with pytest.raises(skillgate.TransportError) as e:
        client.describe("http://127.0.0.1:9", COUNTERS)
    assert e.value.where == "local" and e.value.step == 1
    with pytest.raises(skillgate.UsageError):
        client.describe("not a url", COUNTERS)
    with pytest.raises(skillgate.UsageError):
        skillgate.Client(timeout=0)
    with pytest.raises(skillgate.UsageError):
        skillgate.Client(binding="carrier-pigeon")
    with pytest.raises(skillgate.UsageError):
        skillgate.Client(headers={"Host": "x"})
    # A secret header value never appears in an error.
    with pytest.raises(skillgate.UsageError) as e:
        skillgate.Client(headers=["X-Key: secret\nvalue"])
    assert "secret" not in str(e.value)


def test_chain(serve):
    plan = json.loads((REPO / "examples" / "chains" / "interface_health.json").read_text())
    for step in plan["steps"]:
        step["agent"] = serve
    report = skillgate.BlockingClient().chain(plan)
    assert report["ok"] is True
    assert [s["name"] for s in report["steps"]] == ["collect", "assess"]
    assert report["correlations"]
    # A broken link is refused before anything is delegated.
    plan["steps"][1]["skill"] = "evaluate_resource_condition"
    with pytest.raises(skillgate.SkillgateError) as e:
        asyncio.run(skillgate.Client().chain(plan))
    assert e.value.report["ok"] is False


# RFC 7515 Appendix A.3's public P-256 key: no card here is signed by it.
RFC7515_JWKS = {"keys": [{"kty": "EC", "crv": "P-256", "kid": "rfc7515-a3",
                          "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
                          "y": "x_FEzRjJ7UrGa6w-BOa-TmcB6t6qR7_jy97Gd9nZkT4"}]}


def test_trust_jwks_refuses_an_unsigned_card(serve, tmp_path):
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps(RFC7515_JWKS))
    for jwks in (RFC7515_JWKS, str(path), path, json.dumps(RFC7515_JWKS).encode()):
        with pytest.raises(skillgate.SkillgateError) as e:
            skillgate.BlockingClient(trust_jwks=jwks).describe(serve, COUNTERS)
        assert e.value.step == 1, (jwks, e.value)
    with pytest.raises(skillgate.UsageError):
        skillgate.BlockingClient(trust_jwks=str(tmp_path / "missing.json"))
    with pytest.raises(skillgate.UsageError):
        skillgate.BlockingClient(trust_jwks={"keys": "nope"})
