"""What `tabletop play` shows and reads at the prompt: the panels (hand, the play to
answer, what the seat must do), the menu of legal moves, `help`, and free entries that
name cards (play.py is the loop that uses them)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich import box
from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from clients.python.render import card_text, coloured, label_text
from clients.python.text import card_name, cards_by_id, count_of
from clients.python.vocab import (
    card_from_word,
    card_words_help,
    enum_term,
    move_kind,
    rules_help,
    term,
)
from tabletop.huaniao.v1 import huaniao_pb2
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.zipai.v1 import zipai_pb2

OPENING_VERSE = "春来花友会，夏夜鸟啼时。风过秋思追，月寒冬雪依。"


# --- panels ---------------------------------------------------------------------------------


def panel_grid() -> Table:
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
    grid = panel_grid()
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
    grid = panel_grid()
    mine = g.seats[me]
    hand = sorted(mine.hand, key=lambda c: (c.big, c.rank))  # typed by the hand, not card_text
    grid.add_row("your hand", card_text(hand))
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
