"""Fixtures: the `skillgate` binary, a real `skillgate serve` on a loopback port, and a real
a2a-sdk agent governed by skillgate.a2a."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def skillgate_bin() -> str:
    """The CLI built from this repository ($SKILLGATE_BIN, else target/debug/skillgate)."""
    path = os.environ.get("SKILLGATE_BIN") or str(REPO / "target" / "debug" / "skillgate")
    if not os.access(path, os.X_OK):
        pytest.fail(f"{path} is not built: run `cargo build -p skillgate-cli` (scripts/test-python does)")
    return path


def run(binary: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """Runs the CLI; returns the completed process (text mode)."""
    return subprocess.run([binary, *args], capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="session")
def serve(skillgate_bin):
    """`skillgate serve` (the netops agent, memory store) on 127.0.0.1:<free port>; its URL."""
    proc = subprocess.Popen(
        [skillgate_bin, "serve", "--listen", "127.0.0.1:0", "--store", "memory"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    line = (proc.stdout.readline() if proc.stdout else "").strip()
    prefix = "listening on "
    if not line.startswith(prefix):
        proc.kill()
        pytest.fail(f"skillgate serve did not start: {line!r}")
    yield line[len(prefix):]
    proc.terminate()
    proc.wait(timeout=15)


@pytest.fixture(scope="session")
def governed():
    """A governed a2a-sdk agent of the installed line (see agents.py)."""
    from agents import GovernedAgent

    agent = GovernedAgent()
    yield agent
    agent.stop()
