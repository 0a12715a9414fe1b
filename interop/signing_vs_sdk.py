#!/usr/bin/env python3
"""Signed Agent Cards with a2a-sdk 1.3.0 (`a2a.utils.signing`, PyJWT), both ways, for every
algorithm both support (ES256, ES384, RS256, PS256, EdDSA):
  - the card `skillgate serve --signing-key` serves is accepted by the SDK's verifier;
  - a card the SDK's signer produced is accepted by `skillgate card verify`;
  - a card the SDK signed and we changed afterwards is refused by both.
Keys: the test keys of crates/skillgate-sign/tests/data (jwks.json holds their public halves).
Usage: signing_vs_sdk.py PATH/TO/skillgate
"""

import json
import os
import subprocess
import sys
import tempfile

import httpx
from google.protobuf import json_format
from jwt import PyJWK
from a2a.types.a2a_pb2 import AgentCard
from a2a.utils.signing import create_agent_card_signer, create_signature_verifier

from interop_common import check, finish, skillgate

DATA = os.path.join(os.path.dirname(__file__), "..", "crates", "skillgate-sign", "tests", "data")
ALGS = [("es256", "ES256"), ("es384", "ES384"), ("rs256", "RS256"), ("rs256", "PS256"), ("eddsa", "EdDSA")]


def jwks():
    with open(os.path.join(DATA, "jwks.json")) as f:
        return {k["kid"]: k for k in json.load(f)["keys"]}


def sdk_verifier(kid_alg):
    keys = jwks()

    def provider(kid, _jku):
        return PyJWK(keys[kid], algorithm=kid_alg)

    return create_signature_verifier(provider, [kid_alg])


def serve(binary, kid, alg):
    proc = subprocess.Popen(
        [binary, "serve", "--listen", "127.0.0.1:0", "--store", "memory",
         "--signing-key", os.path.join(DATA, f"{kid}.pem"), "--kid", kid, "--signing-alg", alg],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline().strip()
    if not line.startswith("listening on "):
        proc.kill()
        raise SystemExit(f"skillgate serve did not start: {line!r} {proc.stderr.read()}")
    return proc, line[len("listening on "):]


def main(binary):
    d = tempfile.mkdtemp()
    for kid, alg in ALGS:
        # Ours -> the SDK's verifier.
        proc, url = serve(binary, kid, alg)
        try:
            raw = httpx.get(f"{url}/.well-known/agent-card.json").json()
        finally:
            proc.terminate()
            proc.wait(10)
        card = AgentCard()
        json_format.ParseDict(raw, card, ignore_unknown_fields=True)
        try:
            sdk_verifier(alg)(card)
            ok, why = True, ""
        except Exception as e:  # the verifier raises on failure
            ok, why = False, repr(e)
        check(ok, f"{alg}: the a2a-sdk verifier accepts the card skillgate serve signed {why}")

        # The SDK's signer -> ours.
        unsigned = dict(raw)
        unsigned.pop("signatures", None)
        card = AgentCard()
        json_format.ParseDict(unsigned, card, ignore_unknown_fields=True)
        with open(os.path.join(DATA, f"{kid}.pem"), "rb") as f:
            pem = f.read()
        signer = create_agent_card_signer(pem, {"alg": alg, "kid": kid, "typ": "JOSE"})
        signed = json_format.MessageToDict(signer(card))
        path = os.path.join(d, f"sdk-{alg}.json")
        with open(path, "w") as f:
            json.dump(signed, f)
        code, out, err = skillgate(binary, "card", "verify", path, "--jwks", os.path.join(DATA, "jwks.json"))
        check(code == 0 and f"({alg})" in out, f"{alg}: skillgate card verify accepts the SDK-signed card ({out.strip() or err.strip()})")

        # Changed after signing: both refuse.
        signed["name"] = signed["name"] + " (changed)"
        with open(path, "w") as f:
            json.dump(signed, f)
        code, out, _ = skillgate(binary, "card", "verify", path, "--jwks", os.path.join(DATA, "jwks.json"))
        check(code == 1, f"{alg}: skillgate card verify refuses the changed card (exit {code})")
        card = AgentCard()
        json_format.ParseDict(signed, card, ignore_unknown_fields=True)
        try:
            sdk_verifier(alg)(card)
            refused = False
        except Exception:
            refused = True
        check(refused, f"{alg}: the a2a-sdk verifier refuses the changed card")
    finish("signing_vs_sdk")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: signing_vs_sdk.py PATH/TO/skillgate")
    main(sys.argv[1])
