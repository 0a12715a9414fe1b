#!/usr/bin/env python3
"""Signed Agent Cards for A2A 0.3 readers: the official a2a-sdk 0.3.26 verifier
(`a2a.utils.signing`, PyJWT) against the 0.3 card `skillgate serve --signing-key` serves to a
client that sends no A2A-Version, for every algorithm both support:
  - the SDK's 0.3 model reads the card and its verifier accepts it;
  - the card carries two signatures (the 1.0 card's, then the 0.3 view's);
  - a card changed after signing (its url, a skill's name, an extension parameter) is refused;
  - the same card fetched over gRPC (`a2a.v1.A2AService/GetAgentCard`, read by the SDK's own
    proto converter, as its gRPC client reads it) verifies too;
  - `skillgate card sign` on the unsigned 0.3 card file: `--view 0.3` and the default (both
    views) verify with the SDK, `--view 1.0` alone does not, and `skillgate card verify`
    names the 0.3 view.
Keys: the test keys of crates/skillgate-sign/tests/data (jwks.json holds their public halves).
Usage: v03_signing_vs_sdk.py PATH/TO/skillgate
"""

import asyncio
import copy
import json
import os
import subprocess
import sys
import tempfile

import grpc
import httpx
from jwt import PyJWK
from a2a.grpc import a2a_pb2, a2a_pb2_grpc
from a2a.types import AgentCard
from a2a.utils import proto_utils
from a2a.utils.signing import create_signature_verifier

DATA = os.path.join(os.path.dirname(__file__), "..", "crates", "skillgate-sign", "tests", "data")
ALGS = [("es256", "ES256"), ("es384", "ES384"), ("rs256", "RS256"), ("rs256", "PS256"), ("eddsa", "EdDSA")]

from checks import check, finish


def verifier(alg):
    with open(os.path.join(DATA, "jwks.json")) as f:
        keys = {k["kid"]: k for k in json.load(f)["keys"]}
    return create_signature_verifier(lambda kid, _jku: PyJWK(keys[kid], algorithm=alg), [alg])


def verifies(alg, raw):
    return verifies_card(alg, AgentCard.model_validate(raw))


def verifies_card(alg, card):
    try:
        verifier(alg)(card)
        return True, ""
    except Exception as e:  # the verifier raises on failure
        return False, repr(e)


async def grpc_card(url):
    """The card as the SDK's gRPC client reads it: GetAgentCard, then its proto converter."""
    async with grpc.aio.insecure_channel(url.removeprefix("http://")) as ch:
        pb = await a2a_pb2_grpc.A2AServiceStub(ch).GetAgentCard(a2a_pb2.GetAgentCardRequest())
    return proto_utils.FromProto.agent_card(pb)


def serve(binary, kid=None, alg=None):
    args = [binary, "serve", "--listen", "127.0.0.1:0", "--grpc-listen", "127.0.0.1:0",
            "--store", "memory"]
    if kid:
        args += ["--signing-key", os.path.join(DATA, f"{kid}.pem"), "--kid", kid,
                 "--signing-alg", alg]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline().strip()
    if not line.startswith("listening on "):
        proc.kill()
        raise SystemExit(f"skillgate serve did not start: {line!r} {proc.stderr.read()}")
    return proc, line[len("listening on "):]


def main(binary):
    for kid, alg in ALGS:
        proc, url = serve(binary, kid, alg)
        try:
            raw = httpx.get(f"{url}/.well-known/agent-card.json").json()
            grpc_url = next(i["url"] for i in raw["additionalInterfaces"] if i["transport"] == "GRPC")
            over_grpc = asyncio.run(grpc_card(grpc_url))
        finally:
            proc.terminate()
            proc.wait(10)
        check(len(raw.get("signatures", [])) == 2, f"{alg}: the 0.3 card carries the 1.0 and the 0.3 signature")
        ok, why = verifies(alg, raw)
        check(ok, f"{alg}: the a2a-sdk 0.3 verifier accepts the card skillgate serve signed {why}")
        ok, why = verifies_card(alg, over_grpc)
        check(ok, f"{alg}: ...and the same card fetched over 0.3 gRPC (GetAgentCard) {why}")
        only_v1 = dict(raw, signatures=raw.get("signatures", [])[:1])
        ok, _ = verifies(alg, only_v1)
        check(not ok, f"{alg}: the 1.0 signature alone does not verify for a 0.3 reader (why the second exists)")
        for what, change in [
            ("url", lambda c: c.__setitem__("url", "http://127.0.0.1:9/")),
            ("a skill's name", lambda c: c["skills"][0].__setitem__("name", "other")),
            ("an extension parameter", lambda c: c["capabilities"]["extensions"][0]["params"]
             .__setitem__("interface_version", "9.9")),
        ]:
            changed = copy.deepcopy(raw)
            change(changed)
            ok, _ = verifies(alg, changed)
            check(not ok, f"{alg}: the a2a-sdk 0.3 verifier refuses the card with {what} changed")
    card_sign(binary)
    finish("v03_signing_vs_sdk")


def card_sign(binary):
    """`skillgate card sign` on the unsigned 0.3 card `serve` answers a header-less reader."""
    proc, url = serve(binary)
    try:
        unsigned = httpx.get(f"{url}/.well-known/agent-card.json").text
    finally:
        proc.terminate()
        proc.wait(10)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "card.json")
        with open(path, "w") as f:
            f.write(unsigned)
        for view, want in [(None, True), ("0.3", True), ("both", True), ("1.0", False)]:
            args = [binary, "card", "sign", path, "--key", os.path.join(DATA, "es256.pem"),
                    "--kid", "es256"] + (["--view", view] if view else [])
            out = subprocess.run(args, capture_output=True, text=True)
            check(out.returncode == 0, f"card sign --view {view}: exit {out.returncode} {out.stderr}")
            signed = json.loads(out.stdout)
            ok, why = verifies("ES256", signed)
            check(ok == want, f"card sign --view {view}: a2a-sdk 0.3 verifies it: {ok} (want {want}) {why}")
            if view == "0.3":
                with open(os.path.join(d, "signed.json"), "w") as f:
                    json.dump(signed, f)
                v = subprocess.run([binary, "card", "verify", os.path.join(d, "signed.json"),
                                    "--jwks", os.path.join(DATA, "jwks.json"), "--format", "json"],
                                   capture_output=True, text=True)
                views = [s["view"] for s in json.loads(v.stdout).get("signatures", [])]
                check(views == ["0.3"], f"card verify names the 0.3 view: {v.stdout}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: v03_signing_vs_sdk.py PATH/TO/skillgate")
    main(sys.argv[1])
