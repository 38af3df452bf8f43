"""A small typed client for the table service.

``TableClient`` opens tables; ``SeatClient`` acts for one seat and carries its token;
``watch`` resumes after a dropped connection from the last version it saw, so a caller
never sees a gap or a duplicate. Give a seat a ``ReceiptLog`` (``receipts=``) to keep the
server's signed receipt of everything its Play replies, views and Watch streams showed it.

Every seat this client joins gets an Ed25519 key made here (docs/api.md, "Seat signatures"):
its public half is sent with JoinGame, every command of the seat is signed with it, and the
seat's credential (``SeatClient.credential``: ``TOKEN:KEYHEX``) keeps both. A bare token
still works: its commands go unsigned (an unkeyed seat, at a table that allows them).
"""

from __future__ import annotations

import collections
import hashlib
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf.message import Message

from clients.python.receipts import ReceiptLog, check_payload, check_signature, payload_bytes
from domain.verify import AuditFailure
from server.wire import seatsig
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.v1 import tabletop_pb2_grpc as pb_grpc

TOKEN_HEADER = "x-seat-token"
# The game a call names, as metadata, so a balancer can send all of a game's calls to one
# replica (deploy/haproxy.cfg hashes it). Routing only: any replica answers any call.
GAME_HEADER = "x-game-id"
RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)

CHANNEL_OPTIONS = [
    ("grpc.keepalive_time_ms", 20_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
]


class SeatKeyNotRecorded(Exception):
    """The server did not record the key this seat joined with: it could then stand in
    for the seat. The seat stops here."""


def new_seat_key() -> bytes:
    """A fresh Ed25519 private key for one seat: its 32 raw bytes."""
    return secrets.token_bytes(32)


def split_credential(credential: str | None) -> tuple[str | None, bytes | None]:
    """A seat credential ``TOKEN:KEYHEX`` as its token and key; a bare token has no key."""
    if not credential or ":" not in credential:
        return credential, None
    token, _, key = credential.partition(":")
    try:
        raw = bytes.fromhex(key)
    except ValueError:
        raise ValueError("a seat credential is TOKEN or TOKEN:KEYHEX (64 hex digits)") from None
    if len(raw) != 32:
        raise ValueError("a seat credential is TOKEN or TOKEN:KEYHEX (64 hex digits)")
    return token, raw


class _GameRouting(
    grpc.UnaryUnaryClientInterceptor,  # type: ignore[misc]
    grpc.UnaryStreamClientInterceptor,  # type: ignore[misc]
):
    """Adds ``x-game-id`` to every call whose request names a game (its ``game_id``)."""

    def _routed(self, details: grpc.ClientCallDetails, request: object) -> grpc.ClientCallDetails:
        game_id = getattr(request, "game_id", "")
        if not game_id or not isinstance(game_id, str):
            return details
        metadata = [*(details.metadata or ()), (GAME_HEADER, game_id)]
        return _CallDetails(
            details.method,
            details.timeout,
            metadata,
            details.credentials,
            getattr(details, "wait_for_ready", None),
            getattr(details, "compression", None),
        )

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._routed(details, request), request)

    def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._routed(details, request), request)


class _CallDetails(
    collections.namedtuple(
        "_CallDetails",
        ["method", "timeout", "metadata", "credentials", "wait_for_ready", "compression"],
    ),
    grpc.ClientCallDetails,  # type: ignore[misc]
):
    pass


def routed_channel(target: str) -> grpc.Channel:
    """A plaintext channel whose calls carry ``x-game-id`` when they name a game."""
    channel = grpc.insecure_channel(target, options=CHANNEL_OPTIONS)
    return grpc.intercept_channel(channel, _GameRouting())


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
        ``SeatKeyNotRecorded``). ``sign=False`` joins unkeyed (a table that allows it)."""
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
        reply = self.stub.JoinGame(request)
        seated = SeatClient(
            self.target,
            game_id,
            reply.seat,
            reply.seat_token,
            self.channel,
            receipts,
            contribution,
            seat_key=seat_key if request.seat_public_key else None,
        )
        if request.seat_public_key:
            seated.check_key_recorded()
        return seated

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


class NotAcknowledged(Exception):
    """The server did not acknowledge a seat's commitment or reveal with a valid signed
    receipt: for the seat, the input was refused (docs/api.md, "The deal")."""


def acknowledgement_problem(
    reply: pb.RevealContributionResponse | pb.CommitContributionResponse | pb.ReadyNextHandResponse,
    game_id: str,
    seat: int | None,
    fact: str,
    commitment: str | None,
    keys: list[bytes],
) -> str:
    """What is wrong with a reply's acknowledgement ("" when it is valid): it must carry a
    receipt for ``game_id`` signed with one of the server's ``keys``, covering the events
    sent, and those events must hold ``fact`` (``contribution_revealed`` or
    ``seat_committed``) for ``seat`` (with ``commitment``, when given)."""
    if not reply.HasField("receipt"):
        return "no signed acknowledgement came back"
    receipt = reply.receipt
    if receipt.game_id != game_id:
        return f"the acknowledgement is for game {receipt.game_id}, not {game_id}"
    try:
        check_signature(receipt, keys)
        check_payload(receipt, payload_bytes(events=list(reply.events)))
    except AuditFailure as exc:
        return f"the acknowledgement does not check ({exc})"
    if seat is None:  # a client made from a token alone: the receipt is the seat's own
        seat = receipt.viewer if receipt.viewer < len(receipt.hashes) - 2 else None
    for event in reply.events:
        if event.WhichOneof("body") != "table" or event.table.WhichOneof("kind") != fact:
            continue
        got = getattr(event.table, fact)
        if got.seat == seat and (commitment is None or got.commitment == commitment):
            return ""
    return f"the acknowledged events hold no {fact} of seat {seat}"


def commit(contribution: str) -> str:
    """The commitment a seat sends at JoinGame (docs/api.md, "Audit")."""
    return hashlib.sha256(f"tabletop-contribution|{contribution}".encode()).hexdigest()


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


@dataclass
class SeatClient:
    target: str
    game_id: str
    seat: int | None
    token: str | None
    channel: grpc.Channel
    receipts: ReceiptLog | None = None  # keeps every receipt this viewer is sent
    contribution: str = ""  # this seat's contribution to the deal, kept until revealed
    seat_key: bytes | None = None  # the seat's Ed25519 private key: it signs every command
    # the chain hashes this client has seen, by (game, version): what a signature names
    _hashes: dict[tuple[str, int], str] = field(default_factory=dict, repr=False)
    # signed requests by (method, request_id): a retry sends the same bytes
    _sent: dict[tuple[str, str], Message] = field(default_factory=dict, repr=False)

    @property
    def stub(self) -> pb_grpc.TableServiceStub:
        return pb_grpc.TableServiceStub(self.channel)

    @property
    def credential(self) -> str:
        """What keeps this seat: its token, and its key when it has one (``TOKEN:KEYHEX``;
        ``TableClient.as_viewer`` takes either)."""
        token = self.token or ""
        return f"{token}:{self.seat_key.hex()}" if self.seat_key else token

    @property
    def public_key(self) -> bytes:
        return seatsig.public_bytes(self.seat_key) if self.seat_key else b""

    def _saw(self, events: Any, game_id: str | None = None) -> None:
        """Remember the chain hashes of events this client was shown."""
        for event in events:
            if event.hash:
                self._hashes[(game_id or self.game_id, event.version)] = event.hash

    def _latest_seen(self, game_id: str) -> tuple[int, str]:
        seen = [v for (g, v) in self._hashes if g == game_id]
        if not seen:
            return 0, ""
        return max(seen), self._hashes[(game_id, max(seen))]

    def _hash_at(self, version: int) -> str:
        known = self._hashes.get((self.game_id, version))
        if known is None and version > 0:  # not seen here: read the game at that version
            view = self.view(version)
            known = view.head_hash
        return known or ""

    def _sign(self, request: Any, method: str, version: int | None = None) -> Any:
        """``request`` signed with this seat's key (unchanged without one): as of
        ``version`` (a Play's expected_version) or the latest version this client saw."""
        if self.seat_key is None:
            return request
        if version is None:
            version, head = self._latest_seen(request.game_id)
        else:
            head = self._hash_at(version)
        request.seat_signature.CopyFrom(
            seatsig.sign(self.seat_key, request.game_id, method, version, head, request)
        )
        return request

    def _once(self, method: str, request_id: str, request: Any, version: int | None) -> Any:
        """Sign ``request``, or take the very request sent before with this ``request_id``
        (same content): a retry is the same bytes."""
        if request_id:
            sent = self._sent.get((method, request_id))
            if sent is not None and seatsig.unsigned(sent) == request:
                return sent
        signed = self._sign(request, method, version)
        if request_id:
            self._sent[(method, request_id)] = signed
        return signed

    def check_key_recorded(self) -> None:
        """The server recorded this seat's key (SeatInfo.public_key), or the seat stops: a
        server that dropped it could stand in for the seat."""
        view = self.view()
        seat = self.seat if self.seat is not None else view.seat
        recorded = bytes(view.seats[seat].public_key) if seat < len(view.seats) else b""
        if recorded != self.public_key:
            shown = recorded.hex() or "none (an unkeyed seat)"
            raise SeatKeyNotRecorded(
                f"SEAT KEY NOT RECORDED: seat {seat} joined with key {self.public_key.hex()}, "
                f"the server shows {shown}; stop: the server could stand in for this seat"
            )

    def rekey(self, new_key: bytes | None = None) -> int:
        """Replace this seat's key (the old one was lost): signed by the new key and
        recorded as SeatRekeyed for everyone to see. Returns the version after it."""
        new_key = new_key or new_seat_key()
        request = pb.RekeySeatRequest(
            game_id=self.game_id, seat_public_key=seatsig.public_bytes(new_key)
        )
        version, head = self._latest_seen(self.game_id)
        request.seat_signature.CopyFrom(
            seatsig.sign(new_key, self.game_id, "RekeySeat", version, head, request)
        )
        reply = self.stub.RekeySeat(request, metadata=self.metadata)
        self.seat_key = new_key
        return int(reply.version)

    @property
    def metadata(self) -> tuple[tuple[str, str], ...]:
        return ((TOKEN_HEADER, self.token),) if self.token else ()

    def reveal(self) -> pb.RevealContributionResponse | None:
        """Reveal this seat's contribution (once every seat is taken). Safe to repeat: a
        repeat gets the acknowledgement of the first. Raises ``NotAcknowledged`` when the
        reply holds no valid signed acknowledgement: the reveal was refused."""
        if not self.contribution:
            return None
        request = pb.RevealContributionRequest(game_id=self.game_id, contribution=self.contribution)
        reply = self.stub.RevealContribution(
            self._sign(request, "RevealContribution"), metadata=self.metadata
        )
        self._saw(reply.events)
        self._acknowledged(reply, self.game_id, "reveal", "contribution_revealed", None)
        if self.receipts is not None:
            self.receipts.play(reply)
        return reply

    def _acknowledged(
        self,
        reply: pb.RevealContributionResponse
        | pb.CommitContributionResponse
        | pb.ReadyNextHandResponse,
        game_id: str,
        what: str,
        fact: str,
        commitment: str | None,
    ) -> None:
        """The server's signed acknowledgement of this seat's input: a receipt for ``game_id``
        signed with the server's key, over events that hold the seat's ``fact``."""
        key = self._server_keys()
        problem = acknowledgement_problem(reply, game_id, self.seat, fact, commitment, key)
        if problem:
            who = "this seat" if self.seat is None else f"seat {self.seat}"
            raise NotAcknowledged(
                f"{who}'s {what} was refused: {problem}; the deal waits for it "
                "(send it again, or tell the other players the server is not taking it)"
            )

    def _server_keys(self) -> list[bytes]:
        reply = self.stub.GetSigningKey(pb.GetSigningKeyRequest())
        return [bytes(reply.public_key), *(bytes(k.public_key) for k in reply.retired)]

    def start(self, request_id: str = "") -> int:
        """Deal. Every committed seat must have revealed (``reveal_and_start``): nobody
        stands in for a seat. With a ``request_id`` a retry gets the original reply."""
        request = pb.StartGameRequest(game_id=self.game_id, request_id=request_id)
        request = self._once("StartGame", request_id, request, None)
        return int(self.stub.StartGame(request, metadata=self.metadata).version)

    def view(
        self, version: int | None = None, as_seat: int | None = None, as_arbiter: bool = False
    ) -> pb.GameView:
        """The game now or at ``version``; the arbiter (anyone after the end) may ask
        ``as_seat`` or ``as_arbiter``."""
        request = pb.GetViewRequest(game_id=self.game_id, as_arbiter=as_arbiter)
        if version is not None:
            request.version = version
        if as_seat is not None:
            request.as_seat = as_seat
        reply = self.stub.GetView(request, metadata=self.metadata)
        if self.receipts is not None:
            self.receipts.view(reply)
        if reply.view.head_hash and as_seat is None and not as_arbiter:
            self._hashes[(self.game_id, reply.view.version)] = reply.view.head_hash
        return reply.view

    def ready_next_hand(self, contribution: str | None = None) -> pb.MatchView:
        """This seat is ready for the match's next hand (open once this hand has ended, its
        commitment public): it commits to ``contribution`` (by default a fresh random value)
        and this client moves to that hand; ``reveal()`` sends the value once every seat has
        committed. An empty ``contribution`` commits to nothing."""
        if contribution is None:
            contribution = secrets.token_hex(16)
        self.contribution = contribution
        committed = commit(contribution) if contribution else ""
        hand = self.game_id
        if self.seat_key is not None:  # signed for the hand the commitment goes into
            hand = self.view().match.current_game_id or self.game_id
        request = pb.ReadyNextHandRequest(game_id=hand, commitment=committed)
        reply = self.stub.ReadyNextHand(
            self._sign(request, "ReadyNextHand"), metadata=self.metadata
        )
        self._saw(reply.events, reply.game_id)
        self._acknowledged(reply, reply.game_id, "commitment", "seat_committed", committed)
        match = reply.match
        if match.current_game_id:
            self.game_id = match.current_game_id
        return match

    def commit_contribution(self, contribution: str | None = None) -> pb.CommitContributionResponse:
        """Commit to ``contribution`` (by default a fresh random value) for the deal being
        drawn at this table: a 重新洗牌发牌 (or a match's later hand); ``reveal()`` sends it
        once every seat has committed."""
        if contribution is None:
            contribution = secrets.token_hex(16)
        self.contribution = contribution
        committed = commit(contribution) if contribution else ""
        request = pb.CommitContributionRequest(game_id=self.game_id, commitment=committed)
        reply = self.stub.CommitContribution(
            self._sign(request, "CommitContribution"), metadata=self.metadata
        )
        self._saw(reply.events)
        self._acknowledged(reply, self.game_id, "commitment", "seat_committed", committed)
        return reply

    def follow_match(self) -> pb.MatchView:
        """Point this client at its match's current hand; returns the match."""
        match = self.view().match
        if match.current_game_id:
            self.game_id = match.current_game_id
        return match

    def legal_moves(self) -> pb.LegalMovesResponse:
        return self.stub.LegalMoves(
            pb.LegalMovesRequest(game_id=self.game_id), metadata=self.metadata
        )

    def play(
        self,
        move: pb.Move,
        expected_version: int,
        request_id: str = "",
        timeout: float | None = None,
    ) -> pb.PlayResponse:
        """Play a move. With a ``request_id`` (e.g. ``uuid.uuid4().hex``) the same call may be
        retried after a timeout or a lost connection: it is never played twice, and a retry
        of an accepted move returns the original reply (the same signed request is sent)."""
        request = pb.PlayRequest(
            game_id=self.game_id,
            expected_version=expected_version,
            move=move,
            request_id=request_id,
        )
        request = self._once("Play", request_id, request, expected_version)
        reply = self.stub.Play(request, metadata=self.metadata, timeout=timeout)
        self._saw(reply.events)
        if self.receipts is not None:
            self.receipts.play(reply)
        return reply

    def history(self, page_size: int = 500) -> Iterator[pb.GameEvent]:
        token = ""
        while True:
            page = self.stub.GetHistory(
                pb.GetHistoryRequest(game_id=self.game_id, page_size=page_size, page_token=token),
                metadata=self.metadata,
            )
            yield from page.events
            token = page.next_page_token
            if not token:
                return

    def replay(
        self,
        from_version: int = 0,
        to_version: int = 0,
        as_seat: int | None = None,
        as_arbiter: bool = False,
    ) -> Iterator[pb.ReplayResponse]:
        """Each version's event and view as this viewer may see it (see the Replay RPC);
        the arbiter (anyone after the end) may replay ``as_seat`` or ``as_arbiter``."""
        request = pb.ReplayRequest(
            game_id=self.game_id,
            from_version=from_version,
            to_version=to_version,
            as_arbiter=as_arbiter,
        )
        if as_seat is not None:
            request.as_seat = as_seat
        yield from self.stub.Replay(request, metadata=self.metadata)

    def watch(
        self,
        after_version: int = 0,
        retries: int = 20,
        backoff: float = 0.2,
        on_retry: Callable[[grpc.RpcError, int, int], None] | None = None,
        on_resume: Callable[[int], None] | None = None,
    ) -> Iterator[pb.GameEvent]:
        """Events after ``after_version``, resuming after a dropped stream; ends with the game.

        ``on_retry(error, attempt, last_version)`` is called before each reconnection and
        ``on_resume(last_version)`` once the server answers again (a GetView probe), so a
        caller can say so.
        """
        for reply in self.watch_replies(after_version, retries, backoff, on_retry, on_resume):
            yield from reply.events

    def watch_replies(
        self,
        after_version: int = 0,
        retries: int = 20,
        backoff: float = 0.2,
        on_retry: Callable[[grpc.RpcError, int, int], None] | None = None,
        on_resume: Callable[[int], None] | None = None,
        exclude_own_moves: bool = False,
    ) -> Iterator[pb.WatchResponse]:
        """``watch``, whole batched messages (``events``: one move's events, with its
        receipt): on a seat's own stream a move's message also carries the seat's
        ``legal_moves`` when it is its turn (a stream-driven client plays from it).
        ``exclude_own_moves``: leave out the moves this seat made with Play (their replies
        carried them)."""
        last = after_version
        failures = 0
        while True:
            try:
                if failures:  # the server is back once it answers a small call
                    self.stub.GetView(
                        pb.GetViewRequest(game_id=self.game_id), metadata=self.metadata, timeout=5
                    )
                    if on_resume is not None:
                        on_resume(last)
                stream = self.stub.Watch(
                    pb.WatchRequest(
                        game_id=self.game_id,
                        after_version=last,
                        batched=True,
                        exclude_own_moves=exclude_own_moves,
                    ),
                    metadata=self.metadata,
                )
                for reply in stream:
                    failures = 0
                    fresh = [e for e in reply.events if e.version > last]
                    if not fresh:
                        continue  # never hand a caller a duplicate
                    if len(fresh) < len(reply.events):
                        del reply.events[:]
                        reply.events.extend(fresh)
                    last = fresh[-1].version
                    self._saw(fresh)
                    if self.receipts is not None:
                        self.receipts.watched(reply)
                    yield reply
                return
            except grpc.RpcError as err:
                failures = _wait_to_retry(err, failures, retries, backoff, on_retry, last)

    def watch_match(
        self,
        after_version: int = 0,
        retries: int = 20,
        backoff: float = 0.2,
        on_retry: Callable[[grpc.RpcError, int, int], None] | None = None,
    ) -> Iterator[pb.WatchResponse]:
        """Watch with ``follow_match``: every event of this hand and of the match's later
        hands, each reply naming its hand (``game_id``), with a ``next_hand`` reply between
        two hands and a last one (no game id) when the match has ended. Resumes after a
        dropped stream from the hand and version of the last event, with no gap and no
        duplicate; ``self.game_id`` follows the hand being watched."""
        last = after_version
        failures = 0
        while True:
            try:
                stream = self.stub.Watch(
                    pb.WatchRequest(game_id=self.game_id, after_version=last, follow_match=True),
                    metadata=self.metadata,
                )
                for reply in stream:
                    failures = 0
                    if reply.HasField("next_hand"):
                        if reply.next_hand.game_id:
                            self.game_id, last = reply.next_hand.game_id, 0
                        yield reply
                        continue
                    if reply.game_id != self.game_id or reply.event.version <= last:
                        continue  # never hand a caller a duplicate
                    last = reply.event.version
                    self._saw([reply.event], reply.game_id)
                    yield reply
                return
            except grpc.RpcError as err:
                failures = _wait_to_retry(err, failures, retries, backoff, on_retry, last)


# How grpc reports a stream whose HTTP/2 stream a proxy reset or dropped without trailers
# (a balancer losing the replica behind it): not UNAVAILABLE, but these codes with a
# transport message. A Watch resumes from its last version, so retrying it is safe.
TRANSPORT_CUTS = ("Stream removed", "RST_STREAM", "Socket closed", "Connection reset")


def _transport_cut(err: grpc.RpcError) -> bool:
    code = err.code()
    if code not in (grpc.StatusCode.UNKNOWN, grpc.StatusCode.INTERNAL, grpc.StatusCode.CANCELLED):
        return False
    details = err.details() or ""
    return any(cut in details for cut in TRANSPORT_CUTS)


def _wait_to_retry(
    err: grpc.RpcError,
    failures: int,
    retries: int,
    backoff: float,
    on_retry: Callable[[grpc.RpcError, int, int], None] | None,
    last: int,
) -> int:
    """A stream dropped: raise ``err`` if it may not be retried (any more), else tell
    ``on_retry`` and back off. Returns the new failure count."""
    if not (err.code() in RETRYABLE or _transport_cut(err)) or failures >= retries:
        raise err
    failures += 1
    if on_retry is not None:
        on_retry(err, failures, last)
    time.sleep(backoff * failures)
    return failures
