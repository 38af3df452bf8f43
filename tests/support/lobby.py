"""A lobby caller for tests (issue 40): each player's calls carry its login from the local
identity provider; refusals come back as (status code, reason or field)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from clients.python.seat import login_metadata
from domain.ratings import RatedResult, rate
from server.store import ratings as ledger
from server.store.shards import Store
from server.transport.logins import player_id
from tabletop.v1 import lobby_pb2 as lpb
from tabletop.v1 import lobby_pb2_grpc as lgrpc
from tabletop.v1 import tabletop_pb2 as pb
from tests.support.oidc import ISSUER, IdentityProvider

WAITING, SEATED, NONE = lpb.QUEUE_STATE_WAITING, lpb.QUEUE_STATE_SEATED, lpb.QUEUE_STATE_NONE


class Lobby:
    def __init__(self, target: str, idp: IdentityProvider) -> None:
        self.channel = grpc.insecure_channel(target)
        self.stub = lgrpc.LobbyServiceStub(self.channel)
        self.idp = idp
        self.apps: dict[str, str] = {}  # a player's app: its logins carry it as azp

    def close(self) -> None:
        self.channel.close()

    def token(self, player: str) -> str:
        app = self.apps.get(player)
        return self.idp.token(player, azp=app) if app else self.idp.token(player)

    def login(self, player: str) -> tuple[tuple[str, str], ...]:
        return tuple(login_metadata(self.token(player)))

    def queue(
        self, player: str, options: pb.GameOptions, seats: int, window: float = 0,
        bot_wait_ms: int = 0, claimed_rating: float = 0,
    ) -> lpb.QueueStatus:  # fmt: skip
        """Queue ``player`` (a login's subject); ``claimed_rating``: the deprecated request
        field (the server refuses anything but 0: it rates players itself)."""
        request = lpb.JoinQueueRequest(
            options=options, seat_count=seats, rating=claimed_rating, rating_window=window,
            bot_wait_ms=bot_wait_ms,
        )  # fmt: skip
        return self.stub.JoinQueue(request, metadata=self.login(player), timeout=10).status

    def leave(self, player: str) -> None:
        self.stub.LeaveQueue(lpb.LeaveQueueRequest(), metadata=self.login(player), timeout=10)

    def status(self, player: str) -> lpb.QueueStatus:
        reply = self.stub.GetQueueStatus(
            lpb.GetQueueStatusRequest(), metadata=self.login(player), timeout=10
        )
        return reply.status


def refused(call: Callable[..., Any], *args: Any, **kw: Any) -> tuple[grpc.StatusCode, str]:
    """The status code and the ErrorInfo reason (or BadRequest field) of a refused call."""
    try:
        call(*args, **kw)
    except grpc.RpcError as err:
        status = rpc_status.from_call(err)  # type: ignore[arg-type]
        named = ""
        for detail in status.details if status else ():
            info, bad = error_details_pb2.ErrorInfo(), error_details_pb2.BadRequest()
            if detail.Unpack(info):
                named = info.reason
            elif detail.Unpack(bad) and bad.field_violations:
                named = bad.field_violations[0].field
        return err.code(), named  # type: ignore[attr-defined]
    raise AssertionError("the call was not refused")


def seed_ratings(env: Mapping[str, str], kind: str, record: Mapping[str, int]) -> dict[str, float]:
    """Rated results written to the server's own ratings ledger (the store at ``env``): each
    login subject in ``record`` wins (n > 0) or loses (n < 0) |n| two-seat games against a
    player of its own who plays nothing else. Returns each subject's rating (mu) as the
    server folds it, the number the matchmaker compares."""
    start = datetime.now(UTC) - timedelta(days=1)
    results: list[RatedResult] = []
    for sub, n in record.items():
        me = player_id(ISSUER, sub)
        for _ in range(abs(n)):
            ranks = (1, 2) if n > 0 else (2, 1)
            at = (start + timedelta(seconds=len(results))).isoformat()
            results.append(RatedResult(str(uuid.uuid4()), kind, at, (me, f"{me}-sparring"), ranks))
    store = Store.open([dict(env)])
    try:
        for result in results:
            ledger.note(store, result)
    finally:
        store.close()
    folded = rate(results)
    return {sub: folded.by_kind[kind][player_id(ISSUER, sub)].mu for sub in record}
