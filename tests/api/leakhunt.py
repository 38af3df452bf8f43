"""Play random games over gRPC while recording everything each seat receives, then check
that no seat ever received a card id it could not know.

What is hidden from a seat is read from the arbiter's view, which is never redacted: the
other seats' hands and the deck. A card hidden from the seat both just before and just
after the move that produced an event must not be in that event as the seat received it
(a card that moved between hidden and public in that move, e.g. played from a hand, may
be). A seat's view taken between moves must hold no card hidden at that version. The final
move's events are exempt: once the game is over everything is open by design.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field

from google.protobuf.message import Message

from clients.python.client import TableClient
from clients.python.seat import SeatClient
from tabletop.v1 import tabletop_pb2 as pb
from tests.api.helpers import card_ids


def hidden_sets(arbiter_view: pb.GameView, seats: int) -> list[set[int]]:
    """Per seat, the card ids hidden from it: other seats' hands and the deck (any game whose
    SeatView lists its hand as `cards` or `hand` and whose View lists `deck` or `stock`)."""
    game = getattr(arbiter_view, arbiter_view.WhichOneof("game"))
    hands = []
    for seat_view in game.seats:
        name = "cards" if "cards" in seat_view.DESCRIPTOR.fields_by_name else "hand"
        hands.append({c.id for c in getattr(seat_view, name)})
    deck_field = "deck" if "deck" in game.DESCRIPTOR.fields_by_name else "stock"
    deck = {c.id for c in getattr(game, deck_field)}
    assert deck or game.ListFields(), "the arbiter view must list the deck"
    per_seat = [deck.union(*(h for t, h in enumerate(hands) if t != s)) for s in range(seats)]
    return [*per_seat, deck.union(*hands)]  # the last is the spectator's


@dataclass
class Recorder:
    """One Watch stream, read in a thread as the game goes."""

    viewer: SeatClient
    events: list[pb.GameEvent] = field(default_factory=list)

    def start(self) -> threading.Thread:
        thread = threading.Thread(
            target=lambda: self.events.extend(self.viewer.watch()), daemon=True
        )
        thread.start()
        return thread


@dataclass
class HuntResult:
    game_id: str
    checks: int
    leaks: list[str]


REPORT_EVERY = 7  # moves between reports a random seat files (penalties and appeals in play)


def random_report(seat: SeatClient, seats: int, rng: random.Random, version: int) -> pb.Move:
    """Seat reports another for 其他违规, proposing a forced discard (public cards only, so
    the hunt's hidden sets stay exact; an open-hand penalty would show a hand by design)."""
    accused = rng.choice([s for s in range(seats) if s != seat.seat])
    return pb.Move(
        table=pb.TableCommand(
            report=pb.Report(
                accused=accused,
                violation=pb.VIOLATION_KIND_OTHER,
                evidence=[version],
                penalty=pb.Penalty(kind=pb.PENALTY_KIND_FORCED_DISCARD, count=1),
                note="leak hunt",
            )
        )
    )


def hunt(
    client: TableClient, options: pb.GameOptions, seats: int, seed: int, reports: bool = False
) -> HuntResult:
    created = client.create_game(options, seats, seed=seed)
    gid = created.game_id
    players = [client.join(gid, s, f"p{s}", contribution="") for s in range(seats)]  # reproducible
    arbiter = client.as_viewer(gid, created.arbiter_token)
    spectator = client.as_viewer(gid)
    recorders = [Recorder(p) for p in players] + [Recorder(spectator)]  # spectator: last
    threads = [r.start() for r in recorders]
    players[0].start()
    rng = random.Random(seed)
    hidden: dict[int, list[set[int]]] = {}  # version -> ids hidden from each seat
    view_checks: list[tuple[int, int, Message]] = []  # (version, seat, that seat's view)
    version = arbiter.view().version
    hidden[version] = hidden_sets(arbiter.view(), seats)
    moves_at: list[int] = [version]
    seen_all = arbiter.view()
    to_act = list(seen_all.to_act)
    while to_act:
        seat = rng.choice(to_act)
        view_checks.append((version, seat, players[seat].view()))
        legal = players[seat].legal_moves()
        move = rng.choice(list(legal.moves))
        if reports and len(moves_at) % REPORT_EVERY == 0 and not seen_all.paused:
            if seen_all.reports_left[seat] > 0:  # REPORT_LIMIT after two failed reports
                move = random_report(players[seat], seats, rng, legal.version)
        reply = players[seat].play(move, legal.version)
        view_checks.append((reply.version, seat, _events_message(reply.events)))
        version = reply.version
        seen_all = arbiter.view()  # the arbiter knows every awaited seat (claims too)
        hidden[version] = hidden_sets(seen_all, seats)
        moves_at.append(version)
        to_act = list(seen_all.to_act)
        if len(moves_at) == 8 and to_act:  # mid-game: replay everything so far, per seat
            for s in range(seats):
                for step in players[s].replay():
                    view_checks.append((step.view.version, s, step))
    for t in threads:
        t.join(timeout=30)
    assert not any(t.is_alive() for t in threads), f"seed={seed}: a stream did not end"
    return _check(gid, seed, seats, recorders, hidden, moves_at, view_checks)


def _events_message(events: object) -> pb.PlayResponse:
    return pb.PlayResponse(events=events)  # type: ignore[arg-type]


def _check(
    gid: str,
    seed: int,
    seats: int,
    recorders: list[Recorder],
    hidden: dict[int, list[set[int]]],
    moves_at: list[int],
    view_checks: list[tuple[int, int, Message]],
) -> HuntResult:
    final_move_start = moves_at[-2] if len(moves_at) > 1 else moves_at[-1]

    def forbidden(seat: int, v: int) -> set[int]:
        """Hidden from the seat both before and after the move that made version v."""
        if v <= moves_at[0]:  # the deal: hidden as dealt
            return hidden[moves_at[0]][seat]
        before = max(m for m in moves_at if m < v)
        after = min(m for m in moves_at if m >= v)
        return hidden[before][seat] & hidden[after][seat]

    leaks: list[str] = []
    checks = 0
    for seat in range(seats + 1):  # every seat, then the spectator
        got = [e.version for e in recorders[seat].events]
        assert got == list(range(1, len(got) + 1)), f"seed={seed}: seat {seat} stream has gaps"
        for event in recorders[seat].events:
            if event.version > final_move_start:
                continue
            checks += 1
            extra = card_ids(event) & forbidden(seat, event.version)
            if extra:
                leaks.append(
                    f"seed={seed} seat {seat} v{event.version}: {sorted(extra)} in {event.text}"
                )
    for v, seat, msg in view_checks:
        if v > final_move_start:
            continue
        checks += 1
        extra = card_ids(msg) & forbidden(seat, v)
        if extra:
            leaks.append(f"seed={seed} seat {seat} view/reply at v{v}: {sorted(extra)}")
    return HuntResult(gid, checks, leaks)
