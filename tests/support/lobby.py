"""A lobby caller for tests (issue 40): each player's calls carry its login from the local
identity provider; refusals come back as (status code, reason or field)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from clients.python.seat import login_metadata
from tabletop.v1 import lobby_pb2 as lpb
from tabletop.v1 import lobby_pb2_grpc as lgrpc
from tabletop.v1 import tabletop_pb2 as pb
from tests.support.oidc import IdentityProvider

WAITING, SEATED, NONE = lpb.QUEUE_STATE_WAITING, lpb.QUEUE_STATE_SEATED, lpb.QUEUE_STATE_NONE


class Lobby:
    def __init__(self, target: str, idp: IdentityProvider) -> None:
        self.channel = grpc.insecure_channel(target)
        self.stub = lgrpc.LobbyServiceStub(self.channel)
        self.idp = idp

    def close(self) -> None:
        self.channel.close()

    def login(self, player: str) -> tuple[tuple[str, str], ...]:
        return tuple(login_metadata(self.idp.token(player)))

    def queue(
        self, player: str, options: pb.GameOptions, seats: int, rating: float = 0,
        window: float = 0, bot_wait_ms: int = 0,
    ) -> lpb.QueueStatus:  # fmt: skip
        request = lpb.JoinQueueRequest(
            options=options, seat_count=seats, rating=rating, rating_window=window,
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
