"""Run the table server: ``python -m server.main --help``."""

from __future__ import annotations

import asyncio
import logging
import signal
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from server.config import Settings, from_args
from server.grpc_api import TableServicer
from server.service import TableServer
from server.store import TableApplication
from tabletop.v1 import tabletop_pb2, tabletop_pb2_grpc

log = logging.getLogger("tabletop.server")
SERVICE = tabletop_pb2.DESCRIPTOR.services_by_name["TableService"].full_name

# Long-lived Watch streams: ping idle connections and accept client pings every 10 s
# (the defaults, a ping every 2 h and GOAWAY for pings under 5 min, break mobile streams).
GRPC_OPTIONS = [
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.max_receive_message_length", 1 << 20),
]


def build_app(settings: Settings) -> TableApplication:
    return TableApplication(env=settings.store_env())


async def serve(settings: Settings, port_file: Path | None = None) -> None:
    app = build_app(settings)
    tables = TableServer(app, max_batch=settings.max_batch)
    server = grpc.aio.server(options=GRPC_OPTIONS)
    tabletop_pb2_grpc.add_TableServiceServicer_to_server(TableServicer(tables), server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        [
            SERVICE,
            health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
            reflection.SERVICE_NAME,
        ],
        server,
    )
    port = server.add_insecure_port(f"{settings.host}:{settings.port}")
    await server.start()
    for name in ("", SERVICE):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    log.info("serving on %s:%d with the %s store", settings.host, port, settings.store)
    print(f"tabletop server listening on {settings.host}:{port} ({settings.store})", flush=True)
    if port_file is not None:
        port_file.write_text(str(port))

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("shutting down")
    for name in ("", SERVICE):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
    await server.stop(grace=5)
    tables.close()


def main(argv: list[str] | None = None) -> None:
    settings, args = from_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    asyncio.run(serve(settings, args.port_file))


if __name__ == "__main__":
    main()
