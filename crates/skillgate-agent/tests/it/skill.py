"""Test exec skill: the `mode` argument picks the behaviour. Every run appends a line to
runs.log in its working directory, so a test can count the processes that were started."""
import json
import os
import signal
import subprocess
import sys
import time

with open("runs.log", "a") as log:
    log.write("run\n")

args = json.load(sys.stdin)
mode = args["mode"]
n = args.get("n", 1)


def reply(obj, code=0):
    print(json.dumps(obj))
    sys.exit(code)


if mode == "ok":
    reply({"output": {"n": n}, "records": [{"kind": "note", "data": {"text": "noted"}}]})
elif mode == "env":
    keys = ",".join(sorted(os.environ))
    reply({"output": {"n": len(os.environ)}, "records": [{"kind": "note", "data": {"text": keys}}]})
elif mode == "refuse":
    reply({"error": {"code": "constraint_rejected", "message": "n is too large for this skill"}}, 1)
elif mode == "crash":
    sys.stderr.write("SECRET-STDERR-MARKER\n")
    raise RuntimeError("boom")
elif mode == "garbage":
    print("this is not json")
elif mode == "badcode":
    reply({"error": {"code": "input_invalid", "message": "not mine to say"}}, 1)
elif mode == "badoutput":
    reply({"output": {"n": "not an integer"}})
elif mode == "badrecord":
    reply({"output": {"n": 1}, "records": [{"kind": "undeclared", "data": {}}]})
elif mode == "big":
    sys.stdout.write("x" * (2 * 1024 * 1024))
    sys.stdout.flush()
elif mode == "chatty":
    # 4 MiB on stderr before answering: must neither deadlock nor fail the call.
    for _ in range(64):
        sys.stderr.write("e" * 65536)
    reply({"output": {"n": n}})
elif mode in ("sleep", "stubborn"):
    # The grandchild first, so it keeps the default SIGTERM action (SIG_IGN is inherited).
    child = subprocess.Popen(["sleep", "60"])
    if mode == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    with open("pids-%d" % n, "w") as f:
        f.write("%d %d\n" % (os.getpid(), child.pid))
    time.sleep(60)
elif mode == "wait":
    # Holds a concurrency slot until the test creates release-N.
    with open("started-%d" % n, "w") as f:
        f.write("started\n")
    deadline = time.time() + 20
    while not os.path.exists("release-%d" % n) and time.time() < deadline:
        time.sleep(0.02)
    reply({"output": {"n": n}})
else:
    reply({"error": {"code": "execution_failed", "message": "unknown mode"}}, 1)
