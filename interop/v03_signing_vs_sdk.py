#!/usr/bin/env python3
"""Signed Agent Cards for A2A 0.3 readers: the official a2a-sdk 0.3.26 verifier
(`a2a.utils.signing`, PyJWT) against the 0.3 card `skillgate serve --signing-key` serves to a
client that sends no A2A-Version, for every algorithm both support:
  - the SDK's 0.3 model reads the card and its verifier accepts it;
  - the card carries two signatures (the 1.0 card's, then the 0.3 view's);
  - a card changed after signing (its url, a skill's name, an extension parameter) is refused.
Keys: the test keys of crates/skillgate-sign/tests/data (jwks.json holds their public halves).
Usage: v03_signing_vs_sdk.py PATH/TO/skillgate
"""

import copy
import json
import os
import subprocess
import sys

import httpx
from jwt import PyJWK
from a2a.types import AgentCard
from a2a.utils.signing import create_signature_verifier

DATA = os.path.join(os.path.dirname(__file__), "..", "crates", "skillgate-sign", "tests", "data")
ALGS = [("es256", "ES256"), ("es384", "ES384"), ("rs256", "RS256"), ("rs256", "PS256"), ("eddsa", "EdDSA")]

from checks import check, finish


def verifier(alg):
    with open(os.path.join(DATA, "jwks.json")) as f:
        keys = {k["kid"]: k for k in json.load(f)["keys"]}
    return create_signature_verifier(lambda kid, _jku: PyJWK(keys[kid], algorithm=alg), [alg])


def verifies(alg, raw):
    try:
        verifier(alg)(AgentCard.model_validate(raw))
        return True, ""
    except Exception as e:  # the verifier raises on failure
        return False, repr(e)


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
    for kid, alg in ALGS:
        proc, url = serve(binary, kid, alg)
        try:
            raw = httpx.get(f"{url}/.well-known/agent-card.json").json()
        finally:
            proc.terminate()
            proc.wait(10)
        check(len(raw.get("signatures", [])) == 2, f"{alg}: the 0.3 card carries the 1.0 and the 0.3 signature")
        ok, why = verifies(alg, raw)
        check(ok, f"{alg}: the a2a-sdk 0.3 verifier accepts the card skillgate serve signed {why}")
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
    finish("v03_signing_vs_sdk")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: v03_signing_vs_sdk.py PATH/TO/skillgate")
    main(sys.argv[1])
