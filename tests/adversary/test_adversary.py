"""The adversary model, enumerated (docs/threats.md; harness.py has the model). For each game
and seat count, every coalition short of all seats is measured once and its counts
printed; each test then holds one count to its target:

* the deals a table deals: 1 (or none, a void game) on every draw and through redeals;
* penalties forced on an honest seat that did not confirm them: 0;
* commands recorded in an honest seat's name that it did not sign, as verify sees them: 0;
* the longest justice pause of one hand: within the documented bound.

The planted-weakening tests put the old rules back (plants.py) and require the counts to
fail: a harness that cannot see the old cheats would prove nothing. ADVERSARY_SEED picks
another sample (every secret and random move follows from it).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.adversary import harness as h
from tests.adversary import plants

# one worker measures each table once for every test (make test runs --dist loadgroup)
pytestmark = pytest.mark.xdist_group("adversary")

CONFIGS = [(kind, n) for kind in h.GAMES for n in h.seat_counts(kind)]
_MEASURED: dict[tuple[str, int], list[h.Counts]] = {}


def measured(kind: str, n: int) -> list[h.Counts]:
    """Every coalition's counts at this table (once per run), printed as they come."""
    if (kind, n) not in _MEASURED:
        _MEASURED[kind, n] = [h.measure(kind, n, c) for c in h.coalitions(n)]
    return _MEASURED[kind, n]


def table_of(counts: list[h.Counts]) -> str:
    head = f"seed {h.SEED}; deals: hand 1/later hand/redeal draw/through redeals"
    return "\n".join([head, *map(h.row, counts)])


@pytest.fixture
def clean() -> Iterator[None]:
    """A planted test starts and ends with no memoised outcome."""
    h.clear_caches()
    yield
    h.clear_caches()


@pytest.mark.parametrize(("kind", "n"), CONFIGS)
def test_every_coalition_is_measured_and_printed(
    kind: str, n: int, capsys: pytest.CaptureFixture[str]
) -> None:
    counts = measured(kind, n)
    with capsys.disabled():
        print(f"\n{table_of(counts)}")
    names = {c.coalition.name for c in counts}
    assert "operator" in names and "arbiter" in names
    assert len(names) == len(counts) == 2 + 3 * (2**n - 2)


@pytest.mark.parametrize("kind", list(h.GAMES))
def test_the_targets_are_not_met_by_a_harness_that_sees_nothing(kind: str) -> None:
    """The controls: every seat revealing deals (checked in every deals count too), every
    seat agreeing redeals (``_redraw``), a report every voter confirms penalises, the
    honest record verifies (checked in every unsigned count), a case nobody hurries
    pauses the hand. So a 1, a 0 or a short pause is the rules' doing."""
    assert h.confirmed_penalty_applies(kind, 3), "a report every voter confirmed penalised nobody"
    assert h._redraw(kind, 3).redraw is not None
    assert h.pause(kind, 3, h.Coalition(frozenset({0, 1}), False, False)).hand_ms > 0


def _failing(counts: list[h.Counts], broken: str, bad: list[h.Counts]) -> str:
    lines = [h.row(c) for c in bad]
    return f"{len(bad)} coalition(s) {broken} (seed {h.SEED}):\n" + "\n".join(lines)


@pytest.mark.parametrize(("kind", "n"), CONFIGS)
def test_a_coalition_makes_the_table_deal_one_deal_or_none(kind: str, n: int) -> None:
    counts = measured(kind, n)
    bad = [c for c in counts if c.worst_deals > 1]
    assert not bad, _failing(counts, "choose among deals", bad)


@pytest.mark.parametrize(("kind", "n"), CONFIGS)
def test_no_vote_or_procedure_forces_a_penalty_on_an_honest_seat(kind: str, n: int) -> None:
    counts = measured(kind, n)
    bad = [c for c in counts if c.forced.count("votes")]
    assert not bad, _failing(counts, "force a penalty by votes or lapses", bad)


@pytest.mark.parametrize(("kind", "n"), CONFIGS)
def test_nobody_but_the_arbiter_rules(kind: str, n: int) -> None:
    """The operator (with any seats) cannot rule in the arbiter's place: a ruling the
    arbiter's key did not sign fails verify, so no coalition without the arbiter forces a
    penalty by a ruling."""
    counts = measured(kind, n)
    bad = [c for c in counts if not c.coalition.arbiter and c.forced.count("arbiter ruling")]
    assert not bad, _failing(counts, "rule without the arbiter", bad)


@pytest.mark.parametrize(("kind", "n"), CONFIGS)
def test_a_ruling_penalty_needs_the_tables_own_arbiter_in_the_coalition(kind: str, n: int) -> None:
    """What is left of forced penalties by ruling is the named arbiter's own power (the seed
    makes it the judge of disputes, p2:57 and p2:72; docs/threats.md, "Still open"): a
    coalition forces one only when it holds the arbiter, whose key every seat's signed join
    covers. The target of 0 for a colluding arbiter is open (issue 35, blocked): this test
    holds the line drawn today, and fails if a ruling penalty appears anywhere else."""
    counts = measured(kind, n)
    bad = [c for c in counts if c.forced.count("arbiter ruling") and not c.coalition.arbiter]
    assert not bad, _failing(counts, "force a ruling penalty without the arbiter", bad)
    with_arbiter = [c for c in counts if c.coalition.arbiter]
    assert with_arbiter, "no coalition holds the arbiter: the harness measured nothing"


# one delayed move costs its seat at most the clock's penalty and the turn played for it
DELAYED_CALL_BOUND = 2


@pytest.mark.parametrize("kind", list(h.GAMES))
def test_a_delayed_call_is_the_operators_alone_and_costs_at_most_one_turn(kind: str) -> None:
    """The server is the clock: an operator that holds an honest seat's move until its turn
    clock fires forces the seed's 出牌超时 penalty and the turn played for it (open: with no
    trusted time nobody can prove when a call arrived; issue 35, blocked). What holds today:
    only a coalition with the operator does it, and one held move costs at most those two."""
    counts = [c for n in h.seat_counts(kind) for c in measured(kind, n)]
    bad = [c for c in counts if c.forced.count("delayed call") and not c.coalition.operator]
    assert not bad, _failing(counts, "force a turn-clock penalty without the operator", bad)
    over = [c for c in counts if c.forced.count("delayed call") > DELAYED_CALL_BOUND]
    assert not over, _failing(counts, f"force more than {DELAYED_CALL_BOUND} by one delay", over)


@pytest.mark.parametrize(("kind", "n"), CONFIGS)
def test_verify_refuses_every_command_an_honest_seat_did_not_sign(kind: str, n: int) -> None:
    counts = measured(kind, n)
    bad = [c for c in counts if c.unsigned]
    assert not bad, _failing(counts, "record commands an honest seat did not sign", bad)


def _past_bounds(c: h.Counts) -> bool:
    """A hand paused longer than its bound, one case longer than a case's (no bound
    documented counts as past it), or a case's deadline put later by anything but an
    awaited voter's vote."""
    hand = c.bound_ms is None or c.pause.hand_ms > c.bound_ms
    case = c.case_bound_ms is None or c.pause.case_ms > c.case_bound_ms
    return hand or case or bool(c.pause.moved_by)


@pytest.mark.parametrize(("kind", "n"), CONFIGS)
def test_no_coalition_pauses_a_hand_past_the_documented_bound(kind: str, n: int) -> None:
    counts = measured(kind, n)
    assert counts[0].bound_ms is not None, "no documented bound on a hand's justice pause"
    assert counts[0].case_bound_ms is not None, "no documented bound on one case"
    bad = [c for c in counts if _past_bounds(c)]
    assert not bad, _failing(counts, "pause a hand (or one case) past the bound", bad)


# --- planted weakenings: each must fail its count -------------------------------------------


def _print(capsys: pytest.CaptureFixture[str], title: str, rows: list[str]) -> None:
    with capsys.disabled():
        print(f"\nplanted: {title} (seed {h.SEED})\n" + "\n".join(rows))


@pytest.mark.usefixtures("clean")
def test_the_old_timeout_fallback_is_caught(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A withheld seat's commitment (or "n") stands in again: the operator alone, refusing
    honest reveals and commitments, chooses among deals."""
    plants.plant(monkeypatch, plants.TIMEOUT_FALLBACK_TARGETS, plants.old_start)
    plants.plant(monkeypatch, plants.ABANDON_TARGETS, plants.old_abandon)
    operator = h.Coalition(frozenset(), False, True)
    found = {
        (kind, n, d): h.deals(kind, n, operator, d)
        for kind in h.GAMES
        for n in (2, 3)
        for d in h.DRAWS
    }
    _print(capsys, "old timeout fallback", [f"{k}: {v} deals" for k, v in found.items()])
    assert all(v > 1 for v in found.values()), found


@pytest.mark.usefixtures("clean")
def test_the_old_redeal_rule_is_caught(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The arbiter redeals alone on a disputed case again: with one seat at 2 seats, with
    two at 3, it redeals without the honest seat."""
    plants.plant(monkeypatch, plants.REDEAL_TARGETS, plants.old_redeal)
    found = {
        (kind, n): h.redeals(kind, n, h.Coalition(frozenset(range(n - 1)), True, False))
        for kind in h.GAMES
        for n in (2, 3)
    }
    _print(capsys, "old redeal rule", [f"{k}: {v} redeals" for k, v in found.items()])
    assert all(v > 0 for v in found.values()), found


@pytest.mark.usefixtures("clean")
def test_the_old_token_only_arbiter_is_caught(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Rulings stand on the server's word again (verify checks no arbiter signature): the
    operator with one seat rules in the arbiter's place and forces penalties on the honest
    seat."""
    plants.plant(monkeypatch, plants.ARBITER_SIGNATURE_TARGETS, plants.old_by_arbiter)
    found = {
        (kind, n): h.forced_penalties(kind, n, h.Coalition(frozenset({1}), False, True))
        for kind in h.GAMES
        for n in (2, 3)
    }
    rows = [f"{k}: {v.count('arbiter ruling')} penalties by a ruling" for k, v in found.items()]
    _print(capsys, "old token-only arbiter", rows)
    assert all(v.count("arbiter ruling") > 0 for v in found.values()), rows


@pytest.mark.usefixtures("clean")
def test_the_old_case_clock_is_caught(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Any event restarts a case's deadline again: two colluding seats at 3 seats stretch
    each report with their agreements to a redeal: the deadline moves without a vote (a
    cap on a case or a hand may still hold; this count does not)."""
    plants.plant(monkeypatch, plants.CASE_CLOCK_TARGETS, plants.old_case_deadline)
    plants.plant(monkeypatch, plants.CASE_CLOCK_SEAM, plants.old_case_deadline_at_the_seam)
    colluders = h.Coalition(frozenset({0, 1}), False, False)
    found = [h.measure_pause(kind, 3, colluders) for kind in h.GAMES]
    _print(capsys, "old case clock", [h.row(c) for c in found])
    assert all(c.pause.moved_by for c in found), "\n".join(map(h.row, found))
