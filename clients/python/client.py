"""A small typed client for the table service.

``TableClient`` opens tables and takes seats; ``SeatClient`` (seat.py) acts for one seat
and carries its token (channel.py: the connection both use); its ``watch`` resumes after a
dropped connection from the last version it saw, so a caller never sees a gap or a
duplicate. Give a seat a ``ReceiptLog`` (``receipts=``) to keep the
server's signed receipt of everything its Play replies, views and Watch streams showed it.

Every seat this client joins gets an Ed25519 key made here (docs/api.md, "Seat signatures"):
its public half is sent with JoinGame, every command of the seat is signed with it, and the
seat's credential (``SeatClient.credential``: ``TOKEN:KEYHEX``) keeps both. A bare token
still works: its commands go unsigned (an unkeyed seat, at a table that allows them).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator

from google.protobuf.message import Message

from clients.python.channel import TOKEN_HEADER, routed_channel
from clients.python.receipts import ReceiptLog
from clients.python.seat import (
    SeatClient,
    commit,
    login_metadata,
    new_seat_key,
    split_credential,
)
from server.wire import seatsig
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.v1 import tabletop_pb2_grpc as pb_grpc


class TableClient:
    def __init__(self, target: str = "127.0.0.1:50051", token: str | None = None) -> None:
        self.target = target
        self.channel = routed_channel(target)
        self.stub = pb_grpc.TableServiceStub(self.channel)
        self.token, self.seat_key = split_credential(token)  # a seat credential: its key
        # keyed joins by request_id: (the request unsigned and keyless, as sent, the key),
        # so a retry sends the same key and bytes
        self._joins: dict[str, tuple[Message, Message, bytes]] = {}
        # the arbiter keys this client made, by arbiter token (``as_viewer`` signs with
        # them) and by CreateGame request_id (a retry sends the same key)
        self._arbiter_keys: dict[str, bytes] = {}
        self._create_keys: dict[str, bytes] = {}

    def close(self) -> None:
        self.channel.close()

    def __enter__(self) -> TableClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def metadata(self) -> tuple[tuple[str, str], ...]:
        return ((TOKEN_HEADER, self.token),) if self.token else ()

    def create_game(
        self,
        options: pb.GameOptions,
        seat_count: int,
        seed: int | None = None,
        deck: list[int] | None = None,
        enforcement: int = pb.ENFORCEMENT_REJECT,
        turn_time_limit_ms: int = 0,
        arbitrated: bool = False,
        request_id: str = "",
        match: pb.MatchSettings | None = None,
        case_time_limit_ms: int = 0,
        max_redeals: int | None = None,
        abandon_after_ms: int = 0,
        justice_budget_ms: int = 0,
        allow_unkeyed_seats: bool = False,
        arbiter_key: bytes | None = None,
        sign_arbiter: bool | None = None,
        require_player_login: bool = False,
    ) -> pb.CreateGameResponse:
        """Open a table; with ``match``, a match of hands whose first hand is the reply's
        game id (the reply's ``match_id`` names the match). With a ``request_id``
        (``str(uuid.uuid4())``, fresh per table) the call may be retried: the retry returns
        the same game id and arbiter token. ``case_time_limit_ms``: how long a report or
        appeal waits for its next step (0: the server's default). ``max_redeals``: at most
        this many 重新洗牌发牌 per match (None: the server's default, 1). ``abandon_after_ms``:
        how long a draw waits for every seat's commitment and reveal before the game is
        void (0: the default, ten minutes). ``justice_budget_ms``: the time cases may pause
        one hand (0: 30 minutes). ``allow_unkeyed_seats``: admit seats that join without a
        key (their commands stand on the server's word alone).

        An arbitrated table gets a fresh arbiter key made here (``arbiter_key`` to give one;
        ``sign_arbiter=False``: none, at a table that allows unkeyed seats, the default
        there): its public half is recorded, and the arbiter signs its every ruling. The
        key stays with this client: ``as_viewer(game_id, arbiter_token)`` signs with it,
        and ``arbiter_credential(reply)`` is ``TOKEN:KEYHEX`` for another process."""
        if sign_arbiter is None:
            sign_arbiter = arbitrated and (arbiter_key is not None or not allow_unkeyed_seats)
        if sign_arbiter:
            arbiter_key = arbiter_key or self._create_keys.get(request_id) or new_seat_key()
            if request_id:
                self._create_keys[request_id] = arbiter_key
        request = pb.CreateGameRequest(
            allow_unkeyed_seats=allow_unkeyed_seats,
            options=options,
            seat_count=seat_count,
            deck=deck or [],
            enforcement=enforcement,  # type: ignore[arg-type]
            turn_time_limit_ms=turn_time_limit_ms,
            arbitrated=arbitrated,
            request_id=request_id,
            case_time_limit_ms=case_time_limit_ms,
            abandon_after_ms=abandon_after_ms,
            justice_budget_ms=justice_budget_ms,
            require_player_login=require_player_login,
        )
        if seed is not None:
            request.seed = seed
        if match is not None:
            request.match.CopyFrom(match)
        if max_redeals is not None:
            request.max_redeals = max_redeals
        if sign_arbiter and arbiter_key is not None:
            request.arbiter_public_key = seatsig.public_bytes(arbiter_key)
        reply = self.stub.CreateGame(request)
        if sign_arbiter and arbiter_key is not None:
            self._arbiter_keys[reply.arbiter_token] = arbiter_key
        return reply

    def arbiter_credential(self, created: pb.CreateGameResponse | str) -> str:
        """The arbiter's credential of a table this client created (its CreateGame reply,
        or its arbiter token): ``TOKEN:KEYHEX`` when it made the arbiter a key
        (``as_viewer`` and the CLI's ``--token`` take it), else the bare token."""
        token = created if isinstance(created, str) else created.arbiter_token
        key = self._arbiter_keys.get(token)
        return f"{token}:{key.hex()}" if key else token

    def match(self, match_id: str) -> pb.GetMatchResponse:
        """A match, its standings and its stored record."""
        return self.stub.GetMatch(pb.GetMatchRequest(match_id=match_id))

    def join(
        self,
        game_id: str,
        seat: int,
        player_name: str = "",
        contribution: str | None = None,
        receipts: ReceiptLog | None = None,
        request_id: str = "",
        sign: bool = True,
        seat_key: bytes | None = None,
        login: str | None = None,
        lobby_bot: str | None = None,
    ) -> SeatClient:
        """Take a seat, committing to this seat's ``contribution`` to the deal: by default
        16 fresh random bytes, so no other party can choose the deal. Only its commitment is
        sent now; ``SeatClient.reveal`` sends the value once every seat is taken. ``""``
        contributes nothing (a seeded table then deals the same every time). ``receipts``
        keeps the seat's receipts (clients/python/receipts.py). With a ``request_id``
        (``str(uuid.uuid4())``) the call may be retried with the same arguments: the retry
        returns the same seat token (the same request: the same key and bytes).

        The seat gets a fresh Ed25519 key (``seat_key`` to give one): its public half goes
        with the request, signed by it, and the seat signs every later command. Once
        seated, the client checks that the server recorded that key (else
        ``SeatKeyNotRecorded``). ``sign=False`` joins unkeyed (a table that allows it).
        ``login``: the app's login token (a JWT): the seat is bound to its player, and the
        seat acts by the login from then on (``resume`` on another device)."""
        if contribution is None:
            contribution = secrets.token_hex(16)
        request = pb.JoinGameRequest(
            game_id=game_id,
            seat=seat,
            player_name=player_name,
            contribution_commitment=commit(contribution) if contribution else "",
            request_id=request_id,
        )
        retried = self._joins.get(request_id) if request_id else None
        if retried is not None and retried[0] == request:
            request, seat_key = retried[1], retried[2]  # a retry sends the very same bytes
        elif sign:
            seat_key = seat_key or new_seat_key()
            keyed = pb.JoinGameRequest()
            keyed.CopyFrom(request)
            keyed.seat_public_key = seatsig.public_bytes(seat_key)
            keyed.seat_signature.CopyFrom(seatsig.sign(seat_key, game_id, "JoinGame", 0, "", keyed))
            if request_id:
                self._joins[request_id] = (request, keyed, seat_key)
            request = keyed
        # ``lobby_bot``: the secret of a lobby table whose bot seats the server reserved
        # for the bot process it started (given in TABLETOP_LOBBY_BOT_SECRET)
        bot = (("x-lobby-bot", lobby_bot),) if lobby_bot else ()
        reply = self.stub.JoinGame(request, metadata=login_metadata(login) + bot)
        seated = SeatClient(
            self.target,
            game_id,
            reply.seat,
            reply.seat_token,
            self.channel,
            receipts,
            contribution,
            seat_key=seat_key if request.seat_public_key else None,
            login=login,
        )
        if request.seat_public_key:
            seated.check_key_recorded()
        return seated

    def resume(
        self, game_id: str, login: str, seat_key: bytes | None = None, keyed: bool = True
    ) -> SeatClient:
        """The login's seat at ``game_id`` on this device (another than the one that joined):
        the seat acts by the login, and a keyed seat takes this device's key (``seat_key``,
        or a fresh one), recorded as a re-key. ``keyed=False``: keep the seat's key (an
        unkeyed seat)."""
        request = pb.ResumeSeatRequest(game_id=game_id)
        if keyed:
            seat_key = seat_key or new_seat_key()
            request.seat_public_key = seatsig.public_bytes(seat_key)
            as_rekey = pb.RekeySeatRequest(game_id=game_id, seat_public_key=request.seat_public_key)
            request.seat_signature.CopyFrom(
                seatsig.sign(seat_key, game_id, "RekeySeat", 0, "", as_rekey)
            )
        reply = self.stub.ResumeSeat(request, metadata=login_metadata(login))
        return SeatClient(
            self.target, game_id, reply.seat, None, self.channel, seat_key=seat_key, login=login
        )

    def my_games(self, login: str, page_size: int = 20) -> Iterator[pb.MyGame]:
        """The login's games, newest first, page by page."""
        token = ""
        while True:
            reply = self.stub.ListMyGames(
                pb.ListMyGamesRequest(page_size=page_size, page_token=token),
                metadata=login_metadata(login),
            )
            yield from reply.games
            token = reply.next_page_token
            if not token:
                return

    def as_viewer(
        self, game_id: str, token: str | None = None, receipts: ReceiptLog | None = None
    ) -> SeatClient:
        """Act with an existing token (arbiter or seat) or credential (``TOKEN:KEYHEX``: the
        seat, or the arbiter, signs its commands), or as a spectator without one. The bare
        arbiter token of a table this client created signs with the key it made."""
        token, key = split_credential(token)
        if key is None and token:
            key = self._arbiter_keys.get(token)
        return SeatClient(self.target, game_id, None, token, self.channel, receipts, seat_key=key)

    def view(self, game_id: str, version: int | None = None) -> pb.GameView:
        return self.as_viewer(game_id, self.token).view(version)


def draw_next_hand(seats: list[SeatClient]) -> pb.MatchView:
    """A match's next hand drawn by a process that plays every seat (bots, tests): each seat
    commits to a fresh contribution (``ready_next_hand``), then each reveals it; the server
    deals once every input is in. Returns the match after the commitments."""
    match = pb.MatchView()
    for seat in seats:
        match = seat.ready_next_hand()
    for seat in seats:
        seat.reveal()
    return match


def commit_and_reveal(seats: list[SeatClient]) -> None:
    """A 重新洗牌发牌 being drawn at the seats' table: each commits to a fresh contribution,
    then each reveals it; the server deals it once every input is in."""
    for seat in seats:
        seat.commit_contribution()
    for seat in seats:
        seat.reveal()


def reveal_and_start(seats: list[SeatClient]) -> int:
    """Every seat reveals its contribution, then the first starts the game (for a process
    that plays every seat: bots, tests, the demo). Returns the version after the deal."""
    for seat in seats:
        seat.reveal()
    return seats[0].start()
