"""`tabletop play`: a person at one seat against bots, in the one vocabulary of vocab.py.

The loop prints every new event, then -- when the person's seat is awaited -- a panel (hand,
the play to answer, what the seat must do), a menu of the legal moves (each row names its
kind) and a prompt. ``help`` explains the moment, the reference play and the scoring; an
entry the server refuses shows the rule's reason. The panels, the menu, `help` and the
entries that name cards are play_panels.py; this module is the table, its tokens and the loop.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from rich.console import Console, Group
from rich.panel import Panel
from rich.text import Text

from clients.python.bot import RandomBot, make_bot
from clients.python.client import TableClient, reveal_and_start
from clients.python.commands import command
from clients.python.play_panels import (
    EntryError,
    entry_move,
    help_text,
    menu_rows,
    menu_table,
    panel_grid,
    turn_panel,
)
from clients.python.render import Narration
from clients.python.rpcerrors import error_line
from clients.python.seat import SeatClient
from clients.python.vocab import (
    reason_words,
)
from tabletop.huaniao.v1 import huaniao_pb2
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.zipai.v1 import zipai_pb2

HUANIAO_MODES = ("simple", "basic", "regular", "full", "pro")
# The default game of `play` and `make demo`: 专业 with 阳春白雪 against steady bots, the one
# table where the rules keep a game going for a few rounds -- in 春/夏 every card played makes
# every seat draw first, so nobody goes out in the first two rounds (docs/rules/huaniao.md,
# "Short games"; tests/domain/huaniao/test_huaniao_default_game.py measures it).
DEFAULT_MODE = "pro"
DEFAULT_BOT = "steady"


def game_options(kind: str, mode: str = DEFAULT_MODE) -> pb.GameOptions:
    """The table options of `play`, `create`, `bots` and `make demo`; ``pro`` is 专业 with
    阳春白雪, the added rule (专业 needs one, part 2 line 28) that keeps a game going."""
    if kind == "huaniao":
        options = huaniao_pb2.Options(mode=huaniao_pb2.Mode.Value(f"MODE_{mode.upper()}"))
        options.spring_snow = mode == "pro"
        return pb.GameOptions(huaniao=options)
    return pb.GameOptions(
        zipai=zipai_pb2.Options(
            variant=zipai_pb2.VARIANT_LUZHOU,
            dealer_rule=zipai_pb2.DEALER_RULE_WINNER,
            scoring=zipai_pb2.SCORING_PROFILE_LUZHOU,
        )
    )


# --- a table and its tokens ----------------------------------------------------------------


@dataclass
class Tokens:
    """Every token of a table that one process holds: the arbiter's and each seat's
    (``--tokens-file``). ``you`` is the person's seat at `tabletop play` and ``bot`` the
    policy of the bots that `play` runs at the other seats (none when others play them)."""

    target: str
    game_id: str
    arbiter_token: str  # the arbiter's credential: TOKEN:KEYHEX where it has a key
    seats: dict[int, str] = field(default_factory=dict)
    you: int | None = None
    bot: str = ""

    def save(self, path: str | Path) -> None:
        """Write the tokens, readable by their owner alone (mode 0600): a seat token plays
        that seat and the arbiter token sees every hand."""
        data: dict[str, Any] = {
            "target": self.target,
            "game_id": self.game_id,
            "arbiter_token": self.arbiter_token,
            "seats": {str(s): t for s, t in sorted(self.seats.items())},
        }
        if self.you is not None:
            data.update(you=self.you, bot=self.bot)
        write_private(Path(path), json.dumps(data, indent=2) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> Tokens:
        """A tokens file written by `play` or `create` (``ValueError`` if it is not one)."""
        if not Path(path).exists():
            raise ValueError(
                f"no game to come back to: {path} does not exist (`tabletop play` writes it; "
                "--tokens-file names another file)"
            )
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
            seats = {int(s): str(t) for s, t in data["seats"].items()}
            you = data.get("you")
            return cls(
                str(data["target"]),
                str(data["game_id"]),
                str(data["arbiter_token"]),
                seats,
                None if you is None else int(you),
                str(data.get("bot", "")),
            )
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ValueError(f"{path} is not a tokens file of `tabletop play` ({exc})") from None


def write_private(path: Path, text: str) -> None:
    """Create or replace ``path`` with mode 0600 (its folder 0700 if it is made here)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)  # a file that was already there keeps no wider mode
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)


def resume_file() -> Path:
    """Where `tabletop play` keeps its game's tokens for ``--resume``:
    $XDG_STATE_HOME/tabletop/play.json, by default ~/.local/state/tabletop/play.json."""
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "tabletop" / "play.json"


def token_lines(tokens: Tokens, saved_to: str | None) -> Text:
    out = Text()
    out.append("arbiter token ", "bold").append(tokens.arbiter_token + "\n")
    out.append(
        "  keep it secret: it sees every hand, e.g. "
        f"`tabletop replay {tokens.game_id} --token {tokens.arbiter_token[:8]}… --as-seat 0`\n",
        "dim",
    )
    if saved_to:
        out.append(f"every token saved to {saved_to}\n", "dim")
    return out


# --- the loop -------------------------------------------------------------------------------

IDLE_SECONDS = 0.1  # how long the loop waits when nobody this process plays may move


@dataclass
class PlaySettings:
    kind: str
    mode: str
    seats: int
    seat: int
    bot: str
    seed: int | None
    name: str
    tokens_file: str | None


@dataclass
class Sitting:
    """A person's seat at a table, the bots this process plays at other seats, and the file
    its tokens are kept in for ``--resume``."""

    me: SeatClient
    bots: list[RandomBot]
    tokens: Tokens
    tokens_file: str | None


def start_table(client: TableClient, settings: PlaySettings, console: Console) -> Sitting:
    # only an explicit seed seeds the table (a prepared deal); bots get one either way
    seed = settings.seed if settings.seed is not None else random.randrange(1 << 30)
    created = client.create_game(
        game_options(settings.kind, settings.mode), settings.seats, seed=settings.seed
    )
    tokens = Tokens(client.target, created.game_id, client.arbiter_credential(created))
    tokens.you, tokens.bot = settings.seat, settings.bot
    me = None
    bots: list[RandomBot] = []
    seated = []
    for s in range(settings.seats):
        who = settings.name if s == settings.seat else f"bot-{s}"
        # a seeded table is reproduced from its seed: then nobody contributes
        seat = client.join(created.game_id, s, who, None if settings.seed is None else "")
        seated.append(seat)
        tokens.seats[s] = seat.credential
        if s == settings.seat:
            me = seat
        else:
            bots.append(make_bot(seat, settings.bot, seed + s))
    assert me is not None
    if settings.tokens_file:
        tokens.save(settings.tokens_file)
    dealt = "a deal nobody chose" if settings.seed is None else f"seed {seed}: a prepared deal"
    console.print(
        Text(f"game {created.game_id}", "bold")
        + Text(
            f"  ({settings.kind}, {dealt}, you are seat {settings.seat}, bots: {settings.bot})",
            "dim",
        )
    )
    console.print(token_lines(tokens, settings.tokens_file))
    reveal_and_start([me, *(s for s in seated if s is not me)])
    return Sitting(me, bots, tokens, settings.tokens_file)


def resume_table(client: TableClient, path: str, console: Console) -> Sitting:
    """Back at the seat a tokens file of `play` names, with the bots it ran at the others
    (``ValueError`` if the file holds no seat of the person's)."""
    tokens = Tokens.load(path)
    if tokens.you is None or tokens.you not in tokens.seats:
        raise ValueError(
            f"{path} names no seat of yours (a file of `tabletop create`?): play one of its "
            "seats with `tabletop play --game GAME --token SEAT_TOKEN`"
        )
    me = seat_client(client, tokens.game_id, tokens.you, tokens.seats[tokens.you])
    seed = random.randrange(1 << 30)
    bots = [
        make_bot(seat_client(client, tokens.game_id, s, t), tokens.bot, seed + s)
        for s, t in sorted(tokens.seats.items())
        if s != tokens.you and tokens.bot
    ]
    others = f"bots: {tokens.bot}" if bots else "the other seats are played elsewhere"
    console.print(
        Text(f"game {tokens.game_id}", "bold")
        + Text(f"  (resumed from {path}: you are seat {tokens.you}, {others})", "dim")
    )
    return Sitting(me, bots, tokens, path)


def take_seat(
    client: TableClient, game_id: str, token: str, tokens_file: str | None, console: Console
) -> Sitting:
    """The seat a token of `tabletop create` plays; other people or `tabletop bots --join`
    play the others (``ValueError`` if the token is not a seat's)."""
    viewer = client.as_viewer(game_id, token)
    view = viewer.view()
    if view.role != pb.ROLE_SEAT or not view.HasField("seat"):
        raise ValueError(
            "that token is not a seat's: `tabletop create --players NAMES` prints one per "
            "seat (the arbiter's token watches: `tabletop watch`)"
        )
    me = seat_client(client, game_id, view.seat, token)
    tokens = Tokens(client.target, game_id, "", {view.seat: token}, you=view.seat)
    if tokens_file:
        tokens.save(tokens_file)
    console.print(Text(f"game {game_id}", "bold") + Text(f"  (you are seat {view.seat})", "dim"))
    return Sitting(me, [], tokens, tokens_file)


def seat_client(client: TableClient, game_id: str, seat: int, token: str) -> SeatClient:
    acting = client.as_viewer(game_id, token)
    acting.seat = seat
    return acting


def play_game(
    client: TableClient,
    settings: PlaySettings,
    console: Console,
    ask: Callable[[str], str] = input,
) -> pb.GameView:
    """A new table, played to the end (or until the person quits); returns the last view."""
    return play_on(start_table(client, settings, console), console, ask)


def play_on(sitting: Sitting, console: Console, ask: Callable[[str], str] = input) -> pb.GameView:
    """Play the sitting to the end, or until the person quits or presses Ctrl-C (then say
    how to come back, and let the KeyboardInterrupt end the command)."""
    try:
        return _play_loop(sitting, console, ask)
    except KeyboardInterrupt:
        console.print()
        console.print(resume_hint(sitting))
        raise


def _play_loop(sitting: Sitting, console: Console, ask: Callable[[str], str]) -> pb.GameView:
    me, bots = sitting.me, sitting.bots
    seat = sitting.tokens.you or 0
    narration = Narration()
    seen = 0
    told_waiting = False
    while True:
        view = me.view()
        for event in me.history():
            if event.version > seen:
                console.print(narration.line(event))
                seen = event.version
        if view.phase == pb.GAME_PHASE_FINISHED:
            console.print(summary_panel(view, sitting.tokens, moves=None), crop=False)
            return view
        if view.phase == pb.GAME_PHASE_WAITING:
            told_waiting = wait_to_start(me, view, console, told_waiting)
            continue
        if seat in view.to_act:
            legal = me.legal_moves()
            if legal.moves and not your_move(me, view, legal, console, ask):
                console.print(resume_hint(sitting))
                return view
            continue
        if not any(bot.step() for bot in bots):
            time.sleep(IDLE_SECONDS)  # another seat's move, or a claim window closing


def wait_to_start(me: SeatClient, view: pb.GameView, console: Console, told: bool) -> bool:
    """Before the deal: say once which seats are free; once none is, deal (any seated
    token may, after every committed seat revealed). Returns True: the person was told."""
    free = [s.seat for s in view.seats if not s.taken]
    if free and not told:
        console.print(
            f"waiting for seats {', '.join(map(str, free))}: people join, or bots take them "
            f"with `{program('tabletop')} bots --join {view.game_id}`"
        )
    if not free:
        try:
            me.start()
        except grpc.RpcError as err:  # a reveal still pending, or another seat dealt first
            if err.code() not in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED):
                raise
    time.sleep(IDLE_SECONDS * 3)
    return True


def resume_hint(sitting: Sitting) -> Text:
    """The exact command that brings the person back to this game."""
    command = f"{program('tabletop')} play --resume"
    path = sitting.tokens_file
    if path and Path(path).expanduser().resolve() != resume_file().resolve():
        command += f" --tokens-file {path}"
    return (
        Text(f"left the table; the game stays on the server as {sitting.me.game_id}\n")
        + Text("come back to it with: ")
        + Text(command, "bold")
    )


def your_move(
    me: SeatClient,
    view: pb.GameView,
    legal: pb.LegalMovesResponse,
    console: Console,
    ask: Callable[[str], str],
) -> bool:
    """Ask until one move is accepted; False when the person quits."""
    console.print(turn_panel(view, me.seat or 0))
    rows = menu_rows(legal, view)
    console.print(menu_table(rows, view))
    n = len(rows)
    while True:
        try:
            raw = ask("your move (number, help, quit)> ").strip()
        except EOFError:  # Ctrl-D: as `quit`
            raw = "quit"
        if raw in ("q", "quit", "exit"):
            return False
        if raw in ("help", "?", "h"):
            console.print(
                Panel(help_text(view, legal, me.seat or 0), title="help", title_align="left")
            )
            continue
        move: pb.Move | None
        if raw.isdigit():
            if int(raw) >= n:
                console.print(f"there is no move {raw}: choose 0..{n - 1}, or `help`")
                continue
            move = rows[int(raw)].move
        else:
            try:
                move = entry_move(raw, view, me.seat or 0)
            except EntryError as exc:
                console.print(Text(str(exc), "red"))
                continue
            if move is None:
                console.print(
                    f"not understood: {raw!r}; type a move number 0..{n - 1}, `help` or `quit`"
                )
                continue
        try:
            me.play(move, legal.version)
            return True
        except grpc.RpcError as err:
            console.print(Text(error_line(err), "red"))


def program(name: str) -> str:
    """How to call one of the project's commands from here (.venv/bin/tabletop in the repo)."""
    path = Path(sys.executable).parent / name
    if not path.exists():
        return name
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path) if shutil.which(name) != str(path) else name


def seat_named(seat: int, name: str) -> str:
    """``seat 2 (ann)``, or ``seat 2`` for a seat taken without a name."""
    return f"seat {seat} ({name})" if name else f"seat {seat}"


def summary_panel(
    view: pb.GameView,
    tokens: Tokens | None,
    moves: int | None,
    verified: str | None = None,
    target: str | None = None,
) -> Group:
    """The end of a game in a few lines: winner, scores, moves, id, then what to do next."""
    o = view.outcome
    names = {s.seat: s.player_name for s in view.seats}
    grid = panel_grid()
    winners = ", ".join(seat_named(w, names.get(w, "")) for w in o.winners) or "nobody"
    grid.add_row(
        "winner", Text(winners, "bold green") + Text(f"  ({reason_words(o.reason)})", "dim")
    )
    grid.add_row("scores", Text("   ".join(f"seat {s}: {x}" for s, x in enumerate(o.scores))))
    if view.WhichOneof("game") == "huaniao":
        grid.add_row(
            "",
            Text(
                "lowest hand score wins at the end of the deck; emptying your hand wins at once",
                "dim",
            ),
        )
    if moves is not None:
        grid.add_row("moves", Text(str(moves)))
    grid.add_row("events", Text(str(view.version)))
    grid.add_row("game id", Text(view.game_id))
    if verified:
        grid.add_row("verified", Text(verified))
    return Group(
        Panel(grid, title="game over", title_align="left"),
        next_commands(view.game_id, target, tokens is not None),
    )


def next_commands(game_id: str, target: str | None, as_seat: bool) -> Text:
    """What to run next, one command a line, each runnable as printed from any folder
    (commands.py) and never wrapped (print with ``crop=False``: a terminal folds a long line
    on screen, and a copy of it is still one line)."""
    t = ["--target", target] if target else []
    rows = [
        ("replay", command("tabletop", "replay", game_id, *t)),
        ("web page", command("tabletop", "replay", game_id, *t, "--html", "game.html")),
        ("verify", command("tabletop-audit", "verify", game_id, *t)),
    ]
    if as_seat:
        seat = ["--token", "ARBITER_TOKEN", "--as-seat", "0"]
        rows.append(("as a seat", command("tabletop", "replay", game_id, *t, *seat)))
    out = Text("run from any folder:\n", "dim", no_wrap=True, overflow="ignore")
    for label, line in rows:
        out.append(f"  {label + ':':<11}", "dim")
        out.append(line + "\n")
    return out
