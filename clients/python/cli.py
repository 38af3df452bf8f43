"""`tabletop`: play, run bots, watch, inspect, export and replay games from a terminal.

  tabletop bots   [--kind huaniao|zipai] [--mode basic] [--seats 4] [--games N]
  tabletop play   [--mode basic]                 a person at seat 0 against three bots
  tabletop watch  GAME_ID [--token T] [--after N]
  tabletop view   GAME_ID [--token T] [--version N]
  tabletop history GAME_ID [--token T]
  tabletop export GAME_ID [--token T] [-o FILE]   events as JSON lines, then the final view
  tabletop replay GAME_ID [--token T] [--version N] [--all]
  tabletop health

Add --json (before the command) for machine-readable output: one JSON document, or JSON
lines for streams and exports; progress bars go to stderr and never mix with it.
A token (seat or arbiter) shows what that seat may see; without one you are a spectator.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from typing import Any

import grpc
from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc
from rich import box
from rich.console import Console, Group
from rich.panel import Panel
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table
from rich.text import Text

from clients.python.bot import RandomBot, play_to_end
from clients.python.client import SeatClient, TableClient, reveal_and_start
from clients.python.text import card_name, cards_by_id
from domain import table as tables
from domain.table.deal import DealSource
from tabletop.huaniao.v1 import huaniao_pb2
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.zipai.v1 import zipai_pb2

console = Console(highlight=False)
errors = Console(stderr=True, highlight=False)

# --- cards in colour ------------------------------------------------------------------------

HUANIAO_STYLES = {
    "鸟": "bold green",
    "十": "yellow",
    "百": "yellow",
    "千": "dark_orange",
    "万": "dark_orange",
    "花": "bold magenta",
    "风": "bold cyan",
    "月": "bold blue",
}
ZIPAI_SMALL = "一二三四五六七八九十"
ZIPAI_BIG = "壹贰叁肆伍陆柒捌玖拾"
ZIPAI_RED = set("二七十贰柒拾")  # 大贰: 二七十 are the red cards
CJK = "\u4e00-\u9fff"
# A card name stands alone (between spaces, '+', brackets), never inside a word or a verse.
HUANIAO_CARD = re.compile(rf"(?<![{CJK}])[鸟十百千万花风月](?![{CJK}])")
ZIPAI_CARDS = re.compile(rf"(?<![{CJK}])[{ZIPAI_SMALL}{ZIPAI_BIG}]+(?![{CJK}])")


def card_style(name: str) -> str:
    if name in HUANIAO_STYLES:
        return HUANIAO_STYLES[name]
    if name in ZIPAI_SMALL or name in ZIPAI_BIG:
        colour = "red" if name in ZIPAI_RED else "white"
        return f"bold {colour}" if name in ZIPAI_BIG else colour
    return ""


def card_text(cards: Iterable[Message], sep: str = " ") -> Text:
    out = Text()
    for i, card in enumerate(cards):
        if i:
            out.append(sep)
        name = card_name(card)
        out.append(name, style=card_style(name))
    return out


def coloured(line: str, kind: str | None) -> Text:
    """A server text line with its card names coloured (the game kind picks the alphabet)."""
    text = Text(line)
    pattern = {"huaniao": HUANIAO_CARD, "zipai": ZIPAI_CARDS}.get(kind or "")
    if pattern is not None:
        for match in pattern.finditer(line):
            for i in range(match.start(), match.end()):
                text.stylize(card_style(line[i]), i, i + 1)
    return text


def event_text(event: pb.GameEvent) -> Text:
    line = Text(f"v{event.version:>4}  ", style="dim")
    return line + coloured(event.text, event.WhichOneof("body"))


# --- generic rendering of any game's messages ------------------------------------------------


def _enum_name(field: Any, number: int) -> str:
    value = field.enum_type.values_by_number.get(number)
    if value is None:
        return str(number)
    prefix = re.sub(r"(?<!^)(?=[A-Z])", "_", field.enum_type.name).upper() + "_"
    return value.name.removeprefix(prefix).lower()


def value_text(field: Any, value: Any) -> Text:
    """One field's value, compact: cards by coloured name, enums by short name."""
    if field.message_type is not None:
        items = list(value) if field.is_repeated else [value]
        if field.message_type.name == "Card":
            return card_text(items)
        return Text("\n").join(message_text(m) for m in items)
    if field.enum_type is not None:
        items = list(value) if field.is_repeated else [value]
        return Text(", ".join(_enum_name(field, v) for v in items))
    if field.is_repeated:
        return Text(", ".join(str(v) for v in value))
    if isinstance(value, bool):
        return Text("yes" if value else "no")
    return Text(str(value))


def message_text(msg: Message) -> Text:
    """A nested message on one line: enums and a `cards` list bare, other fields as name=value."""
    out = Text()
    for i, (field, value) in enumerate(msg.ListFields()):
        if i:
            out.append(" ")
        bare = field.enum_type is not None or field.name == "cards"
        if not bare:
            out.append(f"{field.name}=", style="dim")
        out.append_text(value_text(field, value))
    return out


def view_renderable(view: pb.GameView) -> Group:
    """A game view as a header, a seats table and the rest of the game's view."""
    which = view.WhichOneof("game")
    game = getattr(view, which) if which else None
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold")
    head.add_column()
    head.add_row("game", view.game_id)
    head.add_row("version", str(view.version))
    phase = pb.GamePhase.Name(view.phase).removeprefix("GAME_PHASE_").lower()
    head.add_row("phase", phase)
    role = pb.Role.Name(view.role).removeprefix("ROLE_").lower()
    head.add_row("as", role + (f" {view.seat}" if view.HasField("seat") else ""))
    if view.deal_source not in (pb.DEAL_SOURCE_SHUFFLED, pb.DEAL_SOURCE_UNSPECIFIED):
        head.add_row("deal", Text(prepared_marking(view.deal_source), style="bold red"))
    if view.to_act:
        head.add_row("to act", ", ".join(f"seat {s}" for s in view.to_act))
    if view.HasField("outcome"):
        o = view.outcome
        head.add_row(
            "outcome",
            Text(f"winners {list(o.winners)}  scores {list(o.scores)}  {o.reason}", style="bold"),
        )
    parts: list[Any] = [head]

    game_seats = {}
    if game is not None and "seats" in game.DESCRIPTOR.fields_by_name:
        game_seats = {s.seat: s for s in game.seats}
    seat_fields: list[Any] = []
    for s in game_seats.values():
        for f, _ in s.ListFields():
            if f.name != "seat" and f not in seat_fields:
                seat_fields.append(f)
    seats = Table(box=box.SIMPLE_HEAVY, title="seats", title_justify="left")
    seats.add_column("seat", justify="right")
    seats.add_column("player")
    for f in seat_fields:
        seats.add_column(f.name.replace("_", " "))
    for info in view.seats:
        row: list[Any] = [str(info.seat), info.player_name if info.taken else "(free)"]
        gs = game_seats.get(info.seat)
        for f in seat_fields:
            shown = gs is not None and (not f.has_presence or gs.HasField(f.name))
            row.append(value_text(f, getattr(gs, f.name)) if shown else "")
        style = "bold" if info.seat in view.to_act else None
        seats.add_row(*row, style=style)
    parts.append(seats)

    if game is not None:
        rest = Table(box=box.SIMPLE, show_header=False, title=which, title_justify="left")
        rest.add_column(style="bold")
        rest.add_column()
        for field, value in game.ListFields():
            if field.name in ("seats", "options"):
                continue
            rest.add_row(field.name.replace("_", " "), value_text(field, value))
        parts.append(rest)
    return Group(*parts)


def move_text(move: pb.Move, names: dict[int, str]) -> Text:
    """A move as its kind and fields, card ids shown as coloured names."""
    which = move.WhichOneof("game")
    command = getattr(move, which) if which else move
    kind = command.WhichOneof("kind") if "kind" in command.DESCRIPTOR.oneofs_by_name else None
    body = getattr(command, kind) if kind else command
    out = Text(kind or "move", style="bold")
    for field, value in body.ListFields():
        if field.name == "seat":
            continue
        out.append(f"  {field.name}=", style="dim")
        if field.name in ("cards", "card") and field.message_type is None:
            ids = list(value) if field.is_repeated else [value]
            for i, card_id in enumerate(ids):
                name = names.get(card_id, f"#{card_id}")
                out.append(("+" if i else "") + name, style=card_style(name))
        else:
            out.append_text(value_text(field, value))
    return out


# --- output helpers -------------------------------------------------------------------------


def as_dict(msg: Message) -> dict[str, Any]:
    return MessageToDict(msg, preserving_proto_field_name=True)


def emit_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def progress(args: argparse.Namespace) -> Progress:
    """A progress bar on stderr (hidden when stderr is not a terminal, e.g. in scripts)."""
    return Progress(
        SpinnerColumn(),
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=errors,
        transient=True,
        disable=args.quiet,
    )


def paged_history(viewer: SeatClient, bar: Progress, label: str) -> Iterator[pb.GameEvent]:
    """Every event this viewer may see, advancing a progress bar page by page."""
    total = viewer.view().version
    task = bar.add_task(label, total=total)
    for event in viewer.history(page_size=500):
        bar.update(task, completed=event.version)
        yield event
    bar.update(task, completed=total)


# --- commands -------------------------------------------------------------------------------


SEED_HELP = (
    "a seeded table: a prepared deal, marked as chosen by its creator, and refused unless "
    "the server runs with --allow-prepared-deals (default: the server's secret and every "
    "seat's contribution deal it)"
)


def prepared_marking(source: int) -> str:
    """The words every surface shows for a prepared deal, for a GameView.deal_source."""
    return tables.prepared_marking(DealSource[pb.DealSource.Name(source)[len("DEAL_SOURCE_") :]])


def game_options(kind: str, mode: str) -> pb.GameOptions:
    if kind == "huaniao":
        return pb.GameOptions(
            huaniao=huaniao_pb2.Options(mode=huaniao_pb2.Mode.Value(f"MODE_{mode.upper()}"))
        )
    if kind == "zipai":
        return pb.GameOptions(
            zipai=zipai_pb2.Options(
                variant=zipai_pb2.VARIANT_LUZHOU,
                dealer_rule=zipai_pb2.DEALER_RULE_WINNER,
                scoring=zipai_pb2.SCORING_PROFILE_LUZHOU,
            )
        )
    raise SystemExit(f"unknown kind {kind}")


def cmd_bots(args: argparse.Namespace) -> None:
    """N games of random bots, with a progress bar and a summary table."""
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    results = []
    started = time.perf_counter()
    with TableClient(args.target) as client, progress(args) as bar:
        task = bar.add_task(f"{args.kind} games", total=args.games)
        for n in range(args.games):
            t0 = time.perf_counter()
            # only an explicit --seed makes a (prepared, marked) seeded table: never a guessable one
            deal_seed = args.seed + n if args.seed is not None else None
            created = client.create_game(
                game_options(args.kind, args.mode), args.seats, seed=deal_seed
            )
            seats = [client.join(created.game_id, s, f"bot-{s}") for s in range(args.seats)]
            reveal_and_start(seats)
            moves = play_to_end([RandomBot(s, seed + n * 31 + i) for i, s in enumerate(seats)])
            view = client.as_viewer(created.game_id).view()
            results.append(
                {
                    "game_id": created.game_id,
                    "seed": deal_seed,
                    "moves": moves,
                    "version": view.version,
                    "winners": list(view.outcome.winners),
                    "scores": list(view.outcome.scores),
                    "reason": view.outcome.reason,
                    "seconds": round(time.perf_counter() - t0, 3),
                }
            )
            bar.advance(task)
    elapsed = time.perf_counter() - started
    total_moves = sum(r["moves"] for r in results)
    summary = {
        "games": results,
        "seconds": round(elapsed, 3),
        "moves": total_moves,
        "moves_per_second": round(total_moves / elapsed, 1) if elapsed else None,
    }
    if args.json:
        emit_json(summary)
        return
    table = Table(title=f"{args.games} {args.kind} game(s)", box=box.SIMPLE_HEAVY)
    for col, justify in (
        ("game", "left"),  # a full id, to copy into `tabletop view`
        ("seed", "right"),
        ("moves", "right"),
        ("events", "right"),
        ("winners", "left"),
        ("reason", "left"),
        ("time", "right"),
    ):
        table.add_column(col, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    for r in results:
        table.add_row(
            r["game_id"],
            "-" if r["seed"] is None else str(r["seed"]),
            str(r["moves"]),
            str(r["version"]),
            Text(", ".join(f"seat {w}" for w in r["winners"]) or "-", style="bold green"),
            r["reason"],
            f"{r['seconds']:.2f}s",
        )
    console.print(table)
    console.print(
        f"{total_moves} moves in {elapsed:.2f}s ({summary['moves_per_second']} moves/s)",
        style="dim",
    )


def cmd_play(args: argparse.Namespace) -> None:
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    with TableClient(args.target) as client:
        created = client.create_game(game_options("huaniao", args.mode), 4, seed=args.seed)
        me, *others = [
            client.join(created.game_id, s, "you" if s == 0 else f"bot-{s}") for s in range(4)
        ]
        reveal_and_start([me, *others])
        bots = {b.seat.seat: b for b in (RandomBot(s, seed + i) for i, s in enumerate(others))}
        seen = 0
        while True:
            view = me.view()
            for event in me.history():
                if event.version > seen:
                    console.print(event_text(event))
                    seen = event.version
            if view.phase == pb.GAME_PHASE_FINISHED:
                console.print(Panel(view_renderable(view), title="game over"))
                return
            if 0 in view.to_act:
                console.print(Panel(view_renderable(view), title="your turn"))
                legal = me.legal_moves()
                names = cards_by_id(view)
                moves = Table(box=box.SIMPLE, show_header=False)
                moves.add_column(justify="right", style="bold")
                moves.add_column()
                for i, move in enumerate(legal.moves):
                    moves.add_row(str(i), move_text(move, names))
                console.print(moves)
                choice = _ask(len(legal.moves))
                try:
                    me.play(legal.moves[choice], legal.version)
                except grpc.RpcError as err:
                    console.print(f"[red]{err.code().name}: {err.details()}[/red]")
            else:
                for seat in view.to_act:
                    bots[seat].step()


def _ask(n: int) -> int:
    while True:
        raw = input("your move> ").strip()
        if raw.isdigit() and int(raw) < n:
            return int(raw)
        console.print(f"choose 0..{n - 1}")


def cmd_watch(args: argparse.Namespace) -> None:
    with TableClient(args.target) as client:
        for event in client.as_viewer(args.game_id, args.token).watch(args.after):
            if args.json:
                emit_json(as_dict(event))
            else:
                console.print(event_text(event))


def cmd_view(args: argparse.Namespace) -> None:
    with TableClient(args.target) as client:
        view = client.as_viewer(args.game_id, args.token).view(args.version)
        if args.json:
            emit_json(as_dict(view))
        else:
            console.print(view_renderable(view))


def cmd_history(args: argparse.Namespace) -> None:
    with TableClient(args.target) as client, progress(args) as bar:
        viewer = client.as_viewer(args.game_id, args.token)
        events = list(paged_history(viewer, bar, "reading history"))
    if args.json:
        emit_json([as_dict(e) for e in events])
        return
    table = Table(box=box.SIMPLE_HEAVY, title=f"game {args.game_id}")
    table.add_column("v", justify="right", style="dim")
    table.add_column("recorded", style="dim")
    table.add_column("event")
    for e in events:
        when = e.recorded_at.ToDatetime().strftime("%H:%M:%S.%f")[:-3]
        table.add_row(str(e.version), when, coloured(e.text, e.WhichOneof("body")))
    console.print(table)


def cmd_export(args: argparse.Namespace) -> None:
    """Events as JSON lines, then one line with the final view; to a file or stdout."""
    out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout  # noqa: SIM115
    count = 0
    try:
        with TableClient(args.target) as client, progress(args) as bar:
            viewer = client.as_viewer(args.game_id, args.token)
            for event in paged_history(viewer, bar, "exporting"):
                out.write(json.dumps({"event": as_dict(event)}, ensure_ascii=False) + "\n")
                count += 1
            out.write(json.dumps({"view": as_dict(viewer.view())}, ensure_ascii=False) + "\n")
    finally:
        if out is not sys.stdout:
            out.close()
    if args.output:
        errors.print(f"exported {count} events to {args.output}")


def cmd_replay(args: argparse.Namespace) -> None:
    """Step through a game version by version, each as this viewer could see it then.

    ``--all`` and ``--version`` stream the steps from the server's Replay RPC; without them
    it is interactive: enter for the next version, b for back, a number to jump.
    """
    with TableClient(args.target) as client:
        viewer = client.as_viewer(args.game_id, args.token)
        latest = viewer.view().version
        if args.all or args.version:
            first, last = (args.version, args.version) if args.version else (1, latest)
            if not 1 <= first <= latest:
                raise SystemExit(f"version must be 1..{latest}")
            with progress(args) as bar:
                task = bar.add_task("replaying", total=last - first + 1)
                steps = []
                for step in viewer.replay(first, last, as_seat=args.as_seat):
                    steps.append(step)
                    bar.advance(task)
            for step in steps:
                has_event = step.HasField("event")
                _replay_step(
                    args, step.view.version, latest, step.event if has_event else None, step.view
                )
            return
        with progress(args) as bar:
            events = {e.version: e for e in paged_history(viewer, bar, "loading history")}
        version = 1
        while 1 <= version <= latest:
            seen = viewer.view(version, as_seat=args.as_seat)
            _replay_step(args, version, latest, events.get(version), seen)
            step = input("[enter] next, [b] back, [q] quit, or a version> ").strip()
            if step == "q":
                return
            version = version - 1 if step == "b" else int(step) if step.isdigit() else version + 1


def _replay_step(
    args: argparse.Namespace,
    version: int,
    latest: int,
    event: pb.GameEvent | None,
    view: pb.GameView,
) -> None:
    if args.json:
        emit_json(
            {"version": version, "event": as_dict(event) if event else None, "view": as_dict(view)}
        )
        return
    console.rule(f"version {version} of {latest}")
    if event is not None:
        console.print(event_text(event))
    console.print(view_renderable(view))


def cmd_health(args: argparse.Namespace) -> None:
    with grpc.insecure_channel(args.target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        reply = stub.Check(health_pb2.HealthCheckRequest(service=args.service), timeout=5)
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
    if args.json:
        emit_json({"target": args.target, "service": args.service, "status": status})
    else:
        style = "bold green" if status == "SERVING" else "bold red"
        console.print(Text(f"{args.target} {args.service or '(server)'}: ") + Text(status, style))
    if status != "SERVING":
        sys.exit(1)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="tabletop", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument(
        "--target", default="127.0.0.1:50051", help="server address (default %(default)s)"
    )
    p.add_argument("--json", action="store_true", help="machine-readable JSON output")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bars")
    p.add_argument("--no-color", action="store_true", help="plain text, no colours")
    # The output flags also work after the command (`tabletop view ID --json`).
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="JSON output"
    )
    common.add_argument(
        "--quiet", "-q", action="store_true", default=argparse.SUPPRESS, help="no progress bars"
    )
    common.add_argument(
        "--no-color", action="store_true", default=argparse.SUPPRESS, help="no colours"
    )
    sub = p.add_subparsers(dest="command", required=True)
    add = sub.add_parser

    def add_parser(name: str, **kw: Any) -> argparse.ArgumentParser:
        return add(name, parents=[common], **kw)

    sub.add_parser = add_parser  # type: ignore[method-assign]

    def game_arg(sp: argparse.ArgumentParser, what: str) -> None:
        sp.add_argument("game_id")
        sp.add_argument("--token", help=f"seat or arbiter token; none {what} as a spectator")

    b = sub.add_parser("bots", help="random bots play one or more games")
    b.add_argument("--kind", default="huaniao", choices=["huaniao", "zipai"])
    b.add_argument(
        "--mode", default="basic", help="huaniao mode: simple, basic, regular, full, pro"
    )
    b.add_argument("--seats", type=int, default=4)
    b.add_argument("--seed", type=int, help=SEED_HELP)
    b.add_argument("--games", type=int, default=1, help="how many games (default 1)")
    b.set_defaults(func=cmd_bots)
    pl = sub.add_parser("play", help="play 花鸟风月 at seat 0 against three bots")
    pl.add_argument("--mode", default="basic")
    pl.add_argument("--seed", type=int, help=SEED_HELP)
    pl.set_defaults(func=cmd_play)
    w = sub.add_parser("watch", help="stream a game's events as a seat or a spectator")
    game_arg(w, "watches")
    w.add_argument("--after", type=int, default=0, help="resume after this version")
    w.set_defaults(func=cmd_watch)
    v = sub.add_parser("view", help="show a game as a seat or a spectator sees it")
    game_arg(v, "views")
    v.add_argument("--version", type=int, help="a past version (default: the latest)")
    v.set_defaults(func=cmd_view)
    h = sub.add_parser("history", help="every event of a game in a table")
    game_arg(h, "reads")
    h.set_defaults(func=cmd_history)
    e = sub.add_parser("export", help="a game's events and final view as JSON lines")
    game_arg(e, "exports")
    e.add_argument("-o", "--output", help="write to this file (default stdout)")
    e.set_defaults(func=cmd_export)
    r = sub.add_parser("replay", help="step through a game version by version")
    game_arg(r, "replays")
    r.add_argument("--version", type=int, help="show this version only")
    r.add_argument("--all", action="store_true", help="print every version without pausing")
    r.add_argument(
        "--as-seat", type=int, help="with the arbiter token: exactly as this seat saw it"
    )
    r.set_defaults(func=cmd_replay)
    add_justice_commands(sub, game_arg)
    hc = sub.add_parser("health", help="ask the server's standard health service")
    hc.add_argument("--service", default="", help="a service name (default: the whole server)")
    hc.set_defaults(func=cmd_health)
    return p


VIOLATIONS = [n.removeprefix("VIOLATION_KIND_") for n in pb.ViolationKind.keys()[1:]]
PENALTIES = [n.removeprefix("PENALTY_KIND_") for n in pb.PenaltyKind.keys()[1:]]


def add_justice_commands(sub: Any, game_arg: Any) -> None:
    """误操作 undo, reports, votes, appeals and the arbiter's rulings (docs/api.md#justice)."""
    rt = sub.add_parser("retract", help="误操作: take back your last move (once per game)")
    game_arg(rt, "acts in")
    rt.add_argument("--phrase", default="風過無痕，月照無意", help="or 且慢 in simplified play")
    rt.set_defaults(
        func=cmd_table, build=lambda a: pb.TableCommand(retract=pb.Retract(phrase=a.phrase))
    )
    rp = sub.add_parser("report", help="report a violation; the game pauses for the vote")
    game_arg(rp, "acts in")
    rp.add_argument("--accused", type=int, required=True)
    rp.add_argument("--violation", choices=VIOLATIONS, required=True)
    rp.add_argument("--evidence", type=int, nargs="+", required=True, help="event versions")
    rp.add_argument("--penalty", choices=PENALTIES, help="the graded penalty (OTHER)")
    rp.add_argument("--count", type=int, default=0, help="cards for the penalty")
    rp.add_argument("--note", default="")
    rp.set_defaults(func=cmd_table, build=_report)
    for name, help_text in (
        ("vote", "vote on the open case"),
        ("rule", "the arbiter's ruling on the open case"),
    ):
        c = sub.add_parser(name, help=help_text)
        game_arg(c, "acts in")
        c.add_argument("--case", type=int, required=True, help="the case id (CaseView.id)")
        side = c.add_mutually_exclusive_group(required=True)
        side.add_argument("--uphold", action="store_true")
        side.add_argument("--reject", action="store_true")
        c.set_defaults(func=cmd_table, build=_vote if name == "vote" else _rule)
    ap = sub.add_parser("appeal", help="appeal a penalty you received, right after it")
    game_arg(ap, "acts in")
    ap.add_argument("--case", type=int, required=True)
    ap.add_argument("--reason", required=True)
    ap.set_defaults(
        func=cmd_table,
        build=lambda a: pb.TableCommand(appeal=pb.Appeal(case_id=a.case, reason=a.reason)),
    )
    rd = sub.add_parser("redeal", help="the arbiter: 重新洗牌发牌 after a deadlock")
    game_arg(rd, "acts in")
    rd.set_defaults(func=cmd_table, build=lambda a: pb.TableCommand(redeal=pb.Redeal()))


def _report(a: argparse.Namespace) -> pb.TableCommand:
    report = pb.Report(
        accused=a.accused,
        violation=pb.ViolationKind.Value(f"VIOLATION_KIND_{a.violation}"),
        evidence=a.evidence,
        note=a.note,
    )
    if a.penalty:
        report.penalty.kind = pb.PenaltyKind.Value(f"PENALTY_KIND_{a.penalty}")
        report.penalty.count = a.count
    return pb.TableCommand(report=report)


def _vote(a: argparse.Namespace) -> pb.TableCommand:
    return pb.TableCommand(cast_vote=pb.CastVote(case_id=a.case, uphold=a.uphold))


def _rule(a: argparse.Namespace) -> pb.TableCommand:
    return pb.TableCommand(rule=pb.Rule(case_id=a.case, uphold=a.uphold))


def cmd_table(args: argparse.Namespace) -> None:
    """Send one table command against the game's current version; print what it caused."""
    with TableClient(args.target) as client:
        actor = client.as_viewer(args.game_id, args.token)
        version = actor.view().version
        reply = actor.play(pb.Move(table=args.build(args)), version)
        if args.json:
            emit_json([as_dict(e) for e in reply.events])
        else:
            for event in reply.events:
                console.print(f"v{event.version:>4}  {event.text}")


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    if args.no_color:
        console.no_color = True
        errors.no_color = True
    try:
        args.func(args)
    except grpc.RpcError as err:
        if args.json:
            emit_json({"error": err.code().name, "message": err.details()})
        else:
            errors.print(f"[red]{err.code().name}: {err.details()}[/red]")
        sys.exit(1)
    except (KeyboardInterrupt, EOFError):
        sys.exit(130)


if __name__ == "__main__":
    threading.current_thread().name = "tabletop"
    main()
