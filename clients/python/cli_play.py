"""`tabletop play` (a person at one seat against bots) and a match's commands: `match`,
`ready`, and a deal's `commit` and `reveal`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click
import grpc
from rich import box
from rich.table import Table
from rich.text import Text

from clients.python import play as playing
from clients.python.cli_common import (
    BOTS,
    KINDS,
    MODES,
    SEED_HELP,
    as_dict,
    client,
    colours,
    command,
    console,
    game_argument,
    seat_count,
)
from clients.python.clibase import DEFAULT_TARGET, CliError, emit_json, option, shared
from clients.python.client import TableClient
from clients.python.render import id_column, match_line, standings_table
from clients.python.seat import NotAcknowledged
from clients.python.vocab import reason_words


@command("play")
@option(
    "--kind", type=KINDS, default="huaniao", help="the game: 花鸟风月 (huaniao) or 川南字牌 (zipai)"
)
@option(
    "--mode",
    type=MODES,
    default=playing.DEFAULT_MODE,
    help="花鸟风月 mode (pro: 专业 with 阳春白雪, where a game lasts a few rounds)",
)
@option("--seats", type=click.IntRange(2, 4), help="seats at the table [default: 4, zipai 3]")
@option("--seat", type=click.IntRange(0, 3), default=0, help="your seat")
@option(
    "--bot",
    type=BOTS,
    default=playing.DEFAULT_BOT,
    help="the other seats' policy (steady: never sheds most of its hand unless it goes out; "
    "heuristic: the benchmarks' bot; random: the old bot)",
)
@option("--seed", type=int, help=SEED_HELP)
@option("--name", help="your name at the table, in the game's record [default: no name]")
@option(
    "--tokens-file",
    type=click.Path(dir_okay=False, writable=True),
    default=lambda: str(playing.resume_file()),
    show_default="$XDG_STATE_HOME/tabletop/play.json, else ~/.local/state/tabletop/play.json",
    help="where play keeps the game's tokens (mode 0600), and where --resume reads them",
)
@option("--resume", is_flag=True, help="come back to the game in --tokens-file (after Ctrl-C)")
@option("--game", help="the game of --token (with --token)")
@option("--token", help="play the seat of this token (a seat token of `tabletop create`)")
def cmd_play(
    kind: str,
    mode: str,
    seats: int | None,
    seat: int,
    bot: str,
    seed: int | None,
    name: str | None,
    tokens_file: str,
    resume: bool,
    game: str | None,
    token: str | None,
) -> None:
    """Play at one seat against bots; type `help` at the prompt.

    \b
    Come back to a game (Ctrl-C or `quit` at the prompt prints the command):
      tabletop play --resume                  rejoin the game kept in --tokens-file, with
                                              its bots (the file holds its seats' tokens)
      tabletop play --game GAME --token T     play the seat of a token of `tabletop create`
      tabletop bots --join GAME               bots take the seats nobody has taken
    """
    colours()
    if resume and (game or token):
        raise CliError("--resume reads the game from --tokens-file: leave out --game and --token")
    if bool(game) != bool(token):
        raise CliError("--game and --token go together: the game, and your seat's token in it")
    with client() as c:
        try:
            if resume:
                sitting = playing.resume_table(resumed_client(c, tokens_file), tokens_file, console)
            elif token:
                sitting = playing.take_seat(c, game or "", token, tokens_file, console)
            else:
                sitting = playing.start_table(c, play_settings(locals()), console)
        except ValueError as exc:
            raise CliError(str(exc)) from None
        playing.play_on(sitting, console)


def play_settings(args: dict[str, Any]) -> playing.PlaySettings:
    """A new table's settings from `play`'s options."""
    n = seat_count(args["kind"], args["seats"])
    if args["seat"] >= n:
        raise CliError(f"--seat {args['seat']}: a {n}-seat table has seats 0..{n - 1}")
    return playing.PlaySettings(
        args["kind"],
        args["mode"],
        n,
        args["seat"],
        args["bot"],
        args["seed"],
        args["name"] or "",
        args["tokens_file"],
    )


def resumed_client(c: TableClient, tokens_file: str) -> TableClient:
    """The server of the resumed game: --target when given, else the one in the file."""
    if shared().target != DEFAULT_TARGET:
        return c
    try:
        saved = playing.Tokens.load(tokens_file).target
    except ValueError as exc:
        raise CliError(str(exc)) from None
    return c if saved == c.target else TableClient(saved)


@command("match")
@click.argument("match_or_game_id")
def cmd_match(match_or_game_id: str) -> None:
    """Show a match's standings and hands (give the match id or any of its hands' ids)."""
    colours()
    with client() as c:
        match_id = match_or_game_id
        try:
            found = c.as_viewer(match_or_game_id).view().match.match_id
        except grpc.RpcError as err:
            if err.code() not in (grpc.StatusCode.NOT_FOUND,):
                raise
        else:
            if not found:
                raise CliError(f"game {match_or_game_id} is a table of one hand, not a match")
            match_id = found
        reply = c.match(match_id)
    if shared().json:
        emit_json(as_dict(reply.match))
        return
    match = reply.match
    console.print(Text(match_line(match), "bold"))
    console.print(standings_table(match))
    hands = Table(box=box.SIMPLE, title="hands", title_justify="left")
    hands.add_column("hand")
    id_column(hands, "game")
    hands.add_column("winners")
    hands.add_column("reason")
    for r in match.results:
        won = ", ".join(f"seat {w}" for w in r.winners) or "-"
        hands.add_row(str(r.hand), r.game_id, won, reason_words(r.reason))
    if not match.finished and match.current_game_id:
        hands.add_row(str(match.current_hand), match.current_game_id, "(playing)", "")
    console.print(hands)


@command("ready")
@game_argument
@option("--contribution", help="your random value for the next hand's shuffle [default: fresh]")
def cmd_ready(game_id: str, token: str | None, contribution: str | None) -> None:
    """Say your seat is ready for the match's next hand (any hand's id, your seat token): it
    commits to your contribution; reveal it with `tabletop reveal` once every seat has."""
    colours()
    if not token:
        raise CliError("ready needs your seat token (--token or TABLETOP_TOKEN)")
    with client() as c:
        seat = c.as_viewer(game_id, token)
        match = _acknowledged(lambda: seat.ready_next_hand(contribution))
    if shared().json:
        emit_json({**as_dict(match), "contribution": seat.contribution})
        return
    ready = ", ".join(f"seat {s}" for s in match.ready) or "nobody yet"
    console.print(Text(match_line(match), "bold"))
    console.print(f"committed to hand {match.current_hand}: {ready}")
    console.print(
        f"reveal once every seat has committed: tabletop reveal {match.current_game_id} "
        f"--contribution {seat.contribution}"
    )


T = TypeVar("T")


def _acknowledged(call: Callable[[], T]) -> T:
    """A commitment or reveal the server acknowledged with its signed receipt; without
    one the player is told it was refused."""
    try:
        return call()
    except NotAcknowledged as exc:
        raise CliError(str(exc)) from None


@command("commit")
@game_argument
@option("--contribution", help="your random value for the deal being drawn [default: fresh]")
def cmd_commit(game_id: str, token: str | None, contribution: str | None) -> None:
    """Commit to your contribution to a 重新洗牌发牌 being drawn (your seat token)."""
    if not token:
        raise CliError("commit needs your seat token (--token or TABLETOP_TOKEN)")
    with client() as c:
        seat = c.as_viewer(game_id, token)
        reply = _acknowledged(lambda: seat.commit_contribution(contribution))
    awaited = ", ".join(map(str, reply.awaiting_commitments)) or "nobody"
    console.print(f"committed; still awaited: {awaited}")
    console.print(f"reveal with: tabletop reveal {game_id} --contribution {seat.contribution}")


@command("reveal")
@game_argument
@option("--contribution", required=True, help="the value you committed to")
def cmd_reveal(game_id: str, token: str | None, contribution: str) -> None:
    """Reveal the contribution your seat committed to (a match's later hand, a redeal)."""
    if not token:
        raise CliError("reveal needs your seat token (--token or TABLETOP_TOKEN)")
    with client() as c:
        seat = c.as_viewer(game_id, token)
        seat.contribution = contribution
        reply = _acknowledged(seat.reveal)
    assert reply is not None
    pending = ", ".join(map(str, reply.awaiting_reveals)) or "nobody"
    console.print(f"revealed; reveals still pending: {pending}")
