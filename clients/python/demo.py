"""`make demo`: four steady bots play a 花鸟风月 game over gRPC -- `tabletop play`'s default
table, 专业 with 阳春白雪 (docs/rules/huaniao.md, "Short games"); seat 0's stream
scrolls by, then a summary panel: winner, scores, moves, game id, and the commands to replay,
open the HTML page and verify it.

Uses the server at --target (or TABLETOP_TARGET) if one answers there, otherwise starts its
own on a free port.
"""

from __future__ import annotations

import argparse
import os
import random
import threading

from rich.console import Console

from clients.python.audit_verify import verify_game
from clients.python.bot import make_bot, play_by_streams
from clients.python.clibase import DEFAULT_TARGET
from clients.python.client import TableClient, reveal_and_start
from clients.python.play import DEFAULT_BOT, DEFAULT_MODE, Tokens, game_options, summary_panel
from clients.python.render import event_text
from clients.python.seat import SeatClient
from clients.python.serverproc import ServerProcess, is_serving

console = Console(highlight=False)
TABLE = "专业 mode with 阳春白雪"  # what game_options makes of DEFAULT_MODE


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument(
        "--target",
        default=os.environ.get("TABLETOP_TARGET", DEFAULT_TARGET),
        help="server address (env TABLETOP_TARGET)",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=None,
        help="reproduce a game: a seeded table is a prepared deal (marked as chosen by its "
        "creator; the server must allow prepared deals). Default: a deal nobody can choose",
    )
    p.add_argument(
        "--bot",
        choices=["steady", "heuristic", "random"],
        default=DEFAULT_BOT,
        help="the bots' policy",
    )
    args = p.parse_args(argv)

    own = None
    target = args.target
    if not is_serving(target):
        console.print(f"no server at {target}; starting one")
        own = ServerProcess(extra=["--allow-prepared-deals"] if args.seed is not None else [])
        own.start()
        target = own.target
    try:
        run(target, args.seed, args.bot, server_stays=own is None)
    finally:
        if own is not None:
            own.cleanup()


def run(
    target: str, seed: int | None = None, bot: str = DEFAULT_BOT, server_stays: bool = True
) -> None:
    """One game. With ``seed`` the table is seeded and nobody contributes, so the seed
    reproduces the deal (a prepared deal, marked); without, every seat commits and reveals."""
    with TableClient(target) as client:
        created = client.create_game(game_options("huaniao", DEFAULT_MODE), seat_count=4, seed=seed)
        game_id = created.game_id
        if seed is None:
            console.print(f"game {game_id} ({TABLE}, {bot} bots, a deal nobody chose)")
        else:
            console.print(f"game {game_id} ({TABLE}, seed {seed}: a prepared deal, {bot} bots)")
        contribution = None if seed is None else ""  # a seeded demo reproduces its deal
        seats = [client.join(game_id, s, f"bot-{s}", contribution) for s in range(4)]
        tokens = Tokens(
            target, game_id, created.arbiter_token, {s.seat or 0: s.credential for s in seats}
        )
        watcher = threading.Thread(target=_print_stream, args=(seats[0],), daemon=True)
        watcher.start()
        reveal_and_start(seats)
        bot_seed = seed if seed is not None else random.randrange(1 << 30)
        play_by_streams([make_bot(s, bot, bot_seed + i) for i, s in enumerate(seats)])
        watcher.join(timeout=30)
        final = client.as_viewer(game_id).view()
        verified = verify_game(client, game_id)  # against the server's signing key
    # One count of moves for the whole panel: the verifier's, from the stored causes.
    console.print(
        summary_panel(
            final,
            tokens,
            moves=verified.moves,
            verified=verified.line().removeprefix("verified: "),
            target=target if target != DEFAULT_TARGET else None,
        ),
        crop=False,  # the commands stay one line each, to copy as printed
    )
    if not server_stays:
        console.print(
            "(the demo's own server stops now; `make run` first to keep games for replay)"
        )


def _print_stream(seat: SeatClient) -> None:
    console.print("--- seat 0's live stream ---")
    for event in seat.watch():
        console.print(event_text(event))
    console.print("--- stream ended ---")


if __name__ == "__main__":
    main()
