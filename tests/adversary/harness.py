"""The adversary model of docs/threats.md, enumerated: for every coalition short of all seats,
what it can make the table do on a draw, a redeal, a justice case and a move, with the
honest seats' secrets fixed. Each count is computed by driving the domain's own
decide/evolve/verify (through ``adapter.py`` where a rule of issue 35 is still moving);
nothing here restates a rule.

Who may do what (docs/threats.md, "The adversary the harness enumerates"):

* the operator runs the server: it refuses any call (an honest seat's commitment, reveal
  or vote never arrives), delays any call (a turn clock or a window runs out), and writes
  the record (re-sealed with its key); it rules in the arbiter's place only if verify
  accepts a ruling the arbiter did not sign (``operator_rules``: no, where the arbiter's
  key is recorded and signs its rulings);
* a colluding seat sends whatever it likes when it likes: it commits or not, reveals or
  withholds, reports, votes either way or not at all, agrees to a redeal;
* a colluding arbiter rules, redeals, or waits;
* an honest seat reveals at once, votes "no" at once on every report (it saw nothing),
  appeals nothing, never agrees to a redeal; an honest arbiter rejects every disputed
  report at once.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import os
import random
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Any

from domain import match
from domain import table as tables
from domain.engine import DomainError
from domain.huaniao.options import Mode
from domain.huaniao.options import Options as HuaniaoOptions
from domain.registry import rules_for
from domain.table import deal
from domain.table.justice import facts as J
from domain.verify import AuditFailure
from domain.zipai.options import DealerRule, ScoringProfile
from domain.zipai.options import Options as ZipaiOptions
from tests.adversary import adapter
from tests.support import matchplay

SEED = int(os.environ.get("ADVERSARY_SEED", "35"))  # every secret and choice follows from it
GAMES: dict[str, Any] = {
    "huaniao": HuaniaoOptions(mode=Mode.REGULAR),
    "zipai": ZipaiOptions(dealer_rule=DealerRule.WINNER, scoring=ScoringProfile.LUZHOU),
}
GRIND = 4  # secrets a grinding operator tries per draw it can deal without the honest seats
MAX_CASES = 10  # cases one hand may see before the harness calls its pause unbounded
CASE_NODES = 80  # strategies tried per case when stretching it (a bound, not a rule)
T0 = datetime(2026, 1, 1, tzinfo=UTC)
TICK = timedelta(milliseconds=1)


def seat_counts(kind: str) -> tuple[int, ...]:
    return tuple(rules_for(kind).seat_counts(GAMES[kind]))


def _hex(label: str) -> str:
    return hashlib.sha256(f"adversary|{SEED}|{label}".encode()).hexdigest()


# --- coalitions ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Coalition:
    """Who cheats together: seats, the arbiter (its key), the operator (who rules in the
    arbiter's place only where a ruling the arbiter did not sign verifies: ``judges``)."""

    seats: frozenset[int]
    arbiter: bool
    operator: bool

    def honest(self, n: int) -> tuple[int, ...]:
        return tuple(s for s in range(n) if s not in self.seats)

    @property
    def name(self) -> str:
        who = ["operator"] if self.operator else ["arbiter"] if self.arbiter else []
        if self.seats:
            who.append("seats " + ",".join(map(str, sorted(self.seats))))
        return " + ".join(who)


def judges(coalition: Coalition, table: tables.Table) -> bool:
    """The coalition decides what the arbiter does at ``table``: it holds the arbiter (its
    key), or it runs the server and verify takes a ruling the arbiter did not sign."""
    if coalition.arbiter:
        return True
    return coalition.operator and operator_rules(table.kind, table.seat_count)


def coalitions(n: int) -> list[Coalition]:
    """Every coalition short of all seats: the operator alone, operator + k seats, arbiter
    + k seats (k = 0 too), k seats (0 < k < n), each with every choice of which seats."""
    out = [Coalition(frozenset(), False, True), Coalition(frozenset(), True, False)]
    for k in range(1, n):
        for seats in itertools.combinations(range(n), k):
            chosen = frozenset(seats)
            out += [
                Coalition(chosen, False, True),
                Coalition(chosen, True, False),
                Coalition(chosen, False, False),
            ]
    return out


# --- tables, driven through the domain ----------------------------------------------------


def apply(table: tables.Table | None, facts: list[Any]) -> tables.Table:
    for fact in facts:
        table = tables.evolve(table, fact)
    assert table is not None
    return table


def arbiter_key() -> Any:
    """The arbiter's Ed25519 key, made on the referee's device (deterministic here)."""
    return adapter.seat_key(f"{SEED}-arbiter")


def created(kind: str, n: int, secret: str, **settings: Any) -> tables.Table:
    facts = tables.create(rules_for(kind), GAMES[kind], n, "arbiter-hash", secret, **settings)
    return apply(None, facts)


def contribution(seat: int, variant: int = 0) -> str:
    """An honest seat's secret (fixed: variant 0; another value only to test what a deal
    depends on)."""
    return f"c{seat}-{_hex(f'contribution-{seat}-{variant}')[:16]}"


def started(kind: str, n: int, **settings: Any) -> tables.Table:
    """A table every seat joined, committed to and revealed, dealt: the honest path."""
    table = created(kind, n, _hex("table"), salt=_hex("salt"), **settings)
    for seat in range(n):
        commitment = deal.contribution_commitment(contribution(seat))
        key = adapter.seat_key(f"{SEED}-{seat}")
        table = apply(table, adapter.take_seat(table, seat, f"p{seat}", "", commitment, key))
    for seat in range(n):
        table = apply(table, tables.reveal(table, seat, contribution(seat)))
    return apply(table, tables.start(table))


# --- the draw -----------------------------------------------------------------------------

REVEALED, WITHHELD, NEVER = (
    "R",
    "W",
    "N",
)  # a seat's part in a draw: revealed, committed only, nothing
DRAWS = ("hand 1", "later hand", "redeal draw")


def allowed(coalition: Coalition, seat: int, draw: str) -> tuple[str, ...]:
    """What may become of ``seat``'s input to a draw. A colluder does anything; an honest
    seat reveals, unless the operator refuses its reveal (or, where seats commit after the
    draw's commitment, its commitment; at hand 1 a refused join seats nobody: no deal)."""
    if seat in coalition.seats:
        # at hand 1 a seat's commitment (to a value, or to nothing) is made at JoinGame,
        # before anyone reveals: a choice as blind as the value itself, fixed here as the
        # honest seats' secrets are; what remains to choose is to reveal or withhold
        return (REVEALED, WITHHELD) if draw == "hand 1" else (REVEALED, WITHHELD, NEVER)
    if not coalition.operator:
        return (REVEALED,)
    return (REVEALED, WITHHELD) if draw == "hand 1" else (REVEALED, WITHHELD, NEVER)


@cache
def _later_hand(kind: str, n: int) -> tables.Table:
    """Hand 2 of a match, opened and seated, waiting for its seats' commitments."""
    played = matchplay.play_match(kind, GAMES[kind], n, seed=SEED, hands=1)
    mid = played.match.match_id
    recorder = matchplay.MatchRecorder(mid)
    recorder.append(match.create(rules_for(kind), mid, n, 2, 0))
    first = list(played.hands.values())[0]
    recorder.append(match.end_hand(recorder.state, first.table, first.head))
    table = None
    for _, facts in match.next_hand(recorder.state, first.table, _hex("hand-2"), _hex("s2")):
        table = apply(table, facts)
    assert table is not None
    return table


@cache
def _redraw(kind: str, n: int) -> tables.Table:
    """A redeal being drawn: every seat agreed on a case (the one path every rule allows)."""
    table = started(kind, n, arbitrated=True, max_redeals=1)
    report = J.Report(0, 1, J.ViolationKind.OTHER, (1,), J.Penalty(J.PenaltyKind.WARNING), "")
    table = apply(table, tables.act(table, report))
    case = table.justice.open_case
    assert case is not None
    for seat in range(n):
        agreed = tables.act(table, J.AgreeRedeal(seat, case.id), redeal_secret=_hex("redeal"))
        table = apply(table, agreed)
    assert table.redraw is not None, "every seat agreed and no redeal is drawn"
    return table


def _draw_base(kind: str, n: int, draw: str) -> tables.Table | None:
    if draw == "hand 1":
        return None
    return _later_hand(kind, n) if draw == "later hand" else _redraw(kind, n)


Outcome = tuple[int, ...] | str | None  # a deck, "void", or None (no deal yet)


@cache
def draw(
    kind: str, n: int, draw_: str, parts: tuple[str, ...], variant: tuple[int, ...]
) -> Outcome:
    """Drive one draw through the domain: each seat commits or not, reveals or not, as
    ``parts`` says; then every window closes. ``variant`` gives each seat's secret."""
    secret_label = f"{draw_}-{variant[n]}" if len(variant) > n else draw_
    base = _draw_base(kind, n, draw_)
    if base is None:
        table = created(kind, n, _hex(secret_label), salt=_hex("salt"))
        for seat, part in enumerate(parts):
            value = "" if part == NEVER else contribution(seat, variant[seat])
            commitment = deal.contribution_commitment(value) if value else ""
            key = adapter.seat_key(f"{SEED}-{seat}")
            try:
                table = apply(
                    table, adapter.take_seat(table, seat, f"p{seat}", "", commitment, key)
                )
            except DomainError:  # the table refuses such a seat: it is never dealt
                return None
    else:
        table = base
        if len(variant) > n:  # a grinding operator's other secret for the same draw
            table = _with_secret(table, _hex(secret_label))
        for seat, part in enumerate(parts):
            if part != NEVER:
                value = deal.contribution_commitment(contribution(seat, variant[seat]))
                table = apply(table, tables.commit(table, seat, value))
    for _ in range(4):  # a window closes, then the next (commitments, then reveals)
        table = _reveal(table, parts, variant)
        facts = adapter.close_windows(table)
        if adapter.is_void(facts):
            return "void"
        table = apply(table, facts)
        dealt = [f for f in facts if isinstance(f, tables.GameStarted | J.GameRedealt)]
        if dealt:
            return tuple(dealt[0].deck)
        if not facts:
            return None
    return None


def _reveal(table: tables.Table, parts: tuple[str, ...], variant: tuple[int, ...]) -> tables.Table:
    """Every seat whose part is to reveal does, once the table takes reveals."""
    for seat, part in enumerate(parts):
        if part == REVEALED:
            try:
                table = apply(table, tables.reveal(table, seat, contribution(seat, variant[seat])))
            except DomainError:  # not yet (a commitment awaited) or already done
                pass
    return table


def _with_secret(table: tables.Table, secret: str) -> tables.Table:
    """The same draw under another server secret (the operator grinds before it commits)."""
    if table.redraw is not None:
        redraw = dataclasses.replace(
            table.redraw, secret=secret, commitment=deal.commitment(secret)
        )
        return dataclasses.replace(table, redraw=redraw)
    return dataclasses.replace(table, secret=secret, commitment=deal.commitment(secret))


def _depends_on(
    kind: str, n: int, draw_: str, parts: tuple[str, ...], seats: tuple[int, ...]
) -> bool:
    """Whether the deal of this path changes when any of ``seats`` had another secret: a
    deal that does not is one the operator could grind for before committing."""
    fixed = draw(kind, n, draw_, parts, (0,) * n)
    for seat in seats:
        other = tuple(1 if s == seat else 0 for s in range(n))
        if draw(kind, n, draw_, parts, other) != fixed:
            return True
    return False


def deals(kind: str, n: int, coalition: Coalition, draw_: str) -> int:
    """Distinct deals the coalition can make the table deal on this draw, the honest seats'
    secrets fixed: over every part it may give each seat (what it commits, reveals,
    withholds, refuses), and, with the operator, over the secrets it may grind for any
    path whose deal no honest seat's secret enters."""
    honest = coalition.honest(n)
    fair = draw(kind, n, draw_, (REVEALED,) * n, (0,) * n)
    assert isinstance(fair, tuple), f"{draw_}: every seat revealed and nothing was dealt"
    found: set[tuple[int, ...]] = set()
    options = [allowed(coalition, s, draw_) for s in range(n)]
    for parts in itertools.product(*options):
        outcome = draw(kind, n, draw_, parts, (0,) * n)
        if not isinstance(outcome, tuple):
            continue
        found.add(outcome)
        if coalition.operator and not _depends_on(kind, n, draw_, parts, honest):
            for tried in range(1, GRIND):
                ground = draw(kind, n, draw_, parts, (0,) * n + (tried,))
                if isinstance(ground, tuple):
                    found.add(ground)
    return len(found)


# --- justice: the redeal, forced penalties, the pause --------------------------------------


@cache
def court_table(kind: str, n: int, clock: bool) -> tables.Table:
    """The table a coalition that creates it would choose: an arbiter, as many redeals and
    as long a case limit as the domain allows, players' enforcement where the game has it;
    with a turn clock or without."""
    rules = rules_for(kind)
    enforcement = (
        J.Enforcement.PLAYERS if isinstance(rules, J.PenaltyRules) else J.Enforcement.REJECT
    )
    return started(
        kind,
        n,
        arbitrated=True,
        seat_keys_required=True,  # as the server creates tables: so the arbiter is keyed
        arbiter_public_key=adapter.public_bytes(arbiter_key()).hex(),
        enforcement=enforcement,
        time_limit_ms=60_000 if clock else 0,
        **adapter.worst_options(),
    )


def _try(table: tables.Table, command: Any, secret_label: str = "") -> list[Any] | None:
    """The facts ``command`` (or several, in turn) appends, or None if the table refuses."""
    if isinstance(command, list):
        return _agree_all(table, command)
    try:
        return tables.act(table, command, redeal_secret=_hex(secret_label or "redeal-x"))
    except DomainError:
        return None


def _honest_votes(table: tables.Table, coalition: Coalition) -> tables.Table:
    """Honest seats vote "no" at once when awaited (unless the operator drops the call)."""
    while not coalition.operator:
        case = table.justice.open_case
        awaited = [s for s in tables.to_act(table) if s not in coalition.seats]
        if case is None or not awaited:
            return table
        table = apply(table, tables.act(table, J.CastVote(awaited[0], case.id, False)))
    return table


def _reports(
    table: tables.Table, coalition: Coalition, accused_: tuple[int, ...], every_kind: bool
) -> Iterator[J.Report]:
    """Reports a colluder may file against ``accused_``: every unchecked kind and graded
    penalty, or (``every_kind`` False: the kind does not matter) one."""
    evidence = (table.version,)
    kinds = J.GRADED_PENALTIES if every_kind else (J.PenaltyKind.WARNING,)
    for reporter in sorted(coalition.seats):
        for accused in accused_:
            if accused == reporter:
                continue
            for penalty in kinds:
                count = 1 if penalty is J.PenaltyKind.FORCED_DISCARD else 0
                yield J.Report(
                    reporter,
                    accused,
                    J.ViolationKind.OTHER,
                    evidence,
                    J.Penalty(penalty, count),
                    "",
                )
            if every_kind:
                yield J.Report(reporter, accused, J.ViolationKind.TIMEOUT, evidence, None, "")


def _after_report(
    table: tables.Table, coalition: Coalition, votes: dict[int, bool | None]
) -> Iterator[tuple[str, tables.Table, list[Any]]]:
    """Every way the coalition may settle the open case once the honest seats voted:
    colluders vote as ``votes`` says, then the arbiter (theirs) rules or redeals, the
    colluders agree to a redeal, or the case runs out of time and the arbiter then acts."""
    facts: list[Any] = []
    case = table.justice.open_case
    assert case is not None
    for seat, uphold in votes.items():
        if uphold is None or table.justice.open_case is None:
            continue
        step = _try(table, J.CastVote(seat, case.id, uphold))
        if step:
            facts += step
            table = apply(table, step)
    yield "votes", table, facts
    if table.justice.open_case is None:
        return
    for label, command in _closers(table, coalition, case.id):
        step = _try(table, command, label)
        if step:
            yield label, apply(table, step), facts + step
    try:
        timed = tables.time_out_all(table)
    except DomainError:
        return
    after = apply(table, timed)
    yield "timeout", after, facts + timed
    if after.justice.open_case is not None:
        for label, command in _closers(after, coalition, case.id):
            step = _try(after, command, label)
            if step:
                yield f"timeout+{label}", apply(after, step), facts + timed + step


def _closers(table: tables.Table, coalition: Coalition, case_id: int) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    if judges(coalition, table):
        out += [("rule", J.Rule(0, case_id, True)), ("redeal", J.Redeal(0))]
    agreeing = [J.AgreeRedeal(s, case_id) for s in sorted(coalition.seats)]
    if agreeing:
        out.append(("agree", agreeing))
    return out


def _agree_all(table: tables.Table, commands: list[Any]) -> list[Any] | None:
    facts: list[Any] = []
    for command in commands:
        step = _try(table, command)
        if step is None:
            return None
        facts += step
        table = apply(table, step)
    return facts


def _strategies(
    table: tables.Table, coalition: Coalition, accused: tuple[int, ...], every_kind: bool
) -> Iterator[tuple[J.Report, str, tables.Table, list[Any]]]:
    """Every case the coalition can open against ``accused`` and every way it can end it."""
    for report in _reports(table, coalition, accused, every_kind):
        opened = _try(table, report)
        if opened is None:
            continue
        after = _honest_votes(apply(table, opened), coalition)
        colluding_voters = sorted(coalition.seats - {report.seat})
        for ballot in itertools.product((True, False, None), repeat=len(colluding_voters)):
            votes = dict(zip(colluding_voters, ballot, strict=True))
            if after.justice.open_case is None:
                yield report, "votes", after, opened
                break
            for how, end, facts in _after_report(after, coalition, votes):
                yield report, how, end, opened + facts


def redeals(kind: str, n: int, coalition: Coalition) -> int:
    """Redeals the coalition can bring about in one game without an honest seat's
    agreement (each a deal it saw and turned down): 1 + this is the deals it chooses among."""
    table = court_table(kind, n, False)
    count = 0
    while count <= tables.MAX_REDEALS:
        found = None
        for _, _, end, facts in _strategies(table, coalition, tuple(range(n)), False):
            if any(isinstance(f, tables.RedealOpened) for f in facts):
                found = end
                break
        if found is None:
            return count
        count += 1
        table = _drawn_honestly(found, n, count)
    return count


def _drawn_honestly(table: tables.Table, n: int, round_: int) -> tables.Table:
    """The redeal drawn with every seat committing and revealing."""
    for seat in range(n):
        value = deal.contribution_commitment(contribution(seat, round_))
        table = apply(table, tables.commit(table, seat, value))
    for seat in range(n):
        table = apply(table, tables.reveal(table, seat, contribution(seat, round_)))
    return apply(table, tables.start(table))


@dataclass
class Forced:
    """Penalties an honest seat suffered without confirming them, by how they came."""

    by: dict[str, set[str]] = field(default_factory=dict)

    def add(self, source: str, what: str) -> None:
        self.by.setdefault(source, set()).add(what)

    def count(self, *sources: str) -> int:
        return sum(len(v) for k, v in self.by.items() if not sources or k in sources)


def _source(how: str) -> str:
    """How a case ended: by the arbiter's ruling, or by the seats' votes and lapses."""
    return "arbiter ruling" if "rule" in how else "votes"


def forced_penalties(kind: str, n: int, coalition: Coalition) -> Forced:
    """Every penalty a case the coalition opens can put on an honest seat (who votes "no"
    or, with the operator, whose vote never arrives), and every turn-clock penalty the
    operator gets by delaying an honest seat's move."""
    forced = Forced()
    honest = set(coalition.honest(n))
    table = court_table(kind, n, False)
    for _, how, _, facts in _strategies(table, coalition, tuple(sorted(honest)), True):
        for fact in facts:
            if isinstance(fact, J.PenaltyApplied) and fact.seat in honest:
                forced.add(_source(how), f"{fact.penalty.kind.name} on seat {fact.seat}")
    if coalition.operator:
        for seat, fact in _delayed_moves(kind, n, honest):
            what = "turn lost" if isinstance(fact, J.TurnTimedOut) else fact.penalty.kind.name
            forced.add("delayed call", f"{what} on seat {seat}")
    return forced


def _delayed_moves(kind: str, n: int, honest: set[int]) -> Iterator[tuple[int, Any]]:
    """The operator holds an honest seat's move until the turn clock runs out: the turn
    is played for it (TurnTimedOut), with the seed's penalty where the game has one."""
    table = court_table(kind, n, True)
    rng = random.Random(SEED)
    for _ in range(200):
        if table.phase is not tables.Phase.PLAYING:
            return
        waiting = [s for s in tables.to_act(table) if s in honest]
        if waiting:
            for fact in tables.time_out_all(table):
                if isinstance(fact, J.PenaltyApplied | J.TurnTimedOut) and fact.seat in honest:
                    yield fact.seat, fact
            return
        seat = rng.choice(tables.to_act(table))
        command = rng.choice(list(table.rules.legal_commands(table.game, seat)))
        table = apply(table, tables.act(table, command))


def confirmed_penalty_applies(kind: str, n: int) -> bool:
    """The control of the forced count: a report every voter confirms does penalise (so a
    0 means the honest seat's "no" held, not that no report could succeed)."""
    table = court_table(kind, n, False)
    report = J.Report(
        0, 1, J.ViolationKind.OTHER, (table.version,), J.Penalty(J.PenaltyKind.WARNING), ""
    )
    table = apply(table, tables.act(table, report))
    case = table.justice.open_case
    facts: list[Any] = []
    for seat in range(1, n):
        if table.justice.open_case is not None:
            step = tables.act(table, J.CastVote(seat, case.id if case else 0, True))
            facts += step
            table = apply(table, step)
    return any(isinstance(f, J.PenaltyApplied) and f.seat == 1 for f in facts)


# --- the pause ------------------------------------------------------------------------------


@dataclass
class Clocked:
    """A table and the recorded time of each of its versions."""

    table: tables.Table
    times: tuple[datetime, ...]

    def then(self, facts: list[Any], at: datetime) -> Clocked:
        return Clocked(apply(self.table, facts), self.times + (at,) * len(facts))

    def act(self, command: Any, at: datetime) -> list[Any] | None:
        """The facts ``command`` sent at ``at`` appends, or None if the table refuses."""
        try:
            return adapter.act_at(self.table, command, list(self.times), at, _hex("redeal-p"))
        except DomainError:
            return None


@dataclass(frozen=True)
class Pause:
    """How long a coalition kept one hand paused in all, its longest single case, and what
    it sent that put a case's deadline later without being an awaited voter's vote."""

    hand_ms: float
    case_ms: float
    moved_by: frozenset[str] = frozenset()


def pause(kind: str, n: int, coalition: Coalition) -> Pause:
    """The longest the coalition can keep one hand paused by justice, on the simulated
    clock: it opens case after case (as long as the table takes its reports) and stretches
    each (acting a millisecond before each deadline, or letting it pass); honest seats
    vote at once. ``inf`` when the reports never run out (MAX_CASES) or a case has no
    deadline. The report that paused longest is tried first for the next case."""
    table = court_table(kind, n, False)
    state = Clocked(table, (T0,) * table.version)
    total, longest = 0.0, 0.0
    moved: set[str] = set()
    favourite: J.Report | None = None
    for _ in range(MAX_CASES):
        best: tuple[float, Clocked, J.Report] | None = None
        for report in _pause_reports(state.table, coalition, n, favourite):
            now = state.times[-1]
            opened = state.act(report, now)
            if opened is None:
                continue
            start = _react(state.then(opened, now), coalition, now)
            kept = start.table.justice.failed_reports(report.seat)
            reporter = (report.seat, kept)
            length, end = _stretch(start, coalition, [CASE_NODES], {}, reporter, moved)
            if best is None or _better(length, end, best[0], best[1], (report.seat, kept)):
                best = (length, end, report)
            if favourite is not None:
                break  # the pattern still works: keep it
        if best is None:
            return Pause(total, longest, frozenset(moved))
        total += best[0]
        longest = max(longest, best[0])
        state, favourite = best[1], best[2]
        if total == float("inf"):
            return Pause(total, longest, frozenset(moved))
    # still paused by the last case: the reports never run out
    hand = float("inf") if best is not None and best[0] > 0 else total
    return Pause(hand, longest, frozenset(moved))


def _pause_reports(
    table: tables.Table, coalition: Coalition, n: int, favourite: J.Report | None
) -> Iterator[J.Report]:
    """The favourite first, then a report per reporter against the first honest seat and
    against another colluder: the penalty does not change how long it lasts, nor (but for
    the accused's vote) whom it accuses."""
    warning = J.Penalty(J.PenaltyKind.WARNING)
    if favourite is not None:
        yield dataclasses.replace(favourite, evidence=(table.version,))
    others = [min(coalition.honest(n))]
    for reporter in sorted(coalition.seats):
        mates = sorted(coalition.seats - {reporter})
        for accused in others + mates[:1]:
            yield J.Report(reporter, accused, J.ViolationKind.OTHER, (table.version,), warning, "")


def _react(state: Clocked, coalition: Coalition, at: datetime) -> Clocked:
    """The honest side acts at once: honest voters vote "no" (the operator may drop them:
    it does, since that stretches the case), an honest arbiter rejects a disputed case."""
    while True:
        case = state.table.justice.open_case
        if case is None:
            return state
        awaited = tables.to_act(state.table)
        honest = [s for s in awaited if s not in coalition.seats]
        if honest and not coalition.operator:
            voted = state.act(J.CastVote(honest[0], case.id, False), at)
            assert voted is not None, "an awaited honest seat may not vote"
            state = state.then(voted, at)
            continue
        if not awaited and not judges(coalition, state.table):
            ruled = state.act(J.Rule(0, case.id, False), at)
            if ruled:
                state = state.then(ruled, at)
                continue
        return state


def _better(
    length: float, end: Clocked, than: float, other: Clocked, reporter: tuple[int, int]
) -> bool:
    """A case that leaves its reporter's report count as it was (so the coalition may go on
    reporting) beats any that does not; then the longer."""
    seat, failed = reporter
    mine = end.table.justice.failed_reports(seat) == failed
    theirs = other.table.justice.failed_reports(seat) == failed
    return (mine, length) > (theirs, than)


def _stretch(
    state: Clocked,
    coalition: Coalition,
    budget: list[int],
    seen: dict[Any, tuple[float, Clocked]],
    reporter: tuple[int, int],
    moved: set[str],
) -> tuple[float, Clocked]:
    """The longest the open case can still be kept open from now, and the table once it
    closed: every coalition step a tick before the deadline, or the deadline passing (the
    server times the case out). Past the search budget the deadlines simply pass. Every
    coalition step that put the deadline later without being an awaited voter's vote is
    named in ``moved``."""
    case = state.table.justice.open_case
    if case is None or state.table.redraw is not None:
        return 0.0, state
    now = state.times[-1]
    deadline = adapter.case_deadline(state.table, list(state.times))
    if deadline is None:
        return float("inf"), state
    key = (case, deadline - now)
    if key in seen:
        return seen[key]
    steps: list[tuple[datetime, list[Any]]] = []
    if budget[0] > 0:
        budget[0] -= 1
        awaited = tables.to_act(state.table)
        for command in _stalls(state.table, coalition, case):
            facts = state.act(command, deadline - TICK)
            if facts:
                steps.append((deadline - TICK, facts))
                voted = isinstance(command, J.CastVote) and command.seat in awaited
                if not voted and _moves(state.then(facts, deadline - TICK), case, deadline):
                    moved.add(type(command).__name__)
    try:
        steps.append((deadline, adapter.time_out_at(state.table, list(state.times), deadline)))
    except DomainError:
        pass
    best: tuple[float, Clocked] = (0.0, state)
    for at, facts in steps:
        after = _react(state.then(facts, at), coalition, at)
        length, end = _stretch(after, coalition, budget, seen, reporter, moved)
        length += (at - now) / TICK
        if best[1] is state or _better(length, end, best[0], best[1], reporter):
            best = (length, end)
    seen[key] = best
    return best


def _moves(state: Clocked, case: J.Case, deadline: datetime) -> bool:
    """Whether the same case is still open with a later deadline."""
    still = state.table.justice.open_case
    if still is None or still.id != case.id:
        return False
    after = adapter.case_deadline(state.table, list(state.times))
    return after is not None and after > deadline


def _stalls(table: tables.Table, coalition: Coalition, case: J.Case) -> list[Any]:
    """What the coalition may send on the open case: a colluder's vote (either way), a
    colluder's agreement to a redeal (the lowest one not yet given: they are alike), the
    arbiter's ruling."""
    out: list[Any] = []
    awaited = tables.to_act(table)
    for seat in sorted(coalition.seats):
        if seat in awaited:
            out += [J.CastVote(seat, case.id, True), J.CastVote(seat, case.id, False)]
    agreeing = [s for s in sorted(coalition.seats) if s not in case.redeal_agreed]
    if agreeing:
        out.append(J.AgreeRedeal(agreeing[0], case.id))
    if judges(coalition, table) and not awaited:
        out += [J.Rule(0, case.id, True), J.Rule(0, case.id, False)]
    return out


# --- moves in an honest seat's name ---------------------------------------------------------


FORGERIES = ("unsigned", "server's key", "replayed signature", "colluder's key")


def forgeries_open_to(coalition: Coalition) -> tuple[str, ...]:
    """How the coalition can put a command in an honest seat's name on the record: the
    operator writes the record (no signature, its own key, or the seat's signature of
    another command that it holds); a colluding seat signs with its own key (what a
    server that let it through would record)."""
    out: tuple[str, ...] = ()
    if coalition.operator:
        out += FORGERIES[:3]
    if coalition.seats:
        out += FORGERIES[3:]
    return out


def unsigned_moves(kind: str, n: int, coalition: Coalition) -> int:
    """Commands recorded in an honest seat's name that it did not sign and that verify
    accepts: a game move and a vote, by every forgery open to the coalition."""
    honest = coalition.honest(n)
    colluder = min(coalition.seats) if coalition.seats else None
    accepted = 0
    for how in forgeries_open_to(coalition):
        for command in ("move", "vote"):
            # the first honest seat that gets a turn (at 4 seats 川南字牌 sits one out)
            victim = next(
                (
                    v
                    for v in honest
                    if _forgery_verifies(kind, n, v, None, "honest", command) is not None
                ),
                None,
            )
            if victim is None:
                continue  # no honest seat ever had a turn to forge
            assert _forgery_verifies(kind, n, victim, None, "honest", command), (
                f"seed {SEED}: the honest record does not verify: re-wire adapter.append_signed/verify"
            )
            accepted += bool(_forgery_verifies(kind, n, victim, colluder, how, command))
    return accepted


@cache
def operator_rules(kind: str, n: int) -> bool:
    """Whether the operator can rule in the arbiter's place: a ruling upholding a disputed
    report against seat 0, written by the operator (unsigned, signed with its own key, or
    carrying the arbiter's signature of another ruling) into a record re-sealed with the
    server's key, that verify accepts. The control: the arbiter's own signed ruling does."""
    assert _forgery_verifies(kind, n, 0, None, "honest", "ruling"), (
        f"seed {SEED}: the arbiter's signed ruling does not verify: re-wire adapter.verify"
    )
    return any(_forgery_verifies(kind, n, 0, None, how, "ruling") for how in FORGERIES[:3])


@cache
def _forgery_verifies(
    kind: str, n: int, victim: int, colluder: int | None, how: str, command: str
) -> bool | None:
    """One hand recorded as the server records it (an arbitrated table whose seats and
    arbiter sign), with one command forged in ``victim``'s name (``how``): a game move, a
    vote, or the arbiter's ruling against it; every other command signed by its sender,
    then ``verify``. None when ``victim`` never had a turn to forge."""
    keys = [adapter.seat_key(f"{SEED}-{s}") for s in range(n)]
    arbiter = arbiter_key()
    signer = arbiter if command == "ruling" else keys[victim]
    forger = {
        "honest": signer,  # the control: nothing forged, the record must verify
        "unsigned": None,
        "server's key": adapter.seat_key(f"{SEED}-operator"),
        "replayed signature": signer,
        "colluder's key": keys[colluder] if colluder is not None else None,
    }[how]
    rng = random.Random(SEED + victim)
    secret = _hex("forged-hand")
    hand = matchplay.HandRecorder(secret, game_id=str(uuid.UUID(int=rng.getrandbits(128))))
    opened = tables.create(
        rules_for(kind),
        GAMES[kind],
        n,
        "",
        secret,
        arbitrated=True,
        seat_keys_required=True,
        arbiter_public_key=adapter.public_bytes(arbiter).hex(),
    )
    hand.append(opened, tables.cause("create"))
    for seat in range(n):
        commitment = deal.contribution_commitment(contribution(seat))
        facts = adapter.take_seat(hand.table, seat, f"p{seat}", "", commitment, keys[seat])
        adapter.append_signed(hand, facts, tables.cause("join", seat), keys[seat])
    for seat in range(n):
        facts = tables.reveal(hand.table, seat, contribution(seat))
        adapter.append_signed(hand, facts, tables.cause("reveal", seat), keys[seat])
    adapter.append_signed(hand, tables.start(hand.table), tables.cause("start"), arbiter)
    forged = False
    for _ in range(3000):
        table = hand.table
        if table.phase is tables.Phase.FINISHED:
            break
        case = table.justice.open_case
        if not forged and command == "ruling":
            forged = _forge_ruling(hand, victim, keys, forger, how == "replayed signature")
            continue
        if not forged and command == "vote" and case is None:
            reporter = (victim + 1) % n
            report = J.Report(
                reporter,
                victim,
                J.ViolationKind.OTHER,
                (table.version,),
                J.Penalty(J.PenaltyKind.WARNING),
                "",
            )
            adapter.append_signed(
                hand,
                tables.act(table, report),
                tables.cause("play", reporter, report),
                keys[reporter],
            )
            continue
        if case is not None and not tables.to_act(table):  # the (honest) arbiter rules
            ruling = J.Rule(0, case.id, False)
            cause = tables.cause("play", None, ruling)
            adapter.append_signed(hand, tables.act(table, ruling), cause, arbiter)
            continue
        acting = tables.to_act(table)
        seat = victim if not forged and victim in acting else rng.choice(acting)
        if not forged and seat == victim and (command == "move") == (case is None):
            move = (
                tables.legal_commands(table, seat)[0]
                if case is None
                else J.CastVote(victim, case.id, True)
            )
            signs = (
                tables.cause("play", seat, J.CastVote(victim, 0, False))
                if how == "replayed signature"
                else None
            )
            adapter.append_signed(
                hand, tables.act(table, move), tables.cause("play", seat, move), forger, signs
            )
            forged = True
            continue
        legal = [
            c for c in tables.legal_commands(table, seat) if not isinstance(c, J.Retract | J.Appeal)
        ]
        move = rng.choice(matchplay._eager(legal))
        adapter.append_signed(
            hand, tables.act(table, move), tables.cause("play", seat, move), keys[seat]
        )
    if not forged:
        return None
    try:
        adapter.verify(hand.records, matchplay.PUBLIC_KEY, [adapter.public_bytes(k) for k in keys])
    except AuditFailure:
        return False
    return True


def _forge_ruling(
    hand: matchplay.HandRecorder,
    victim: int,
    keys: list[Any],
    forger: Any,
    replayed: bool,
) -> bool:
    """One step towards the forged ruling: the next seat reports ``victim`` (a warning),
    the victim disputes it and every other voter confirms; once nobody is awaited, the
    ruling upholding it is recorded signed by ``forger`` (None: unsigned; ``replayed``: the
    signature of the same case rejected). True once the ruling is recorded."""
    table = hand.table
    case = table.justice.open_case
    acting = tables.to_act(table)
    if case is None:
        reporter = (victim + 1) % table.seat_count
        warning = J.Penalty(J.PenaltyKind.WARNING)
        report = J.Report(reporter, victim, J.ViolationKind.OTHER, (table.version,), warning, "")
        cause = tables.cause("play", reporter, report)
        adapter.append_signed(hand, tables.act(table, report), cause, keys[reporter])
        return False
    if acting:
        vote = J.CastVote(acting[0], case.id, acting[0] != victim)
        cause = tables.cause("play", acting[0], vote)
        adapter.append_signed(hand, tables.act(table, vote), cause, keys[acting[0]])
        return False
    ruling = J.Rule(0, case.id, True)
    signs = tables.cause("play", None, J.Rule(0, case.id, False)) if replayed else None
    cause = tables.cause("play", None, ruling)
    adapter.append_signed(hand, tables.act(table, ruling), cause, forger, signs)
    return True


# --- all counts -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Counts:
    kind: str
    n: int
    coalition: Coalition
    deals: dict[str, int]  # per draw, and "redeal" (1 + redeals without honest consent)
    forced: Forced
    unsigned: int
    pause: Pause
    bound_ms: int | None  # the documented bound on a hand's justice pause
    case_bound_ms: int | None  # the documented bound on one case

    @property
    def worst_deals(self) -> int:
        return max(self.deals.values(), default=0)


def measure(kind: str, n: int, coalition: Coalition) -> Counts:
    per_draw = {d: deals(kind, n, coalition, d) for d in DRAWS}
    per_draw["redeal"] = 1 + redeals(kind, n, coalition)
    return Counts(
        kind,
        n,
        coalition,
        per_draw,
        forced_penalties(kind, n, coalition),
        unsigned_moves(kind, n, coalition),
        pause(kind, n, coalition),
        adapter.pause_bound_ms(court_table(kind, n, False)),
        adapter.case_bound_ms(court_table(kind, n, False)),
    )


def measure_pause(kind: str, n: int, coalition: Coalition) -> Counts:
    """Only the pause (the other counts left empty): what a planted clock changes."""
    table = court_table(kind, n, False)
    return Counts(
        kind,
        n,
        coalition,
        {},
        Forced(),
        0,
        pause(kind, n, coalition),
        adapter.pause_bound_ms(table),
        adapter.case_bound_ms(table),
    )


def clear_caches() -> None:
    """Forget every memoised outcome (a planted weakening changes them)."""
    for fn in (draw, _later_hand, _redraw, court_table, _forgery_verifies, operator_rules):
        fn.cache_clear()


def minutes(ms: float | None) -> str:
    if ms is None:
        return "none"
    return "unbounded" if ms == float("inf") else f"{ms / 60_000:.1f} min"


def row(c: Counts) -> str:
    paused = f"{minutes(c.pause.hand_ms)} (bound {minutes(c.bound_ms)})"
    case = f"{minutes(c.pause.case_ms)} (bound {minutes(c.case_bound_ms)})"
    moved = ",".join(sorted(c.pause.moved_by)) or "-"
    draws = "/".join(str(c.deals.get(d, "-")) for d in (*DRAWS, "redeal"))
    forced = c.forced.count()
    detail = "; ".join(f"{k}: {len(v)}" for k, v in sorted(c.forced.by.items()))
    return (
        f"{c.kind:8} {c.n}  {c.coalition.name:28} deals {draws:12} "
        f"forced {forced:2} ({detail or '-'})  unsigned {c.unsigned}  pause {paused}, one case {case}, deadline moved by {moved}"
    )
