"""What the commands of `tabletop` share: the consoles, the progress bar, the client of
--target, a game's argument and --token, a match's options, and the `command` decorator.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import click
from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)

from clients.python import play as playing
from clients.python.clibase import CliError, option, shared, shared_options
from clients.python.client import TableClient
from clients.python.seat import SeatClient
from tabletop.v1 import tabletop_pb2 as pb

console = Console(highlight=False)
errors = Console(stderr=True, highlight=False)

KINDS = click.Choice(["huaniao", "zipai"])
BOTS = click.Choice(["heuristic", "steady", "random"])
MODES = click.Choice(list(playing.HUANIAO_MODES))


def as_dict(msg: Message) -> dict[str, Any]:
    return MessageToDict(msg, preserving_proto_field_name=True)


def progress() -> Progress:
    """A progress bar on stderr (hidden with --quiet and when stderr is not a terminal)."""
    return Progress(
        SpinnerColumn(),
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=errors,
        transient=True,
        disable=shared().quiet,
    )


def paged_history(viewer: SeatClient, bar: Progress, label: str) -> Iterator[pb.GameEvent]:
    """Every event this viewer may see, advancing a progress bar page by page."""
    total = viewer.view().version
    task = bar.add_task(label, total=total)
    for event in viewer.history(page_size=500):
        bar.update(task, completed=event.version)
        yield event
    bar.update(task, completed=total)


def client() -> TableClient:
    return TableClient(shared().target)


def game_argument(f: Any) -> Any:
    f = option(
        "--token",
        envvar="TABLETOP_TOKEN",
        help="a seat or arbiter credential (TOKEN:KEYHEX signs its commands, as a keyed seat "
        "or arbiter must); without one you act as a spectator",
    )(f)
    return click.argument("game_id")(f)


def seat_count(kind: str, seats: int | None) -> int:
    return seats if seats is not None else (4 if kind == "huaniao" else 3)


def match_options(f: Any) -> Any:
    """--hands, --target-score and --ready: play a match of hands at one table."""
    f = option(
        "--ready",
        is_flag=True,
        help="deal each next hand once every seat is ready [default: by itself]",
    )(f)
    f = option(
        "--target-score",
        type=click.IntRange(0),
        default=0,
        help="end the match after the hand in which a seat's total reaches this",
    )(f)
    return option(
        "--hands",
        type=click.IntRange(0, 64),
        default=0,
        help="play a match of this many hands at the table (0: one hand, no match)",
    )(f)


def match_settings(hands: int, target_score: int, ready: bool) -> pb.MatchSettings | None:
    if not hands and not target_score:
        if ready:
            raise CliError("--ready is for a match: give --hands or --target-score")
        return None
    advance = pb.HAND_ADVANCE_READY if ready else pb.HAND_ADVANCE_AUTO
    return pb.MatchSettings(hands=hands, target_score=target_score, advance=advance)


def command(name: str, **kwargs: Any) -> Any:
    """A subcommand of `tabletop` that also takes the shared options (cli.py adds it to
    the group)."""

    def wrap(f: Any) -> Any:
        return click.command(name, **kwargs)(shared_options(f))

    return wrap


def colours() -> None:
    if shared().no_color:
        console.no_color = errors.no_color = True


SEED_HELP = (
    "a seeded table, dealt the same every time (nobody contributes): a prepared deal, marked "
    "as chosen by its creator and refused unless the server allows prepared deals "
    "(TABLETOP_ALLOW_PREPARED_DEALS) [default: the server's secret and every seat's "
    "contribution deal it, so nobody chooses it]"
)
