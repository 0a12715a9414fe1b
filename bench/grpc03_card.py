#!/usr/bin/env python3
"""Server CPU per A2A 0.3 gRPC `GetAgentCard` (design.md D303).

Starts `skillgate serve --grpc-listen` (the binary is argv[1]), finds the gRPC address in the
1.0 card, makes 200 warm-up calls and then N (argv[2]) sequential `a2a.v1.A2AService/
GetAgentCard` calls with a2a-sdk 0.3's generated stub, and prints the server process's CPU time
per call (utime + stime from /proc/PID/stat) and the client's wall time per call.
Run with the v03 interop venv: target/interop-venv-v03/bin/python bench/grpc03_card.py BIN N
"""

import asyncio
import os
import subprocess
import sys
import time

import grpc
import httpx
from a2a.grpc import a2a_pb2, a2a_pb2_grpc


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def measure(pid, url, n):
    card = httpx.get(f"{url}/.well-known/agent-card.json", headers={"A2A-Version": "1.0"}).json()
    grpc_url = next(i["url"] for i in card["supportedInterfaces"] if i["protocolBinding"] == "GRPC")
    async with grpc.aio.insecure_channel(grpc_url.removeprefix("http://")) as channel:
        stub = a2a_pb2_grpc.A2AServiceStub(channel)
        for _ in range(200):
            await stub.GetAgentCard(a2a_pb2.GetAgentCardRequest())
        c0, t0 = cpu_seconds(pid), time.perf_counter()
        for _ in range(n):
            await stub.GetAgentCard(a2a_pb2.GetAgentCardRequest())
        c1, t1 = cpu_seconds(pid), time.perf_counter()
    return 1e6 * (c1 - c0) / n, 1e6 * (t1 - t0) / n


def main(binary, n):
    proc = subprocess.Popen(
        [binary, "serve", "--listen", "127.0.0.1:0", "--grpc-listen", "127.0.0.1:0",
         "--store", "memory"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = proc.stdout.readline().strip()
        if not line.startswith("listening on "):
            raise SystemExit(f"skillgate serve did not start: {line!r}")
        server_us, wall_us = asyncio.run(measure(proc.pid, line[len("listening on "):], n))
        print(f"{binary}: {n} calls, server CPU {server_us:.0f} us/call, client wall {wall_us:.0f} us/call")
    finally:
        proc.terminate()
        proc.wait(10)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: grpc03_card.py PATH/TO/skillgate N")
    main(sys.argv[1], int(sys.argv[2]))
