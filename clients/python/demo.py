"""`make demo`: four bots play a 基本-mode 花鸟风月 game over gRPC; seat 0's stream scrolls by.

Uses the server at --target if one answers there, otherwise starts its own on a free port.
"""

from __future__ import annotations

import argparse
import random
import threading

from clients.python.audit import verify_game
from clients.python.bot import RandomBot, play_to_end
from clients.python.client import TableClient
from clients.python.serverproc import ServerProcess, is_serving
from clients.python.text import event_line, view_text
from tabletop.huaniao.v1 import huaniao_pb2
from tabletop.v1 import tabletop_pb2 as pb


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--target", default="127.0.0.1:50051", help="server address")
    p.add_argument("--seed", type=int, default=None, help="bot and deal seed")
    args = p.parse_args(argv)
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)

    own = None
    target = args.target
    if not is_serving(target):
        print(f"no server at {target}; starting one")
        own = ServerProcess().start()
        target = own.target
    try:
        run(target, seed, own is None)
    finally:
        if own is not None:
            own.cleanup()


def run(target: str, seed: int, server_stays: bool = True) -> None:
    with TableClient(target) as client:
        options = pb.GameOptions(huaniao=huaniao_pb2.Options(mode=huaniao_pb2.MODE_BASIC))
        created = client.create_game(options, seat_count=4, seed=seed)
        game_id = created.game_id
        print(f"game {game_id} (基本 mode, seed {seed})")
        # no contributions: the printed seed reproduces the deal
        seats = [client.join(game_id, s, f"bot-{s}", contribution="") for s in range(4)]
        watcher = threading.Thread(target=_print_stream, args=(seats[0],), daemon=True)
        watcher.start()
        seats[0].start()
        moves = play_to_end([RandomBot(s, seed + i) for i, s in enumerate(seats)])
        watcher.join(timeout=30)
        final = client.as_viewer(game_id).view()
        print()
        print(view_text(final))
        print(f"\n{moves} moves. winner(s): seat {', '.join(map(str, final.outcome.winners))}")
        print(f"game id: {game_id}")
        report = verify_game(client, game_id)
        print(
            f"audit: verified {report.events} events, {report.moves_redecided} moves re-decided "
            "through the engine, the shuffle commitment and the hash chain"
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
