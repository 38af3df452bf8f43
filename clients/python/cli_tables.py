"""`tabletop create` and `tabletop bots`: open tables, and bots that play them."""

from __future__ import annotations

import os
import random
import time
from typing import Any

import click
from rich import box
from rich.table import Table
from rich.text import Text

from clients.python import joining
from clients.python import play as playing
from clients.python.bot import make_bot, play_by_streams, play_match
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
    errors,
    match_options,
    match_settings,
    progress,
    seat_count,
)
from clients.python.clibase import CliError, emit_json, option, shared
from clients.python.client import reveal_and_start
from clients.python.render import id_column, outcome_line, standings_table
from clients.python.vocab import reason_words


@command("create")
@option("--kind", type=KINDS, default="huaniao", help="the game")
@option("--mode", type=MODES, default="basic", help="花鸟风月 mode (pro: 专业 with 阳春白雪)")
@option("--seats", type=click.IntRange(2, 4), help="seats at the table [default: 4, zipai 3]")
@option("--seed", type=int, help=SEED_HELP)
@option("--players", help="take the seats for these comma-separated names (e.g. ann,bo,cy,di)")
@option("--start", is_flag=True, help="deal once every seat is taken (needs --players)")
@option(
    "--tokens-file",
    type=click.Path(dir_okay=False, writable=True),
    help="save every token to this JSON file",
)
@match_options
def cmd_create(
    kind: str,
    mode: str,
    seats: int | None,
    seed: int | None,
    players: str | None,
    start: bool,
    tokens_file: str | None,
    hands: int,
    target_score: int,
    ready: bool,
) -> None:
    """Open a table (or a match of hands with --hands); print its id and the arbiter token
    (and each seat's with --players)."""
    colours()
    n = seat_count(kind, seats)
    names = [p.strip() for p in players.split(",")] if players else []
    if len(names) > n:
        raise CliError(f"--players names {len(names)} players for {n} seats")
    if start and len(names) != n:
        raise CliError(f"--start needs all {n} seats taken: give {n} names to --players")
    match = match_settings(hands, target_score, ready)
    with client() as c:
        created = c.create_game(playing.game_options(kind, mode), n, seed=seed, match=match)
        tokens = playing.Tokens(c.target, created.game_id, c.arbiter_credential(created))
        seated = []
        for s, name in enumerate(names):
            # one person holds every token here: seats it will not start commit to nothing
            contributes = start and seed is None  # a seeded table is reproduced: nobody does
            seated.append(c.join(created.game_id, s, name, None if contributes else ""))
            tokens.seats[s] = seated[-1].credential
        if start:
            reveal_and_start(seated)
    if tokens_file:
        tokens.save(tokens_file)
    if shared().json:
        emit_json(
            {
                "game_id": tokens.game_id,
                "arbiter_token": tokens.arbiter_token,
                "seats": {str(s): t for s, t in tokens.seats.items()},
                **({"match_id": created.match_id} if created.match_id else {}),
            }
        )
        return
    console.print(Text("game ", "bold") + Text(created.game_id))
    if created.match_id:
        console.print(Text("match ", "bold") + Text(created.match_id))
    console.print(playing.token_lines(tokens, tokens_file))
    for s, t in tokens.seats.items():
        # a keyed credential (TOKEN:KEYHEX) is longer than a line: never wrapped, so it copies whole
        console.print(Text(f"seat {s} token ", "bold") + Text(f"{t}  ({names[s]})"), soft_wrap=True)


@command("bots")
@option("--kind", type=KINDS, default="huaniao", help="the game")
@option("--mode", type=MODES, default="basic", help="花鸟风月 mode (pro: 专业 with 阳春白雪)")
@option("--seats", type=click.IntRange(2, 4), help="seats at the table [default: 4, zipai 3]")
@option(
    "--seed",
    type=int,
    help="game n is seeded with seed + n and dealt the same every time (a prepared deal), "
    "and so are its bots",
)
@option("--games", type=click.IntRange(1), default=1, help="how many games (or matches)")
@option("--bot", type=BOTS, default="heuristic", help="the bots' policy (random: the old one)")
@match_options
@option(
    "--join",
    "join_game",
    metavar="GAME",
    help="bots take this game's free seats (and those of --token) and play them to the end",
)
@option(
    "--token",
    "seat_tokens",
    multiple=True,
    help="with --join: a seat token of `tabletop create` whose seat a bot plays (repeat it)",
)
@option(
    "--bot-delay-ms",
    type=click.IntRange(0, 60_000),
    default=0,
    help="with --join: milliseconds a bot waits before answering a person's move, so that "
    "the person may still take it back (误操作) [default: 0, at once; the web port's bots: "
    "--web-bots-delay-ms]",
)
def cmd_bots(
    kind: str,
    mode: str,
    seats: int | None,
    seed: int | None,
    games: int,
    bot: str,
    hands: int,
    target_score: int,
    ready: bool,
    join_game: str | None,
    seat_tokens: tuple[str, ...],
    bot_delay_ms: int,
) -> None:
    """Bots play one or more games (or matches, with --hands); a summary table (or --json)
    at the end, and each match's standings.

    \b
    One person against bots at a table of their own (--join):
      tabletop create --players ann           seat 0 for ann (her token is printed)
      tabletop bots --join GAME               bots take seats 1-3, deal, and play them
      tabletop play --game GAME --token T     ann plays seat 0 (another terminal)
    --token gives the bots a seat that is already taken (a seat token of `create`).
    """
    colours()
    if join_game:
        bots_join(join_game, seat_tokens, bot, seed, bot_delay_ms)
        return
    if seat_tokens:
        raise CliError("--token is for --join: the seats of that game the bots play")
    n_seats = seat_count(kind, seats)
    bot_seed = seed if seed is not None else random.randrange(1 << 30)
    match = match_settings(hands, target_score, ready)
    results = []
    started = time.perf_counter()
    with client() as c, progress() as bar:
        task = bar.add_task(f"{kind} {'matches' if match else 'games'}", total=games)
        for n in range(games):
            t0 = time.perf_counter()
            # only an explicit --seed seeds a table: never a guessable deal by default
            deal_seed = seed + n if seed is not None else None
            options = playing.game_options(kind, mode)
            created = c.create_game(options, n_seats, seed=deal_seed, match=match)
            joins = [
                (created.game_id, s, f"bot-{s}", None if seed is None else "")
                for s in range(n_seats)
            ]
            seated = [c.join(*j) for j in joins]  # a seeded game is reproduced: no contributions
            reveal_and_start(seated)
            bots = [make_bot(s, bot, bot_seed + n * 31 + i) for i, s in enumerate(seated)]
            if match is None:
                moves = play_by_streams(bots)
                standing = None
            else:
                moves, standing = play_match(bots)
            view = c.as_viewer(created.game_id).view()
            result = {
                "game_id": created.game_id,
                "seed": deal_seed,
                "moves": moves,
                "version": view.version,
                "winners": list(view.outcome.winners),
                "scores": list(view.outcome.scores),
                "reason": view.outcome.reason,
                "seconds": round(time.perf_counter() - t0, 3),
            }
            if standing is not None:
                result["match"] = as_dict(standing)
                result["winners"] = list(standing.winners)
                result["scores"] = [st.total for st in standing.standings]
                result["reason"] = f"{len(standing.results)} hands"
            results.append(result)
            bar.advance(task)
    elapsed = time.perf_counter() - started
    total_moves = sum(r["moves"] for r in results)
    summary = {
        "games": results,
        "seconds": round(elapsed, 3),
        "moves": total_moves,
        "moves_per_second": round(total_moves / elapsed, 1) if elapsed else None,
    }
    if shared().json:
        emit_json(summary)
        return
    what = f"{games} {kind} {'match(es)' if match else 'game(s)'}"
    console.print(bots_table(f"{what}, {bot} bots", results, match is not None))
    if match is not None:
        with client() as c:
            for r in results:
                final = c.match(r["match"]["match_id"]).match
                console.print(Text("match ", "bold") + Text(final.match_id))
                console.print(standings_table(final))
    console.print(
        f"{total_moves} moves in {elapsed:.2f}s ({summary['moves_per_second']} moves/s)",
        style="dim",
    )


def bots_table(title: str, results: list[dict[str, Any]], matches: bool) -> Table:
    """One row per game: the full id (never cut, at any width: it is copied into other
    commands), its numbers, and who won how, last, the one column that wraps."""
    table = Table(title=title, box=box.SIMPLE_HEAVY, pad_edge=False, collapse_padding=True)
    id_column(table, "game")
    for col in ("seed", "moves", "events", "time"):
        table.add_column(col, justify="right", no_wrap=True)
    table.add_column("won by", overflow="fold")
    for r in results:
        reason = r["reason"] if matches else reason_words(r["reason"])
        winners = ", ".join(f"seat {w}" for w in r["winners"]) or "nobody"
        table.add_row(
            r["game_id"],
            "-" if r["seed"] is None else str(r["seed"]),
            str(r["moves"]),
            str(r["version"]),
            f"{r['seconds']:.2f}s",
            Text(winners, "bold green") + Text(f" {reason}"),
        )
    return table


def bots_join(
    game_id: str, seat_tokens: tuple[str, ...], bot: str, seed: int | None, delay_ms: int = 0
) -> None:
    """`bots --join`: seat the bots, deal once every seat is taken, play to the end."""
    say = errors.print if shared().json else console.print
    with client() as c:
        bot_seed = seed if seed is not None else random.randrange(1 << 30)
        try:
            # a lobby table's bot seats are reserved for the bots the server started, which
            # it gives the table's secret in their environment (server/transport/lobbybots.py)
            secret = os.environ.get("TABLETOP_LOBBY_BOT_SECRET") or None
            bots = joining.seat_bots(c, game_id, seat_tokens, bot, bot_seed, secret)
        except ValueError as exc:
            raise CliError(str(exc)) from None
        played = ", ".join(str(b.seat.seat) for b in bots)
        say(f"game {game_id}: {bot} bots play seats {played}")
        joining.deal_when_seated(bots, say)
        moves = joining.play_joined(bots, delay_ms)
        end = c.as_viewer(game_id).view()
    if shared().json:
        emit_json(
            {
                "game_id": game_id,
                "seats": [b.seat.seat for b in bots],
                "moves": moves,
                "winners": list(end.outcome.winners),
                "reason": end.outcome.reason,
            }
        )
        return
    console.print(Text("game over: ", "bold") + Text(outcome_line(end)))
    console.print(f"the bots made {moves} moves", style="dim")
