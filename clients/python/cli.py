"""`tabletop`: play, run bots, create tables, watch, inspect, export and replay games.

Options work before or after the command (`tabletop --target H:P replay ID` and
`tabletop replay ID --target H:P` are the same), and each has an environment variable
(TABLETOP_TARGET, TABLETOP_TOKEN, ...: `tabletop COMMAND --help` shows them). --json gives
machine-readable output: one JSON document, or JSON lines for streams and exports; progress
bars go to stderr and never mix with it. A token (seat or arbiter) shows what that seat may
see; without one you are a spectator.
"""

from __future__ import annotations

import json
import random
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import click
import grpc
from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc
from rich import box
from rich.console import Console
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

from clients.python import joining, replay_html
from clients.python import play as playing
from clients.python import replay as replaying
from clients.python.bot import make_bot, play_by_streams, play_match
from clients.python.clibase import (
    CONTEXT,
    DEFAULT_TARGET,
    CliError,
    emit_json,
    option,
    run,
    shared,
    shared_options,
)
from clients.python.client import NotAcknowledged, SeatClient, TableClient, reveal_and_start
from clients.python.render import (
    Narration,
    event_body,
    event_text,
    id_column,
    match_line,
    outcome_line,
    standings_table,
    view_renderable,
)
from clients.python.vocab import reason_words
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


# --- the group --------------------------------------------------------------------------------


@click.group(context_settings=CONTEXT, help=__doc__)
@shared_options
@click.pass_context
def tabletop(ctx: click.Context) -> None:
    settings = shared(ctx)
    if settings.no_color:
        console.no_color = errors.no_color = True


def command(name: str, **kwargs: Any) -> Any:
    """A subcommand of `tabletop` that also takes the shared options."""

    def wrap(f: Any) -> Any:
        return tabletop.command(name, **kwargs)(shared_options(f))

    return wrap


def _colours() -> None:
    if shared().no_color:
        console.no_color = errors.no_color = True


# --- tables -------------------------------------------------------------------------------------


SEED_HELP = (
    "a seeded table, dealt the same every time (nobody contributes): a prepared deal, marked "
    "as chosen by its creator and refused unless the server allows prepared deals "
    "(TABLETOP_ALLOW_PREPARED_DEALS) [default: the server's secret and every seat's "
    "contribution deal it, so nobody chooses it]"
)


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
    _colours()
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
    _colours()
    if join_game:
        bots_join(join_game, seat_tokens, bot, seed)
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


def bots_join(game_id: str, seat_tokens: tuple[str, ...], bot: str, seed: int | None) -> None:
    """`bots --join`: seat the bots, deal once every seat is taken, play to the end."""
    say = errors.print if shared().json else console.print
    with client() as c:
        bot_seed = seed if seed is not None else random.randrange(1 << 30)
        try:
            bots = joining.seat_bots(c, game_id, seat_tokens, bot, bot_seed)
        except ValueError as exc:
            raise CliError(str(exc)) from None
        played = ", ".join(str(b.seat.seat) for b in bots)
        say(f"game {game_id}: {bot} bots play seats {played}")
        joining.deal_when_seated(bots, say)
        moves = joining.play_joined(bots)
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
    _colours()
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


# --- reading a game -----------------------------------------------------------------------------


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
    _colours()

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


@command("match")
@click.argument("match_or_game_id")
def cmd_match(match_or_game_id: str) -> None:
    """Show a match's standings and hands (give the match id or any of its hands' ids)."""
    _colours()
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
    _colours()
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
    _colours()
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
    _colours()
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
    _colours()
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
    _colours()
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


# --- justice: 误操作, reports, votes, appeals, rulings (docs/api.md#justice) -----------------------

VIOLATIONS = [n.removeprefix("VIOLATION_KIND_") for n in pb.ViolationKind.keys()[1:]]
PENALTIES = [n.removeprefix("PENALTY_KIND_") for n in pb.PenaltyKind.keys()[1:]]


def send_table_command(game_id: str, token: str | None, command: pb.TableCommand) -> None:
    """Send one table command against the game's current version; print what it caused."""
    _colours()
    with client() as c:
        actor = c.as_viewer(game_id, token)
        reply = actor.play(pb.Move(table=command), actor.view().version)
    if shared().json:
        emit_json([as_dict(e) for e in reply.events])
    else:
        for event in reply.events:
            console.print(event_text(event))


@command("retract")
@game_argument
@option("--phrase", default="風過無痕，月照無意", help="the phrase; 且慢 in simplified play")
def cmd_retract(game_id: str, token: str | None, phrase: str) -> None:
    """误操作 (retract a misplay): take back your last move, once per game."""
    send_table_command(game_id, token, pb.TableCommand(retract=pb.Retract(phrase=phrase)))


def _versions(values: tuple[str, ...]) -> list[int]:
    out = []
    for v in values:
        for part in v.replace(",", " ").split():
            if not part.isdigit():
                raise click.BadParameter(
                    f"{part!r} is not a version number", param_hint="'--evidence'"
                )
            out.append(int(part))
    return out


@command("report")
@game_argument
@option("--accused", type=click.IntRange(0), required=True, help="the seat reported")
@option("--violation", type=click.Choice(VIOLATIONS), required=True, help="what it did")
@option(
    "--evidence", multiple=True, required=True, help="event versions (repeat, or comma-separated)"
)
@option("--penalty", type=click.Choice(PENALTIES), help="the graded penalty (for OTHER)")
@option("--count", type=click.IntRange(0), default=0, help="cards for the penalty")
@option("--note", default="", help="a note for the record")
def cmd_report(
    game_id: str,
    token: str | None,
    accused: int,
    violation: str,
    evidence: tuple[str, ...],
    penalty: str | None,
    count: int,
    note: str,
) -> None:
    """Report a violation; the game pauses for the vote."""
    report = pb.Report(
        accused=accused,
        violation=pb.ViolationKind.Value(f"VIOLATION_KIND_{violation}"),
        evidence=_versions(evidence),
        note=note,
    )
    if penalty:
        report.penalty.kind = pb.PenaltyKind.Value(f"PENALTY_KIND_{penalty}")
        report.penalty.count = count
    send_table_command(game_id, token, pb.TableCommand(report=report))


CASE_HELP = "the case id (CaseView.id) [default: the open case]"


def open_case(game_id: str, token: str | None) -> int:
    """The case a vote or a ruling is on when --case is left out: the open one."""
    with client() as c:
        view = c.as_viewer(game_id, token).view()
    open_ids = [case.id for case in view.cases if case.status == pb.CASE_STATUS_OPEN]
    if not open_ids:
        raise CliError(f"game {game_id} has no open case (a report or an appeal) to decide")
    return open_ids[-1]


def appealable_case(game_id: str, token: str | None) -> int:
    """The case an appeal is against when --case is left out: the seat's penalty it may
    still appeal."""
    with client() as c:
        view = c.as_viewer(game_id, token).view()
    mine = [p.case_id for p in view.penalties if p.appealable and p.seat == view.seat]
    if not view.HasField("seat") or not mine:
        raise CliError(f"your seat has no penalty it may still appeal in game {game_id}")
    return mine[-1]


@command("vote")
@game_argument
@option("--case", type=click.IntRange(0), help=CASE_HELP)
@option("--uphold/--reject", default=None, required=True, help="成立 (uphold) or 不成立 (reject)")
def cmd_vote(game_id: str, token: str | None, case: int | None, uphold: bool) -> None:
    """投票 (vote) on the open case."""
    case = open_case(game_id, token) if case is None else case
    send_table_command(
        game_id, token, pb.TableCommand(cast_vote=pb.CastVote(case_id=case, uphold=uphold))
    )


@command("rule")
@game_argument
@option("--case", type=click.IntRange(0), help=CASE_HELP)
@option("--uphold/--reject", default=None, required=True, help="成立 (uphold) or 不成立 (reject)")
def cmd_rule(game_id: str, token: str | None, case: int | None, uphold: bool) -> None:
    """The arbiter's ruling on the open case."""
    case = open_case(game_id, token) if case is None else case
    send_table_command(game_id, token, pb.TableCommand(rule=pb.Rule(case_id=case, uphold=uphold)))


@command("appeal")
@game_argument
@option(
    "--case",
    type=click.IntRange(0),
    help="the case whose penalty you appeal [default: your penalty still open to appeal]",
)
@option("--reason", required=True, help="why the penalty is wrong")
def cmd_appeal(game_id: str, token: str | None, case: int | None, reason: str) -> None:
    """申诉 (appeal) a penalty you received, right after it."""
    case = appealable_case(game_id, token) if case is None else case
    send_table_command(
        game_id, token, pb.TableCommand(appeal=pb.Appeal(case_id=case, reason=reason))
    )


@command("redeal")
@game_argument
@option("--case", type=click.IntRange(0), help=CASE_HELP)
def cmd_redeal(game_id: str, token: str | None, case: int | None) -> None:
    """Agree to 重新洗牌发牌 (shuffle and deal again) on the open case, with your seat's
    token: it happens once every seat has agreed (the arbiter cannot order it)."""
    case = open_case(game_id, token) if case is None else case
    send_table_command(game_id, token, pb.TableCommand(agree_redeal=pb.AgreeRedeal(case_id=case)))


def main(argv: list[str] | None = None) -> int:
    return run(tabletop, argv, "tabletop")


if __name__ == "__main__":
    threading.current_thread().name = "tabletop"
    main()
