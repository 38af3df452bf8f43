"""Reading a game: `tabletop watch`, `view`, `history`, `export`, `replay` and `health`."""

from __future__ import annotations

import json
import sys

import click
import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from rich import box
from rich.table import Table
from rich.text import Text

from clients.python import replay as replaying
from clients.python import replay_html
from clients.python.cli_common import (
    as_dict,
    client,
    colours,
    command,
    console,
    errors,
    game_argument,
    paged_history,
    progress,
)
from clients.python.clibase import CliError, emit_json, option, shared
from clients.python.client import TableClient
from clients.python.render import (
    Narration,
    event_body,
    event_text,
    match_line,
    outcome_line,
    standings_table,
    view_renderable,
)
from tabletop.v1 import tabletop_pb2 as pb


@command("watch")
@game_argument
@option("--after", type=click.IntRange(0), default=0, help="resume after this version")
@option(
    "--retries", type=click.IntRange(0), default=20, help="reconnection attempts before giving up"
)
@option(
    "--follow-match",
    is_flag=True,
    help="in a match, go on into the next hands until the match ends (standings between hands)",
)
def cmd_watch(
    game_id: str, token: str | None, after: int, retries: int, follow_match: bool
) -> None:
    """Stream a game's events as a seat or a spectator; says when it reconnects and resumes."""
    colours()

    def retrying(err: grpc.RpcError, attempt: int, last: int) -> None:
        errors.print(
            f"[yellow]connection lost ({err.code().name}); reconnecting, attempt {attempt} of "
            f"{retries}, last version seen {last}[/yellow]"
        )

    def resumed(last: int) -> None:
        errors.print(f"[green]reconnected: resuming after version {last}[/green]")

    with client() as c:
        viewer = c.as_viewer(game_id, token)
        if follow_match:
            for reply in viewer.watch_match(after, retries=retries, on_retry=retrying):
                show_watched(reply)
            return
        narration = Narration()
        narration.learn(viewer.view().options)  # --after may start past the table's opening
        for event in viewer.watch(after, retries=retries, on_retry=retrying, on_resume=resumed):
            if shared().json:
                emit_json(as_dict(event))
            else:
                console.print(narration.line(event))
        if not shared().json:  # the stream ends with the game: say how it ended
            end = viewer.view()
            console.print(Text("game over: ", "bold") + Text(outcome_line(end)))


def show_watched(reply: pb.WatchResponse) -> None:
    """One reply of a watch across a match: an event, or the standings between two hands."""
    if shared().json:
        emit_json(as_dict(reply))
        return
    if not reply.HasField("next_hand"):
        console.print(event_text(reply.event))
        return
    nxt = reply.next_hand
    console.print(standings_table(nxt.match))
    if nxt.game_id:
        console.print(Text(f"hand {nxt.hand}: game {nxt.game_id}", "bold"))
    else:
        console.print(Text(match_line(nxt.match), "bold"))


@command("view")
@game_argument
@option("--version", type=click.IntRange(1), help="a past version [default: the latest]")
@option(
    "--as-seat",
    type=click.IntRange(0),
    help="exactly as this seat saw it (the arbiter token before the end; anyone after it)",
)
def cmd_view(game_id: str, token: str | None, version: int | None, as_seat: int | None) -> None:
    """Show a game as a seat, a spectator or the arbiter sees it."""
    colours()
    with client() as c:
        view = c.as_viewer(game_id, token).view(version, as_seat=as_seat)
    if shared().json:
        emit_json(as_dict(view))
    else:
        console.print(view_renderable(view))


@command("history")
@game_argument
def cmd_history(game_id: str, token: str | None) -> None:
    """Every event of a game in a table."""
    colours()
    with client() as c, progress() as bar:
        events = list(paged_history(c.as_viewer(game_id, token), bar, "reading history"))
    if shared().json:
        emit_json([as_dict(e) for e in events])
        return
    table = Table(box=box.SIMPLE_HEAVY, title=f"game {game_id}")
    table.add_column("v", justify="right", style="dim")
    table.add_column("recorded", style="dim")
    table.add_column("event")
    kind = None
    for e in events:
        kind = kind or (
            e.table.game_created.options.WhichOneof("game")
            if e.table.HasField("game_created")
            else None
        )
        when = e.recorded_at.ToDatetime().strftime("%H:%M:%S.%f")[:-3]
        table.add_row(str(e.version), when, event_body(e, kind))
    console.print(table)


@command("export")
@game_argument
@option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, writable=True),
    help="write to this file [default: stdout]",
)
def cmd_export(game_id: str, token: str | None, output: str | None) -> None:
    """A game's events as JSON lines, then one line with the final view.

    `tabletop-audit verify --file` reads this file too (once the game has ended).
    """
    out = open(output, "w", encoding="utf-8") if output else sys.stdout  # noqa: SIM115
    count = 0
    try:
        with client() as c, progress() as bar:
            viewer = c.as_viewer(game_id, token)
            for event in paged_history(viewer, bar, "exporting"):
                out.write(json.dumps({"event": as_dict(event)}, ensure_ascii=False) + "\n")
                count += 1
            out.write(json.dumps({"view": as_dict(viewer.view())}, ensure_ascii=False) + "\n")
    finally:
        if out is not sys.stdout:
            out.close()
    if output:
        errors.print(f"exported {count} events to {output}")


@command("replay")
@game_argument
@option(
    "--from",
    "start",
    type=int,
    envvar="TABLETOP_REPLAY_FROM",
    help="the first version to show [default: 1]",
)
@option(
    "--to",
    "end",
    type=int,
    envvar="TABLETOP_REPLAY_TO",
    help="the last version to show [default: the latest]",
)
@option("--version", type=int, help="show this version only (same as --from N --to N)")
@option(
    "--all",
    "show_all",
    is_flag=True,
    envvar="TABLETOP_REPLAY_ALL",
    help="print every version without pausing",
)
@option("--full", is_flag=True, help="the full state at each version, not only what changed")
@option(
    "--as-seat",
    type=click.IntRange(0),
    help="exactly as this seat saw it (the arbiter token before the end; anyone after it)",
)
@option(
    "--html",
    "html",
    type=click.Path(dir_okay=False, writable=True),
    help="write a self-contained HTML replay page to this file",
)
def cmd_replay(
    game_id: str,
    token: str | None,
    start: int | None,
    end: int | None,
    version: int | None,
    show_all: bool,
    full: bool,
    as_seat: int | None,
    html: str | None,
) -> None:
    """Step through a game version by version, each as this viewer could see it then.

    By default each step shows the event and what it changed; --full shows the whole state.
    With --all, --version or --from/--to (or when stdin is not a terminal) the steps are
    printed; otherwise it is interactive (enter next, b back, a number jumps, f full state,
    q quit, ? keys).
    """
    colours()
    if version is not None:
        start = end = version
    with client() as c:
        viewer = c.as_viewer(game_id, token)
        if html:
            write_html(c, game_id, token, as_seat, html)
            return
        latest = viewer.view().version
        try:
            names = ("--version", "--version") if version is not None else ("--from", "--to")
            r = replaying.check_range(latest, start, end, names)
        except ValueError as exc:
            raise CliError(str(exc)) from None
        if r.note:
            errors.print(r.note)
        if not (show_all or start is not None or end is not None) and sys.stdin.isatty():
            replaying.interactive(console, viewer, r, as_seat, full)
            return
        with progress() as bar:
            task = bar.add_task("replaying", total=r.last - r.first + 1)
            steps = []
            for step in replaying.steps(viewer, r, as_seat):
                steps.append(step)
                bar.advance(task)
        if shared().json:
            for step in steps:
                emit_json(
                    {
                        "version": step.view.version,
                        "event": as_dict(step.event) if step.HasField("event") else None,
                        "view": as_dict(step.view),
                    }
                )
            return
        before = None if full else replaying.before_first(viewer, r.first, as_seat)
        for step in steps:
            replaying.print_step(console, step, before, latest, full)
            before = step.view


def write_html(
    c: TableClient, game_id: str, token: str | None, as_seat: int | None, path: str
) -> None:
    """--html: the referee's page (clients/python/replay_html.py)."""
    errors.print(replay_html.write(c, game_id, token, as_seat, path))


@command("health")
@option("--service", default="", help="a service name [default: the whole server]")
def cmd_health(service: str) -> None:
    """Ask the server's standard health service."""
    colours()
    target = shared().target
    with grpc.insecure_channel(target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
    if shared().json:
        emit_json({"target": target, "service": service, "status": status})
    else:
        style = "bold green" if status == "SERVING" else "bold red"
        console.print(Text(f"{target} {service or '(server)'}: ") + Text(status, style))
    if status != "SERVING":
        sys.exit(1)
