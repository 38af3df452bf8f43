"""`tabletop`: play, run bots, watch and replay games from a terminal.

tabletop bots  --kind huaniao --mode basic --seats 4
tabletop play  --mode basic                 a person at seat 0 against bots
tabletop watch GAME_ID [--token T]          a seat (with its token) or a spectator
tabletop replay GAME_ID [--token T] [--version N] [--all]
"""

from __future__ import annotations

import argparse
import random
import sys
import threading

import grpc
from rich.console import Console

from clients.python.bot import RandomBot, play_to_end
from clients.python.client import TableClient
from clients.python.text import cards_by_id, event_line, move_text, view_text
from tabletop.huaniao.v1 import huaniao_pb2
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.zipai.v1 import zipai_pb2

console = Console(highlight=False)


def game_options(kind: str, mode: str) -> pb.GameOptions:
    if kind == "huaniao":
        return pb.GameOptions(
            huaniao=huaniao_pb2.Options(mode=huaniao_pb2.Mode.Value(f"MODE_{mode.upper()}"))
        )
    if kind == "zipai":
        return pb.GameOptions(zipai=zipai_pb2.Options())
    raise SystemExit(f"unknown kind {kind}")


def cmd_bots(args: argparse.Namespace) -> None:
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    with TableClient(args.target) as client:
        created = client.create_game(game_options(args.kind, args.mode), args.seats, seed=seed)
        seats = [client.join(created.game_id, s, f"bot-{s}") for s in range(args.seats)]
        seats[0].start()
        moves = play_to_end([RandomBot(s, seed + i) for i, s in enumerate(seats)])
        view = client.as_viewer(created.game_id).view()
        console.print(
            f"game {created.game_id}: {moves} moves, winners {list(view.outcome.winners)}"
        )


def cmd_play(args: argparse.Namespace) -> None:
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    with TableClient(args.target) as client:
        created = client.create_game(game_options("huaniao", args.mode), 4, seed=seed)
        me, *others = [
            client.join(created.game_id, s, "you" if s == 0 else f"bot-{s}") for s in range(4)
        ]
        me.start()
        bots = {b.seat.seat: b for b in (RandomBot(s, seed + i) for i, s in enumerate(others))}
        seen = 0
        while True:
            view = me.view()
            for event in me.history():
                if event.version > seen:
                    console.print(event_line(event))
                    seen = event.version
            if view.phase == pb.GAME_PHASE_FINISHED:
                console.print(view_text(view))
                return
            if 0 in view.to_act:
                console.print(view_text(view))
                legal = me.legal_moves()
                names = cards_by_id(view)
                for i, move in enumerate(legal.moves):
                    console.print(f"  [bold]{i:>3}[/bold]  {move_text(move, names)}")
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
            console.print(event_line(event))


def cmd_replay(args: argparse.Namespace) -> None:
    """Step through a game version by version, each as this viewer could see it then."""
    with TableClient(args.target) as client:
        viewer = client.as_viewer(args.game_id, args.token)
        latest = viewer.view().version
        events = {e.version: e for e in viewer.history()}
        version = args.version or 1
        while 1 <= version <= latest:
            console.rule(f"version {version} of {latest}")
            if version in events:
                console.print(event_line(events[version]))
            console.print(view_text(viewer.view(version)))
            if args.all or args.version:
                if args.version:
                    return
                version += 1
                continue
            step = input("[enter] next, [b] back, [q] quit, or a version> ").strip()
            if step == "q":
                return
            version = version - 1 if step == "b" else int(step) if step.isdigit() else version + 1


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(
        prog="tabletop", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument(
        "--target", default="127.0.0.1:50051", help="server address (default %(default)s)"
    )
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser("bots", help="N random bots play a game")
    b.add_argument("--kind", default="huaniao", choices=["huaniao", "zipai"])
    b.add_argument(
        "--mode", default="basic", help="huaniao mode: simple, basic, regular, full, pro"
    )
    b.add_argument("--seats", type=int, default=4)
    b.add_argument("--seed", type=int)
    b.set_defaults(func=cmd_bots)
    pl = sub.add_parser("play", help="play 花鸟风月 at seat 0 against three bots")
    pl.add_argument("--mode", default="basic")
    pl.add_argument("--seed", type=int)
    pl.set_defaults(func=cmd_play)
    w = sub.add_parser("watch", help="stream a game's events as a seat or a spectator")
    w.add_argument("game_id")
    w.add_argument("--token", help="seat or arbiter token; none watches as a spectator")
    w.add_argument("--after", type=int, default=0, help="resume after this version")
    w.set_defaults(func=cmd_watch)
    r = sub.add_parser("replay", help="step through a game version by version")
    r.add_argument("game_id")
    r.add_argument("--token", help="seat or arbiter token; none replays as a spectator")
    r.add_argument("--version", type=int, help="show this version only")
    r.add_argument("--all", action="store_true", help="print every version without pausing")
    r.set_defaults(func=cmd_replay)
    args = p.parse_args(argv)
    try:
        args.func(args)
    except grpc.RpcError as err:
        console.print(f"[red]{err.code().name}: {err.details()}[/red]")
        sys.exit(1)
    except (KeyboardInterrupt, EOFError):
        sys.exit(130)


if __name__ == "__main__":
    threading.current_thread().name = "tabletop"
    main()
