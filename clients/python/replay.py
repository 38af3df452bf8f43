"""`tabletop replay` in the terminal: each version's event and what it changed (the full
state on request), version by version, as the viewer could see it then."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from rich.console import Console
from rich.text import Text

from clients.python.render import event_text, view_diff, view_renderable
from clients.python.seat import SeatClient
from tabletop.v1 import tabletop_pb2 as pb

KEYS_HELP = (
    "[enter]/n next, b back, a number jumps to that version, f full state, d changes only, "
    "q quit, ? this help"
)


@dataclass
class ReplayRange:
    first: int
    last: int
    latest: int
    note: str = ""  # said on stderr: e.g. --to past the end was cut to the last version


def check_range(
    latest: int, start: int | None, end: int | None, names: tuple[str, str] = ("--from", "--to")
) -> ReplayRange:
    """``--from``/``--to`` within 1..latest; a version past the end says so."""
    first = start if start is not None else 1
    last = end if end is not None else latest
    note = ""
    if names[1] == "--to" and last > latest >= first:
        note = f"--to {last} is past the end: showing up to version {latest}, the last"
        last = latest
    for name, v in zip(names, (first, last), strict=True):
        if v < 1:
            raise ValueError(f"{name} {v}: versions start at 1")
        if v > latest:
            raise ValueError(f"{name} {v} is past the end: this game has {latest} versions")
    if first > last:
        raise ValueError(f"--from {first} is after --to {last}")
    return ReplayRange(first, last, latest, note)


def print_step(
    console: Console,
    step: pb.ReplayResponse,
    before: pb.GameView | None,
    latest: int,
    full: bool,
) -> None:
    console.rule(f"version {step.view.version} of {latest}")
    if step.HasField("event"):
        console.print(event_text(step.event, step.view.WhichOneof("game")))
    if full:
        console.print(view_renderable(step.view))
    else:
        console.print(view_diff(before, step.view))


def steps(viewer: SeatClient, r: ReplayRange, as_seat: int | None) -> Iterator[pb.ReplayResponse]:
    yield from viewer.replay(r.first, r.last, as_seat=as_seat)


def before_first(viewer: SeatClient, first: int, as_seat: int | None) -> pb.GameView | None:
    """The view just before ``first`` (what the first diff is taken against)."""
    return viewer.view(first - 1, as_seat=as_seat) if first > 1 else None


def interactive(
    console: Console,
    viewer: SeatClient,
    r: ReplayRange,
    as_seat: int | None,
    full: bool,
    ask: Callable[[str], str] = input,
) -> None:
    """Step by keys; unknown keys are refused with the list of keys, never taken as 'next'."""
    views: dict[int, pb.GameView] = {}
    events: dict[int, pb.GameEvent] = {}

    def load(version: int) -> None:
        if version in views or version < 1:
            return
        lo = max(1, version - 1)
        for step in viewer.replay(lo, min(r.latest, version + 20), as_seat=as_seat):
            views[step.view.version] = step.view
            if step.HasField("event"):
                events[step.view.version] = step.event

    version = r.first
    while True:
        load(version)
        load(version - 1)
        step = pb.ReplayResponse(view=views[version])
        if version in events:
            step.event.CopyFrom(events[version])
        print_step(console, step, views.get(version - 1), r.latest, full)
        while True:
            key = ask("replay> ").strip().lower()
            if key in ("", "n"):
                if version >= r.latest:
                    console.print(f"that was the last version ({r.latest}); b goes back, q quits")
                    continue
                version += 1
            elif key == "b":
                if version <= 1:
                    console.print("this is version 1; there is nothing before it")
                    continue
                version -= 1
            elif key.isdigit():
                wanted = int(key)
                if not 1 <= wanted <= r.latest:
                    console.print(
                        Text(f"version {wanted} is past the end: this game has {r.latest} versions")
                        if wanted > r.latest
                        else Text("versions start at 1")
                    )
                    continue
                version = wanted
            elif key == "f":
                full = True
            elif key == "d":
                full = False
            elif key == "q":
                return
            elif key in ("?", "h", "help"):
                console.print(Text(KEYS_HELP))  # plain text: [enter] is no rich markup
                continue
            else:
                console.print(Text(f"unknown key {key!r}: {KEYS_HELP}"))
                continue
            break
