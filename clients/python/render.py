"""Rich renderings for the terminal: cards in colour, events and labels in the one
vocabulary (clients/python/vocab.py), any game's view, and what changed between two views."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from google.protobuf.message import Message
from rich import box
from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.table import Table
from rich.text import Text

from clients.python.text import card_name
from clients.python.vocab import enum_term, gloss_line, label_line, reason_words
from domain import table as tables
from domain.table.deal import DealSource
from server.wire.page.terms import terms
from tabletop.v1 import tabletop_pb2 as pb

HUANIAO_STYLES = {
    "鸟": "bold green",
    "十": "yellow",
    "百": "yellow",
    "千": "dark_orange",
    "万": "dark_orange",
    "花": "bold magenta",
    "风": "bold cyan",
    "月": "bold blue",
}
ZIPAI_SMALL = "一二三四五六七八九十"
ZIPAI_BIG = "壹贰叁肆伍陆柒捌玖拾"
ZIPAI_RED = set("二七十贰柒拾")  # 大贰: 二七十 are the red cards
CJK = "\u4e00-\u9fff"
# A card name stands alone (between spaces, '+', brackets), never inside a word or a verse.
HUANIAO_CARD = re.compile(rf"(?<![{CJK}])[鸟十百千万花风月](?![{CJK}])")
ZIPAI_CARDS = re.compile(rf"(?<![{CJK}])[{ZIPAI_SMALL}{ZIPAI_BIG}]+(?![{CJK}])")


ZIPAI_KIND_FIELDS = ("played", "guo_zhang")  # card kinds 0..19, not ids


def zipai_kind_name(kind: int) -> str:
    return (ZIPAI_BIG if kind >= 10 else ZIPAI_SMALL)[kind % 10] if 0 <= kind < 20 else "?"


def card_style(name: str) -> str:
    if name in HUANIAO_STYLES:
        return HUANIAO_STYLES[name]
    if name in ZIPAI_SMALL or name in ZIPAI_BIG:
        colour = "red" if name in ZIPAI_RED else "white"
        return f"bold {colour}" if name in ZIPAI_BIG else colour
    return ""


def card_text(cards: Iterable[Message], sep: str = " ") -> Text:
    out = Text()
    for i, card in enumerate(cards):
        if i:
            out.append(sep)
        name = card_name(card)
        out.append(name, style=card_style(name))
    return out


def coloured(line: str, kind: str | None) -> Text:
    """A line with its card names coloured (the game kind picks the alphabet)."""
    text = Text(line)
    pattern = {"huaniao": HUANIAO_CARD, "zipai": ZIPAI_CARDS}.get(kind or "")
    if pattern is not None:
        for match in pattern.finditer(line):
            for i in range(match.start(), match.end()):
                text.stylize(card_style(line[i]), i, i + 1)
    return text


def game_of(event: pb.GameEvent) -> str | None:
    body = event.WhichOneof("body")
    return body if body in ("huaniao", "zipai") else None


def event_body(event: pb.GameEvent, kind: str | None = None) -> Text:
    """``seat 0 诵 (raise) 鸟+万 (5)``: the server's line in the one vocabulary."""
    kind = game_of(event) or kind
    return coloured(gloss_line(event.text, kind), kind)


def event_text(event: pb.GameEvent, kind: str | None = None) -> Text:
    """``v  12  seat 0 诵 (raise) 鸟+万 (5)``."""
    return Text(f"v{event.version:>4}  ", style="dim") + event_body(event, kind)


_PONGED = re.compile(r"^seat \d+ ponged ")


class Narration:
    """One game's events, line by line as they come, in the vocabulary. It reads the table's
    options from the first event, so a 碰 the rules made by themselves (碰牌自动碰下去, zp:39:
    a seat holding a pair always pongs) says it was automatic, not the seat's choice."""

    def __init__(self) -> None:
        self.kind: str | None = None
        self.automatic_peng = False

    def learn(self, options: pb.GameOptions) -> None:
        """The table's options (from its opening event, or its view)."""
        self.kind = options.WhichOneof("game")
        self.automatic_peng = self.kind == "zipai" and not options.zipai.optional_peng_long

    def line(self, event: pb.GameEvent) -> Text:
        if event.WhichOneof("body") == "table" and event.table.HasField("game_created"):
            self.learn(event.table.game_created.options)
        text = event_text(event, self.kind)
        if self.automatic_peng and _PONGED.match(event.text):
            text.append("  (automatic: a pair in hand always pongs, 碰牌自动碰下去)", "dim")
        return text


def outcome_line(view: pb.GameView) -> str:
    """``won by seat 1; scores 8 0 18 8 (率先打完手牌 (went out first))``."""
    o = view.outcome
    if view.void:  # the draw was abandoned: no deal, no winner, no scores
        return view.deal_status
    winners = ", ".join(f"seat {w}" for w in o.winners) or "nobody"
    scores = " ".join(str(s) for s in o.scores)
    return f"won by {winners}; scores {scores} ({reason_words(o.reason)})"


def id_column(table: Table, header: str) -> None:
    """A column of game or match ids: never wrapped, never cut (they are copied into
    other commands), whatever the terminal's width or when piped."""
    table.add_column(header, no_wrap=True, overflow="fold", min_width=36)


def label_text(label: str, kind: str | None) -> Text:
    """A legal move's label (LegalMovesResponse.labels) with its kind glossed."""
    return coloured(label_line(label), kind)


# --- generic rendering of any game's messages ------------------------------------------------


def enum_name(field: Any, number: int) -> str:
    """An enum value in the game's words: the vocabulary's (with its gloss), else the referee
    page's term table (``GROUP_KIND_TRIPLE`` -> ``三张``), else its short name."""
    value = field.enum_type.values_by_number.get(number)
    if value is None:
        return str(number)
    word = enum_term(value.name)
    if word:
        return word
    zh = terms()["enums"].get(value.name)
    if zh:
        return str(zh[0])
    prefix = re.sub(r"(?<!^)(?=[A-Z])", "_", field.enum_type.name).upper() + "_"
    return value.name.removeprefix(prefix).lower().replace("_", " ")


def value_text(field: Any, value: Any) -> Text:
    """One field's value, compact: cards by coloured name, enums in the vocabulary."""
    if field.message_type is not None:
        items = list(value) if field.is_repeated else [value]
        if field.message_type.name == "Card":
            return card_text(items)
        return Text("\n").join(message_text(m) for m in items)
    if field.enum_type is not None:
        items = list(value) if field.is_repeated else [value]
        return Text(", ".join(enum_name(field, v) for v in items))
    if (
        field.name in ZIPAI_KIND_FIELDS
        and field.containing_type.full_name == "tabletop.zipai.v1.SeatView"
    ):
        return coloured(" ".join(zipai_kind_name(k) for k in value), "zipai")
    if field.is_repeated:
        return Text(", ".join(str(v) for v in value))
    if field.name in ("end_reason", "reason") and isinstance(value, str) and value:
        return Text(reason_words(value))
    if isinstance(value, bool):
        return Text("yes" if value else "no")
    return Text(str(value))


# A 碰/招/拢 meld says its shape itself: its 三张 / 四张 group is not repeated.
_SAID_BY_THE_MELD = ("GROUP_KIND_TRIPLE", "GROUP_KIND_FOUR")


def message_text(msg: Message) -> Text:
    """A nested message on one line: enums and a `cards` list bare, other fields as name=value."""
    out = Text()
    fields = msg.ListFields()
    melded = any(
        f.name == "kind" and f.enum_type is not None and f.enum_type.name == "MeldKind"
        for f, _ in fields
    )
    for field, value in fields:
        if melded and field.name == "group" and field.enum_type is not None:
            if field.enum_type.values_by_number[value].name in _SAID_BY_THE_MELD:
                continue
        if out:
            out.append(" ")
        bare = field.enum_type is not None or field.name == "cards"
        if not bare:
            out.append(f"{field.name.replace('_', ' ')} ", style="dim")
        out.append_text(value_text(field, value))
    return out


def _role(view: pb.GameView) -> str:
    role = pb.Role.Name(view.role).removeprefix("ROLE_").lower()
    return role + (f" {view.seat}" if view.HasField("seat") else "")


def prepared_marking(source: int) -> str:
    """The words every surface shows for a prepared deal ("" for a shuffled one)."""
    if source in (pb.DEAL_SOURCE_SHUFFLED, pb.DEAL_SOURCE_UNSPECIFIED):
        return ""
    return tables.prepared_marking(DealSource[pb.DealSource.Name(source)[len("DEAL_SOURCE_") :]])


def head_rows(view: pb.GameView) -> list[tuple[str, Text]]:
    rows = [
        ("game", Text(view.game_id)),
        ("version", Text(str(view.version))),
        ("phase", Text(pb.GamePhase.Name(view.phase).removeprefix("GAME_PHASE_").lower())),
        ("as", Text(_role(view))),
    ]
    marking = prepared_marking(view.deal_source)
    if marking:
        rows.append(("deal", Text(marking, "bold red")))
    if view.to_act:
        rows.append(("to act", Text(", ".join(f"seat {s}" for s in view.to_act))))
    if view.deal_status and not view.void:  # whom the draw waits for; seats adding nothing
        rows.append(("draw", Text(view.deal_status, "bold" if view.awaiting_seats else "")))
    if view.HasField("outcome"):
        rows.append(("outcome", Text(outcome_line(view), "bold")))
    if view.HasField("match"):
        rows.append(("match", Text(match_line(view.match, view.match.hand))))
    return rows


def match_line(match: pb.MatchView, hand: int = 0) -> str:
    """Where a match stands, in one line: "hand 2 of 4 (match ...)"."""
    length = f"of {match.hands}" if match.hands else f"to {match.target_score} points"
    if match.finished and match.incomplete:
        waited = ", ".join(f"seat {s}" for s in match.waiting_for)
        return (
            f"ended INCOMPLETE after {len(match.results)} hands: hand {len(match.results)} void "
            f"(no deal, waiting for {waited}); the hands before it stand, no winner "
            f"(match {match.match_id})"
        )
    if match.finished:
        winners = ", ".join(f"seat {w}" for w in match.winners)
        return f"ended after {len(match.results)} hands; won by {winners} (match {match.match_id})"
    shown = hand or match.current_hand
    target = f", to {match.target_score} points" if match.hands and match.target_score else ""
    return f"hand {shown} {length}{target} (match {match.match_id})"


def standings_table(match: pb.MatchView, names: dict[int, str] | None = None) -> Table:
    """The match's standings: each seat's total, hands won and rank, and each hand's score."""
    order = "the lower total leads" if match.lower_score_wins else "the higher total leads"
    title = "standings" + (" (final)" if match.finished else "") + f": {order}"
    table = Table(box=box.SIMPLE_HEAVY, title=title, title_justify="left")
    table.add_column("rank", justify="right")
    table.add_column("seat", justify="right")
    if names:
        table.add_column("player")
    for r in match.results:
        table.add_column(f"hand {r.hand}", justify="right")
    table.add_column("total", justify="right")
    table.add_column("wins", justify="right")
    for s in sorted(match.standings, key=lambda s: (s.rank, s.seat)):
        cells = [str(s.rank), str(s.seat)]
        if names:
            cells.append(names.get(s.seat, ""))
        for r in match.results:
            won = s.seat in r.winners
            cells.append(f"{r.scores[s.seat]}{'*' if won else ''}" if r.scores else "")
        cells += [str(s.total), str(s.wins)]
        table.add_row(*cells, style="bold green" if match.finished and s.rank == 1 else None)
    return table


def seat_rows(view: pb.GameView) -> tuple[list[str], list[tuple[int, list[Text]]]]:
    """The seats table: column names, then per seat its cells (the game's SeatView fields)."""
    which = view.WhichOneof("game")
    game = getattr(view, which) if which else None
    game_seats = {}
    if game is not None and "seats" in game.DESCRIPTOR.fields_by_name:
        game_seats = {s.seat: s for s in game.seats}
    fields: list[Any] = []
    for s in game_seats.values():
        for f, _ in s.ListFields():
            if f.name != "seat" and f not in fields:
                fields.append(f)
    rows = []
    for info in view.seats:
        row = [Text(info.player_name if info.taken else "(free)")]
        gs = game_seats.get(info.seat)
        for f in fields:
            shown = gs is not None and (not f.has_presence or gs.HasField(f.name))
            row.append(value_text(f, getattr(gs, f.name)) if shown else Text(""))
        rows.append((info.seat, row))
    return ["player", *(f.name.replace("_", " ") for f in fields)], rows


def game_rows(view: pb.GameView) -> list[tuple[str, Text]]:
    which = view.WhichOneof("game")
    if not which:
        return []
    game = getattr(view, which)
    return [
        (field.name.replace("_", " "), value_text(field, value))
        for field, value in game.ListFields()
        if field.name not in ("seats", "options")
    ]


def view_renderable(view: pb.GameView) -> Group:
    """A game view as a header, a seats table and the rest of the game's view."""
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold")
    head.add_column()
    for name, value in head_rows(view):
        head.add_row(name, value)
    parts: list[Any] = [head, Seats(view)]
    rest_rows = game_rows(view)
    if rest_rows:
        rest = Table(
            box=box.SIMPLE, show_header=False, title=view.WhichOneof("game"), title_justify="left"
        )
        rest.add_column(style="bold")
        rest.add_column()
        for name, value in rest_rows:
            rest.add_row(name, value)
        parts.append(rest)
    if view.HasField("match") and view.match.results:
        names = {info.seat: info.player_name for info in view.seats}
        parts.append(standings_table(view.match, names))
    return Group(*parts)


class Seats:
    """The seats of a view: one table, a row a seat, where the terminal is wide enough for
    every cell whole; else a block a seat, a line a field, so no card is ever cut (``tabletop
    view`` at 80 columns or piped)."""

    def __init__(self, view: pb.GameView) -> None:
        self.view = view
        self.columns, self.rows = seat_rows(view)

    def wide(self) -> Table:
        seats = Table(box=box.SIMPLE_HEAVY, title="seats", title_justify="left")
        seats.add_column("seat", justify="right", no_wrap=True)
        for c in self.columns:
            seats.add_column(c, no_wrap=True)
        for seat, cells in self.rows:
            seats.add_row(str(seat), *cells, style=self._style(seat))
        return seats

    def narrow(self) -> Group:
        blocks: list[Any] = []
        for seat, cells in self.rows:
            block = Table(
                box=box.SIMPLE, show_header=False, title=f"seat {seat}", title_justify="left"
            )
            block.add_column(style="bold", no_wrap=True)
            block.add_column(overflow="fold")
            for column, cell in zip(self.columns, cells, strict=True):
                if cell.plain:
                    block.add_row(column, cell)
            blocks.append(block)
        return Group(*blocks)

    def _style(self, seat: int) -> str | None:
        return "bold" if seat in self.view.to_act else None

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        # each column as wide as its widest line, plus the table's padding and edges
        widths = [max([len(str(s)) for s, _ in self.rows] + [4])]
        for i, column in enumerate(self.columns):
            lines = [len(column)]
            for _, cells in self.rows:
                lines += [
                    console.measure(Text(line)).maximum for line in cells[i].plain.split("\n")
                ]
            widths.append(max(lines))
        needed = sum(widths) + 3 * len(widths) + 1
        yield self.wide() if needed <= options.max_width else self.narrow()


# --- what changed ---------------------------------------------------------------------------


def flat_view(view: pb.GameView) -> dict[str, Text]:
    """Every line a person reads in a view, by a stable name ("seat 2 cards", "reference")."""
    out: dict[str, Text] = {}
    for name, value in head_rows(view):
        if name not in ("version", "game"):
            out[name] = value
    columns, rows = seat_rows(view)
    for seat, cells in rows:
        for column, cell in zip(columns, cells, strict=True):
            if cell.plain:
                out[f"seat {seat} {column}"] = cell
    for name, value in game_rows(view):
        out[name] = value
    return out


def view_diff(before: pb.GameView | None, after: pb.GameView) -> Table:
    """What changed from ``before`` to ``after``, one line per changed field."""
    old = flat_view(before) if before is not None else {}
    new = flat_view(after)
    table = Table(box=box.SIMPLE, show_header=False, pad_edge=False)
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for key in [*new, *(k for k in old if k not in new)]:
        was, now = old.get(key), new.get(key)
        if was is not None and now is not None and was.plain == now.plain:
            continue
        if now is None:
            table.add_row(key, Text("(gone) ", "dim") + (was or Text("")))
        elif was is None:
            table.add_row(key, now)
        else:
            table.add_row(key, was.copy().append(" → ", "dim").append_text(now))
    if not table.rows:
        table.add_row("", Text("(nothing visible changed)", "dim"))
    return table
