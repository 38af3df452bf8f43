"""``SeatClient``: one seat (or the arbiter, or a spectator) at one game, with its token.

Its Ed25519 key (docs/api.md, "Seat signatures") signs every command of the seat; its
commitment and reveal must come back acknowledged with the server's signed receipt
(``NotAcknowledged``); ``watch`` resumes after a dropped connection from the last version
it saw, so a caller never sees a gap or a duplicate.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf.message import Message

from clients.python.channel import TOKEN_HEADER, wait_to_retry
from clients.python.receipts import ReceiptLog, check_payload, check_signature, payload_bytes
from domain.verify import AuditFailure
from server.wire import seatsig
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.v1 import tabletop_pb2_grpc as pb_grpc


class SeatKeyNotRecorded(Exception):
    """The server did not record the key this seat joined with: it could then stand in
    for the seat. The seat stops here."""


def login_metadata(login: str | None) -> tuple[tuple[str, str], ...]:
    """The call metadata of the app's login: ``authorization: Bearer <jwt>``."""
    return (("authorization", f"Bearer {login}"),) if login else ()


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
    if receipt.game_id and receipt.game_id != game_id:  # format 3 names none: it signs it
        return f"the acknowledgement is for game {receipt.game_id}, not {game_id}"
    payload = payload_bytes(events=list(reply.events))
    try:
        check_signature(receipt, keys, payload, game_id)
        check_payload(receipt, payload)
    except AuditFailure as exc:
        return f"the acknowledgement does not check ({exc})"
    if seat is None:  # a client made from a token alone: the receipt is the seat's own
        seats = len(receipt.hashes) - 2
        seat = receipt.viewer if receipt.head or receipt.viewer < seats else None
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
    login: str | None = None  # the app's login (a JWT): sent instead of the token if set

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

    def _saw(self, events: Any, game_id: str | None = None, receipt: Any = None) -> None:
        """Remember the chain hashes of events this client was shown (under receipts of
        format 3 the events carry none: the receipt's head, at its last version)."""
        for event in events:
            if event.hash:
                self._hashes[(game_id or self.game_id, event.version)] = event.hash
        if receipt is not None and receipt.head:
            self._hashes[(game_id or self.game_id, receipt.last_version)] = receipt.head.hex()

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
        if self.login:  # one credential a call (docs/api.md, "Players")
            return login_metadata(self.login)
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
        self._saw(reply.events, receipt=reply.receipt)
        self._acknowledged(reply, self.game_id, "reveal", "contribution_revealed", None)
        if self.receipts is not None:
            self.receipts.play(reply, self.game_id)
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
            self.receipts.view(reply, self.game_id)
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
        self._saw(reply.events, reply.game_id, reply.receipt)
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
        self._saw(reply.events, receipt=reply.receipt)
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
        self._saw(reply.events, receipt=reply.receipt)
        if self.receipts is not None:
            self.receipts.play(reply, self.game_id)
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
                if self.receipts is not None:
                    self.receipts.new_stream()
                for reply in stream:
                    failures = 0
                    if self.receipts is not None:  # as sent: a receipt covers duplicates too
                        self.receipts.watched(reply, reply.game_id or self.game_id)
                    self._saw([], receipt=reply.receipt if reply.HasField("receipt") else None)
                    fresh = [e for e in reply.events if e.version > last]
                    if not fresh:
                        continue  # never hand a caller a duplicate
                    if len(fresh) < len(reply.events):
                        del reply.events[:]
                        reply.events.extend(fresh)
                    last = fresh[-1].version
                    self._saw(fresh)
                    yield reply
                return
            except grpc.RpcError as err:
                failures = wait_to_retry(err, failures, retries, backoff, on_retry, last)

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
                    if reply.HasField("receipt"):
                        self._saw([], reply.game_id, reply.receipt)
                    if reply.game_id != self.game_id or reply.event.version <= last:
                        continue  # never hand a caller a duplicate
                    last = reply.event.version
                    self._saw([reply.event], reply.game_id)
                    yield reply
                return
            except grpc.RpcError as err:
                failures = wait_to_retry(err, failures, retries, backoff, on_retry, last)
