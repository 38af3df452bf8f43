"""`tabletop play`: a person at one seat against bots, in the one vocabulary of vocab.py.

The loop prints every new event, then -- when the person's seat is awaited -- a panel (hand,
the play to answer, what the seat must do), a menu of the legal moves (each row names its
kind) and a prompt. ``help`` explains the moment, the reference play and the scoring; an
entry the server refuses shows the rule's reason.
"""

from __future__ import annotations

import json
import random
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from rich import box
from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from clients.python.bot import RandomBot, make_bot
from clients.python.client import SeatClient, TableClient, reveal_and_start
from clients.python.render import card_text, coloured, event_text, label_text
from clients.python.rpcerrors import error_line
from clients.python.text import card_name, cards_by_id
from clients.python.vocab import enum_term, move_kind, rules_help, term
from tabletop.huaniao.v1 import huaniao_pb2
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.zipai.v1 import zipai_pb2

HUANIAO_MODES = ("simple", "basic", "regular", "full", "pro")
OPENING_VERSE = "春来花友会，夏夜鸟啼时。风过秋思追，月寒冬雪依。"


def game_options(kind: str, mode: str = "basic") -> pb.GameOptions:
    if kind == "huaniao":
        return pb.GameOptions(
            huaniao=huaniao_pb2.Options(mode=huaniao_pb2.Mode.Value(f"MODE_{mode.upper()}"))
        )
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
    """Every token of a table: the arbiter's and each seat's (``--tokens-file``)."""

    target: str
    game_id: str
    arbiter_token: str
    seats: dict[int, str] = field(default_factory=dict)

    def save(self, path: str | Path) -> None:
        data = {
            "target": self.target,
            "game_id": self.game_id,
            "arbiter_token": self.arbiter_token,
            "seats": {str(s): t for s, t in sorted(self.seats.items())},
        }
        Path(path).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


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


# --- panels ---------------------------------------------------------------------------------


def _grid() -> Table:
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()
    return grid


def huaniao_duty(g: huaniao_pb2.View, me: int) -> str:
    """What seat ``me`` must do now, in the vocabulary."""
    mine = g.seats[me]
    if g.phase == huaniao_pb2.PHASE_DISCARDING and mine.owes_discard:
        return (
            f"{term('弃')} {mine.owes_discard} card(s); after the first card discards go "
            "鸟 → 数量 → 功能 (弃牌保护)"
        )
    if g.phase == huaniao_pb2.PHASE_GUESSING:
        return f"{term('猜')} the class of seat {g.guess_target}'s last card (曲高和寡)"
    if g.phase == huaniao_pb2.PHASE_CHANGING_SEASON:
        return f"{term('换季')}: you closed the round"
    need = g.need
    ref = g.reference
    if need == huaniao_pb2.NEED_OPENING:
        return f"{term('起')} with one 鸟"
    if need == huaniao_pb2.NEED_YIN:
        return f"{term('吟')}: play exactly {ref}; or {term('舞')}; {term('栖')} only if you can't"
    if need == huaniao_pb2.NEED_SONG:
        return (
            f"{term('诵')}: play more than {ref}; or {term('舞')}; {term('栖')} only if you can't"
        )
    return (
        f"{term('吟')} (exactly {ref}) or {term('诵')} (more than {ref}); or {term('舞')}; "
        f"{term('栖')} only if you can't"
    )


def hand_score(cards: Any) -> int:
    points = {1: 0, 2: 1, 3: 2, 4: 3, 5: 4, 6: 5, 7: 5, 8: 5}
    return sum(points.get(c.kind, 0) for c in cards)


def huaniao_panel(view: pb.GameView, me: int) -> Group:
    g = view.huaniao
    grid = _grid()
    mine = g.seats[me]
    grid.add_row(
        "your hand", card_text(mine.cards) + Text(f"   (score {hand_score(mine.cards)})", "dim")
    )
    if g.HasField("last_play"):
        lp = g.last_play
        kind = enum_term(huaniao_pb2.PlayKind.Name(lp.kind)) or ""
        count = f" of {lp.count}" if lp.kind != huaniao_pb2.PLAY_KIND_WU else ""
        grid.add_row(
            "to answer", Text(f"seat {lp.seat}'s {kind}{count}: ") + card_text(lp.cards, "+")
        )
    grid.add_row("you must", Text(huaniao_duty(g, me)))
    others = Text()
    for s in g.seats:
        if s.seat != me:
            others.append(f"seat {s.seat}: {s.hand_count} cards   ")
    grid.add_row("others", others)
    grid.add_row("deck", Text(f"{g.deck_size} cards left"))
    return Group(grid)


ZIPAI_PROMPTS = {
    zipai_pb2.PROMPT_KIND_BAO: "you hold a ready hand from the deal: 爆 (ready hand) or not",
    zipai_pb2.PROMPT_KIND_HU_OR_PASS: "you may 胡 (win) now",
    zipai_pb2.PROMPT_KIND_HU_OR_LONG: "胡 (win) now, or 拢 (four alike) the 21st card",
}


def zipai_panel(view: pb.GameView, me: int) -> Group:
    g = view.zipai
    grid = _grid()
    mine = g.seats[me]
    grid.add_row("your hand", card_text(sorted(mine.hand, key=lambda c: (c.big, c.rank))))
    for s in g.seats:
        melds = Text("   ").join(
            Text(enum_term(zipai_pb2.MeldKind.Name(m.kind)) or "")
            + Text(" ")
            + card_text(m.cards, "")
            + Text("+" + "?" * m.hidden_size if m.hidden_size else "")
            for m in s.melds
        )
        who = "you" if s.seat == me else f"seat {s.seat}"
        if not s.active:
            grid.add_row(who, Text("sits this hand out", "dim"))
            continue
        line = Text(f"{s.hand_size} in hand" + ("  爆" if s.bao else "") + "   ")
        if melds.plain:
            line.append_text(melds)
        if s.discards:
            line.append("   left: ", "dim").append_text(card_text(s.discards, ""))
        grid.add_row(who, line)
    if g.HasField("shown"):
        how = "flipped from the stock by" if g.shown_flipped else "discarded by"
        by = "you" if g.shown_by == me else f"seat {g.shown_by}"
        grid.add_row("shown card", card_text([g.shown]) + Text(f"  {how} {by}"))
    grid.add_row("you must", Text(zipai_duty(g, me)))
    grid.add_row("stock", Text(f"{g.stock_size} cards left"))
    return Group(grid)


def zipai_duty(g: zipai_pb2.View, me: int) -> str:
    if g.phase == zipai_pb2.PHASE_DISCARD:
        return f"{term('打')} one card (a 坎 stays unless nothing else is left)"
    if g.HasField("prompt") and g.prompt in ZIPAI_PROMPTS:
        return ZIPAI_PROMPTS[g.prompt]
    if g.HasField("shown"):
        name = card_name(g.shown)
        return (
            f"claim window on {name}: {term('胡')} > {term('拢')} > {term('招')} > {term('碰')} > "
            f"{term('吃')}, or {term('过')}. Other seats may be deciding too: you see only that "
            "they answered, never what, until the window closes; the highest claim takes it "
            "(equal claims: the seat first in turn)"
        )
    return "wait"


def turn_panel(view: pb.GameView, me: int) -> Panel:
    body = (
        huaniao_panel(view, me) if view.WhichOneof("game") == "huaniao" else zipai_panel(view, me)
    )
    return Panel(body, title=f"your turn (seat {me}, version {view.version})", title_align="left")


def menu(legal: pb.LegalMovesResponse, view: pb.GameView) -> Table:
    """One row per legal move: its number, its kind in the vocabulary, and its cards."""
    kind = view.WhichOneof("game")
    names = cards_by_id(view)
    table = Table(box=box.SIMPLE, show_header=True, header_style="dim")
    table.add_column("#", justify="right", style="bold")
    table.add_column("move")
    table.add_column("cards")
    labels = list(legal.labels) or [""] * len(legal.moves)
    for i, (move, label) in enumerate(zip(legal.moves, labels, strict=True)):
        cards = move_cards(move)
        shown = Text("+").join(coloured(names.get(c, f"#{c}"), kind) for c in cards)
        table.add_row(str(i), label_text(label, kind), shown if kind == "huaniao" else Text(""))
    return table


def move_cards(move: pb.Move) -> list[int]:
    which = move.WhichOneof("game")
    if which not in ("huaniao", "zipai"):
        return []
    command = getattr(move, which)
    body = getattr(command, command.WhichOneof("kind"))
    fields = body.DESCRIPTOR.fields_by_name
    if "cards" in fields:
        return list(body.cards)
    if "card" in fields:
        return [body.card]
    return []


def help_text(view: pb.GameView, legal: pb.LegalMovesResponse, me: int) -> Group:
    kind = view.WhichOneof("game") or ""
    g = getattr(view, kind)
    now = huaniao_duty(g, me) if kind == "huaniao" else zipai_duty(g, me)
    lines: list[Any] = [Text("Now: ", "bold") + Text(now)]
    if kind == "huaniao" and g.HasField("last_play"):
        lp = g.last_play
        lines.append(
            Text("Reference play: ", "bold")
            + Text(
                f"seat {lp.seat}'s {enum_term(huaniao_pb2.PlayKind.Name(lp.kind))} of {lp.count}: "
            )
            + card_text(lp.cards, "+")
            + Text(f" -- the count to answer is {g.reference}")
        )
    elif kind == "zipai" and g.HasField("shown"):
        lines.append(Text("Shown card: ", "bold") + card_text([g.shown]))
    kinds = sorted({move_kind(label) for label in legal.labels})
    lines.append(Text("Your moves are: ", "bold") + Text(", ".join(term(k) for k in kinds)))
    lines.append(Text(""))
    lines.append(Text(rules_help(kind)))
    lines.append(Text(""))
    entry = (
        "`play 鸟 万`: play those cards of your hand"
        if kind == "huaniao"
        else "`打 五`: discard that card"
    )
    lines.append(
        Text(
            f"Type a move's number, {entry}, `help` or `?` for this, `quit` to leave "
            "(the game stays on the server)."
        )
    )
    return Group(*lines)


# --- free entries: cards by name ---------------------------------------------------------


def entry_move(raw: str, view: pb.GameView, me: int) -> pb.Move | None:
    """``play 鸟 万`` (花鸟风月) or ``打 五`` (川南字牌): a move the person wrote, legal or not
    (the server judges it and says which rule forbids it)."""
    word, _, rest = raw.partition(" ")
    names = rest.replace("+", " ").split()
    kind = view.WhichOneof("game")
    if kind == "huaniao" and word in ("play", "出") and names:
        hand = list(view.huaniao.seats[me].cards)
        ids = _take_by_name(hand, names)
        play = huaniao_pb2.Play(seat=me, cards=ids)
        if view.huaniao.verse_due:
            play.verse = OPENING_VERSE
        return pb.Move(huaniao=huaniao_pb2.Command(play=play))
    if kind == "zipai" and word in ("打", "discard") and len(names) == 1:
        hand = list(view.zipai.seats[me].hand)
        (card,) = _take_by_name(hand, names)
        return pb.Move(zipai=zipai_pb2.Command(discard=zipai_pb2.Discard(seat=me, card=card)))
    return None


class EntryError(ValueError):
    pass


def _take_by_name(hand: list[Any], names: list[str]) -> list[int]:
    ids = []
    free = list(hand)
    for name in names:
        card = next((c for c in free if card_name(c) == name), None)
        if card is None:
            raise EntryError(f"you hold no (more) {name}")
        free.remove(card)
        ids.append(card.id)
    return ids


# --- the loop -------------------------------------------------------------------------------


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


def start_table(
    client: TableClient, settings: PlaySettings, console: Console
) -> tuple[SeatClient, list[RandomBot], Tokens]:
    # only an explicit seed seeds the table (a prepared deal); bots get one either way
    seed = settings.seed if settings.seed is not None else random.randrange(1 << 30)
    created = client.create_game(
        game_options(settings.kind, settings.mode), settings.seats, seed=settings.seed
    )
    tokens = Tokens(client.target, created.game_id, created.arbiter_token)
    me = None
    bots: list[RandomBot] = []
    seated = []
    for s in range(settings.seats):
        who = settings.name if s == settings.seat else f"bot-{s}"
        # a seeded table is reproduced from its seed: then nobody contributes
        seat = client.join(created.game_id, s, who, None if settings.seed is None else "")
        seated.append(seat)
        tokens.seats[s] = seat.token or ""
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
    return me, bots, tokens


def play_game(
    client: TableClient,
    settings: PlaySettings,
    console: Console,
    ask: Callable[[str], str] = input,
) -> pb.GameView:
    """Play to the end (or until the person quits); returns the last view."""
    me, bots, tokens = start_table(client, settings, console)
    seen = 0
    moves = 0
    while True:
        view = me.view()
        for event in me.history():
            if event.version > seen:
                console.print(event_text(event))
                seen = event.version
        if view.phase == pb.GAME_PHASE_FINISHED:
            console.print(summary_panel(view, tokens, moves=None))
            return view
        if settings.seat in view.to_act:
            legal = me.legal_moves()
            if legal.moves and not your_move(me, view, legal, console, ask):
                return view
            moves += 1
            continue
        if not any(bot.step() for bot in bots) and not view.to_act:
            continue  # a claim window of other seats closed meanwhile: look again


def your_move(
    me: SeatClient,
    view: pb.GameView,
    legal: pb.LegalMovesResponse,
    console: Console,
    ask: Callable[[str], str],
) -> bool:
    """Ask until one move is accepted; False when the person quits."""
    console.print(turn_panel(view, me.seat or 0))
    console.print(menu(legal, view))
    n = len(legal.moves)
    while True:
        raw = ask("your move (number, help, quit)> ").strip()
        if raw in ("q", "quit", "exit"):
            console.print(f"left the table; the game stays on the server as {me.game_id}")
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
            move = legal.moves[int(raw)]
        else:
            try:
                move = entry_move(raw, view, me.seat or 0)
            except EntryError as exc:
                console.print(f"[red]{exc}[/red]")
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


def summary_panel(
    view: pb.GameView,
    tokens: Tokens | None,
    moves: int | None,
    verified: str | None = None,
    target: str | None = None,
) -> Panel:
    """The end of a game in a few lines: winner, scores, moves, id and what to do next."""
    o = view.outcome
    names = {s.seat: s.player_name for s in view.seats}
    grid = _grid()
    winners = ", ".join(f"seat {w} ({names.get(w, '')})" for w in o.winners) or "nobody"
    grid.add_row("winner", Text(winners, "bold green") + Text(f"  ({o.reason})", "dim"))
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
    t = f" --target {target}" if target else ""
    gid = view.game_id
    grid.add_row("replay", Text(f"tabletop replay {gid}{t}"))
    grid.add_row("web page", Text(f"tabletop replay {gid}{t} --html game.html"))
    grid.add_row("verify", Text(f"tabletop-audit verify {gid}{t}"))
    if tokens is not None:
        grid.add_row(
            "as a seat", Text(f"tabletop replay {gid}{t} --token ARBITER_TOKEN --as-seat 0", "dim")
        )
    return Panel(grid, title="game over", title_align="left")
