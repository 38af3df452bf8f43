"""The seats' verdict on a case: who votes, whom an open case still waits for, and what
their votes say once the votes still to come cannot change it (readings in facts.py).
Under justice's decisions (``decide``), which close a case on it."""

from __future__ import annotations

import enum
import itertools
from functools import lru_cache

from domain.table.justice import facts as J
from domain.table.justice.state import JusticeState


class Verdict(enum.Enum):
    """What the seats' votes say of a case."""

    UPHELD = 1
    REJECTED = 2
    DISPUTED = 3  # 若有爭議: the arbiter rules, or the case closes UNRESOLVED


def voters(seat_count: int, case: J.Case) -> tuple[int, ...]:
    """Every seat but the one who opened the case: for a report the accused votes too, for
    an appeal neither the appellant nor the seats that reported or confirmed the appealed
    case (``recused``) -- an appeal is never decided by those it contests."""
    return _voters(seat_count, case.by, case.recused)


def _voters(seat_count: int, by: int, recused: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(s for s in range(seat_count) if s != by and s not in recused)


def awaited_voters(justice: JusticeState, seat_count: int) -> tuple[int, ...] | None:
    """The seats an open case still waits for, or None when no case is open."""
    case = justice.open_case
    return None if case is None else awaited(seat_count, case)


def awaited(seat_count: int, case: J.Case) -> tuple[int, ...]:
    """The voters still to vote while their votes may change the verdict (none once the
    seats' verdict is settled: the arbiter, if any, is awaited then)."""
    if seats_verdict(seat_count, case) is not None:
        return ()
    return _missing(seat_count, case)


def _missing(seat_count: int, case: J.Case) -> tuple[int, ...]:
    done = {v.seat for v in case.votes} | set(case.lapsed)
    return tuple(s for s in voters(seat_count, case) if s not in done)


def seats_verdict(seat_count: int, case: J.Case) -> Verdict | None:
    """The seats' verdict once the votes still to come cannot change it, else None: every
    way the missing votes may still go (yes, no, or lapsing at the deadline) gives the same
    verdict. So a case closes as early as its outcome is certain."""
    checked = case.kind is J.CaseKind.REPORT and not case.unchecked
    # each vote as the verdict reads it (``is True``, ``is False``, else as no vote), so
    # that a key never equals another's that reads otherwise (1 == True)
    votes = tuple((v.seat, v.uphold if isinstance(v.uphold, bool) else None) for v in case.votes)
    return _seats_verdict(
        seat_count, case.by, case.recused, case.accused, checked, votes, case.lapsed
    )


@lru_cache(maxsize=1 << 12)
def _seats_verdict(
    seat_count: int,
    by: int,
    recused: tuple[int, ...],
    accused: int,
    checked: bool,
    votes: tuple[tuple[int, bool | None], ...],
    lapsed: tuple[int, ...],
) -> Verdict | None:
    """``seats_verdict`` of the case's parts that decide it (``checked``: a report of a move
    the engine re-decided). Why remembered, and why it stops at the second verdict it
    finds: the table asks after every fact of an open case whom it still waits for
    (``awaited``), and trying all 3^k ways anew was most of justice's time in the engine's
    profile (issue 40); the answer is the same."""
    ballot: dict[int, bool | None] = dict(votes)
    ballot.update(dict.fromkeys(lapsed))  # lapsed: neither confirms nor rejects
    seats = _voters(seat_count, by, recused)
    missing = [s for s in seats if s not in ballot]
    others = [s for s in seats if s != accused]
    found: Verdict | None = None
    for ways in itertools.product((True, False, None), repeat=len(missing)):
        ballot.update(zip(missing, ways, strict=True))
        verdict = _final_verdict(seats, others, accused, checked, ballot)
        if found is None:
            found = verdict
        elif verdict is not found:
            return None
    return found


def _final_verdict(
    seats: tuple[int, ...],
    others: list[int],
    accused: int,
    checked: bool,
    ballot: dict[int, bool | None],
) -> Verdict:
    """The seats' verdict with every voter's ballot in (readings in facts.py): ``seats`` are
    the case's voters, ``others`` those but the accused, ``checked`` a report of a move the
    engine re-decided."""
    if checked:
        # the engine re-decided the move: the accused may accept, or the others confirm
        if ballot[accused] is True or (others and all(ballot[s] is True for s in others)):
            return Verdict.UPHELD
    elif seats and all(ballot[s] is True for s in seats):
        return Verdict.UPHELD  # 所有玩家共同確認: every voter, the accused included
    if others and all(ballot[s] is False for s in seats):
        return Verdict.REJECTED  # never on the accused's word alone
    return Verdict.DISPUTED
