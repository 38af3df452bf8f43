"""Protobuf <-> domain for the table API: the only place that knows both shapes. Here events,
views and matches as a viewer sees them; moves, options and legal moves in
``render_moves.py``.

Game-specific messages are found by the game's registered name: the proto field named
after the kind (``huaniao``, ``zipai``) in each oneof, and the message classes of the same
names as the domain dataclasses. Redaction happens here, once per viewer, through the
domain's ``redact``; nothing is rendered for a viewer without it.
"""

from __future__ import annotations

import dataclasses
import functools
from datetime import datetime
from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp

from domain import match as matches
from domain import table as tables
from domain.engine import ARBITER, SPECTATOR, RememberedPerState, Role, Viewer
from domain.registry import rules_for
from domain.table import deal, records
from domain.table.justice import facts as J
from server.wire.protoconv import as_kwargs, fill, fill_oneof, snake
from server.wire.render_moves import options_proto
from server.wire.stored import Snapshot, StoredEvent, StoredMatchFact
from tabletop.v1 import tabletop_pb2 as pb

_ROLE = {Role.SEAT: pb.ROLE_SEAT, Role.SPECTATOR: pb.ROLE_SPECTATOR, Role.ARBITER: pb.ROLE_ARBITER}
_PHASE = {
    tables.Phase.WAITING: pb.GAME_PHASE_WAITING,
    tables.Phase.PLAYING: pb.GAME_PHASE_PLAYING,
    tables.Phase.FINISHED: pb.GAME_PHASE_FINISHED,
}


# each game's message in GameView and GameOptions (the field named after the kind)
_GAME_VIEW = {f.name: f.message_type for f in pb.GameView.DESCRIPTOR.oneofs_by_name["game"].fields}
_GAME_OPTIONS = {
    f.name: f.message_type for f in pb.GameOptions.DESCRIPTOR.oneofs_by_name["game"].fields
}
_DEAL_SOURCE = {s: pb.DealSource.Value(f"DEAL_SOURCE_{s.name}") for s in deal.DealSource}
_CONTRIBUTION = {
    c: pb.ContributionStatus.Value(f"CONTRIBUTION_STATUS_{c.name}") for c in deal.Contribution
}


Shared = dict[tuple[int, Any], tuple[Any, pb.GameEvent]]


def event_proto(
    kind: str,
    stored: StoredEvent,
    viewer: Viewer,
    complete: bool = False,
    shared: Shared | None = None,
    lean: bool = False,
) -> pb.GameEvent:
    """One event as ``viewer`` may see it. ``complete`` (GetHistory once the game has
    ended, for everyone) adds the stored form: before the end it would give away the
    shuffle secret (in GameCreated), the arbiter included.

    ``shared``: messages already rendered for other viewers of the same events, by the
    redacted fact (equal facts of one event render to equal messages: the viewers a
    private fact is hidden from share one rendering of it, each redaction being a new but
    equal object), so a fact several viewers see alike is rendered once. A fact that cannot
    be hashed is shared by identity. Callers must not change the messages."""
    fact = tables.redact(kind, stored.fact, viewer)
    if shared is None:
        return _event_proto(kind, stored, fact, complete, lean)
    # a redacted copy is keyed by value (the viewers it is hidden from hold equal copies),
    # the stored fact itself by identity (hashing a fact is not free)
    by_value = fact is not stored.fact
    key: tuple[int, Any] = (stored.version, fact if by_value else id(fact))
    try:
        hit = shared.get(key)
    except TypeError:  # a copy with a list or dict in it: by identity after all
        by_value, key = False, (stored.version, id(fact))
        hit = shared.get(key)
    if hit is not None and (by_value or hit[0] is fact):
        return hit[1]
    msg = _event_proto(kind, stored, fact, complete, lean)
    shared[key] = (fact, msg)  # holds the fact: an id key stays its own
    return msg


def lean_event_proto(kind: str, stored: StoredEvent, viewer: Viewer) -> pb.GameEvent:
    """One event as ``viewer`` may see it, without its chain hash (as sent with receipts of
    format 3), rendered once per form it takes: ``event_proto``'s sharing, kept on
    ``stored``, so the viewers of a move who see its event alike (every seat's stream and
    the mover's reply) share one message. Callers must not change it."""
    return event_proto(kind, stored, viewer, shared=stored.rendered, lean=True)


def _event_proto(
    kind: str, stored: StoredEvent, fact: Any, complete: bool, lean: bool = False
) -> pb.GameEvent:
    fields: dict[str, Any] = {
        "version": stored.version,
        "text": tables.describe(kind, fact),
    }
    if not lean:
        fields["hash"] = stored.hash
    if stored.recorded_at is not None:  # None: an exported record (it keeps no time)
        fields["recorded_at"] = _timestamp(stored.recorded_at)
    if complete and stored.stored is not None:
        fields["stored_json"] = stored_json(stored)
    form = _event_form(kind, fact.__class__)
    if form is not None:  # the whole message in one constructor (a C call), no copies
        outer, name, desc = form
        return pb.GameEvent(**fields, **{outer: {name: as_kwargs(desc, fact)}})
    msg = pb.GameEvent(**fields)
    if isinstance(fact, tables.GameCreated):
        msg.table.game_created.options.CopyFrom(options_proto(fact.kind, fact.options))
        msg.table.game_created.seat_count = fact.seat_count
        msg.table.game_created.commitment = fact.commitment
        msg.table.game_created.match_id = fact.match_id
        msg.table.game_created.hand = fact.hand
        msg.table.game_created.deal_source = _DEAL_SOURCE[fact.deal_source]
        msg.table.game_created.reveal_timeout_ms = fact.reveal_timeout_ms
        msg.table.game_created.case_time_limit_ms = fact.case_time_limit_ms
        msg.table.game_created.abandon_after_ms = fact.abandon_after_ms
        if fact.max_redeals is not None:
            msg.table.game_created.max_redeals = fact.max_redeals
        msg.table.game_created.justice_budget_ms = fact.justice_budget_ms
        msg.table.game_created.match_redeals_used = fact.match_redeals_used
        msg.table.game_created.match_failed_reports.extend(fact.match_failed_reports)
        msg.table.game_created.allow_unkeyed_seats = not fact.seat_keys_required
        msg.table.game_created.arbiter_public_key = bytes.fromhex(fact.arbiter_public_key)
        msg.table.game_created.player_login_required = fact.player_login_required
        msg.table.game_created.reserved_players.extend(fact.reserved_players)
        msg.table.game_created.app = fact.app
    elif isinstance(fact, tables.RedealOpened):  # the secret is never part of the message
        r = msg.table.redeal_opened
        r.round, r.requested_by, r.commitment = fact.round, fact.requested_by, fact.commitment
    elif isinstance(fact, _PLAIN_TABLE_FACTS):
        fill_oneof(msg.table, fact)
    elif isinstance(fact, tables.SeatTaken):
        msg.table.seat_taken.seat = fact.seat
        msg.table.seat_taken.player_name = fact.player_name
        msg.table.seat_taken.contribution_commitment = fact.commitment
        msg.table.seat_taken.public_key = bytes.fromhex(fact.public_key)
        msg.table.seat_taken.player = fact.player
    elif isinstance(fact, tables.SeatRekeyed):  # public: every seat sees its keys change
        k = msg.table.seat_rekeyed
        k.seat, k.public_key = fact.seat, bytes.fromhex(fact.public_key)
        k.old_public_key = bytes.fromhex(fact.old_public_key)
    elif isinstance(fact, tables.ContributionRevealed):  # the value is never sent
        msg.table.contribution_revealed.seat = fact.seat
    elif isinstance(fact, tables.RevealWithheld):
        msg.table.reveal_withheld.seat = fact.seat
    elif isinstance(fact, tables.GameStarted):
        msg.table.game_started.deck.extend(fact.deck)
        msg.table.game_started.deck_hidden = not fact.deck
        msg.table.game_started.seed = fact.seed
    elif isinstance(fact, tables.ShuffleRevealed):
        msg.table.shuffle_revealed.secret = fact.secret
        msg.table.shuffle_revealed.salt = fact.salt
    elif isinstance(fact, J.MoveRetracted):  # the restored state is not part of the message
        r = msg.table.move_retracted
        r.seat, r.first_version, r.last_version = fact.seat, fact.first_version, fact.last_version
        r.phrase = fact.phrase
    return msg


# the table's facts whose message holds every field as it is
_PLAIN_TABLE_FACTS = (
    tables.SeatCommitted,
    tables.RedealSecretsRevealed,
    tables.DealAbandoned,
    tables.HandClosed,
)

# the table's facts that _event_proto writes field by field (parts of them are never sent)
_WRITTEN = (
    tables.GameCreated,
    tables.RedealOpened,
    tables.SeatTaken,
    tables.SeatRekeyed,
    tables.ContributionRevealed,
    tables.RevealWithheld,
    tables.GameStarted,
    tables.ShuffleRevealed,
    J.MoveRetracted,
)


@functools.cache
def _event_form(kind: str, cls: Any) -> tuple[str, str, Any] | None:
    """Where a fact of class ``cls`` goes in a GameEvent: the oneof (``table``, or the game's
    field), its member, and that member's message type; None for the facts in ``_WRITTEN``."""
    if issubclass(cls, _WRITTEN):
        return None
    table_fact = issubclass(cls, _PLAIN_TABLE_FACTS)
    outer = "table" if table_fact or cls in J.JUSTICE_EVENT_TYPES else kind
    name = snake(cls.__name__)
    inner = pb.GameEvent.DESCRIPTOR.fields_by_name[outer].message_type
    return outer, name, inner.fields_by_name[name].message_type


def _timestamp(at: datetime) -> Timestamp:
    """``at`` as a Timestamp, kept for the other viewers and events of the same move (every
    event of a move shares its time): FromDatetime is Python, and slow. Callers copy it."""
    known = _TIMES.get(at)
    if known is None:
        if len(_TIMES) >= 256:
            _TIMES.clear()
        known = _TIMES[at] = Timestamp()
        known.FromDatetime(at)
    return known


_TIMES: dict[datetime, Timestamp] = {}


def stored_json(stored: StoredEvent) -> str:
    """The record of one event as exported: what the chain hashes (the fact without token
    hashes, the cause) and the move's seal on its last event."""
    return records.canonical({"fact": stored.stored, "cause": stored.cause, "seal": stored.seal})


def events_proto(
    kind: str,
    events: list[StoredEvent],
    viewer: Viewer,
    complete: bool = False,
) -> list[pb.GameEvent]:
    return [event_proto(kind, e, viewer, complete) for e in events]


def events_for_each(
    kind: str, events: list[StoredEvent], viewers: tuple[Viewer, ...]
) -> list[list[pb.GameEvent]]:
    """``events_proto`` for each of ``viewers`` (a seal's: every seat, a spectator, the
    arbiter), sharing what they see alike. A fact a spectator sees whole hides nothing from
    anyone (no viewer sees less than a spectator; tests/server/test_redaction_order.py), so
    it is rendered once for all of them without asking each viewer's redaction."""
    shared: Shared = {}
    out: list[list[pb.GameEvent]] = [[] for _ in viewers]
    for stored in events:
        if tables.redact(kind, stored.fact, SPECTATOR) is stored.fact:
            msg = _event_proto(kind, stored, stored.fact, False)
            for each in out:
                each.append(msg)
            continue
        for each, viewer in zip(out, viewers, strict=True):
            each.append(event_proto(kind, stored, viewer, shared=shared))
    return out


def to_act(table: tables.Table, viewer: Viewer = ARBITER, game_view: Any = None) -> list[int]:
    """The seats the game waits for, as far as ``viewer`` may know them.

    A game may wait on seats for reasons only their hands give away: 川南字牌 asks only the
    seats that can claim a discard (or declare 爆). Such a game's view names the awaited
    seats the viewer may know in an ``awaiting`` field, and only those are shown here; a game
    whose view has no such field waits in public. The arbiter, and everyone once the game
    has ended, sees them all. (Found by the hardening leak hunt: the table-level to_act of
    GameView and PlayResponse used to list every claimant to every viewer.)
    """
    if table.game is None:
        return []
    rules = rules_for(table.kind)
    seats = list(tables.to_act(table))
    if viewer.role is Role.ARBITER or not seats or table.paused:  # voters are public
        return seats
    if not _names_awaiting(getattr(rules, "view_type", None)):  # waits in public: no view
        return seats
    if game_view is None:
        game_view = rules.view(table.game, viewer)
    known = getattr(game_view, "awaiting", None)
    return seats if known is None else [s for s in seats if s in known]


@functools.cache
def _names_awaiting(view_type: Any) -> bool:
    """Whether a game's view names the seats it waits for (``awaiting``): only then does
    ``to_act`` need the viewer's view of the game."""
    if isinstance(view_type, type) and dataclasses.is_dataclass(view_type):
        return "awaiting" in {f.name for f in dataclasses.fields(view_type)}
    return True  # not a dataclass: look at each view


def view_proto(snap: Snapshot) -> pb.GameView:
    table = snap.table
    rules = rules_for(table.kind)
    viewer, identity = snap.viewer, snap.seen_by
    kind = table.kind
    game_view = None if table.game is None else rules.view(table.game, viewer)
    game = {} if game_view is None else {kind: as_kwargs(_GAME_VIEW[kind], game_view)}
    msg = pb.GameView(  # built whole: the game's part and options go in without a copy
        game_id=str(snap.game_id),
        version=snap.version,
        phase=_PHASE[table.phase],
        role=_ROLE[identity.role],
        options={kind: as_kwargs(_GAME_OPTIONS[kind], table.options)},
        head_hash=snap.head_hash,
        commitment=table.commitment,
        deal_source=_DEAL_SOURCE[table.deal_source],
        **game,
    )
    if identity.seat is not None:
        msg.seat = identity.seat
    if snap.reveal_deadline is not None:
        msg.reveal_deadline.FromDatetime(snap.reveal_deadline)
    msg.MergeFrom(_public_part(table))
    if snap.case_deadline is not None:
        msg.case_deadline.FromDatetime(snap.case_deadline)
        for case in msg.cases:  # the open one shows it too
            if case.status == pb.CaseStatus.CASE_STATUS_OPEN:
                case.deadline.FromDatetime(snap.case_deadline)
    if snap.abandon_deadline is not None:
        msg.abandon_deadline.FromDatetime(snap.abandon_deadline)
    if game_view is not None:
        msg.to_act.extend(to_act(table, viewer, game_view))
    if snap.match is not None:
        msg.match.CopyFrom(match_proto(snap.match, table.hand))
    return msg


def _make_public_part(table: tables.Table) -> pb.GameView:
    """The part of a view that every viewer sees alike: the seats' names and commitments,
    the outcome and the justice record (while a redeal is drawn, the seats' commitments
    and statuses are the redeal's). Made once per game state (``_public_part``) and
    merged into each viewer's view (why: the sealer renders six views of every move at a
    4-seat table; see ``Sealer``). Callers must not change it."""
    part = pb.GameView()
    for seat, info in enumerate(table.seats):
        if info is None:
            part.seats.add(seat=seat)
            continue
        inputs = info if table.redraw is None else table.redraw.entropy[seat]
        part.seats.add(
            seat=seat,
            taken=True,
            player_name=info.player_name,
            contribution_commitment=inputs.commitment,
            contribution_status=_CONTRIBUTION[inputs.status],
            public_key=bytes.fromhex(info.public_key),
            rekeyed_at=info.rekeyed_at,
        )
    outcome = table.outcome
    if outcome is not None:
        part.outcome.winners.extend(outcome.winners)
        part.outcome.scores.extend(outcome.scores)
        part.outcome.reason = outcome.reason
    _justice_view(part, table)
    _draw_view(part, table)
    return part


def _draw_view(msg: pb.GameView, table: tables.Table) -> None:
    """Whom the draw waits for, the seats that add no entropy, a void game: public."""
    msg.abandon_after_ms = table.abandon_after_ms
    if table.drawing:
        msg.awaiting_seats.extend(table.awaited_inputs)
    msg.no_entropy_seats.extend(table.no_entropy)
    if table.abandoned is not None:
        msg.void = True
        msg.void_waiting_for.extend(table.abandoned)
    msg.deal_status = tables.deal_status(table)


_public_part = RememberedPerState(_make_public_part)


def match_proto(match: matches.Match, hand: int = 0) -> pb.MatchView:
    """A match as everyone may see it (its facts are public)."""
    msg = pb.MatchView(
        match_id=match.match_id,
        hand=hand,
        hands=match.hands_limit,
        target_score=match.target_score,
        advance=pb.HandAdvance.Value(f"HAND_ADVANCE_{match.advance.name}"),
        lower_score_wins=match.lower_score_wins,
        ready=match.ready_seats(),
        finished=match.finished,
    )
    for s in match.standings:
        msg.standings.add(seat=s.seat, total=s.total, wins=s.wins, rank=s.rank)
    for h in match.hands:
        if h.ended is not None:
            e = h.ended
            msg.results.add(
                hand=e.hand,
                game_id=e.game_id,
                winners=e.winners,
                scores=e.scores,
                reason=e.reason,
                head_hash=e.head_hash,
            )
    if match.current is not None:
        msg.current_hand = match.current.hand
        msg.current_game_id = match.current.game_id
    if match.ended is not None:
        msg.winners.extend(match.ended.winners)
        msg.incomplete = match.ended.incomplete
        msg.waiting_for.extend(match.ended.waiting_for)
    return msg


def match_fact_proto(fact: StoredMatchFact) -> pb.MatchFact:
    ts = Timestamp()
    ts.FromDatetime(fact.recorded_at)
    return pb.MatchFact(
        version=fact.version,
        recorded_at=ts,
        text=matches.describe(fact.fact),
        hash=fact.hash,
        stored_json=records.canonical(fact.stored),
        seal_json=records.canonical(fact.seal) if fact.seal is not None else "",
    )


def _justice_view(msg: pb.GameView, table: tables.Table) -> None:
    """The table's justice record: public to every viewer (四、2 记录违规)."""
    msg.enforcement = pb.Enforcement.Value(f"ENFORCEMENT_{table.enforcement.name}")
    msg.turn_time_limit_ms = table.time_limit_ms
    msg.paused = table.paused
    # asked for so far, one being drawn included (an older record counts its GameRedealt)
    msg.redeals = max(table.justice.redeals, len(table.redeals_requested_by))
    if table.max_redeals is not None:
        msg.max_redeals = table.max_redeals
    msg.redeals_requested_by.extend(table.redeals_requested_by)
    if table.redraw is not None:
        msg.redeal_commitment = table.redraw.commitment
    msg.arbitrated = table.arbitrated
    msg.misplays_used.extend(table.justice.misplays)
    msg.violations.extend(table.justice.violations)
    msg.case_time_limit_ms = table.case_time_limit_ms or table.time_limit_ms
    msg.justice_budget_ms = table.justice_budget_ms
    msg.match_redeals_used = table.match_redeals_used
    if table.game is not None:  # justice's record starts with the deal
        msg.reports_left.extend(table.justice.reports_left(s) for s in range(table.seat_count))
    for case in table.justice.cases:
        view = msg.cases.add(
            id=case.id,
            is_appeal=case.kind is J.CaseKind.APPEAL,
            by=case.by,
            accused=case.accused,
            evidence=case.evidence,
            note=case.note,
            upheld_by=[v.seat for v in case.votes if v.uphold],
            rejected_by=[v.seat for v in case.votes if not v.uphold],
            redeal_agreed=case.redeal_agreed,
            lapsed=case.lapsed,
            recused=case.recused,
        )
        view.violation = pb.ViolationKind.Value(f"VIOLATION_KIND_{case.violation.name}")
        view.status = pb.CaseStatus.Value(f"CASE_STATUS_{case.status.name}")
        fill(view.penalty, case.penalty)
    for record in table.justice.penalties:
        view = msg.penalties.add(
            case_id=record.case_id,
            seat=record.seat,
            appealable=record.before is not None and not record.revoked,
            revoked=record.revoked,
        )
        fill(view.penalty, record.penalty)
