"""Leak hunt at the server's render layer, in process: the same code path as the gRPC API
(``server.usecases.TableServer`` for every use case, ``server.wire.render`` for every message,
``server.transport.errors.to_status`` for every refusal) minus the transport, so that thousands of
random games fit in a test run. tests/api/leakhunt.py hunts the same way over real gRPC.

At every version the arbiter's view of the game gives what is hidden from each seat (the
other seats' hands and the deck) and from a spectator (every hand and the deck). Seats
play random legal moves, and the hunt renders, per viewer, what the API would send it:

* **streams and replies**: every event, for every seat and the spectator, as Watch,
  GetHistory and PlayResponse render it, and each PlayResponse the acting seat gets;
* **views**: the acting seat's GetView and LegalMoves before each move; at two random
  versions every viewer's GetView; at two random versions every viewer's GetView of a
  *past* version (replay); one Replay stream and one GetHistory per game, mid-game;
* **secrets**: every seat commits at JoinGame and reveals (RevealContribution, whose reply
  is hunted too); no message holds the table's shuffle secret, its salt, a seat's
  contribution, or its shuffle seed as a number or in a text, before the game ends; the
  arbiter's history and view are hunted for the secret, the salt and the contributions;
* **who is awaited**: after every move, each viewer's ``to_act``: a seat may be told only
  of seats the game awaits in public (in a 川南字牌 claim window or 爆 prompt, at most
  itself: who may claim gives hands away);
* **error messages**: three times a game, the acting seat and an idle seat play a card
  hidden in another seat's hand, and a card of the same face hidden in the deck: both must
  be refused with the same status, message and details up to the card id, so a refusal
  never tells where a hidden card is;
* **receipts** (every Play and RevealContribution reply, view and Watch message carries one, as the servicer
  builds them in ``server.wire.receipts``): each is the viewer's own (its index and its nonce;
  the arbiter's only for the final move, which opens everything), hashes exactly the
  payload it came with, and is signed by the server's key; nobody is ever sent another
  viewer's nonce, which would let it test guesses of that viewer's cards against the seal.

A card hidden from a viewer both before and after the move that produced an event must not
be in it, unless it passed through the viewer's own hand during that move (花鸟风月: a card
drawn for 阳春白雪 before the play and then passed on by the 花鸟风月 exchange); the final
move's events are exempt (the game is over: everything is open).
"""

from __future__ import annotations

import asyncio
import bisect
import dataclasses
import random
import re
import uuid
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import text_format
from google.protobuf.message import Message
from google.rpc import status_pb2

from clients.python.receipts import check_payload, check_signature
from domain import table as tables
from domain.engine import ARBITER, SPECTATOR, DomainError, Viewer
from domain.registry import rules_for
from domain.table import deal, records
from domain.verify import AuditFailure
from server.startup.compose import table_server
from server.store.eventstore import TableApplication
from server.transport.errors import to_status
from server.usecases.table_server import TableServer
from server.wire import receipts, render, render_moves
from server.wire.receipts import Sealer
from server.wire.signing import Signer
from tabletop.v1 import tabletop_pb2 as pb

PROBES = 3
SPOT_VIEWS = 2
PAST_VIEWS = 2


@dataclass
class HuntResult:
    games: int = 0
    moves: int = 0
    checks: int = 0
    probes: int = 0
    leaks: list[str] = field(default_factory=list)

    def add(self, other: HuntResult) -> None:
        self.games += other.games
        self.moves += other.moves
        self.checks += other.checks
        self.probes += other.probes
        self.leaks += other.leaks


CARD_FIELDS = frozenset(("card", "cards", "deck", "card_id", "card_ids"))


# How walk treats each field, decided once per field descriptor (the walk runs over every
# message of thousands of games): a card id field, another scalar, a Card, a message.
_CARD_ID, _SCALAR, _CARD, _MESSAGE = range(4)
_FIELD_KIND: dict[Any, tuple[int, bool]] = {}


def _field_kind(fd: Any) -> tuple[int, bool]:
    if fd.message_type is None:
        kind = _CARD_ID if fd.name in CARD_FIELDS else _SCALAR
    else:
        kind = _CARD if fd.message_type.name == "Card" else _MESSAGE
    _FIELD_KIND[fd] = found = (kind, fd.is_repeated)
    return found


def walk(msg: Message, cards: set[int], values: list[Any]) -> None:
    """Collect a message's card ids (tests.api.helpers.card_ids: any Card's ``id`` and any
    integer field named like a card) and every other scalar, in one pass."""
    _walk(msg, cards, values, values)


def _walk(msg: Message, cards: set[int], texts: list[Any], others: list[Any]) -> None:
    """walk, with the string scalars in ``texts`` and the other scalars in ``others``."""
    for fd, value in msg.ListFields():
        kind, repeated = _FIELD_KIND.get(fd) or _field_kind(fd)
        if kind == _SCALAR:
            out = texts if fd.type == fd.TYPE_STRING else others
            if repeated:
                out.extend(value)
            else:
                out.append(value)
        elif kind == _CARD_ID:
            if repeated:
                cards.update(value)
            else:
                cards.add(value)
        elif kind == _CARD:
            for item in value if repeated else (value,):
                cards.add(item.id)
        else:
            for item in value if repeated else (value,):
                _walk(item, cards, texts, others)


def hands_and_deck(table: tables.Table) -> tuple[list[set[int]], set[int]]:
    """Every seat's hand and the undealt cards, from the game's own arbiter view (any game
    whose seat views list ``cards`` or ``hand`` and whose view lists ``deck`` or ``stock``).
    Fresh sets: the caller may change them."""
    hands, deck = _hands_and_deck(table.kind, table.game)
    return [set(h) for h in hands], set(deck)


def _hands_and_deck(kind: str, game: Any) -> tuple[list[frozenset[int]], frozenset[int]]:
    """hands_and_deck of a game state, remembered by the state's identity (states are frozen):
    the hunt looks at each state several times (the hidden cards after a move, the cards held
    during it, the error probes), and the game folds the same facts over the same state into
    the very same object (domain.engine.remembers_folds)."""
    hit = _HANDS.get(id(game))
    if hit is not None and hit[0] is game:
        return hit[1]
    view = rules_for(kind).view(game, ARBITER)
    hands = []
    for sv in view.seats:
        held = sv.cards if hasattr(sv, "cards") else sv.hand
        hands.append(frozenset(c.id for c in held))
    deck = getattr(view, "deck", None) or getattr(view, "stock", ())
    found = hands, frozenset(c.id for c in deck)
    if len(_HANDS) >= 64:
        _HANDS.clear()
    _HANDS[id(game)] = (game, found)  # holds the state: its id stays its own
    return found


_HANDS: dict[int, tuple[Any, tuple[list[frozenset[int]], frozenset[int]]]] = {}


def faces(table: tables.Table) -> dict[int, tuple[Any, ...]]:
    """Each card's public look (its Card without the id), from the arbiter's view."""
    out: dict[int, tuple[Any, ...]] = {}

    def walk(value: Any) -> None:
        if isinstance(value, tuple):
            for v in value:
                walk(v)
        elif dataclasses.is_dataclass(value):
            if type(value).__name__ == "Card":
                out[value.id] = tuple(
                    getattr(value, f.name) for f in dataclasses.fields(value) if f.name != "id"
                )
                return
            for f in dataclasses.fields(value):
                walk(getattr(value, f.name))

    walk(rules_for(table.kind).view(table.game, ARBITER))
    return out


def same_but_card(x: tuple[str, str], y: tuple[str, str], a: int, b: int) -> bool:
    """Two refusals are alike if they differ only where one names card ``a`` and the other
    card ``b``."""
    if x[0] != y[0]:
        return False
    xs, ys = re.split(r"(\d+)", x[1]), re.split(r"(\d+)", y[1])
    return len(xs) == len(ys) and all(
        p == q or (p == str(a) and q == str(b)) for p, q in zip(xs, ys, strict=True)
    )


def card_fields(command: Any) -> list[str]:
    return [f.name for f in dataclasses.fields(command) if f.name in ("cards", "card")]


def is_table_command(command: Any) -> bool:
    return not type(command).__module__.startswith(("domain.huaniao", "domain.zipai"))


class GameHunt:
    """One random game, hunted. ``run`` plays it to the end and returns what it found."""

    def __init__(self, ts: TableServer, kind: str, options: Any, seats: int, seed: int) -> None:
        self.ts = ts
        self.kind = kind
        self.options = options
        self.n = seats
        self.seed = seed
        self.rng = random.Random(seed)
        self.result = HuntResult(games=1)
        self.viewers = [Viewer.of_seat(s) for s in range(seats)] + [SPECTATOR]
        self.hidden: dict[int, list[set[int]]] = {}  # version -> ids hidden per viewer
        # version -> the table before its move and the move's events, to tell what each seat
        # held during it (held_during) when a message holds a card hidden before and after
        self.moved: dict[int, tuple[tables.Table, list[Any]]] = {}
        self.moves_at: list[int] = []
        self.pending: list[tuple[int, int, Message, str]] = []  # (version, viewer, msg, what)
        sealer = ts.games.sealer
        assert isinstance(sealer, Sealer), "the hunt runs with receipts on"
        self.sealer = sealer
        self.public_key = sealer.signer.public_key
        self.signed: set[bytes] = set()
        self.nonces: dict[tuple[int, int], bytes] = {}

    def leak(self, text: str) -> None:
        self.result.leaks.append(f"{self.kind} {self.n} seats seed={self.seed}: {text}")

    def record(self, v: int, who: int, msg: Message, what: str) -> None:
        self.pending.append((v, who, msg, what))

    def table(self) -> tables.Table:
        return self.ts.games._latest[self.uid].table

    def note_hidden(self, version: int) -> None:
        table = self.table()
        hands, deck = _hands_and_deck(table.kind, table.game)
        everything = deck.union(*hands)
        self.hidden[version] = [everything - hands[s] for s in range(self.n)] + [everything]
        self.moves_at.append(version)

    def held_during(self, table: tables.Table, stored: list[Any]) -> list[set[int]]:
        """The cards each seat held at some point while the move's facts applied."""
        held = [set[int]() for _ in range(self.n)]
        for e in stored:
            table = tables.evolve(table, e.fact)
            if table.game is not None:
                for seat, hand in enumerate(_hands_and_deck(table.kind, table.game)[0]):
                    held[seat] |= hand
        return held

    async def run(self) -> HuntResult:
        ts = self.ts
        gid, _, _ = await ts.seats.create_game(
            self.kind, self.options, self.n, self.seed, allow_unkeyed_seats=True
        )
        self.gid, self.uid = gid, uuid.UUID(gid)
        await self.join_and_reveal()
        version = await ts.deal.start_game(gid, ARBITER)
        table = self.table()
        self.secret = table.secret
        self.salt = table.salt
        started = [e.fact for e in await self.events(0, version)]
        self.shuffle_seed = next(f.seed for f in started if isinstance(f, tables.GameStarted))
        self.face = faces(table)
        self.stream(await self.events(0, version))
        self.note_hidden(version)
        rng = self.rng
        spots = set(rng.sample(range(40), SPOT_VIEWS))
        pasts = set(rng.sample(range(3, 40), PAST_VIEWS))
        probes = set(rng.sample(range(30), PROBES))
        midway = rng.randrange(4, 25)
        rules = rules_for(self.kind)
        move_no = 0
        while (awaited := rules.to_act(self.table().game)) and move_no < 5000:
            seat = rng.choice(list(awaited))
            viewer = self.viewers[seat]
            await self.view(seat, version, None)
            _table, v, commands = await ts.play.legal_moves(gid, viewer)
            for c in commands:
                self.record(v, seat, render_moves.move_proto(self.kind, c), "LegalMoves")
            if move_no in probes:
                await self.probe_errors(seat, commands, version)
            if move_no in spots:
                for who in range(self.n + 1):
                    await self.view(who, version, None)
            if move_no in pasts:
                past = rng.randrange(1, version)
                for who in range(self.n + 1):
                    await self.view(who, past, past)
            if move_no == midway:
                await self.replay(version)
                await self.history()
            # mostly the game's own moves; now and then a table command LegalMoves offers
            # (a 误操作 retraction, an appeal): the hidden sets follow the arbiter's view
            game_moves = [c for c in commands if not is_table_command(c)]
            command = rng.choice(game_moves if game_moves and rng.random() > 0.05 else commands)
            before_move = self.table()
            stored = await ts.play.play(gid, viewer, v, command)
            version = stored[-1].version
            self.moved[version] = (before_move, stored)
            after = await ts.watch.snapshot(gid, viewer, version)
            reply = receipts.play_reply(self.sealer, self.kind, stored, viewer, after)
            self.record(version, seat, reply, "PlayResponse")
            self.stream(stored)
            self.note_hidden(version)
            self.check_to_act(version)
            move_no += 1
        if self.table().phase is not tables.Phase.FINISHED:
            self.leak(f"the game did not end in {move_no} moves")
        self.result.moves = move_no
        self.check_all()
        self.ts.games._latest.pop(self.uid, None)  # keep the hunt's memory flat
        return self.result

    async def join_and_reveal(self) -> None:
        """Every seat commits to a contribution, then reveals it (the reply is hunted). The
        views in between carry the reveal deadline: their receipts must cover it."""
        self.contributions = [f"{self.rng.getrandbits(128):032x}" for _ in range(self.n)]
        joined = 0
        for s, c in enumerate(self.contributions):
            commitment = deal.contribution_commitment(c)
            _, joined = await self.ts.seats.join_game(self.gid, s, f"p{s}", commitment=commitment)
        for who in range(self.n + 1):
            await self.view(who, joined, None)
        for s, c in enumerate(self.contributions):
            viewer = self.viewers[s]
            version, stored, awaiting, deadline = await self.ts.deal.reveal(self.gid, viewer, c)
            after = await self.ts.watch.snapshot(self.gid, viewer, version)
            reply = receipts.reveal_reply(
                self.sealer, version, stored, awaiting, deadline, viewer, after
            )
            self.record(version, s, reply, "RevealContributionResponse")
        await self.arbiter_blind()

    async def arbiter_blind(self) -> None:
        """Before the deal, the arbiter's history and view hold no secret, salt or
        contribution: the arbiter joins no earlier than anyone into the deal's inputs."""
        table = self.table()
        secrets = [table.secret, table.salt, *self.contributions]
        _, evs, _, seen_as = await self.ts.watch.history(self.gid, ARBITER, 0, 1000)
        view = await self.ts.watch.snapshot(self.gid, ARBITER, None)
        shown: list[Message] = [
            *render.events_proto(self.kind, evs, seen_as, complete=False),  # GetHistory's
            receipts.view_reply(self.sealer, view),
        ]
        for msg in shown:
            values: list[Any] = []
            walk(msg, set(), values)
            self.result.checks += 1
            if any(isinstance(v, str) and any(x in v for x in secrets) for v in values):
                self.leak(
                    f"the arbiter got the secret, the salt or a contribution at v{table.version}"
                )

    async def events(self, after: int, upto: int) -> list[Any]:
        return (await self.ts.watch.history(self.gid, ARBITER, after, upto - after))[1]

    def stream(self, events: list[Any]) -> None:
        """Stored events as every seat's and the spectator's Watch renders a live batch (it
        opens up only if it ended the game, as server.usecases.watch does)."""
        table = self.table()
        ended = table.phase is tables.Phase.FINISHED
        for who, vw in enumerate(self.viewers):
            seen_as = ARBITER if ended else vw
            for msg in receipts.watch_messages(self.sealer, self.kind, table, seen_as, events):
                self.record(msg.event.version, who, msg, "stream")

    async def view(self, who: int, at: int, version: int | None) -> None:
        snap = await self.ts.watch.snapshot(self.gid, self.viewers[who], version)
        what = "GetView" if version is None else f"GetView(version={version})"
        self.record(at, who, receipts.view_reply(self.sealer, snap), what)

    async def replay(self, version: int) -> None:
        who = self.rng.randrange(self.n + 1)
        first = self.rng.randrange(1, version)
        async for event, snap in self.ts.watch.replay(self.gid, self.viewers[who], first, version):
            step = pb.ReplayResponse(
                event=render.event_proto(self.kind, event, snap.viewer),
                view=render.view_proto(snap),
            )
            self.record(step.view.version, who, step, "Replay")

    async def history(self) -> None:
        for who in (self.rng.randrange(self.n), self.n):
            _, evs, _, seen_as = await self.ts.watch.history(self.gid, self.viewers[who], 0, 1000)
            # mid-game: GetHistory (server/transport/servicer.py) adds the stored form only after the end
            for e in render.events_proto(self.kind, evs, seen_as, complete=False):
                self.record(e.version, who, e, "GetHistory")

    def check_to_act(self, version: int) -> None:
        """Each viewer's to_act: public waits in full; private ones (a 川南字牌 claim window,
        a 爆 or 胡 prompt) at most the viewer itself."""
        table = self.table()
        if table.phase is tables.Phase.FINISHED:
            return
        rules = rules_for(self.kind)
        awaited = set(rules.to_act(table.game))
        private = self.kind == "zipai" and table.game.phase.name in ("CLAIM", "BAO", "PROMPT_HU")
        # every viewer when the wait may be private, else one at random (public: all alike)
        who_all = range(self.n + 1) if private else [self.rng.randrange(self.n + 1)]
        for who in who_all:
            vw = self.viewers[who]
            shown = set(render.to_act(table, vw))
            self.result.checks += 1
            if not shown <= awaited:
                self.leak(f"v{version}: viewer {who} told of seats {sorted(shown)} not awaited")
            elif private and not shown <= {who}:
                self.leak(
                    f"v{version}: viewer {who} is told seats {sorted(shown)} are awaited in a "
                    f"{table.game.phase.name} window (who may claim gives hands away)"
                )
            elif not private and shown != awaited:
                self.leak(f"v{version}: viewer {who} is not told who the game waits for")

    async def probe_errors(self, seat: int, commands: list[Any], version: int) -> None:
        """A card in another seat's hand and a card of the same face in the deck, played by
        the awaited seat and by the next seat: each pair must be refused alike."""
        table = self.table()
        hands, deck = _hands_and_deck(table.kind, table.game)
        others = set().union(*(h for t, h in enumerate(hands) if t != seat))
        pairs = [
            (a, b) for a in sorted(others) for b in sorted(deck) if self.face[a] == self.face[b]
        ]
        with_cards = [c for c in commands if card_fields(c)]
        if not pairs or not with_cards:
            return
        base = self.rng.choice(with_cards)
        name = card_fields(base)[0]
        a, b = self.rng.choice(pairs)
        for actor in {seat, (seat + 1) % self.n}:
            if a in hands[actor]:
                continue
            outs = []
            for card in (a, b):
                value = getattr(base, name)
                probe = dataclasses.replace(
                    base,
                    seat=actor,
                    **{name: (card, *value[1:]) if isinstance(value, tuple) else card},
                )
                try:
                    await self.ts.play.play(self.gid, self.viewers[actor], version, probe)
                except DomainError as exc:
                    status = to_status(exc)
                    assert status is not None
                    rich = status_pb2.Status.FromString(
                        dict(status.trailing_metadata)["grpc-status-details-bin"]
                    )
                    self.record(version, actor, rich, "error status")
                    outs.append((status.code.name, text_format.MessageToString(rich, as_utf8=True)))
                    continue
                self.leak(f"v{version}: seat {actor} played a card it does not hold: {probe}")
                return
            self.result.probes += 1
            if not same_but_card(outs[0], outs[1], a, b):
                self.leak(
                    f"v{version}: seat {actor} is refused differently for a card in another "
                    f"hand ({a}) and one of the same face in the deck ({b}): {outs}"
                )

    def check_all(self) -> None:
        moves_at = self.moves_at
        final_start = moves_at[-2] if len(moves_at) > 1 else moves_at[-1]
        seed_text = str(self.shuffle_seed)
        hidden_texts = [self.secret, self.salt, seed_text, *self.contributions]

        held: dict[int, list[set[int]]] = {}  # version -> ids held during its move

        def hidden_in(cards: set[int], who: int, v: int) -> set[int]:
            """Of ``cards``, those hidden from the viewer both before and after the move that
            made version v, and not in its own hand during that move. What each seat held
            during a move is found only for a move with such a card (a fold and an arbiter
            view per fact: a tenth of the hunt's time when done for every move)."""
            if v <= moves_at[0]:
                return cards & self.hidden[moves_at[0]][who]
            i = bisect.bisect_left(moves_at, v)
            before, after = moves_at[i - 1], moves_at[min(i, len(moves_at) - 1)]
            extra = cards & self.hidden[before][who] & self.hidden[after][who]
            if extra and who < self.n and after in self.moved:
                if after not in held:
                    held[after] = self.held_during(*self.moved[after])
                extra -= held[after][who]
            return extra

        moves: dict[tuple[int, int, int], list[pb.GameEvent]] = {}  # Watch: a move so far
        for v, who, msg, what in self.pending:
            self.check_receipt(v > final_start, who, msg, what, moves)
            if v > final_start:
                continue
            self.result.checks += 1
            cards: set[int] = set()
            texts: list[str] = []
            others: list[Any] = []
            _walk(msg, cards, texts, others)
            extra = hidden_in(cards, who, v)
            if extra:
                self.leak(f"viewer {who} got hidden cards {sorted(extra)} in a {what} at v{v}")
            # fast screen, one search per hidden text over the message's strings joined (none
            # holds a NUL); on a hit, every value is looked at one by one for the report
            joined = "\x00".join(texts)
            if self.shuffle_seed not in others and not any(x in joined for x in hidden_texts):
                continue
            for value in [*texts, *others]:
                if isinstance(value, int) and value == self.shuffle_seed:
                    self.leak(f"viewer {who} got the shuffle seed in a {what} at v{v}")
                elif isinstance(value, str) and any(x in value for x in hidden_texts):
                    self.leak(
                        f"viewer {who} got the shuffle secret, salt or seed, or a seat's "
                        f"contribution in a {what} at v{v}"
                    )

    def nonce(self, version: int, index: int) -> bytes:
        """records.receipt_nonce, once per version and viewer (many messages share one)."""
        key = (version, index)
        if (found := self.nonces.get(key)) is None:
            found = self.nonces[key] = records.receipt_nonce(self.secret, self.salt, version, index)
        return found

    def check_receipt(
        self,
        final: bool,
        who: int,
        msg: Message,
        what: str,
        moves: dict[tuple[int, int, int], list[pb.GameEvent]],
    ) -> None:
        """A receipt is the viewer's own (the arbiter's only in the final move), for exactly
        its payload, and signed by the server."""
        receipt = getattr(msg, "receipt", None)
        if receipt is None or not msg.HasField("receipt"):
            if what in ("PlayResponse", "RevealContributionResponse", "GetView"):
                self.leak(f"viewer {who} got a {what} without a receipt")
            return
        mine = records.receipt_index(self.viewers[who], self.n)
        allowed = {mine, self.n + 1} if final else {mine}
        nonces = {self.nonce(receipt.last_version, i) for i in allowed}
        if receipt.viewer not in allowed or bytes(receipt.nonce) not in nonces:
            self.leak(
                f"viewer {who} got the receipt (and nonce) of viewer {receipt.viewer} in a {what} "
                f"at v{receipt.last_version}"
            )
            return
        if isinstance(msg, pb.WatchResponse):  # a move's events come one message each
            key = (who, receipt.first_version, receipt.last_version)
            moves.setdefault(key, []).append(msg.event)
            if msg.event.version != receipt.last_version:
                return
            payload = receipts.payload_bytes(events=moves.pop(key))
        elif isinstance(msg, pb.PlayResponse | pb.RevealContributionResponse):
            payload = receipts.payload_bytes(events=list(msg.events))
        else:
            payload = receipts.payload_bytes(view=msg.view)  # type: ignore[attr-defined]
        try:
            check_payload(receipt, payload)
            if bytes(receipt.signature) not in self.signed:  # once per seal: keep it fast
                check_signature(receipt, self.public_key)
                self.signed.add(bytes(receipt.signature))
        except AuditFailure as exc:
            self.leak(f"viewer {who}'s receipt in a {what}: {exc}")
        self.result.checks += 1


def options_for(kind: str, i: int, rng: random.Random) -> tuple[Any, int]:
    """A random table of ``kind``: every 花鸟风月 mode (PRO with a random optional rule) at
    four seats, and 川南字牌 at 2, 3 and 4 seats over its variants and scorings."""
    if kind == "huaniao":
        from domain.huaniao.options import PRO_RULES, Mode, Options

        mode = list(Mode)[i % len(Mode)]
        extra = {rng.choice(PRO_RULES): True} if mode is Mode.PRO else {}
        return Options(mode=mode, **extra), rng.choice((2, 3, 4, 4))
    from domain.zipai.options import DealerRule, ScoringProfile, Variant
    from domain.zipai.options import Options as ZOptions

    return (
        ZOptions(
            variant=rng.choice(list(Variant)),
            dealer_rule=rng.choice(list(DealerRule)),
            scoring=rng.choice(list(ScoringProfile)),
        ),
        (2, 3, 4)[i % 3],
    )


def hunt_many(kind: str, first_seed: int, games: int) -> HuntResult:
    """``games`` random games of ``kind`` on one in-memory TableServer."""

    async def run() -> HuntResult:
        ts = table_server(
            TableApplication(env={"PERSISTENCE_MODULE": "eventsourcing.popo"}),
            sealer=Sealer(Signer.generate()),  # receipts on
            allow_prepared_deals=True,  # seeded and prepared tables: reproducible hunts
        )
        total = HuntResult()
        try:
            for i in range(games):
                seed = first_seed + i
                options, seats = options_for(kind, seed, random.Random(seed))
                try:
                    options = rules_for(kind).check_options(options)
                    if seats not in rules_for(kind).seat_counts(options):
                        seats = rules_for(kind).seat_counts(options)[-1]
                    total.add(await GameHunt(ts, kind, options, seats, seed).run())
                except Exception as exc:
                    raise AssertionError(f"{kind} seed={seed}: the hunt failed: {exc!r}") from exc
        finally:
            ts.games.close()
        return total

    return asyncio.run(run())
