"""Server settings from flags and environment variables, read and checked by click.

Every option has an environment variable (shown by ``--help``); a flag wins over its
variable. Booleans accept 1/0, true/false, yes/no, on/off; numbers are range-checked; a bad
value ends the process with one line naming the flag and the variable, and exit status 2.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import click

from domain.table.draw import (
    DEFAULT_ABANDON_AFTER_MS,
    MAX_ABANDON_AFTER_MS,
    MIN_ABANDON_AFTER_MS,
)
from server.transport.limits import LimitSettings
from server.transport.livefeed import ViewerLimits
from server.transport.logins import LoginSettings

PROG = "tabletop-server"


@dataclass(frozen=True)
class Settings:
    host: str
    port: int  # 0 picks a free port
    store: str  # sqlite | memory | postgres
    data_dir: Path
    max_batch: int
    metrics_port: int | None = None  # None: no metrics endpoint; 0: a free port
    http_port: int | None = (
        None  # the live spectator viewer (server/transport/webview.py); None: off
    )
    # the API for browsers, the play page and POST /bots (server/transport/web/)
    web_port: int | None = None  # None: off; 0: a free port
    web_root: Path | None = None  # the play page's built files; None: clients/web/dist
    web_bots: bool = False  # POST /bots starts bot processes
    web_bots_max: int = 8  # bot processes at once
    web_bots_timeout: float = 7200.0  # seconds a bot process may live
    web_bots_per_network: int = 4  # bot processes at once per /24 (IPv4) or /64 (IPv6) asking
    web_bots_per_client: int = 2  # bot processes at once per asking address (a table's creator)
    web_bots_idle: float = 600.0  # seconds a game may stand still before its bots leave
    # the lobby (server/transport/lobbybots.py): bot processes the server starts for the bot
    # seats of the tables its matchmaker forms; 0: none (a bot runner of the app's takes them)
    lobby_bots: int = 8
    lobby_bots_idle: float = 600.0  # seconds a lobby table may stand still before its bots leave
    # how long a lobby table's draw waits for its seats (a reserved player who never comes)
    # before the game is void: its GameCreated.abandon_after_ms (CreateGame's default: 10 min)
    lobby_abandon_after_ms: int = DEFAULT_ABANDON_AFTER_MS
    web_bots_delay_ms: int = 1500  # how long a bot waits before answering a person's move
    web_allow_origins: tuple[str, ...] = ()  # other origins allowed to call (CORS); none
    web_allow_hosts: tuple[str, ...] = ()  # Host names served besides IP literals, localhost
    log_format: str = "text"  # text (key=value) | json
    event_loop: str = "asyncio"  # asyncio | uvloop
    gc_full_every: int = 100  # middle-generation collections between full ones, at least
    log_level: str = "info"  # debug: every call; info: writes (not a Play), refusals, streams
    shutdown_grace: float = 5.0
    shards: str = ""  # postgres: TABLETOP_SHARDS, see server.store.shards.parse_shards
    create_tables: bool = False  # postgres: create missing tables at start (one process only)
    max_connection_age: float = 0.0  # seconds; 0 = never (see docs/operations.md)
    stream_stall_timeout: float = 30.0  # seconds a stream may wait for its reader
    min_turn_time: float = 5.0  # seconds: the shortest turn clock a table may have
    max_clock_events: int = 200  # events the clock may make in a row without a client call
    game_cache_mb: int = 512  # the games held in memory, in estimated MiB (usecases/gamecache.py)
    view_cache_mb: int = 32  # the signed views kept, in MiB of memory (wire/receipts.py)
    receipt_format: int = 3  # 2: one seal lists every viewer's salted hashes (docs/api.md)
    allow_prepared_deals: bool = False  # client seeds and decks (docs/api.md, "Audit")
    reveal_timeout: float = 30.0  # seconds after which the seats a deal waits for are late
    case_timeout: float = 120.0  # seconds an open case waits for its next step (a table's default)
    limits: LimitSettings = field(default_factory=LimitSettings)  # server/transport/limits.py
    http_limits: ViewerLimits = field(default_factory=ViewerLimits)  # transport/livefeed.py
    signing_key_file: Path | None = None  # server/wire/signing.py: where the key comes from
    signing_key: str = field(default="", repr=False)  # TABLETOP_SIGNING_KEY, the key itself
    retired_keys_file: Path | None = None  # public keys of earlier keys [KEY_FILE.retired]
    # players from the app's own login (server/transport/logins.py); None: no logins
    logins: LoginSettings | None = None
    # webhooks (server/transport/webhooks.py): the apps' TOML file; None: no webhooks
    webhooks: Path | None = None

    def store_env(self) -> dict[str, str]:
        """The eventsourcing settings for the chosen store."""
        if self.store == "memory":
            return {"PERSISTENCE_MODULE": "eventsourcing.popo"}
        if self.store == "sqlite":
            self.data_dir.mkdir(parents=True, exist_ok=True)
            return {
                "PERSISTENCE_MODULE": "eventsourcing.sqlite",
                "SQLITE_DBNAME": str(self.data_dir / "games.sqlite"),
            }
        if self.store == "postgres":  # POSTGRES_* from the environment
            return {
                "PERSISTENCE_MODULE": "eventsourcing.postgres",
                "CREATE_TABLE": "y" if self.create_tables else "n",
            }
        raise ValueError(f"unknown store {self.store!r}")

    def store_envs(self) -> list[dict[str, str]]:
        """One eventsourcing env per shard (a single one unless postgres has shards)."""
        if self.store != "postgres":
            return [self.store_env()]
        from server.store.shards import shard_envs

        return shard_envs(self.store_env(), self.shards)


PORT = click.IntRange(0, 65535)
SECONDS = click.FloatRange(min=0)
_LIMITS = LimitSettings()
_HTTP_LIMITS = ViewerLimits()


class _Setting(click.Option):
    """A flag that may come from its environment variable too: a bad value names the
    variable only when the value came from it (click names it whatever the source)."""

    def get_error_hint(self, ctx: click.Context | None) -> str:
        from_env = (
            ctx is not None
            and self.name is not None
            and (ctx.get_parameter_source(self.name) is click.core.ParameterSource.ENVIRONMENT)
        )
        if from_env:
            return super().get_error_hint(ctx)
        return " / ".join(f"'{x}'" for x in self.opts)


def _option(flag: str, help: str, **kw: Any) -> click.Option:
    """``--flag`` read from TABLETOP_FLAG too, with its variable and default in --help."""
    env = "TABLETOP_" + flag.lstrip("-").replace("-", "_").upper()
    kw.setdefault("show_default", kw.get("default") not in (None, ""))
    return _Setting([flag], envvar=env, show_envvar=True, help=help, **kw)


OPTIONS: list[click.Parameter] = [
    _option("--host", "address to listen on", default="127.0.0.1"),
    _option("--port", "port to listen on, 1-65535; 0 picks a free one", type=PORT, default=50051),
    _option(
        "--store",
        "event store; postgres reads the POSTGRES_* variables (docs/operations.md)",
        type=click.Choice(["sqlite", "memory", "postgres"]),
        default="sqlite",
    ),
    _option(
        "--data-dir",
        "directory of the SQLite file games.sqlite",
        type=click.Path(file_okay=False, path_type=Path),
        default=Path("data"),
    ),
    _option(
        "--max-batch",
        "most games saved in one group-commit transaction",
        type=click.IntRange(min=1),
        default=64,
    ),
    _option(
        "--metrics-port",
        "serve Prometheus metrics on http://HOST:PORT/metrics; 0 picks a free port [default: off]",
        type=PORT,
        default=None,
    ),
    _option(
        "--http-port",
        "serve the live spectator viewer (read-only, public view, no token) on "
        "http://HOST:PORT/games/GAME_ID; 0 picks a free port [default: off]",
        type=PORT,
        default=None,
    ),
    _option(
        "--web-port",
        "serve the API to browsers over Connect and gRPC-Web, the play page and POST /bots on "
        'http://HOST:PORT/ (docs/api.md, "Browsers"); 0 picks a free port [default: off]',
        type=PORT,
        default=None,
    ),
    _option(
        "--web-root",
        "web port: the directory of the play page's built files [default: clients/web/dist "
        "of this checkout; `make web` builds it]",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
    ),
    _option(
        "--web-bots",
        "web port: POST /bots fills a table's free seats with bots (a `tabletop bots --join` "
        "process each, playing over gRPC) [default: off, refused with 403]",
        type=click.BOOL,
        default=False,
        is_flag=True,
    ),
    _option(
        "--web-bots-max",
        "web port: bot processes at once (more are refused with 429)",
        type=click.IntRange(min=1),
        default=8,
    ),
    _option(
        "--web-bots-timeout",
        "web port: seconds a bot process may live; it is ended sooner once its game has ended",
        type=click.FloatRange(min=1),
        default=7200.0,
    ),
    _option(
        "--web-bots-per-network",
        "web port: bot processes at once started from one network (a /24 for IPv4, a /64 for "
        "IPv6); more are refused with 429",
        type=click.IntRange(min=1),
        default=4,
    ),
    _option(
        "--web-bots-per-client",
        "web port: bot processes at once started from one address (the tables' creator); more "
        "are refused with 429",
        type=click.IntRange(min=1),
        default=2,
    ),
    _option(
        "--web-bots-idle",
        "web port: seconds a bots' game may stand still (no new version: its person does not "
        "move) before the bots leave it and free their slot",
        type=click.FloatRange(min=1),
        default=600.0,
    ),
    _option(
        "--lobby-bots",
        "the lobby: bot processes this server starts at once to play the bot seats of the "
        "tables its matchmaker forms (a `tabletop bots --join` each, ended with its game); "
        "while all are busy, tables needing bots wait; 0: the server starts none and names "
        'the bot seats only (docs/integrating.md, "Lobby")',
        type=click.IntRange(min=0),
        default=8,
    ),
    _option(
        "--lobby-bots-idle",
        "the lobby: seconds a table with bots may stand still (its players gone) before its "
        "bots leave and free their slot",
        type=click.FloatRange(min=1),
        default=600.0,
    ),
    _option(
        "--lobby-abandon-after-ms",
        "the lobby: milliseconds the draw of a table the lobby forms or opens waits for every "
        "seat (a reserved player who never comes) before the game ends void (the table's "
        "abandon_after_ms, recorded in it)",
        type=click.IntRange(MIN_ABANDON_AFTER_MS, MAX_ABANDON_AFTER_MS),
        default=DEFAULT_ABANDON_AFTER_MS,
    ),
    _option(
        "--web-bots-delay-ms",
        "web port: milliseconds a bot waits before answering its person's move, so that the "
        "person may still take the move back (误操作: only before anyone else acts); 0: at once",
        type=click.IntRange(0, 60_000),
        default=1500,
    ),
    _option(
        "--web-allow-host",
        "web port: host names (tabletop.example.com, comma-separated) it answers besides IP "
        "addresses and localhost; other Host headers get 421 (no DNS rebinding); * for any "
        "[default: IP addresses and localhost only]",
        default="",
    ),
    _option(
        "--web-allow-origin",
        "web port: other origins (https://app.example.com, comma-separated) whose pages may "
        "call the API and /bots (CORS) [default: none, the page's own origin only]",
        default="",
    ),
    # the live viewer's limits (server/transport/livefeed.py); each refuses with HTTP 429
    _option(
        "--http-max-streams",
        "live viewer: open event streams in all",
        type=click.IntRange(min=1),
        default=_HTTP_LIMITS.max_streams,
    ),
    _option(
        "--http-streams-per-prefix",
        "live viewer: open event streams per network prefix of the viewers' addresses (a /24 "
        "for IPv4, a /64 for IPv6); behind a proxy, all viewers share the proxy's",
        type=click.IntRange(min=1),
        default=_HTTP_LIMITS.streams_per_prefix,
    ),
    _option(
        "--http-streams-per-wide-prefix",
        "live viewer: open event streams per wider network of the viewers' addresses (a /16 "
        "for IPv4, a /48 for IPv6)",
        type=click.IntRange(min=1),
        default=_HTTP_LIMITS.streams_per_wide_prefix,
    ),
    _option(
        "--http-streams-per-seat",
        "live viewer: open event streams of one seat (or the arbiter) of a game, named by its "
        "token; these are never refused for the per-game or per-network limits",
        type=click.IntRange(min=1),
        default=_HTTP_LIMITS.streams_per_seat,
    ),
    _option(
        "--http-streams-per-game",
        "live viewer: open event streams of one game (its spectators; its seats and arbiter "
        "are counted apart)",
        type=click.IntRange(min=1),
        default=_HTTP_LIMITS.streams_per_game,
    ),
    _option(
        "--event-loop",
        "the asyncio event loop: asyncio (the standard library's) or uvloop (libuv's, when "
        "the uvloop package is installed; measured in docs/benchmarks.md)",
        type=click.Choice(["asyncio", "uvloop"]),
        default="asyncio",
    ),
    _option(
        "--gc-full-every",
        "run a full garbage collection at most once per N collections of the middle "
        "generation (CPython's own is 10). Each full collection pauses the event loop for "
        "as long as it takes to scan every object the server holds (tens of ms with "
        "thousands of games cached): see docs/operations.md",
        type=click.IntRange(min=1),
        default=100,
    ),
    _option(
        "--log-format",
        "log lines as key=value text or JSON objects",
        type=click.Choice(["text", "json"]),
        default="text",
    ),
    _option(
        "--log-level",
        "debug logs every call, info every write (an accepted Play: counted, not logged), "
        "refusal and stream",
        type=click.Choice(["debug", "info", "warning", "error"]),
        default="info",
    ),
    _option(
        "--shutdown-grace",
        "seconds in-flight calls get to finish on SIGTERM",
        type=SECONDS,
        default=5.0,
    ),
    _option(
        "--shards",
        "postgres: games spread over these shards by game id, comma-separated; each a "
        "postgresql://user:password@host:port/dbname?schema=name URL (missing parts come from "
        "POSTGRES_*) or a schema name in the POSTGRES_DBNAME database [default: one shard, "
        "the POSTGRES_* database]",
        default="",
    ),
    _option(
        "--create-tables",
        "postgres: create missing tables at start; for a single process only, replicas "
        "need `python -m server.startup.migrate` first",
        type=click.BOOL,
        default=False,
        is_flag=True,
    ),
    _option(
        "--max-connection-age",
        "close each client connection after this many seconds (streams get 10 s grace and "
        "resume elsewhere), spreading long Watch streams over replicas; 0 = never",
        type=SECONDS,
        default=0.0,
    ),
    _option(
        "--stream-stall-timeout",
        "seconds a Watch or Replay stream may wait for a client that does not read before it "
        "is ended with UNAVAILABLE and the version to resume after",
        type=click.FloatRange(min=0, min_open=True),
        default=30.0,
    ),
    _option(
        "--min-turn-time",
        "seconds: the shortest per-action clock (CreateGame turn_time_limit_ms) a table may "
        "have; 0 (no clock) is always allowed",
        type=SECONDS,
        default=5.0,
    ),
    _option(
        "--max-clock-events",
        "events the turn clock may append to a game in a row without a client's call; then "
        "its clock waits for the next move",
        type=click.IntRange(min=1),
        default=200,
    ),
    _option(
        "--game-cache-mb",
        "MiB the games held in memory may take, estimated from their size (with at most "
        "10,000 games); past it the least recently cached are read from the store again",
        type=click.IntRange(min=1),
        default=512,
    ),
    _option(
        "--view-cache-mb",
        "MiB of memory the signed views kept for repeated GetView calls may take (0: none)",
        type=click.IntRange(min=0),
        default=32,
    ),
    _option(
        "--receipt-format",
        "receipts of format 2 (one seal lists every viewer's salted hashes) or 3 (a seal of "
        "the chain head, and one signature per viewer over the hash of what it was sent: "
        'fewer bytes to a seat; docs/api.md, "Receipts of format 3")',
        type=click.IntRange(min=2, max=3),
        default=3,
    ),
    _option(
        "--allow-prepared-deals",
        "accept CreateGame with a seed or a deck: deals chosen by the table's creator, marked "
        "as such; for development, tests, tournaments and reproducing disputes [default: off, "
        "refused with FAILED_PRECONDITION PREPARED_DEALS_DISABLED]",
        type=click.BOOL,
        default=False,
        is_flag=True,
    ),
    _option(
        "--reveal-timeout",
        "seconds after the table's latest event (once every seat is taken) after which the "
        "seats the deal waits for are shown as late; the deal still waits for them (nobody "
        "stands in for a seat) until the table's abandonment limit (recorded in each new table)",
        type=click.FloatRange(min=0, max=86_400),
        default=30.0,
    ),
    _option(
        "--case-timeout",
        "seconds a report or appeal waits for its next step (a vote, the arbiter's ruling) "
        "at a table that names no limit of its own (CreateGame case_time_limit_ms 0); then "
        "the votes not cast lapse and the case closes or goes to the arbiter (recorded in "
        "each new table, at clockless tables too; at most 600 s, the cap on any table's)",
        type=click.FloatRange(min=0.001, max=600),
        default=120.0,
    ),
    # the limits of server/transport/limits.py; each refuses with RESOURCE_EXHAUSTED and a detail
    _option(
        "--max-message-bytes",
        "largest request accepted",
        type=click.IntRange(min=1024),
        default=_LIMITS.max_message_bytes,
    ),
    _option(
        "--max-streams-per-connection",
        "open Watch/Replay streams per connection",
        type=click.IntRange(min=1),
        default=_LIMITS.max_streams_per_connection,
    ),
    _option(
        "--max-streams-per-client",
        "open streams per client, see --client-id-header",
        type=click.IntRange(min=1),
        default=_LIMITS.max_streams_per_client,
    ),
    _option(
        "--move-rate",
        "Play calls per second per seat, 0 = unlimited",
        type=SECONDS,
        default=_LIMITS.move_rate,
    ),
    _option(
        "--move-burst",
        "Play calls a seat may make at once",
        type=click.IntRange(min=1),
        default=_LIMITS.move_burst,
    ),
    _option(
        "--max-open-games-per-client",
        "unfinished games one client may have created in the last hour",
        type=click.IntRange(min=1),
        default=_LIMITS.max_open_games_per_client,
    ),
    _option(
        "--finished-game-cooldown",
        "seconds a finished game still counts against its creator's open games",
        type=SECONDS,
        default=_LIMITS.finished_game_cooldown,
    ),
    _option(
        "--client-id-header",
        "call metadata naming the client for the per-client limits, set by a trusted "
        "gateway [default: the peer's IP address]",
        default="",
    ),
    _Setting(
        ["--signing-key"],
        envvar="TABLETOP_SIGNING_KEY_FILE",
        show_envvar=True,
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="the Ed25519 key file that signs every move (PEM, or 64 hex digits); every "
        "replica of a deployment shares one (`python -m server.wire.signing new FILE` makes one). "
        "TABLETOP_SIGNING_KEY may hold the key itself instead [default: "
        "DATA_DIR/signing-key.pem, made at first start; PostgreSQL needs one given]",
    ),
    _Setting(
        ["--retired-signing-keys"],
        envvar="TABLETOP_RETIRED_SIGNING_KEYS_FILE",
        show_envvar=True,
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="the public keys this deployment signed with before a rotation, one 64-hex-digit "
        "key a line (`python -m server.wire.signing rotate FILE` writes it); served by "
        "GetSigningKey so earlier records still verify [default: the key file's path + "
        "'.retired', if it exists]",
    ),
    _option(
        "--oidc-issuer",
        "the app's OpenID Connect issuer: every player login must carry it as `iss` "
        "(with --oidc-audience and --oidc-jwks; none: no player logins)",
        default="",
    ),
    _option("--oidc-audience", "the `aud` every player login must carry", default=""),
    _option(
        "--oidc-jwks",
        "the issuer's public keys (JWKS): an https URL (refetched for an unknown key id) "
        "or a file path (re-read likewise)",
        default="",
    ),
    _option(
        "--oidc-leeway",
        "seconds of clock skew allowed on a login's exp, nbf and iat",
        type=click.FloatRange(0, 600),
        default=60.0,
    ),
    _option(
        "--oidc-jwks-cooldown",
        "seconds between two JWKS refetches for logins naming an unknown key id",
        type=click.FloatRange(0, 86_400),
        default=30.0,
    ),
    _option(
        "--webhooks",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="a TOML file naming the apps that receive webhooks (endpoint, whsec_ secret, "
        'event types) and the delivery limits (docs/operations.md, "Webhooks"); none: no '
        "webhooks",
    ),
    _Setting(
        ["--port-file"],
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="write the bound port to this file once serving (for tests and scripts); the "
        "metrics, HTTP viewer and web ports go to the same path with .metrics, .http and .web "
        "appended",
    ),
]

COMMAND = click.Command(
    PROG,
    params=OPTIONS,
    callback=lambda **values: values,
    help="Event-sourced gRPC server for 花鸟风月 and 川南字牌. Every option can also be set "
    "by the environment variable shown with it; a flag wins over its variable.",
    context_settings={"max_content_width": 100, "terminal_width": 100},
)


def read(argv: list[str] | None = None) -> dict[str, Any]:
    """The option values; ``--help`` prints and exits 0, a bad value exits 2 with one line."""
    try:
        values = COMMAND.main(args=argv, prog_name=PROG, standalone_mode=False)
    except click.ClickException as exc:
        print(f"{PROG}: {exc.format_message()}", file=sys.stderr)
        raise SystemExit(2) from None
    except click.exceptions.Abort:
        raise SystemExit(1) from None
    if not isinstance(values, dict):  # --help (the exit code)
        raise SystemExit(values or 0)
    return values


def from_args(argv: list[str] | None = None) -> tuple[Settings, SimpleNamespace]:
    a = SimpleNamespace(**read(sys.argv[1:] if argv is None else argv))
    return (
        Settings(
            a.host,
            a.port,
            a.store,
            a.data_dir,
            a.max_batch,
            metrics_port=a.metrics_port,
            http_port=a.http_port,
            web_port=a.web_port,
            web_root=a.web_root,
            web_bots=a.web_bots,
            web_bots_max=a.web_bots_max,
            web_bots_timeout=a.web_bots_timeout,
            web_bots_per_network=a.web_bots_per_network,
            web_bots_per_client=a.web_bots_per_client,
            web_bots_idle=a.web_bots_idle,
            lobby_bots=a.lobby_bots,
            lobby_bots_idle=a.lobby_bots_idle,
            lobby_abandon_after_ms=a.lobby_abandon_after_ms,
            web_bots_delay_ms=a.web_bots_delay_ms,
            web_allow_origins=tuple(o.strip() for o in a.web_allow_origin.split(",") if o.strip()),
            web_allow_hosts=tuple(h.strip() for h in a.web_allow_host.split(",") if h.strip()),
            log_format=a.log_format,
            event_loop=a.event_loop,
            gc_full_every=a.gc_full_every,
            log_level=a.log_level,
            shutdown_grace=a.shutdown_grace,
            shards=a.shards,
            create_tables=a.create_tables,
            max_connection_age=a.max_connection_age,
            stream_stall_timeout=a.stream_stall_timeout,
            min_turn_time=a.min_turn_time,
            max_clock_events=a.max_clock_events,
            game_cache_mb=a.game_cache_mb,
            view_cache_mb=a.view_cache_mb,
            receipt_format=a.receipt_format,
            allow_prepared_deals=a.allow_prepared_deals,
            reveal_timeout=a.reveal_timeout,
            case_timeout=a.case_timeout,
            signing_key_file=a.signing_key,
            signing_key=os.environ.get("TABLETOP_SIGNING_KEY", ""),
            retired_keys_file=a.retired_signing_keys,
            logins=_logins(a),
            webhooks=a.webhooks,
            limits=LimitSettings(
                max_message_bytes=a.max_message_bytes,
                max_streams_per_connection=a.max_streams_per_connection,
                max_streams_per_client=a.max_streams_per_client,
                move_rate=a.move_rate,
                move_burst=a.move_burst,
                max_open_games_per_client=a.max_open_games_per_client,
                finished_game_cooldown=a.finished_game_cooldown,
                client_id_header=a.client_id_header.lower(),
            ),
            http_limits=ViewerLimits(
                max_streams=a.http_max_streams,
                streams_per_prefix=a.http_streams_per_prefix,
                streams_per_game=a.http_streams_per_game,
                streams_per_wide_prefix=a.http_streams_per_wide_prefix,
                streams_per_seat=a.http_streams_per_seat,
            ),
        ),
        a,
    )


def _logins(a: SimpleNamespace) -> LoginSettings | None:
    """The player logins' settings: all three of issuer, audience and JWKS, or none."""
    given = {"--oidc-issuer": a.oidc_issuer, "--oidc-audience": a.oidc_audience,
             "--oidc-jwks": a.oidc_jwks}  # fmt: skip
    if not any(given.values()):
        return None
    missing = [flag for flag, value in given.items() if not value]
    if missing:
        print(
            f"{PROG}: player logins need --oidc-issuer, --oidc-audience and --oidc-jwks; "
            f"missing {', '.join(missing)}",
            file=sys.stderr,
        )
        raise SystemExit(2)
    return LoginSettings(
        a.oidc_issuer, a.oidc_audience, a.oidc_jwks, a.oidc_leeway, a.oidc_jwks_cooldown
    )
