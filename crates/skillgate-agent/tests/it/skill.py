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
    # The scenario, not synchronisation: runs until the time limit or a cancel kills it.
    time.sleep(60)
elif mode == "wait":
    # Holds a concurrency slot until the test creates release-N.
    with open("started-%d" % n, "w") as f:
        f.write("started\n")
    deadline = time.time() + 20
    while not os.path.exists("release-%d" % n) and time.time() < deadline:
        time.sleep(0.02)
    reply({"output": {"n": n}})
elif mode in ("escape", "daemon"):
    # Double fork with setsid: the grandchild leaves the process group and session and is
    # orphaned at once. "escape" detaches it from the pipes; "daemon" leaves stdout open.
    first = os.fork()
    if first == 0:
        os.setsid()
        if os.fork() == 0:
            if mode == "escape":
                null = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(null, fd)
            with open("escaped-%d.tmp" % n, "w") as f:
                f.write("%d\n" % os.getpid())
            os.rename("escaped-%d.tmp" % n, "escaped-%d" % n)
            # The scenario: it would live this long unless containment kills it.
            time.sleep(300)
        os._exit(0)
    os.waitpid(first, 0)
    deadline = time.time() + 10
    while not os.path.exists("escaped-%d" % n) and time.time() < deadline:
        time.sleep(0.01)
    reply({"output": {"n": n}})
elif mode == "fds":
    fds = sorted(int(fd) for fd in os.listdir("/proc/self/fd"))
    reply({"output": {"n": len(fds)}, "records": [{"kind": "note", "data": {"text": ",".join(map(str, fds))}}]})
else:
    reply({"error": {"code": "execution_failed", "message": "unknown mode"}}, 1)
