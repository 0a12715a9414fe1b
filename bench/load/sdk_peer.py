#!/usr/bin/env python3
"""The load bench's peer: an a2a-sdk 1.3.0 JSON-RPC server on PostgreSQL.

DefaultRequestHandler over the SDK's own DatabaseTaskStore (SQLAlchemy async engine, asyncpg),
one uvicorn worker, and an executor that completes a trivial task: one text artifact, then
TASK_STATE_COMPLETED. Built like interop/interop_common.py builds its servers (agent card routes
+ JSON-RPC routes on a Starlette app).

Usage: sdk_peer.py --db postgresql+asyncpg://postgres@127.0.0.1:5432/DB|memory [--listen 127.0.0.1:0]
(`--db memory`: the SDK's InMemoryTaskStore instead, the like of skillgate's memory store.)
Prints `listening on http://HOST:PORT` on stdout once the table exists and the socket accepts.
"""

import argparse
import contextlib
import socket
import sys

import uvicorn
from google.protobuf import json_format
from sqlalchemy.ext.asyncio import create_async_engine
from starlette.applications import Starlette

from a2a.helpers.proto_helpers import new_text_part
from a2a.server.agent_execution.agent_executor import AgentExecutor
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import TaskUpdater
from a2a.server.tasks import InMemoryTaskStore
from a2a.server.tasks.database_task_store import DatabaseTaskStore
from a2a.types.a2a_pb2 import AgentCard


class TrivialExecutor(AgentExecutor):
    async def execute(self, context, event_queue):
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.add_artifact(parts=[new_text_part("done")], name="bench")
        await updater.complete()

    async def cancel(self, context, event_queue):
        raise NotImplementedError


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--db", required=True, help="SQLAlchemy URL, postgresql+asyncpg://..., or memory")
    ap.add_argument("--listen", default="127.0.0.1:0")
    ap.add_argument("--pool-size", type=int, default=10,
                    help="SQLAlchemy pool_size (max_overflow is the same again)")
    a = ap.parse_args()

    host, port = a.listen.rsplit(":", 1)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, int(port)))
    base = f"http://{host}:{sock.getsockname()[1]}"

    card = AgentCard()
    json_format.ParseDict({
        "name": "a2a-sdk bench peer",
        "description": "Completes every task at once (load bench peer)",
        "version": "1.0.0",
        "supportedInterfaces": [{"url": f"{base}/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": False},
        "defaultInputModes": ["application/json"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "bench", "name": "bench", "description": "trivial", "tags": ["bench"]}],
    }, card)

    if a.db == "memory":
        engine, store = None, InMemoryTaskStore()
    else:
        engine = create_async_engine(a.db, pool_size=a.pool_size, max_overflow=a.pool_size)
        store = DatabaseTaskStore(engine, create_table=True)
    handler = DefaultRequestHandler(agent_executor=TrivialExecutor(), task_store=store, agent_card=card)

    @contextlib.asynccontextmanager
    async def lifespan(_app):
        if engine is not None:
            await store.initialize()
        print(f"listening on {base}", flush=True)
        yield
        if engine is not None:
            await engine.dispose()

    routes = create_agent_card_routes(card) + create_jsonrpc_routes(handler, rpc_url="/")
    app = Starlette(routes=routes, lifespan=lifespan)
    # One worker, no access log (it would cost the peer time the Rust server does not spend).
    config = uvicorn.Config(app, log_level="warning", access_log=False, workers=1)
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    sys.exit(main())
