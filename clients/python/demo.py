"""`make demo`: four bots play a 基本-mode 花鸟风月 game over gRPC; seat 0's stream scrolls by.

Uses the server at --target if one answers there, otherwise starts its own on a free port.
"""

from __future__ import annotations

import argparse
import random
import threading

from clients.python.audit import export_lines, verify_lines
from clients.python.bot import RandomBot, play_to_end
from clients.python.client import TableClient, reveal_and_start
from clients.python.serverproc import ServerProcess, is_serving
from clients.python.text import event_line, view_text
from tabletop.huaniao.v1 import huaniao_pb2
from tabletop.v1 import tabletop_pb2 as pb


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--target", default="127.0.0.1:50051", help="server address")
    p.add_argument(
        "--seed",
        type=int,
        default=None,
        help="reproduce a game: a seeded table is a prepared deal (marked as chosen by its "
        "creator; the server must allow prepared deals). Default: a table nobody can choose",
    )
    args = p.parse_args(argv)

    own = None
    target = args.target
    if not is_serving(target):
        print(f"no server at {target}; starting one")
        own = ServerProcess(extra=["--allow-prepared-deals"] if args.seed is not None else [])
        own.start()
        target = own.target
    try:
        run(target, args.seed, own is None)
    finally:
        if own is not None:
            own.cleanup()


def run(target: str, seed: int | None = None, server_stays: bool = True) -> None:
    """One game. With ``seed`` the table is seeded and nobody contributes, so the seed
    reproduces the deal (a prepared deal); without, every seat commits and reveals."""
    with TableClient(target) as client:
        options = pb.GameOptions(huaniao=huaniao_pb2.Options(mode=huaniao_pb2.MODE_BASIC))
        created = client.create_game(options, seat_count=4, seed=seed)
        game_id = created.game_id
        if seed is None:
            print(f"game {game_id} (基本 mode; dealt from the server's secret and every seat's)")
        else:
            print(f"game {game_id} (基本 mode, seed {seed}: a prepared deal)")
        contribution = None if seed is None else ""  # a seeded demo reproduces its deal
        seats = [client.join(game_id, s, f"bot-{s}", contribution) for s in range(4)]
        watcher = threading.Thread(target=_print_stream, args=(seats[0],), daemon=True)
        watcher.start()
        reveal_and_start(seats)
        bot_seed = seed if seed is not None else random.randrange(1 << 30)
        moves = play_to_end([RandomBot(s, bot_seed + i) for i, s in enumerate(seats)])
        watcher.join(timeout=30)
        final = client.as_viewer(game_id).view()
        print()
        print(view_text(final))
        print(f"\n{moves} moves. winner(s): seat {', '.join(map(str, final.outcome.winners))}")
        print(f"game id: {game_id}")
        report = verify_lines(export_lines(client.as_viewer(game_id).history()))
        print(
            f"audit: verified {report.events} events, {report.moves_redecided} moves re-decided "
            "through the engine, the shuffle commitment and the hash chain"
            + (f"; {report.prepared_deal}" if report.prepared_deal else "")
        )
        if server_stays:
            print(f"step through it: .venv/bin/tabletop --target {target} replay {game_id}")
            print(f"verify it:       .venv/bin/tabletop-audit --target {target} verify {game_id}")
        else:
            print("(the demo's own server stops now; `make run` first to keep games for replay)")


def _print_stream(seat: object) -> None:
    print("--- seat 0's live stream ---")
    for event in seat.watch():  # type: ignore[attr-defined]
        print(event_line(event), flush=True)
    print("--- stream ended ---")


if __name__ == "__main__":
    main()
