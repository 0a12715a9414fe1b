"""Shared pieces of the a2a-sdk server scenarios: an a2a-sdk (1.3.0) Starlette app served by
uvicorn on 127.0.0.1:0 in a background thread, a request log, and a runner for `skillgate`."""

import json
import socket
import subprocess
import threading
import time

import uvicorn
from google.protobuf import json_format
from starlette.applications import Starlette
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes, create_rest_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types.a2a_pb2 import AgentCard

EXT = "https://agentic-network-management.github.io/agent-schema-interfaces/extensions/schema-interface/v1"

from checks import CHECKS, FAILURES, check, finish  # noqa: F401 (re-exported)


class RequestLog:
    """ASGI middleware: records (method, path) of every HTTP request and, when `echo` is set,
    echoes the schema-interface extension in A2A-Extensions if the request activated it."""

    def __init__(self, app, echo=False):
        self.app = app
        self.echo = echo
        self.requests = []

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        self.requests.append((scope["method"], scope["path"]))
        headers = {k.decode().lower(): v.decode() for k, v in scope.get("headers", [])}
        activated = EXT in [u.strip() for u in headers.get("a2a-extensions", "").split(",")]

        async def send_with_echo(message):
            if message["type"] == "http.response.start" and self.echo and activated:
                message = dict(message)
                message["headers"] = list(message.get("headers", [])) + [
                    (b"a2a-extensions", EXT.encode())
                ]
            await send(message)

        return await self.app(scope, receive, send_with_echo)


def bind_loopback():
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock, f"http://127.0.0.1:{sock.getsockname()[1]}"


def serve(card_dict, executor, sock, echo=False, compat=False):
    """Starts the a2a-sdk app (card + JSON-RPC at /) on `sock`; returns (server, request log).
    With `compat`, the SDK's A2A 0.3 compatibility is on: 0.3 JSON-RPC methods at / and the 0.3
    HTTP+JSON routes (`/v1/...`) beside the 1.0 REST ones."""
    card = AgentCard()
    json_format.ParseDict(card_dict, card)
    handler = DefaultRequestHandler(
        agent_executor=executor, task_store=InMemoryTaskStore(), agent_card=card
    )
    routes = create_agent_card_routes(card) + create_jsonrpc_routes(
        handler, rpc_url="/", enable_v0_3_compat=compat)
    if compat:
        routes += create_rest_routes(handler, enable_v0_3_compat=True)
    log = RequestLog(Starlette(routes=routes), echo=echo)
    server = uvicorn.Server(uvicorn.Config(log, log_level="warning", lifespan="off"))
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline:
            raise SystemExit("the a2a-sdk server did not start")
        time.sleep(0.05)
    return server, log


def free_loopback_port():
    """A loopback port nobody listens on right now (for servers that bind by address)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve_grpc(card_dict, executor, port):
    """Starts the a2a-sdk gRPC server (its GrpcHandler over a DefaultRequestHandler) on
    127.0.0.1:PORT in a thread with its own event loop; returns a function that stops it."""
    import asyncio
    import grpc
    from a2a.server.request_handlers import GrpcHandler
    from a2a.types import a2a_pb2_grpc

    card = AgentCard()
    json_format.ParseDict(card_dict, card)
    handler = DefaultRequestHandler(
        agent_executor=executor, task_store=InMemoryTaskStore(), agent_card=card
    )
    loop = asyncio.new_event_loop()
    started = threading.Event()
    holder = {}

    async def run():
        server = grpc.aio.server()
        a2a_pb2_grpc.add_A2AServiceServicer_to_server(GrpcHandler(handler), server)
        server.add_insecure_port(f"127.0.0.1:{port}")
        await server.start()
        holder["server"] = server
        started.set()
        await server.wait_for_termination()

    threading.Thread(target=loop.run_until_complete, args=(run(),), daemon=True).start()
    if not started.wait(10):
        raise SystemExit("the a2a-sdk gRPC server did not start")

    def stop_grpc():
        # Asked to stop, not waited for: the server's thread is a daemon and ends with the
        # script (grpc.aio's stop can outlive a client's closed channel by its own timers).
        asyncio.run_coroutine_threadsafe(holder["server"].stop(0), loop)

    return stop_grpc


def stop(server):
    server.should_exit = True


def skillgate(binary, *args, timeout=60):
    """Runs `skillgate ARGS`; returns (exit code, stdout, stderr)."""
    p = subprocess.run([binary, *args], capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def parse_json(text):
    try:
        return json.loads(text)
    except ValueError:
        return None


def result_json(text):
    """The result of `skillgate call --format json`: the whole output, or with `--stream` (one
    JSON object per event, then the result) its last line."""
    whole = parse_json(text)
    if whole is not None:
        return whole
    lines = [line for line in text.splitlines() if line.strip()]
    return parse_json(lines[-1]) if lines else None
