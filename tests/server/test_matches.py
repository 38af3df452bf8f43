"""Matches in the server (server/usecases/): hands dealt one after another at one table,
the dealer rule between them, ready mode, Watch across hands, and restarts mid-match."""

from __future__ import annotations

import asyncio
import concurrent.futures
import random
import uuid
from pathlib import Path
from typing import Any

import pytest

from domain import match as matches
from domain import table as tables
from domain.engine import ARBITER, MalformedCommand, RuleViolation, Viewer
from domain.huaniao.options import Mode
from domain.huaniao.options import Options as HuaniaoOptions
from domain.table import deal
from domain.table import records as records_
from domain.verify import MatchRecord, Record, verify_match
from domain.zipai.options import DealerRule, ScoringProfile
from domain.zipai.options import Options as ZipaiOptions
from server.startup.compose import table_server
from server.store.eventstore import GameAggregate, TableApplication
from server.usecases import idempotency
from server.usecases.table_server import TableServer
from server.usecases.watch import HandEvents, NextHand
from server.wire.receipts import Sealer
from server.wire.signedcommands import read_signed_command
from server.wire.signing import Signer
from tests.support.matchplay import _eager

SEED = 31
SIGNER = Signer.generate()
SEALER = Sealer(SIGNER)  # every server of these tests signs with one key, as after a restart


def sqlite(path: Path) -> TableApplication:
    return TableApplication(
        env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(path)}
    )


async def seated(
    server: TableServer, kind: str, options: Any, seats: int, order: list[int], **match: Any
) -> tuple[str, str, dict[int, str]]:
    game_id, _v, _arbiter, match_id = await server.seats.create_match(
        kind, options, seats, allow_unkeyed_seats=True, **match
    )
    tokens = {s: (await server.seats.join_game(game_id, s, f"p{s}"))[0] for s in order}
    await server.deal.start_game(game_id, Viewer.of_seat(order[0]))
    return game_id, match_id, tokens


async def current_hand(server: TableServer, match_id: str) -> str:
    state, _facts = await server.matches.match_record(match_id)
    assert state.current is not None
    return state.current.game_id


async def draw(
    server: TableServer, game_id: str, tokens: dict[int, str], seats: Any = None
) -> None:
    """A later hand's draw as the clients make it: ``seats`` (every seat by default) commit
    with ReadyNextHand, then reveal; the server deals once every input is in."""
    chosen = sorted(tokens) if seats is None else seats
    for seat in chosen:
        viewer = await server.games.authenticate(game_id, tokens[seat])
        commitment = deal.contribution_commitment(f"{game_id}-{seat}")
        await server.matches.ready_next_hand(game_id, viewer, commitment=commitment)
    for seat in chosen:
        viewer = await server.games.authenticate(game_id, tokens[seat])
        await server.deal.reveal(game_id, viewer, f"{game_id}-{seat}")


async def play_hand(
    server: TableServer, game_id: str, tokens: dict[int, str], rng: random.Random, stop: int = 0
) -> None:
    """Eager random moves through the use cases until the hand ends (or ``stop`` moves); a
    later hand not yet drawn is drawn first."""
    if (await server.watch.snapshot(game_id, ARBITER, None)).table.phase is tables.Phase.WAITING:
        await draw(server, game_id, tokens)
    moves = 0
    while True:
        table = (await server.watch.snapshot(game_id, ARBITER, None)).table
        if table.phase is tables.Phase.FINISHED or (stop and moves >= stop):
            return
        seat = rng.choice(tables.to_act(table))
        viewer = await server.games.authenticate(game_id, tokens[seat])
        _table, version, legal = await server.play.legal_moves(game_id, viewer)
        await server.play.play(game_id, viewer, version, rng.choice(_eager(legal)))
        moves += 1


async def play_match(
    server: TableServer, match_id: str, tokens: dict[int, str], rng: random.Random
) -> list[tables.Table]:
    """Every hand to the end (the server opens each next hand by itself; the seats draw it)."""
    while not (await server.matches.match_record(match_id))[0].finished:
        await play_hand(server, await current_hand(server, match_id), tokens, rng)
    state, _facts = await server.matches.match_record(match_id)
    return [(await server.watch.snapshot(h.game_id, ARBITER, None)).table for h in state.hands]


async def verified(server: TableServer, match_id: str) -> matches.Match:
    """The match as the audit sees it: every stored record, verified whole."""
    state, facts = await server.matches.match_record(match_id)
    records = [MatchRecord(f.version, f.stored, f.hash, f.seal) for f in facts]
    hands = {}
    for h in state.hands:
        stored = server.games.store.stored_events(server.games.parse_id(h.game_id))
        hands[h.game_id] = [
            Record(
                e.version,
                e.stored,  # type: ignore[arg-type]
                e.cause,
                e.hash,
                e.seal,
                records_.timestamp_text(e.recorded_at) if e.recorded_at else "",
            )
            for e in stored
        ]
    verify_match(match_id, records, hands, SIGNER.public_key, command_reader=read_signed_command)
    return state


@pytest.mark.parametrize("rule", [DealerRule.WINNER, DealerRule.ROTATE])
def test_a_four_hand_zipai_match_passes_the_deal_by_its_rule(
    tmp_path: Path, rule: DealerRule
) -> None:
    """zp:9–11: the first seat taken deals first; then 胡牌者当庄 or 轮庄 between hands. (The
    deals are fresh each hand, so which branches of the rule a run meets varies; the seeded
    domain test, tests/domain/test_match.py, is the one that meets every branch.)"""

    async def scenario() -> None:
        server = table_server(sqlite(tmp_path / "m.sqlite"), sealer=SEALER)
        options = ZipaiOptions(dealer_rule=rule, scoring=ScoringProfile.LUZHOU)
        _g, match_id, tokens = await seated(server, "zipai", options, 3, [2, 0, 1], hands=4)
        hands = await play_match(server, match_id, tokens, random.Random(SEED))
        assert [t.hand for t in hands] == [1, 2, 3, 4]
        played = [(t.game.dealer, t.game.winner) for t in hands]
        assert played[0][0] == 2, f"seed={SEED}: the first seat taken deals: {played}"
        for (dealer, winner), (following, _) in zip(played, played[1:], strict=False):
            if rule is DealerRule.WINNER:
                expected = winner if winner is not None else dealer
            else:
                expected = dealer if winner == dealer else (dealer + 1) % 3
            assert following == expected, f"seed={SEED}, {rule.name}: {played}"
        state = await verified(server, match_id)
        assert state.ended is not None
        totals = [sum(t.outcome.scores[s] for t in hands) for s in range(3)]
        assert [s.total for s in state.ended.standings] == totals
        server.games.close()

    asyncio.run(scenario())


def test_a_ready_match_deals_the_next_hand_once_every_seat_is_ready(tmp_path: Path) -> None:
    """The next hand opens (its commitment public) as soon as a hand ends; it is dealt once
    every seat has committed (ReadyNextHand) and revealed. A plain contribution is refused."""

    async def scenario() -> None:
        server = table_server(sqlite(tmp_path / "m.sqlite"), sealer=SEALER)
        options = HuaniaoOptions(mode=Mode.BASIC)
        first, match_id, tokens = await seated(
            server, "huaniao", options, 3, [0, 1, 2], hands=3, advance=matches.Advance.READY
        )
        rng = random.Random(SEED)
        for hand in range(1, 4):
            game_id = await current_hand(server, match_id)
            await play_hand(server, game_id, tokens, rng)
            state, _ = await server.matches.match_record(match_id)
            if hand == 3:
                assert state.finished
                with pytest.raises(RuleViolation):
                    await server.matches.ready_next_hand(game_id, Viewer.of_seat(0))
                break
            assert len(state.hands) == hand + 1 and not matches.next_due(state), "opened at once"
            opened = state.hands[-1].game_id
            with pytest.raises(RuleViolation) as refused:
                await server.matches.ready_next_hand(game_id, Viewer.of_seat(0), "public-too-early")
            assert refused.value.reason == "CONTRIBUTION_NOT_COMMITTED"
            for seat in (2, 0):
                after, _hand, _ack = await server.matches.ready_next_hand(
                    game_id,
                    Viewer.of_seat(seat),
                    commitment=deal.contribution_commitment(f"c{seat}"),
                )
                assert after.ready_seats() == (0, 2) if seat == 0 else (2,)
            with pytest.raises(RuleViolation) as refused:
                await server.deal.reveal(opened, Viewer.of_seat(0), "c0")
            assert refused.value.reason == "REVEAL_TOO_EARLY", "a reveal before every commitment"
            waiting = (await server.watch.snapshot(opened, ARBITER, None)).table
            assert waiting.phase is tables.Phase.WAITING, "dealt before every seat was ready"
            commitment = deal.contribution_commitment("c1")
            await server.matches.ready_next_hand(
                first, Viewer.of_seat(1), commitment=commitment
            )  # any id
            for seat in (1, 2, 0):
                await server.deal.reveal(opened, Viewer.of_seat(seat), f"c{seat}")
            dealt = (await server.watch.snapshot(opened, ARBITER, None)).table
            assert [s.contribution for s in dealt.seats] == ["c0", "c1", "c2"]  # type: ignore[union-attr]
            assert dealt.phase is tables.Phase.PLAYING
        await verified(server, match_id)
        server.games.close()

    asyncio.run(scenario())


def test_the_same_tokens_act_in_every_hand(tmp_path: Path) -> None:
    async def scenario() -> None:
        server = table_server(sqlite(tmp_path / "m.sqlite"), sealer=SEALER)
        first, match_id, tokens = await seated(
            server, "huaniao", HuaniaoOptions(mode=Mode.BASIC), 2, [0, 1], hands=2
        )
        await play_hand(server, first, tokens, random.Random(SEED))
        second = await current_hand(server, match_id)
        assert second != first
        for seat, token in tokens.items():
            assert await server.games.authenticate(second, token) == Viewer.of_seat(seat)
        server.games.close()

    asyncio.run(scenario())


def test_watch_follows_the_match_into_every_hand_without_a_gap(tmp_path: Path) -> None:
    async def scenario() -> None:
        server = table_server(sqlite(tmp_path / "m.sqlite"), sealer=SEALER)
        first, match_id, tokens = await seated(
            server, "huaniao", HuaniaoOptions(mode=Mode.BASIC), 2, [0, 1], hands=3
        )
        seen: list[tuple[str, int]] = []
        markers: list[NextHand] = []
        viewers: dict[str, list[Viewer]] = {}

        async def watcher() -> None:
            async for item in server.watch.watch_match(first, Viewer.of_seat(0), 0):
                if isinstance(item, HandEvents):
                    seen.extend((item.game_id, e.version) for e in item.events)
                    viewers.setdefault(item.game_id, []).append(item.viewer)
                else:
                    markers.append(item)

        watching = asyncio.ensure_future(watcher())
        await asyncio.sleep(0.05)
        await play_match(server, match_id, tokens, random.Random(SEED))
        await asyncio.wait_for(watching, 10)
        state, _ = await server.matches.match_record(match_id)
        expected = []
        for h in state.hands:
            stored = server.games.store.stored_events(server.games.parse_id(h.game_id))
            expected += [(h.game_id, e.version) for e in stored]
        assert seen == expected
        assert [m.game_id for m in markers] == [h.game_id for h in state.hands[1:]] + [""]
        assert markers[-1].match.finished
        # every hand is rendered for seat 0 (its token carries over), opened up only by the
        # batch that ends the game and the hand's HandClosed after it (issue 36)
        for h in state.hands:
            views = viewers[h.game_id]
            opened = views.index(ARBITER)
            assert opened > 0 and all(v == Viewer.of_seat(0) for v in views[:opened])
            assert all(v == ARBITER for v in views[opened:]) and len(views) - opened <= 2
        server.games.close()

    asyncio.run(scenario())


def test_a_restart_mid_match_goes_on_with_the_same_tokens(tmp_path: Path) -> None:
    async def scenario() -> None:
        db = tmp_path / "m.sqlite"
        rng = random.Random(SEED)
        server = table_server(sqlite(db), sealer=SEALER)
        options = ZipaiOptions(scoring=ScoringProfile.LUZHOU)
        first, match_id, tokens = await seated(server, "zipai", options, 2, [0, 1], hands=3)
        await play_hand(server, first, tokens, rng)
        await play_hand(server, await current_hand(server, match_id), tokens, rng, stop=5)
        server.games.close()

        again = table_server(sqlite(db), sealer=SEALER)
        assert await again.matches.recover_matches() == 0  # nothing was left between two steps
        hands = await play_match(again, match_id, tokens, rng)
        assert len(hands) == 3
        await verified(again, match_id)
        again.games.close()

    asyncio.run(scenario())


def test_a_match_left_between_a_hands_end_and_the_next_deal_moves_on_after_a_restart(
    tmp_path: Path,
) -> None:
    """The process died after the hand's last move was stored, before the match moved."""

    async def scenario() -> None:
        db = tmp_path / "m.sqlite"
        rng = random.Random(SEED)
        server = table_server(sqlite(db), sealer=SEALER)
        first, match_id, tokens = await seated(
            server, "huaniao", HuaniaoOptions(mode=Mode.BASIC), 2, [0, 1], hands=2
        )

        async def dies(match_id: str) -> None:
            return None

        server.games.hand_ended = dies
        await play_hand(server, first, tokens, rng)
        state, _ = await server.matches.match_record(match_id)
        assert len(state.hands) == 1 and state.hands[0].ended is None
        server.games.close()

        again = table_server(sqlite(db), sealer=SEALER)
        assert await again.matches.recover_matches() == 1
        state, _ = await again.matches.match_record(match_id)
        assert state.hands[0].ended is not None and len(state.hands) == 2
        await play_match(again, match_id, tokens, rng)
        await verified(again, match_id)
        again.games.close()

    asyncio.run(scenario())


def test_a_hand_closed_before_its_match_recorded_the_end_moves_on_after_a_restart(
    tmp_path: Path,
) -> None:
    """Issue 36: the process died after the ended hand's HandClosed (its own stream says
    hand 2 follows) and before the match recorded the hand's end: the restart records it
    (its HandEnded naming the head after HandClosed), opens hand 2, closes no hand twice."""

    async def scenario() -> None:
        db = tmp_path / "m.sqlite"
        rng = random.Random(SEED)
        server = table_server(sqlite(db), sealer=SEALER)
        first, match_id, tokens = await seated(
            server, "huaniao", HuaniaoOptions(mode=Mode.BASIC), 2, [0, 1], hands=2
        )

        async def dies(*_args: Any) -> None:
            raise RuntimeError("the process died here")

        server.games.append_match = dies  # type: ignore[method-assign]
        await play_hand(server, first, tokens, rng)
        stored = server.games.store.stored_events(server.games.parse_id(first))
        closed = stored[-1].fact
        assert isinstance(closed, tables.HandClosed)
        assert (closed.last, closed.next_game_id) == (False, matches.hand_id(match_id, 2))
        assert [type(e.fact) for e in stored].count(tables.HandClosed) == 1
        state, _ = await server.matches.match_record(match_id)
        assert len(state.hands) == 1 and state.hands[0].ended is None
        server.games.close()

        again = table_server(sqlite(db), sealer=SEALER)
        assert await again.matches.recover_matches() == 1
        state, _ = await again.matches.match_record(match_id)
        ended = state.hands[0].ended
        assert ended is not None and ended.head_hash == stored[-1].hash
        assert len(state.hands) == 2
        assert len(again.games.store.stored_events(again.games.parse_id(first))) == len(stored)
        assert await again.matches.recover_matches() == 0
        await play_match(again, match_id, tokens, rng)
        await verified(again, match_id)
        last = again.games.store.stored_events(again.games.parse_id(state.hands[1].game_id))
        assert last[-1].fact == tables.HandClosed(match_id, 2, True, "")
        again.games.close()

    asyncio.run(scenario())


def test_a_keyed_create_of_a_match_retried_returns_the_same_match_and_opens_no_second(
    tmp_path: Path,
) -> None:
    """CreateGame's request_id with a match: the match id comes from the key (the first
    hand's id from it), so a retry returns the same reply; a first attempt that stored the
    match but lost its first hand is finished by the retry; other content is refused."""

    async def scenario() -> None:
        server = table_server(sqlite(tmp_path / "m.sqlite"), sealer=SEALER)
        options = ZipaiOptions()
        key = str(uuid.uuid4())
        first = await server.seats.create_match("zipai", options, 3, 4, request_id=key)
        assert await server.seats.create_match("zipai", options, 3, 4, request_id=key) == first
        with pytest.raises(MalformedCommand) as other:
            await server.seats.create_match("zipai", options, 3, 2, request_id=key)
        assert other.value.field == "request_id"
        assert await server.seats.create_match("zipai", options, 3, 4, request_id=key) == first

        # the first attempt's match is stored, its first hand's table is lost
        real_submit = server.games.store.submit

        def loses_tables(agg: Any) -> concurrent.futures.Future[None]:
            if isinstance(agg, GameAggregate):
                lost: concurrent.futures.Future[None] = concurrent.futures.Future()
                lost.set_exception(OSError("the reply was lost"))
                return lost
            return real_submit(agg)

        cut = str(uuid.uuid4())
        server.games.store.submit = loses_tables  # type: ignore[method-assign]
        with pytest.raises(OSError):
            await server.seats.create_match("zipai", options, 3, 4, request_id=cut)
        server.games.store.submit = real_submit  # type: ignore[method-assign]
        with pytest.raises(MalformedCommand):
            await server.seats.create_match("zipai", options, 3, 3, request_id=cut)
        game_id, version, arbiter, match_id = await server.seats.create_match(
            "zipai", options, 3, 4, request_id=cut
        )
        assert match_id == str(idempotency.match_id(cut)) and version == 1
        assert game_id == matches.hand_id(match_id, 1)
        assert await server.games.authenticate(game_id, arbiter) == ARBITER
        ids = await asyncio.to_thread(server.games.store.match_ids)
        assert sorted(map(str, ids)) == sorted([first[3], match_id])
        server.games.close()

    asyncio.run(scenario())
