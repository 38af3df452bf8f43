"""Run the table server: ``python -m server.startup.main --help``."""

from __future__ import annotations

import asyncio
import errno
import functools
import gc
import logging
import signal
import socket
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from prometheus_client import start_http_server

from domain.table.state import Phase
from server.startup import compose
from server.startup.config import Settings, from_args
from server.startup.metrics import Metrics, RpcInterceptor, instrument_store, watch_collector
from server.store.eventstore import TableApplication
from server.store.leases import leases_for
from server.store.shards import Store, check_tables
from server.store.translog import TransparencyLogs
from server.transport import reflection as source_reflection
from server.transport.health import StoreHealth
from server.transport.limits import Limits, LimitsInterceptor
from server.transport.lobby import LobbyServicer
from server.transport.lobbybots import LobbyBots, LobbyBotSettings, loopback
from server.transport.logs import configure_logging
from server.transport.ratings import RatingsServicer
from server.transport.servicer import TableServicer
from server.transport.webhooks import Deliverer, describe, load_settings
from server.usecases.games import Games
from server.usecases.webhooks import outbox_rows
from server.wire.receipts import Sealer
from server.wire.signing import KeySet, SigningKeyError, load_keys, retiring_chain
from tabletop.v1 import (
    lobby_pb2,
    lobby_pb2_grpc,
    ratings_pb2,
    ratings_pb2_grpc,
    tabletop_pb2,
    tabletop_pb2_grpc,
)

log = logging.getLogger("tabletop.server")
SERVICE = tabletop_pb2.DESCRIPTOR.services_by_name["TableService"].full_name
LOBBY_SERVICE = lobby_pb2.DESCRIPTOR.services_by_name["LobbyService"].full_name

# Long-lived Watch streams: ping idle connections and accept client pings every 10 s
# (the defaults, a ping every 2 h and GOAWAY for pings under 5 min, break mobile streams).
GRPC_OPTIONS = [
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.max_receive_message_length", 1 << 20),
    # grpcio sets SO_REUSEPORT by default: a second server on a taken port would start and
    # share it silently, clients reaching either one at random
    ("grpc.so_reuseport", 0),
    # no bandwidth-delay probes: a PING and its ack after received data, to grow the window
    # the server advertises for what it receives, which is small requests (what it sends
    # is paced by the windows clients advertise, by their own probes). Issue 38: gRPC's
    # own threads' CPU 269 -> 213 µs a move under the peer load
    ("grpc.http2.bdp_probe", 0),
]
STORE_PROBE_SECONDS = 5.0  # how often health re-checks that the store answers
FAILING_PROBE_SECONDS = 1.0  # and how often while a shard fails (to notice its recovery)


class StartupError(SystemExit):
    """The server cannot start; the message says why, in one line (exit status 1)."""

    def __init__(self, message: str) -> None:
        super().__init__(f"tabletop-server: {message}")


def check_port_free(host: str, port: int, what: str = "port") -> None:
    """Refuse to start on a port another process listens on (before gRPC logs its own)."""
    if port == 0:
        return
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise StartupError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    for family, kind, proto, _name, address in infos:
        with socket.socket(family, kind, proto) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind(address)
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE:
                    raise StartupError(
                        f"{what} {port} on {host} is already in use (another server?); "
                        f"stop it or choose another with --{what}"
                    ) from None
                raise StartupError(f"cannot listen on {host}:{port}: {exc.strerror}") from None


def build_app(settings: Settings) -> TableApplication:
    return TableApplication(env=settings.store_env())


def build_store(settings: Settings) -> Store:
    """The shards from the settings (one unless TABLETOP_SHARDS lists several)."""
    store = Store.open(settings.store_envs(), max_batch=settings.max_batch)
    for shard in store.shards:
        check_tables(shard)
    return store


def start_logs(store: Store, keys: KeySet) -> TransparencyLogs:
    """Every shard's transparency log, caught up with the store; and the retirement of each
    key a rotation left beside the key file stated (every log's size now, signed by the old
    key and its successor), then those old private keys deleted (docs/operations.md, "A
    leaked key")."""
    try:
        try:
            logs = TransparencyLogs(store.shards, keys.signer, store.shard_of)
        except Exception as exc:  # PostgreSQL without the log's tables, a store away
            if isinstance(exc, SigningKeyError):
                raise
            reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise StartupError(
                f"the transparency log's tables are missing or unreachable ({reason}); create "
                "them with `python -m server.startup.migrate` (same settings)"
            ) from None
        if keys.retiring is not None:
            for old, successor in retiring_chain(keys.retiring, keys.signer):
                stated = logs.retire(old, successor)
                log.warning(
                    "key %s retired for key %s at tree size(s) %s",
                    old.key_id,
                    successor.key_id,
                    ", ".join(f"{n} of log {i}" for i, n in stated.logs),
                )
            try:  # the retired private keys are no longer needed anywhere
                keys.retiring.unlink()
                log.warning("the retired private keys in %s are deleted", keys.retiring)
            except OSError as exc:  # a read-only secret mount: the operator removes it
                log.warning("remove %s: its retirements are stated (%s)", keys.retiring, exc)
    except SigningKeyError as exc:
        raise StartupError(str(exc)) from None
    return logs


def run_logs(store: Store, logs: TransparencyLogs) -> None:
    """Start the sequencer, woken by every commit (after the store feed, if any, took its
    own hook: both are called)."""
    for committer in store.committers:
        committer.on_saved = _also(committer.on_saved, logs.wake)
    logs.start()


def _also(first: Any, then: Any) -> Any:
    """A committer's on_saved hook that calls ``first`` (if any), then ``then``."""
    if first is None:
        return then

    def both(recordings: Any) -> None:
        first(recordings)
        then(recordings)

    return both


def grpc_options(settings: Settings) -> list[tuple[str, int]]:
    """GRPC_OPTIONS plus the connection age that rebalances long streams over replicas."""
    options = list(GRPC_OPTIONS)
    # the limits check requests up to their size limit (to refuse with a detail); the
    # transport refuses anything much larger before reading it whole (server/transport/limits.py)
    options = [o for o in options if o[0] != "grpc.max_receive_message_length"]
    options.append(("grpc.max_receive_message_length", settings.limits.transport_max_bytes))
    if settings.max_connection_age > 0:
        options += [
            ("grpc.max_connection_age_ms", int(settings.max_connection_age * 1000)),
            ("grpc.max_connection_age_grace_ms", 10_000),
        ]
    return options


async def serve(settings: Settings, port_file: Path | None = None) -> None:
    check_port_free(settings.host, settings.port)
    if settings.metrics_port is not None:
        check_port_free(settings.host, settings.metrics_port, "metrics-port")
    if settings.web_port is not None:
        check_port_free(settings.host, settings.web_port, "web-port")
    try:
        keys = load_keys(
            settings.data_dir,
            settings.signing_key_file,
            settings.signing_key,
            settings.store,
            settings.retired_keys_file,
        )
    except SigningKeyError as exc:
        raise StartupError(str(exc)) from None
    store = build_store(settings)
    metrics = Metrics()  # in prometheus_client's default registry
    watch_collector(metrics)  # for the life of the process
    for shard in store.shards:
        instrument_store(shard, metrics)
    for committer in store.committers:  # unknown outcomes settled (server/store/eventstore.py)
        committer.on_settled = lambda result: metrics.settled.labels(result).inc()
    for name in store.feed_counts():  # read when scraped; zero on SQLite (no feed)
        metrics.feed.labels(name).set_function(functools.partial(_feed_count, store, name))
    store_health = StoreHealth(store.shards, metrics)
    logs = start_logs(store, keys)
    sealer = Sealer(
        keys.signer,
        view_bytes=settings.view_cache_mb * 2**20,
        receipt_format=settings.receipt_format,
    )
    sealer.tree_head = logs.latest_for
    tables = compose.table_server(
        store,
        min_turn_ms=int(settings.min_turn_time * 1000),
        sealer=sealer,
        logs=logs,
        max_cached_bytes=settings.game_cache_mb * 2**20,
        allow_prepared_deals=settings.allow_prepared_deals,
        reveal_timeout=settings.reveal_timeout,
        case_timeout=settings.case_timeout,
        clock=True,  # durable through restarts
        max_clock_events=settings.max_clock_events,
    )
    clock = tables.clock
    assert clock is not None
    run_logs(store, logs)
    deliverer = start_webhooks(settings, store)
    if settings.allow_prepared_deals:
        log.warning(
            "prepared deals are ALLOWED (--allow-prepared-deals): CreateGame accepts a seed "
            "or a deck, so a table's creator may choose its deal; such tables are marked"
        )
    interceptor = RpcInterceptor(metrics, stall_timeout=settings.stream_stall_timeout)
    limits = Limits(settings.limits, finished_for=tables.games.finished_for)
    server = grpc.aio.server(
        options=grpc_options(settings), interceptors=[interceptor, LimitsInterceptor(limits)]
    )
    logins: Any = None
    if settings.logins is not None:  # players from the app's own login
        from server.transport.tokens import Logins  # PyJWT: loaded only here

        try:
            logins = Logins(settings.logins)
        except ValueError as exc:
            raise StartupError(str(exc)) from None
        log.info(
            "player logins from issuer %s (JWKS %s)", settings.logins.issuer, settings.logins.jwks
        )
    servicer = TableServicer(
        tables, limits, keys=keys.public_keys(), logins=logins, moved=metrics.count_move
    )
    tabletop_pb2_grpc.add_TableServiceServicer_to_server(servicer, server)
    assert tables.ratings is not None  # (wired by compose.table_server)
    ratings_pb2_grpc.add_RatingsServiceServicer_to_server(RatingsServicer(tables.ratings), server)
    # issue 40: its queues, and a matchmaker on every replica
    lobby = compose.lobby(tables, settings.lobby_abandon_after_ms)
    lobby_servicer = LobbyServicer(lobby, servicer._signed_in_login)  # one login check for both
    lobby_pb2_grpc.add_LobbyServiceServicer_to_server(lobby_servicer, server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    source_reflection.enable(
        [
            SERVICE,
            ratings_pb2.DESCRIPTOR.services_by_name["RatingsService"].full_name,
            LOBBY_SERVICE,
            health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
            reflection.SERVICE_NAME,
        ],
        server,
    )
    try:
        port = server.add_insecure_port(f"{settings.host}:{settings.port}")
    except RuntimeError:  # taken since the check, or not an address of this machine
        tables.games.close()
        raise StartupError(f"cannot listen on {settings.host}:{settings.port}") from None
    httpd = None
    if settings.metrics_port is not None:
        try:
            httpd, _ = start_http_server(settings.metrics_port, settings.host, metrics.registry)
        except OSError as exc:
            tables.games.close()
            raise StartupError(
                f"cannot serve metrics on {settings.host}:{settings.metrics_port}: {exc.strerror}"
            ) from None
        metrics_port = httpd.server_port
        log.info("metrics on http://%s:%d/metrics", settings.host, metrics_port)
        if port_file is not None:
            Path(f"{port_file}.metrics").write_text(str(metrics_port))
    loop = asyncio.get_running_loop()
    await server.start()
    # Everything made so far (modules, descriptors, settings) lives as long as the process:
    # out of the collector's sight, a full collection scans only what serving made. Without
    # it each one took 20-70 ms of the event loop, on the tail of every figure in bench P2.
    gc.collect()
    gc.freeze()
    # Full collections are what pause the loop longest (every object the server holds is
    # scanned); CPython runs one once per 10 middle-generation collections when the long-lived
    # objects grew by a quarter, which a busy server reaches every 2-3 s as each move's state
    # outlives the young collections. Reference counting frees all but cyclic garbage, so a
    # full collection can be rarer: docs/operations.md, "Garbage collection".
    young, middle, _full = gc.get_threshold()
    gc.set_threshold(young, middle, settings.gc_full_every)
    live = None
    if settings.http_port is not None:  # the live spectator viewer, on this same loop
        from server.transport import webview  # aiohttp: loaded only by a server that serves it

        try:
            viewer, runner, http_port = await webview.start(
                tables, settings.host, settings.http_port, settings.http_limits, port
            )
        except OSError as exc:
            await server.stop(None)
            tables.games.close()
            raise StartupError(
                f"cannot serve the live viewer on {settings.host}:{settings.http_port}: "
                f"{exc.strerror}"
            ) from None
        live = (viewer, runner)
        log.info("live viewer on http://%s:%d/games/GAME_ID", settings.host, http_port)
        if port_file is not None:
            Path(f"{port_file}.http").write_text(str(http_port))
    web = None
    if settings.web_port is not None:  # Connect, gRPC-Web, the play page, on this same loop
        web = await start_web(settings, port)
        if web is None:
            if live is not None:
                await _stop_live(live)
            await server.stop(None)
            tables.games.close()
            raise StartupError(f"cannot serve the web port on {settings.host}:{settings.web_port}")
        _, web_port = web
        log.info(
            "the API for browsers (Connect, gRPC-Web) on http://%s:%d/", settings.host, web_port
        )
        print(f"play in a browser: http://{settings.host}:{web_port}/", flush=True)
        if port_file is not None:
            Path(f"{port_file}.web").write_text(str(web_port))
    lobby_bots = None
    if settings.lobby_bots > 0:  # the server plays its lobby tables' bot seats
        lobby_bots = LobbyBots(
            LobbyBotSettings(settings.lobby_bots, settings.lobby_bots_idle),
            loopback(settings.host, port),
            functools.partial(_game_status, tables.games),
            store.shards[0].bot_secrets,  # the lobby's store: its first shard
            leases_for(store),  # a lease connection of their own: the matchmaker's may fail
        )
        lobby.bots = lobby_bots
    armed = await clock.recover()
    if armed:
        log.info("turn clocks re-armed for %d running games", armed)
    # matches left between a hand's end and the next
    moved = await tables.matches.recover_matches()
    if moved:
        log.info("%d matches moved on to their next hand", moved)
    # games and matches that ended while their rating was not noted (a crash between the two)
    assert tables.ratings is not None
    rated = await tables.ratings.sweep()
    if rated:
        log.info("%d ended games and matches rated after the restart", rated)
    lobby.start()
    if lobby_bots is not None:  # and the bots of tables whose replica died (or restarted)
        lobby_bots.start_loop()
    stopping = False
    changed = asyncio.Event()  # a save failed or worked again: re-check at once

    def wake() -> None:  # from the writer thread
        loop.call_soon_threadsafe(changed.set)

    store_health.on_change = wake

    async def readiness() -> None:
        # SERVING only while every shard works (server/transport/health.py); NOT_SERVING once shutting
        # down. A failed save turns it NOT_SERVING at once; probes notice the recovery.
        while not stopping:
            changed.clear()
            for index in range(len(store.shards)):
                await asyncio.to_thread(store_health.probe, index)
            if stopping:
                return
            up = store_health.ok
            metrics.store_up.set(1 if up else 0)
            status = health_pb2.HealthCheckResponse.NOT_SERVING
            if up:
                status = health_pb2.HealthCheckResponse.SERVING
            for name in ("", SERVICE):
                await health_servicer.set(name, status)
            wait = STORE_PROBE_SECONDS if up else FAILING_PROBE_SECONDS
            try:
                await asyncio.wait_for(changed.wait(), wait)
            except TimeoutError:
                pass

    probe = asyncio.create_task(readiness())
    signer = keys.signer
    log.info(
        "signing with the key from %s, public key %s (key id %s), %d retired key(s)",
        signer.source,
        signer.public_key.hex(),
        signer.key_id,
        len(keys.retired),
    )
    loop_type = type(asyncio.get_running_loop())
    log.info(
        "serving on %s:%d with the %s store, on the %s event loop, collector thresholds %s",
        settings.host,
        port,
        settings.store,
        f"{loop_type.__module__}.{loop_type.__qualname__}",
        "/".join(map(str, gc.get_threshold())),
    )
    print(f"tabletop server listening on {settings.host}:{port} ({settings.store})", flush=True)
    if port_file is not None:
        port_file.write_text(str(port))

    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("shutting down")
    stopping = True
    probe.cancel()
    for name in ("", SERVICE):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
    await asyncio.sleep(0.1)  # let health watchers (load balancers) receive NOT_SERVING
    # Watch streams end with UNAVAILABLE and a resume hint; unary calls in flight get the
    # grace period to finish (a move is appended whole or not at all), new calls are refused.
    streams = interceptor.close_streams()
    if live is not None:
        await _stop_live(live)
    if web is not None:  # its streams end with the gRPC ones they forward
        await web[0].stop()
    await server.stop(grace=settings.shutdown_grace)
    if lobby_bots is not None:  # before the leases go: two replicas never play a table
        await lobby_bots.close()
    await lobby.stop()
    clock.close()
    logs.close()
    if deliverer is not None:  # before the store closes: a delivery in flight records its end
        deliverer.close()
    tables.games.close()
    if httpd is not None:
        httpd.shutdown()
    log.info("stopped", extra={"streams_ended": streams})


def start_webhooks(settings: Settings, store: Store) -> Deliverer | None:
    """Moves write their webhook rows with their events, and a worker delivers them
    (server/store/outbox.py, server/transport/webhooks.py); nothing without --webhooks."""
    if settings.webhooks is None:
        return None
    try:
        hooks = load_settings(settings.webhooks)
    except ValueError as exc:
        raise StartupError(str(exc)) from None
    for committer in store.committers:
        committer.outbox_for = outbox_rows(hooks.apps, settings.max_clock_events)
    log.info("webhooks to %s", describe(hooks))
    return Deliverer([shard.outbox for shard in store.shards], hooks).start()


async def _game_status(games: Games, game_id: str) -> tuple[int, bool] | None:
    """A lobby table's version and whether it ended (its bots' watch), None if unreadable."""
    try:
        agg = await games.load(games.parse_id(game_id))
    except Exception:
        return None
    return agg.version, agg.table.phase is Phase.FINISHED or agg.table.abandoned is not None


def _feed_count(store: Store, name: str) -> float:
    return float(store.feed_counts()[name])


async def start_web(settings: Settings, grpc_port: int) -> tuple[Any, int] | None:
    """The web port's server (server/transport/web/) and its bound port; None when it cannot
    listen."""
    # uvicorn and connectrpc: only when asked for
    from server.transport.web import bots as web_bots
    from server.transport.web import origin as web_origin
    from server.transport.web import server as web_server

    web_settings = web_server.WebSettings(
        port=settings.web_port,
        root=settings.web_root or web_origin.DEFAULT_WEB_ROOT,
        bots=web_bots.BotSettings(
            enabled=settings.web_bots,
            max_processes=settings.web_bots_max,
            timeout=settings.web_bots_timeout,
            per_network=settings.web_bots_per_network,
            per_client=settings.web_bots_per_client,
            idle=settings.web_bots_idle,
            delay_ms=settings.web_bots_delay_ms,
        ),
        allow_origins=settings.web_allow_origins,
        allow_hosts=settings.web_allow_hosts,
    )
    web = web_server.WebServer(
        web_settings,
        settings.host,
        grpc_port,
        read_max_bytes=settings.limits.transport_max_bytes,
        shutdown_grace=settings.shutdown_grace,
    )
    try:
        port = await web.start()
    except OSError as exc:
        log.error("cannot serve the web port: %s", exc.strerror or exc)
        await web.channel.close()
        return None
    return web, port


def main(argv: list[str] | None = None) -> None:
    settings, args = from_args(argv)
    configure_logging(settings.log_format, getattr(logging, settings.log_level.upper()))
    with asyncio.Runner(loop_factory=loop_factory(settings.event_loop)) as runner:
        runner.run(serve(settings, args.port_file))


def loop_factory(name: str) -> Any:
    """The event loop's factory: None (asyncio's own) unless uvloop is chosen."""
    if name != "uvloop":
        return None
    try:
        import uvloop
    except ImportError:
        raise SystemExit(
            "--event-loop uvloop: the uvloop package is not installed (pip install uvloop)"
        ) from None
    return uvloop.new_event_loop


async def _stop_live(live: tuple[Any, Any]) -> None:
    from server.transport import webview

    await webview.stop(*live)


if __name__ == "__main__":
    main()
