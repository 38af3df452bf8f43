"""`tabletop play`: a person at one seat against bots, in the one vocabulary of vocab.py.

The loop prints every new event, then -- when the person's seat is awaited -- a panel (hand,
the play to answer, what the seat must do), a menu of the legal moves (each row names its
kind) and a prompt. ``help`` explains the moment, the reference play and the scoring; an
entry the server refuses shows the rule's reason.
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
from rich import box
from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from clients.python.bot import RandomBot, make_bot
from clients.python.client import TableClient, reveal_and_start
from clients.python.render import Narration, card_text, coloured, label_text
from clients.python.rpcerrors import error_line
from clients.python.seat import SeatClient
from clients.python.text import card_name, cards_by_id, count_of
from clients.python.vocab import (
    card_from_word,
    card_words_help,
    enum_term,
    move_kind,
    reason_words,
    rules_help,
    term,
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
OPENING_VERSE = "春来花友会，夏夜鸟啼时。风过秋思追，月寒冬雪依。"


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
            f"{term('弃')} {count_of(mine.owes_discard, 'card')}; after the first card discards go "
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
            others.append(f"seat {s.seat}: {count_of(s.hand_count, 'card')}   ")
    grid.add_row("others", others)
    grid.add_row("deck", Text(f"{count_of(g.deck_size, 'card')} left"))
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
    grid.add_row("stock", Text(f"{count_of(g.stock_size, 'card')} left"))
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


@dataclass(frozen=True)
class MenuRow:
    """One choice of the move menu: a legal move, its label and its cards by name."""

    move: pb.Move
    label: str
    cards: tuple[str, ...]


# The order a menu lists a game's moves in: the seed's order of play, then by count and cards.
MOVE_ORDER = tuple("起 吟 诵 舞 栖 弃 猜 换季 胡 拢 招 碰 吃 过 打".split())
CARD_ORDER = "鸟十百千万花风月" + "一二三四五六七八九十壹贰叁肆伍陆柒捌玖拾"


def menu_rows(legal: pb.LegalMovesResponse, view: pb.GameView) -> list[MenuRow]:
    """The moves a person chooses from, sorted, each different move once: two 壹 in a
    川南字牌 hand make one ``打 壹``, since either card is the same move."""
    names = cards_by_id(view)
    labels = list(legal.labels) or [""] * len(legal.moves)
    rows: dict[tuple[str, tuple[str, ...]], MenuRow] = {}
    for move, label in zip(legal.moves, labels, strict=True):
        cards = tuple(names.get(c, f"#{c}") for c in move_cards(move))
        # the same card twice (a 川南字牌 pair: "打 六", "打 六（六第2张）") is one choice here
        same = label.split("（")[0]
        rows.setdefault((same, tuple(sorted(cards))), MenuRow(move, same, cards))
    return sorted(rows.values(), key=_menu_order)


def _menu_order(row: MenuRow) -> tuple[Any, ...]:
    word, _, rest = row.label.partition(" ")
    kind = MOVE_ORDER.index(word) if word in MOVE_ORDER else len(MOVE_ORDER)
    count = int(rest.split()[0]) if rest.split() and rest.split()[0].isdigit() else 0
    cards = [CARD_ORDER.find(c) for c in row.cards]
    return (kind, count, len(cards), cards, row.label)


def menu_table(rows: list[MenuRow], view: pb.GameView) -> Table:
    """One line per menu row: its number, its kind in the vocabulary, and its cards."""
    kind = view.WhichOneof("game")
    table = Table(box=box.SIMPLE, show_header=True, header_style="dim")
    table.add_column("#", justify="right", style="bold")
    table.add_column("move")
    table.add_column("cards")
    for i, row in enumerate(rows):
        shown = Text("+").join(coloured(c, kind) for c in row.cards)
        table.add_row(str(i), label_text(row.label, kind), shown if kind == "huaniao" else Text(""))
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
        "`play 鸟 万` (or `play niao wan`): play those cards of your hand"
        if kind == "huaniao"
        else "`打 五` (or `discard wu`): discard that card"
    )
    lines.append(
        Text(
            f"Type a move's number, {entry}, `help` or `?` for this, `quit` to leave "
            "(the game stays on the server; `tabletop play --resume` comes back to it)."
        )
    )
    lines.append(Text(card_words_help(kind), "dim"))
    return Group(*lines)


# --- free entries: cards by name ---------------------------------------------------------


PLAY_WORDS = ("play", "出", "chu")  # 花鸟风月: play these cards
DISCARD_WORDS = ("打", "discard", "da")  # 川南字牌: discard this card


def entry_move(raw: str, view: pb.GameView, me: int) -> pb.Move | None:
    """``play 鸟 万`` (花鸟风月) or ``打 五`` (川南字牌): a move the person wrote, legal or not
    (the server judges it and says which rule forbids it). Cards may be written by name,
    pinyin or English (``play niao wan``, ``discard big5``)."""
    word, _, rest = raw.partition(" ")
    names = rest.replace("+", " ").split()
    kind = view.WhichOneof("game")
    if kind == "huaniao" and word.lower() in PLAY_WORDS and names:
        hand = list(view.huaniao.seats[me].cards)
        ids = _take_by_name(hand, names, kind)
        play = huaniao_pb2.Play(seat=me, cards=ids)
        if view.huaniao.verse_due:
            play.verse = OPENING_VERSE
        return pb.Move(huaniao=huaniao_pb2.Command(play=play))
    if kind == "zipai" and word.lower() in DISCARD_WORDS and len(names) == 1:
        hand = list(view.zipai.seats[me].hand)
        (card,) = _take_by_name(hand, names, kind)
        return pb.Move(zipai=zipai_pb2.Command(discard=zipai_pb2.Discard(seat=me, card=card)))
    return None


class EntryError(ValueError):
    pass


def _take_by_name(hand: list[Any], words: list[str], kind: str) -> list[int]:
    ids = []
    free = list(hand)
    for word in words:
        name = card_from_word(word, kind)
        if name is None:
            raise EntryError(f"{word!r} names no card; {card_words_help(kind)}")
        card = next((c for c in free if card_name(c) == name), None)
        if card is None:
            raise EntryError(f"you hold no (more) {name}")
        free.remove(card)
        ids.append(card.id)
    return ids


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
            console.print(summary_panel(view, sitting.tokens, moves=None))
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
) -> Panel:
    """The end of a game in a few lines: winner, scores, moves, id and what to do next."""
    o = view.outcome
    names = {s.seat: s.player_name for s in view.seats}
    grid = _grid()
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
