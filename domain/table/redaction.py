"""The table's facts as a viewer may see them, and in words: redaction (table facts hide the
deck, seed, secrets and token hashes; a game's facts are redacted by its rules) and
description."""

from __future__ import annotations

import dataclasses
from typing import Any

from domain.engine import ARBITER, Viewer, effective_viewer
from domain.registry import rules_for
from domain.table.deal import DealSource
from domain.table.draw import void_words
from domain.table.facts import (
    ContributionRevealed,
    DealAbandoned,
    GameCreated,
    GameStarted,
    HandClosed,
    RedealOpened,
    RedealSecretsRevealed,
    RevealWithheld,
    SeatCommitted,
    SeatRekeyed,
    SeatTaken,
    ShuffleRevealed,
)
from domain.table.justice import decide as justice
from domain.table.justice import facts as J
from domain.table.state import Phase, Table


def viewer_for(table: Table, viewer: Viewer) -> Viewer:
    return effective_viewer(viewer, table.phase is Phase.FINISHED)


def redact(table_kind: str, event: Any, viewer: Viewer) -> Any:
    """``event`` as ``viewer`` may see it. Table facts hide the deck, seed and token hashes."""
    game_rules = _GAME_FACTS.get(type(event))  # most facts are a game's: no table checks
    if game_rules is not None:
        return game_rules.redact(event, viewer)
    if isinstance(event, GameStarted):
        return event if viewer == ARBITER else GameStarted((), 0)
    if isinstance(event, GameCreated):
        return dataclasses.replace(
            event, arbiter_token_hash="", secret="", salt="", prepared_deck=()
        )
    if isinstance(event, SeatTaken):  # a contribution stays hidden: see ContributionRevealed
        return dataclasses.replace(event, token_hash="", contribution="")
    if isinstance(event, ContributionRevealed):
        return dataclasses.replace(event, contribution="")
    if isinstance(
        event,
        RevealWithheld
        | SeatCommitted
        | RedealSecretsRevealed
        | DealAbandoned
        | SeatRekeyed
        | HandClosed,
    ):
        return event
    if isinstance(event, RedealOpened):  # the secret, like the table's, only at the end
        return dataclasses.replace(event, secret="")
    if isinstance(event, J.MoveRetracted):
        return event if viewer == ARBITER else dataclasses.replace(event, restored=None)
    if isinstance(event, J.GameRedealt):
        return event if viewer == ARBITER else J.GameRedealt((), 0, event.round)
    if isinstance(event, J.PenaltyRevoked):
        return event if viewer == ARBITER else dataclasses.replace(event, deck=())
    if type(event) in J.JUSTICE_EVENT_TYPES or isinstance(event, ShuffleRevealed):
        return event
    rules = rules_for(table_kind)
    if type(event) in rules.event_types:  # each game's fact types are its own
        _GAME_FACTS[type(event)] = rules
    return rules.redact(event, viewer)


# a game's fact type -> its rules, filled by ``redact`` as the types are met
_GAME_FACTS: dict[type, Any] = {}


def prepared_marking(source: DealSource) -> str:
    """The words every surface shows for a prepared deal ("" for a shuffled one)."""
    if source is DealSource.PREPARED_DECK:
        return "prepared deal: chosen by the table's creator (a prepared deck)"
    if source is DealSource.PREPARED_SEED:
        return "prepared deal: chosen by the table's creator (a client-given seed)"
    return ""


def describe(table_kind: str, event: Any) -> str:
    if isinstance(event, GameCreated):
        opened = f"table opened: {event.kind}, {event.seat_count} seats"
        marking = prepared_marking(event.deal_source)
        return f"{opened}; {marking}" if marking else opened
    if isinstance(event, SeatTaken):
        committed = ", committed to a contribution" if event.commitment else ""
        return f"seat {event.seat} taken by {event.player_name or 'anonymous'}{committed}"
    if isinstance(event, ContributionRevealed):
        return f"seat {event.seat} revealed its contribution"
    if isinstance(event, RevealWithheld):
        return (
            f"seat {event.seat}'s entropy did not go in (withheld: a record made before "
            "issue 35): its commitment (or nothing) stood in for it"
        )
    if isinstance(event, DealAbandoned):
        which = "the deal" if event.round == 0 else f"重新洗牌发牌 {event.round}"
        return f"{which} abandoned; {void_words(tuple(event.waiting_for))}"
    if isinstance(event, SeatRekeyed):
        return (
            f"seat {event.seat} re-keyed (key {event.public_key[:16]}…, replacing "
            f"{event.old_public_key[:16]}…): its later commands stand on a key the server "
            "accepted on the seat token's word"
        )
    if isinstance(event, SeatCommitted):
        if not event.commitment:
            return f"seat {event.seat} committed to nothing: seat {event.seat} added no entropy"
        return f"seat {event.seat} committed to a contribution"
    if isinstance(event, RedealOpened):
        by = "the arbiter" if event.requested_by == "arbiter" else "every seat"
        return (
            f"重新洗牌发牌 {event.round} asked for by {by}: drawn through a fresh "
            f"commit–reveal (commitment {event.commitment[:12]}…)"
        )
    if isinstance(event, RedealSecretsRevealed):
        return f"redeal secrets revealed: {', '.join(event.secrets)}"
    if isinstance(event, GameStarted):
        return "game started: cards dealt" + ("" if event.deck else " (deck hidden)")
    if isinstance(event, ShuffleRevealed):
        return f"shuffle secret revealed: {event.secret}"
    if isinstance(event, HandClosed):
        return "closed: " + hand_closed_words(
            event.hand, event.match_id, event.last, event.next_game_id
        )
    if type(event) in J.JUSTICE_EVENT_TYPES:
        return justice.describe(event)
    return rules_for(table_kind).describe(event)


def hand_closed_words(hand: int, match_id: str, last: bool, next_game_id: str) -> str:
    """What a closed hand says follows it: the verifiers' line and ``describe`` alike."""
    follows = "the last" if last else f"hand {hand + 1} follows: {next_game_id}"
    return f"hand {hand} of match {match_id} ({follows})"
