"""Opening a table (alone or as a match's first hand), taking its seats, and a signed-in
player's seats: listed and resumed from any device (issue 40)."""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
import uuid
from dataclasses import dataclass
from typing import Any

from eventsourcing.persistence import IntegrityError

from domain import match as matches
from domain import table as tables
from domain.codec import to_data
from domain.engine import MalformedCommand, Role, RuleViolation, Viewer
from domain.registry import rules_for
from domain.table import deal
from domain.table.justice import facts as J
from server.store import players as player_index
from server.store.eventstore import GameAggregate, MatchAggregate
from server.usecases import idempotency
from server.usecases.games import (
    Games,
    NotFound,
    PermissionDenied,
    _same_request,
    token_hash,
)
from server.wire.seatsig import SignedCall
from server.wire.stored import StoredEvent

PREPARED_DEALS_SETTING = "--allow-prepared-deals (TABLETOP_ALLOW_PREPARED_DEALS)"


def new_token() -> str:
    """A random seat or arbiter token (192 bits) that never starts with "-": a command line
    reads ``--token -x...`` as two options (argparse, Node's parseArgs), so one token in 64
    could not be given as ``--token T``."""
    while (token := secrets.token_urlsafe(24)).startswith("-"):
        pass
    return token


@dataclass(frozen=True)
class MatchPlan:
    """A match asked for at CreateGame: its length, how it moves on, and its id."""

    hands: int
    target_score: int = 0
    advance: matches.Advance = matches.Advance.AUTO
    match_id: uuid.UUID = dataclasses.field(default_factory=uuid.uuid4)


class Seats:
    """CreateGame, CreateMatch, JoinGame, RekeySeat, and a player's ListMyGames and
    ResumeSeat."""

    def __init__(
        self,
        games: Games,
        *,
        min_turn_ms: int = 0,
        allow_prepared_deals: bool = False,
        reveal_timeout_ms: int = 30_000,
        case_timeout_ms: int = 120_000,
    ) -> None:
        """What seats touch: ``games`` (the common ground: parse, lock, load, check a seat's
        signature, decide once per key, append, seal, the game store, and the caches a new
        table and match enter), and the server's settings for a new table:
        ``min_turn_ms`` (the shortest turn clock a table may have: policy),
        ``allow_prepared_deals`` (client seeds and decks), ``reveal_timeout_ms`` (recorded
        in each new table, GameCreated, so its views' deadlines follow from it) and
        ``case_timeout_ms`` (a case's deadline at a table that names none, recorded there
        as well)."""
        self.games = games
        self.min_turn_ms = min_turn_ms
        self.allow_prepared_deals = allow_prepared_deals
        self.reveal_timeout_ms = reveal_timeout_ms
        self.case_timeout_ms = case_timeout_ms

    async def create_game(
        self,
        kind: str,
        options: Any,
        seat_count: int,
        seed: int | None = None,
        deck: tuple[int, ...] = (),
        enforcement: J.Enforcement = J.Enforcement.REJECT,
        time_limit_ms: int = 0,
        arbitrated: bool = False,
        request_id: str = "",
        match: MatchPlan | None = None,
        max_redeals: int = tables.DEFAULT_MAX_REDEALS,
        case_time_limit_ms: int = 0,
        abandon_after_ms: int = 0,
        justice_budget_ms: int = 0,
        allow_unkeyed_seats: bool = False,
        arbiter_public_key: str = "",
        require_player_login: bool = False,
        reserved_players: tuple[str, ...] = (),
        app: str = "",
    ) -> tuple[str, int, str]:
        """Open a table. Returns the game id, its version and the arbiter token. With
        ``match``, the table is the first hand of that new match (see ``create_match``).

        The shuffle secret and the commitment's salt are random. A ``seed`` (the secret
        derived from it) or a ``deck`` is a prepared deal: refused unless this server allows
        prepared deals, and marked in the table's facts. With a ``request_id``
        (server/usecases/idempotency.py) the game id and the arbiter token come from the key, so a
        retry finds the game and returns the same reply. Every seat joins with a key and
        signs its commands unless ``allow_unkeyed_seats`` (docs/api.md, "Seat signatures");
        an arbitrated table's arbiter then signs its own with ``arbiter_public_key`` (hex).
        ``require_player_login``: every seat is taken by a signed-in player (docs/api.md,
        "Players"). ``reserved_players``: per seat, the player id only whose login takes
        it ("": open), for a table the lobby formed (never from a request). ``app``: the
        app whose table it is (the lobby's: its login's client id), whose webhooks it owes."""
        if (seed is not None or deck) and not self.allow_prepared_deals:
            raise RuleViolation(
                "PREPARED_DEALS_DISABLED",
                PREPARED_DEALS_SETTING,
                "this server refuses a seed or a deck: the table's creator would choose the "
                f"deal (start the server with {PREPARED_DEALS_SETTING} to allow them, marked)",
            )
        if 0 < time_limit_ms < self.min_turn_ms:  # a fast clock would play games by itself
            raise MalformedCommand(
                "turn_time_limit_ms",
                f"at least {self.min_turn_ms} ms on this server, or 0 for no clock",
            )
        if 0 < case_time_limit_ms < self.min_turn_ms:  # else reports would lapse at once
            raise MalformedCommand(
                "case_time_limit_ms",
                f"at least {self.min_turn_ms} ms on this server, or 0 for its default",
            )
        if 0 < justice_budget_ms < self.min_turn_ms:  # else every case would lapse at once
            raise MalformedCommand(
                "justice_budget_ms",
                f"at least {self.min_turn_ms} ms on this server, or 0 for its default",
            )
        rules = rules_for(kind)
        key = idempotency.parse(request_id)
        game_id, arbiter_token, cause = (
            uuid.uuid4(),
            new_token(),
            tables.cause("create"),
        )
        match_id = str(match.match_id) if match is not None else ""
        if match is not None:
            game_id = uuid.UUID(matches.hand_id(match_id, 1))
        if key is not None:
            content = {
                "kind": kind, "options": to_data(options), "seat_count": seat_count,
                "seed": seed, "deck": list(deck), "enforcement": enforcement.name,
                "time_limit_ms": time_limit_ms, "arbitrated": arbitrated,
            }  # fmt: skip
            if max_redeals != tables.DEFAULT_MAX_REDEALS:  # older keys' content unchanged
                content["max_redeals"] = max_redeals
            if case_time_limit_ms:  # (likewise)
                content["case_time_limit_ms"] = case_time_limit_ms
            if abandon_after_ms:  # (likewise)
                content["abandon_after_ms"] = abandon_after_ms
            if justice_budget_ms:  # (likewise)
                content["justice_budget_ms"] = justice_budget_ms
            if allow_unkeyed_seats:  # (likewise)
                content["allow_unkeyed_seats"] = True
            if arbiter_public_key:  # (likewise)
                content["arbiter_public_key"] = arbiter_public_key
            if require_player_login:  # (likewise)
                content["require_player_login"] = True
            if match is not None:  # create_match derived the match id from the key
                content["match"] = {
                    "hands": match.hands,
                    "target_score": match.target_score,
                    "advance": match.advance.name,
                }
            else:
                game_id = idempotency.game_id(key)
            arbiter_token = idempotency.token(key, "arbiter", game_id)
            cause.update(idempotency.cause_fields(key, "create", content))
        async with self.games.lock(game_id):  # duplicates sent to this replica at once
            if key is not None and await self._created(game_id, cause):
                return str(game_id), 1, arbiter_token
            secret = deal.secret_from_seed(seed) if seed is not None else secrets.token_hex(32)
            (created,) = tables.create(
                rules,
                options,
                seat_count,
                token_hash(arbiter_token),
                secret,
                tuple(deck),
                enforcement,
                time_limit_ms,
                arbitrated,
                match_id=match_id,
                hand=1 if match is not None else 0,
                salt=secrets.token_hex(32),
                seeded=seed is not None,
                reveal_timeout_ms=self.reveal_timeout_ms,
                max_redeals=max_redeals,
                case_time_limit_ms=case_time_limit_ms or self.case_timeout_ms,
                abandon_after_ms=abandon_after_ms or tables.DEFAULT_ABANDON_AFTER_MS,
                justice_budget_ms=justice_budget_ms or J.DEFAULT_JUSTICE_BUDGET_MS,
                seat_keys_required=not allow_unkeyed_seats,
                arbiter_public_key=arbiter_public_key,
                match_settings=(
                    (match.hands, match.target_score, match.advance.name) if match else (0, 0, "")
                ),
                player_login_required=require_player_login,
                reserved_players=reserved_players,
                app=app,
            )
            if match is not None:
                await self._open_match(rules, seat_count, match, keyed=key is not None)
            agg = GameAggregate.open(game_id, created, cause)
            opened: Any = agg.pending_events[0]
            first = StoredEvent(
                1, opened.timestamp, created, agg.head_hash, opened.fact, opened.cause
            )
            (first,) = self.games.seal(agg, [first])
            try:
                await asyncio.wrap_future(self.games.store.submit(agg))
            except IntegrityError:  # the same key on another replica, at the same time
                if key is not None and await self._created(game_id, cause):
                    return str(game_id), 1, arbiter_token
                raise
            self.games.remember(agg)
            self.games.hub.publish(game_id, [first], agg.table)  # (a young game's first event)
        return str(game_id), agg.version, arbiter_token

    async def _open_match(self, rules: Any, seat_count: int, plan: MatchPlan, keyed: bool) -> None:
        """Store a new match's opening facts. A keyed CreateGame retried after its match was
        stored (but not its first hand) finds the same match and goes on; a match of the
        same id with another length is another request's."""
        match_id = str(plan.match_id)
        opening = matches.create(
            rules,
            match_id,
            seat_count,
            plan.hands,
            plan.target_score,
            plan.advance,
            secrets.token_hex(32),
        )
        opened = MatchAggregate.open(plan.match_id, opening)
        self.games.seal_match(opened, 1)
        try:
            await asyncio.wrap_future(self.games.store.submit(opened))
        except IntegrityError:
            if not keyed:
                raise
            stored = [
                f.fact for f in await asyncio.to_thread(self.games.store.match_facts, plan.match_id)
            ]
            if stored[1:] != opening[1:] or _settings(stored[0]) != _settings(opening[0]):
                raise MalformedCommand(
                    "request_id", "was already used for a different request"
                ) from None
            opened = await self.games.load_match(plan.match_id, refresh=True)
        self.games.remember_match(opened)

    async def _created(self, game_id: uuid.UUID, cause: dict[str, Any]) -> bool:
        """Whether the keyed CreateGame behind ``cause`` already opened ``game_id``."""
        first = await asyncio.to_thread(self.games.store.stored_events, game_id, 0, 1)
        if not first:
            return False
        _same_request(first[0].cause, cause)
        return True

    async def join_game(
        self,
        game_id: str,
        seat: int,
        player_name: str,
        contribution: str = "",
        commitment: str = "",
        request_id: str = "",
        public_key: str = "",
        signed: SignedCall | None = None,
        player: str = "",
        app: str = "",
    ) -> tuple[str, int]:
        """Take a seat, committing to a contribution. Returns the seat token (shown once, or
        to a retry with the same ``request_id``: the token is then derived from the key) and
        the new version. ``public_key`` (64 hex) keys the seat: the join must then be
        ``signed`` by it, and so must every later command of the seat. ``player``: the
        player id of the caller's login (checked by the transport), bound to the seat in
        its SeatTaken; the player's index lists the game from then on; ``app``: that
        login's app (a login of another app takes no seat at an app's table)."""
        gid = self.games.parse_id(game_id)
        key = idempotency.parse(request_id)
        cause = tables.cause("join", seat)
        if public_key and not tables.is_seat_key(public_key):
            raise MalformedCommand("seat_public_key", "an Ed25519 public key: 32 bytes")
        if key is None:
            token = new_token()
        else:
            token = idempotency.token(key, "seat", gid, seat)
            content = {"game_id": str(gid), "seat": seat, "player_name": player_name,
                       "contribution": contribution, "commitment": commitment}  # fmt: skip
            if public_key:  # older keys' content unchanged
                content["public_key"] = public_key
            if player:  # (likewise): another login's retry gets no token
                content["player"] = player
            cause.update(idempotency.cause_fields(key, "join", content))

        def decide(agg: GameAggregate) -> list[Any]:
            return tables.take_seat(
                agg.table,
                seat,
                player_name,
                token_hash(token),
                contribution,
                commitment,
                public_key,
                player,
                app,
            )

        async def check(agg: GameAggregate) -> None:
            if public_key:  # (unkeyed: take_seat says whether the table allows it)
                recorded = await self.games.seat_signed(agg, seat, signed, key=public_key)
                if recorded is not None:
                    cause["signed"] = recorded
            if player:  # listed before it is stored: a stored join is never missing there
                decide(agg)  # (a join the rules refuse now is not listed)
                await self._note_seat(agg, seat, player)

        stored = await self.games.once(gid, decide, cause, check)
        return token, stored[-1].version

    async def _note_seat(self, agg: GameAggregate, seat: int, player: str) -> None:
        """The player's index lists the game (server/store/players.py)."""
        await asyncio.to_thread(
            player_index.note_seat,
            self.games.store,
            player,
            str(agg.id),
            seat,
            agg.table.match_id,
        )

    async def player_games(
        self, player: str, before: int | None, size: int
    ) -> tuple[list[player_index.Entry], int | None]:
        """A page of the player's games, newest first: only those whose table binds a seat
        to the player (the index is a hint, the table the truth). Returns the entries and
        where the next page starts (None after the last)."""
        found = await asyncio.to_thread(
            player_index.entries, self.games.store, player, before, size
        )
        kept: dict[str, player_index.Entry] = {}  # a retried join may be noted twice
        for entry in found:
            try:
                agg = await self.games.load(self.games.parse_id(entry.game_id))
            except (NotFound, MalformedCommand):
                continue
            if agg.table.seat_of(player) == entry.seat:
                kept.setdefault(entry.game_id, entry)
        more = len(found) == size and found[-1].position > 1
        return list(kept.values()), (found[-1].position if more else None)

    async def resume_seat(
        self, game_id: str, player: str, public_key: str, signed: SignedCall | None
    ) -> tuple[int, int, str]:
        """The player's seat at this game, from any device: the login stands for the seat
        (``Games.authenticate``). With ``public_key`` (this device's key, ``signed`` by it
        as a RekeySeat command) a keyed seat takes it, exactly as RekeySeat records it.
        Returns the seat, the version and the seat's current key."""
        gid = self.games.parse_id(game_id)
        agg = await self.games.load(gid)
        seat = agg.table.seat_of(player)
        if seat is None:
            agg = await self.games.load(gid, refresh=True)  # bound on another replica?
            seat = agg.table.seat_of(player)
        if seat is None:
            raise PermissionDenied(
                "this login holds no seat at this game (JoinGame takes one)", "NOT_YOUR_SEAT"
            )
        version = agg.version
        if public_key and public_key != agg.table.seat_key(seat):
            version = await self.rekey_seat(game_id, Viewer.of_seat(seat), public_key, signed)
            agg = await self.games.load(gid)
        return seat, version, agg.table.seat_key(seat)

    async def rekey_seat(
        self, game_id: str, viewer: Viewer, public_key: str, signed: SignedCall | None
    ) -> int:
        """The viewer's seat replaces its key (its device lost the old one): ``signed`` by the
        NEW key, on the seat token's word, recorded as SeatRekeyed for everyone to see.
        Returns the version after it (the same key again appends nothing)."""
        gid = self.games.parse_id(game_id)
        if viewer.role is not Role.SEAT or viewer.seat is None:
            raise PermissionDenied("only a seat re-keys itself (send its seat token)")
        if not tables.is_seat_key(public_key):
            raise MalformedCommand("seat_public_key", "an Ed25519 public key: 32 bytes")
        async with self.games.lock(gid):
            agg = await self.games.load(gid)
            recorded = await self.games.seat_signed(agg, viewer.seat, signed, key=public_key)
            try:
                facts = tables.rekey(agg.table, viewer.seat, public_key)
            except RuleViolation:  # another replica may have moved the table on
                agg = await self.games.load(gid, refresh=True)
                facts = tables.rekey(agg.table, viewer.seat, public_key)
            if not facts:
                return agg.version
            cause = tables.cause("rekey", viewer.seat)
            if recorded is not None:
                cause["signed"] = recorded
            stored = await self.games.append(agg, facts, cause)
        return stored[-1].version

    async def create_match(
        self,
        kind: str,
        options: Any,
        seat_count: int,
        hands: int,
        target_score: int = 0,
        advance: matches.Advance = matches.Advance.AUTO,
        **table: Any,
    ) -> tuple[str, int, str, str]:
        """Open a match and its first hand's table (``table``: create_game's settings).
        Returns the first hand's game id and version, the arbiter token and the match id.
        Seats join and start the first hand as any table; the server deals the hands after
        it (``advance_match``). A seed or a prepared deck fixes the first hand only: every
        later hand has a fresh secret. With a ``request_id`` the match id comes from the
        key too (its first hand's id follows from it), so a retry finds both."""
        plan = MatchPlan(hands, target_score, advance)
        if key := idempotency.parse(table.get("request_id", "")):
            plan = dataclasses.replace(plan, match_id=idempotency.match_id(key))
        game_id, version, arbiter = await self.create_game(
            kind, options, seat_count, match=plan, **table
        )
        return game_id, version, arbiter, str(plan.match_id)


def _settings(created: Any) -> Any:
    """A stored MatchCreated without its secret (a retry's own secret is another)."""
    return dataclasses.replace(created, secret="")
