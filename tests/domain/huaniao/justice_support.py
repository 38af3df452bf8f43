"""Tables of 花鸟风月 with justice: a harness that keeps the history like the server does
(facts with versions, the batches that made them, the last move for 误操作), and a random
self-play driver whose bots also retract, report, vote, appeal and time out.

Everything is pure domain: no store, no grpc.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from domain import table as tables
from domain.engine import SPECTATOR, DomainError, Role, RuleViolation, Viewer
from domain.huaniao import RULES, Discard, Options, Play
from domain.huaniao.cards import KIND_OF, Card, CardKind
from domain.huaniao.options import Combo
from domain.huaniao.rules import hand_open
from domain.huaniao.state import HuaniaoState
from domain.huaniao.terms import Phase, Season
from domain.table import deal
from domain.table.justice import decide as tribunal
from domain.table.justice import facts as J

from .tables import KIND_BY_CHAR

ARBITER_HASH = "arbiter-hash"
START = datetime(2024, 1, 1, tzinfo=UTC)  # the harness's clock at version 1


def prepared_deck(options: Options, hands: list[str], top: str = "") -> tuple[int, ...]:
    """A deck whose deal gives seat i the eight cards ``hands[i]`` (kind names), followed by
    ``top`` and then the rest of the mode's deck."""
    deck = RULES.new_deck(RULES.check_options(options))
    free = {k: [i for i in deck if KIND_OF[i] == k] for k in CardKind}
    out: list[int] = []
    for spec in [*hands, top]:
        for ch in spec:
            if not ch.isspace():
                out.append(free[KIND_BY_CHAR[ch]].pop(0))
    rest = sorted(i for ids in free.values() for i in ids)
    return tuple(out + rest)


@dataclass
class Batch:
    cause: dict[str, Any]
    first: int
    last: int
    facts: tuple[Any, ...]
    before: Any  # the game state before the batch


@dataclass
class Harness:
    """A table and its stored history. ``act`` decides a command like the server: table or
    game command, with the last move for a retraction; every fact goes through the storage
    codec and is folded into a second table rebuilt from the stored form (``check``)."""

    table: tables.Table
    stored: list[dict[str, Any]] = field(default_factory=list)
    batches: list[Batch] = field(default_factory=list)
    rebuilt: tables.Table | None = None
    check: Callable[[tables.Table, Any], None] | None = None
    roundtrip: bool = True
    now: datetime = START  # the recorded time of the next facts (``tick`` moves it)
    at: dict[int, datetime] = field(default_factory=dict)  # each version's recorded time

    @classmethod
    def open(
        cls,
        options: Options,
        seats: int,
        enforcement: J.Enforcement,
        deck: tuple[int, ...] = (),
        time_limit_ms: int = 0,
        secret: str = "s3cret",
        check: Callable[[tables.Table, Any], None] | None = None,
        roundtrip: bool = True,
        arbitrated: bool = False,
        max_redeals: int = tables.MAX_REDEALS,
        **settings: Any,
    ) -> Harness:
        (created,) = tables.create(
            RULES,
            options,
            seats,
            ARBITER_HASH,
            secret,
            deck,
            enforcement,
            time_limit_ms,
            arbitrated=arbitrated,
            max_redeals=max_redeals,
            **settings,
        )
        h = cls(tables.evolve(None, created), check=check, roundtrip=roundtrip)
        h._store(created)
        h.rebuilt = h.table if roundtrip else None
        for seat in range(seats):
            h._append(
                {"action": "join", "seat": seat, "command": None},
                tables.take_seat(h.table, seat, f"p{seat}", f"h{seat}", f"c{seat}{secret}"),
            )
        h._append({"action": "start", "seat": None, "command": None}, tables.start(h.table))
        return h

    # --- reading ---

    @property
    def game(self) -> HuaniaoState:
        return self.table.game  # type: ignore[no-any-return]

    @property
    def version(self) -> int:
        return self.table.version

    def tick(self, ms: int) -> None:
        """Time passes before the next facts are recorded."""
        self.now += timedelta(milliseconds=ms)

    def case_deadline(self) -> datetime | None:
        """The open case's deadline, from the recorded times (as the server finds it)."""
        return tables.case_deadline(self.table, self.at)

    def fact(self, version: int) -> Any:
        return tables.decode_event("huaniao", self.stored[version - 1])

    def last_move(self) -> tribunal.LastMove | None:
        """The latest batch if it is a game move and nothing happened since (as the server's
        ``_last_move``)."""
        if not self.batches or self.table.phase is not tables.Phase.PLAYING:
            return None
        b = self.batches[-1]
        if not tribunal.is_game_move(b.cause) or b.last != self.version:
            return None
        return tables.last_move(self.table.kind, b.cause, (b.first, b.last), b.facts, b.before)

    # --- acting ---

    def act(self, command: Any, draw: bool = True) -> list[Any]:
        """Decide and append; a refusal raises and appends nothing. A 重新洗牌发牌 it orders
        is drawn with a fresh secret (as the server draws one), and, with ``draw``, every
        seat then commits and reveals a fresh contribution and it is dealt (``draw_redeal``)."""
        last = self.last_move() if isinstance(command, J.Retract | J.Report) else None
        secret = hashlib.sha256(f"redeal-secret|{self.version}".encode()).hexdigest()
        facts = tables.act(self.table, command, last, secret)
        seat = None if isinstance(command, J.Rule | J.Redeal) else command.seat
        self._append(tables.cause("play", seat, command), facts)
        if draw and self.table.redraw is not None:
            self.draw_redeal({s: f"fresh{s}-{self.version}" for s in range(self.table.seat_count)})
        return facts

    def draw_redeal(self, contributions: dict[int, str]) -> list[Any]:
        """The redeal being drawn: each seat in ``contributions`` commits ("": to nothing),
        then reveals, and it is dealt; with a seat left out the draw waits for it until the
        abandonment limit and is abandoned (the game is void). Returns the last facts."""
        for seat, value in contributions.items():
            commitment = deal.contribution_commitment(value) if value else ""
            self._append(tables.cause("commit", seat), tables.commit(self.table, seat, commitment))
        for seat, value in contributions.items():
            if not self.table.awaited_commitments and value:
                self._append(tables.cause("reveal", seat), tables.reveal(self.table, seat, value))
        if self.table.awaited_inputs:
            facts = tables.abandon(self.table)
            self._append(tables.cause("abandon"), facts)
            return facts
        facts = tables.start(self.table)
        self._append(tables.cause("start"), facts)
        return facts

    def timeout(self) -> list[Any]:
        """The clock ran out: every awaited seat times out at once (as server/usecases/timers.py)."""
        facts = tables.time_out_all(self.table)
        self._append({"action": "timeout", "seat": None, "command": None}, facts)
        return facts

    def _append(self, cause: dict[str, Any], facts: list[Any]) -> None:
        before = self.table.game
        first = self.version + 1
        for fact in facts:
            self._store(fact)
            self.table = tables.evolve(self.table, fact)
            if self.roundtrip:
                stored = tables.decode_event("huaniao", self.stored[-1])
                assert stored == fact, f"{fact} does not survive storage"
                self.rebuilt = tables.evolve(self.rebuilt, stored)
                assert self.rebuilt == self.table, f"rebuilt table differs after {fact}"
            if self.check:
                self.check(self.table, fact)
        self.batches.append(Batch(cause, first, self.version, tuple(facts), before))

    def _store(self, fact: Any) -> None:
        self.stored.append(tables.encode_event(fact))
        self.at[len(self.stored)] = self.now


def cards_in_play(s: HuaniaoState) -> list[int]:
    zones = list(s.deck) + list(s.played) + list(s.discarded) + list(s.pool)
    for h in s.hands:
        zones.extend(h.cards)
    for sh in s.showdown:
        zones.extend(c.id for c in sh.cards)
    return sorted(zones)


def conserved(table: tables.Table, fact: Any) -> None:
    """Every card of the mode's deck is in exactly one zone (108 cards, 90 in 简易)."""
    if table.game is None:
        return
    full = list(RULES.new_deck(table.options))
    assert cards_in_play(table.game) == full, f"cards not conserved after {fact}"
    for p in table.game.pending_discards:
        assert 0 < p.count <= len(table.game.hands[p.seat].cards), f"discard {p} after {fact}"


# --- random self-play with table commands ----------------------------------------------------


@dataclass
class Stats:
    games: int = 0
    kinds: dict[str, int] = field(default_factory=dict)

    def count(self, name: str) -> None:
        self.kinds[name] = self.kinds.get(name, 0) + 1


def illegal_candidates(s: HuaniaoState, seat: int, rng: random.Random) -> list[Any]:
    """Random commands for ``seat`` that are likely to break a rule."""
    hand = s.hands[seat].cards
    out: list[Any] = []
    if s.phase == Phase.DISCARDING:
        owed = next((p.count for p in s.pending_discards if p.seat == seat), 0)
        if owed and hand:
            for _ in range(4):
                k = min(len(hand), max(1, owed + rng.choice((0, 0, 0, 1, -1))))
                out.append(Discard(seat, tuple(rng.sample(hand, k))))
        return out
    if s.phase != Phase.PLAYING or s.turn != seat or not hand:
        return out
    plays = [c for c in RULES.legal_commands(s, seat) if isinstance(c, Play)]
    for legal in rng.sample(plays, min(3, len(plays))):  # a legal play, spoilt
        spoilt: dict[str, Any] = rng.choice(
            [
                {"season": None},
                {"season": rng.choice(list(Season))},
                {"target": seat},
                {"target": None},
                {"announce": 5},
                {"combo": rng.choice(list(Combo))},
                {"chosen_season": None},
                {"cards": tuple(sorted({*legal.cards, rng.choice(hand)}))},
            ]
        )
        out.append(replace(legal, **spoilt))
    for _ in range(4):
        cards = tuple(rng.sample(hand, rng.randint(1, min(4, len(hand)))))
        out.append(
            Play(
                seat,
                cards,
                verse=None,
                combo=rng.choice([None, None, *Combo]),
                target=rng.choice([None, seat, (seat + 1) % s.seat_count]),
                announce=rng.choice([None, 0, 2, 4]),
                season=rng.choice([None, *Season]),
                chosen_season=rng.choice([None, Season.WINTER]),
            )
        )
    return out


def play_justice_game(
    options: Options,
    seats: int,
    seed: int,
    enforcement: J.Enforcement,
    stats: Stats | None = None,
    roundtrip: bool = True,
    max_actions: int = 4000,
    timid: bool = False,
    check: Callable[[tables.Table, Any], None] = conserved,
) -> Harness:
    """One random game at a table with table commands mixed in. Bots mostly play legal
    moves; sometimes they try a forbidden one, retract their last move, report a seat
    (pointing at its forbidden play if there is one, else at random), vote at random,
    appeal a fresh penalty, or let the clock run out. ``timid`` bots play the fewest cards
    they can, so games run long (deck exhaustion, 大对决)."""
    rng = random.Random(seed)
    stats = stats or Stats()
    h = Harness.open(
        options,
        seats,
        enforcement,
        time_limit_ms=rng.choice((0, 30_000)),
        arbitrated=rng.random() < 0.5,
        secret=f"seed{seed}",
        check=check,
        roundtrip=roundtrip,
    )
    attempts: list[tuple[int, int, J.ViolationKind, tuple[int, ...]]] = []  # version, seat, ...
    for _ in range(max_actions):
        t = h.table
        if t.phase is not tables.Phase.PLAYING:
            break
        case = t.justice.open_case
        if case is not None:
            if rng.random() < 0.05:
                h.timeout()  # the case's deadline passes (every table has one)
                stats.count(f"{case.kind.name}:TIMED_OUT")
                continue
            _settle_case(h, case, rng, stats)
            continue
        if any(p.before is not None for p in t.justice.penalties) and rng.random() < 0.3:
            if _appeal(h, rng, stats):
                continue
        roll = rng.random()
        if roll < 0.02 and t.justice.redeals < 2 and _report(h, rng, attempts, stats):
            continue
        if roll < 0.04 and _appeal(h, rng, stats):
            continue
        if roll < 0.06 and _retract(h, stats):
            continue
        if roll < 0.08 and t.time_limit_ms:
            h.timeout()
            stats.count("timeout")
            continue
        seat = rng.choice(tables.to_act(t))
        if roll < 0.25 and _attempt(h, seat, rng, attempts, stats):
            continue
        legal = RULES.legal_commands(h.game, seat)
        if timid:  # the plays with the fewest cards: long games, down to the deck's end
            plays = [c for c in legal if isinstance(c, Play)]
            fewest = min((len(p.cards) for p in plays), default=0)
            legal = [p for p in plays if len(p.cards) == fewest] or legal
        h.act(rng.choice(legal))
    else:
        raise AssertionError(f"seed={seed}: the game did not end in {max_actions} actions")
    assert h.table.outcome is not None, f"seed={seed}: no outcome"
    stats.games += 1
    stats.count("outcome:" + h.table.outcome.reason)
    return h


def _attempt(
    h: Harness,
    seat: int,
    rng: random.Random,
    attempts: list[tuple[int, int, J.ViolationKind, tuple[int, ...]]],
    stats: Stats,
) -> bool:
    """Try a forbidden command; REJECT must refuse it with nothing appended."""
    s = h.game
    for command in illegal_candidates(s, seat, rng):
        try:
            RULES.decide(s, command)
            continue  # legal after all
        except RuleViolation as error:
            found = RULES.violation_of(s, command, error)
        if found is None:
            continue
        version = h.version
        if h.table.enforcement is J.Enforcement.REJECT:
            try:
                h.act(command)
            except RuleViolation:
                assert h.version == version, "a refusal appended facts"
                stats.count("refused:" + found[0].name)
                return False
            raise AssertionError(f"REJECT accepted {command}")
        h.act(command)
        stats.count(f"{h.table.enforcement.name}:{found[0].name}")
        attempts.append((version + 1, seat, *found))
        return True
    return False


def _report(
    h: Harness,
    rng: random.Random,
    attempts: list[tuple[int, int, J.ViolationKind, tuple[int, ...]]],
    stats: Stats,
) -> bool:
    t = h.table
    last = h.last_move()
    fresh = [a for a in attempts if last is not None and a[0] == last.first_version]
    attempts.clear()  # a rule violation is reported at once or not at all
    if fresh and rng.random() < 0.8:
        version, accused, kind, cards = fresh[0]
    else:
        accused = rng.randrange(t.seat_count)
        kind = rng.choice(list(J.ViolationKind))
        version, cards = rng.randint(1, t.version), ()
    reporter = rng.choice([s for s in range(t.seat_count) if s != accused])
    graded = [
        J.Penalty(J.PenaltyKind.WARNING),
        J.Penalty(J.PenaltyKind.FORCED_DISCARD, rng.randint(1, 3)),
        J.Penalty(J.PenaltyKind.OPEN_HAND),
        J.Penalty(J.PenaltyKind.DRAW, 2),
        J.Penalty(J.PenaltyKind.NO_WU_NEXT_TURN),
    ]
    if rng.random() < 0.05:
        graded.append(J.Penalty(J.PenaltyKind.FORFEIT))
    proposed = rng.choice(graded)
    penalty = J.Penalty(proposed.kind, proposed.count, cards)
    try:
        h.act(J.Report(reporter, accused, kind, (version,), penalty, "seen it"))
    except DomainError:
        return False
    stats.count("report")
    return True


def _settle_case(h: Harness, case: J.Case, rng: random.Random, stats: Stats) -> None:
    """Seats vote; an arbiter sometimes rules or redeals; now and then every seat agrees to
    重新洗牌发牌."""
    waiting = tables.to_act(h.table)
    roll = rng.random()
    if h.table.arbitrated and (not waiting or roll < 0.1):
        if roll < 0.02:  # the arbiter never orders 重新洗牌发牌: it rules
            version = h.version
            try:
                h.act(J.Redeal(0))
            except RuleViolation as e:
                assert e.reason == "REDEAL_NEEDS_EVERY_SEAT" and h.version == version
        h.act(J.Rule(0, case.id, rng.random() < 0.5))
        stats.count("ruled")
    elif roll < 0.04 and redeals_left(h.table) > 0:
        for seat in range(h.table.seat_count):
            if seat not in case.redeal_agreed:
                h.act(J.AgreeRedeal(seat, case.id))
    else:
        h.act(J.CastVote(rng.choice(waiting), case.id, rng.random() < 0.5))
    closed = [f for f in h.batches[-1].facts if isinstance(f, J.CaseClosed)]
    for f in closed:
        stats.count(f"{case.kind.name}:{f.status.name}")
    if any(isinstance(f, J.GameRedealt) for f in h.batches[-1].facts):
        stats.count("redealt")


def redeals_left(table: tables.Table) -> int:
    """How many more 重新洗牌发牌 the table's match allows."""
    used = table.match_redeals_used + len(table.redeals_requested_by)
    return (table.max_redeals or 0) - used


def _appeal(h: Harness, rng: random.Random, stats: Stats) -> bool:
    open_ = [p for p in h.table.justice.penalties if p.before is not None and not p.revoked]
    if not open_:
        return False
    p = rng.choice(open_)
    try:
        h.act(J.Appeal(p.seat, p.case_id, "I did not"))
    except RuleViolation:
        return False
    stats.count("appeal")
    return True


def _retract(h: Harness, stats: Stats) -> bool:
    last = h.last_move()
    if last is None:
        return False
    try:
        h.act(J.Retract(last.seat, J.MISPLAY_PHRASES[0]))
    except RuleViolation as e:
        stats.count("retract-refused:" + e.reason)
        return False
    stats.count("retracted")
    return True


# --- hidden information ----------------------------------------------------------------------


def card_ids(value: Any) -> set[int]:
    """Every Card id anywhere inside a dataclass / tuple tree."""
    found: set[int] = set()

    def walk(v: Any) -> None:
        if isinstance(v, Card):
            found.add(v.id)
        elif dataclasses.is_dataclass(v) and not isinstance(v, type):
            for f in dataclasses.fields(v):
                walk(getattr(v, f.name))
        elif isinstance(v, tuple | list):
            for x in v:
                walk(x)

    walk(value)
    return found


def hidden_from(s: HuaniaoState, viewer: Viewer) -> set[int]:
    """The deck, the 大对决 pool, and the hands of other seats that are not open (公开手牌)."""
    hidden = set(s.deck) | set(s.pool)
    for seat, h in enumerate(s.hands):
        mine = viewer.role is Role.SEAT and seat == viewer.seat
        if not mine and not hand_open(s, seat):
            hidden.update(h.cards)
    return hidden


def no_leaks(every_view: int = 7) -> Callable[[tables.Table, Any], None]:
    """A harness check: cards conserved, and no redacted fact (table or game) nor view shows
    a seat or a spectator a card hidden from it both before and after the fact."""
    previous: list[Any] = [None]
    count = [0]

    def check(table: tables.Table, fact: Any) -> None:
        conserved(table, fact)
        before, after = previous[0], table.game
        previous[0] = after
        if before is None or after is None or table.phase is not tables.Phase.PLAYING:
            return
        if isinstance(fact, J.GameRedealt | J.MoveRetracted | J.PenaltyRevoked):
            before = after  # a state replaced whole: judge by what is hidden now
        viewers = [Viewer.of_seat(s) for s in range(table.seat_count)] + [SPECTATOR]
        count[0] += 1
        for viewer in viewers:
            secret = hidden_from(before, viewer) & hidden_from(after, viewer)
            shown = card_ids(tables.redact(table.kind, fact, viewer))
            assert not shown & secret, f"{fact} shows {shown & secret} to {viewer}"
            if count[0] % every_view == 0:
                seen = card_ids(RULES.view(after, viewer))
                assert not seen & hidden_from(after, viewer), f"view leaks to {viewer}"

    return check
