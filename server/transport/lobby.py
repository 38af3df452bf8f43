"""The lobby's gRPC service (issue 40): translates protobuf to the lobby use case and back.
No rules live here (domain/lobby.py, server/usecases/lobby.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp

from domain.engine import MalformedCommand
from server.store.lobby import Standing
from server.transport.logins import Login
from server.transport.servicer import _page_start, unary
from server.usecases.lobby import Lobby
from server.wire import render_moves
from tabletop.v1 import lobby_pb2 as pb
from tabletop.v1 import lobby_pb2_grpc as pb_grpc

MAX_LISTED = 100
STATES = {"none": pb.QUEUE_STATE_NONE, "waiting": pb.QUEUE_STATE_WAITING,
          "seated": pb.QUEUE_STATE_SEATED}  # fmt: skip

SignedIn = Callable[[Any], Awaitable[Login]]  # the call's login, or UNAUTHENTICATED


def status_proto(standing: Standing) -> pb.QueueStatus:
    status = pb.QueueStatus(
        state=STATES[standing.state],
        queue=standing.queue,
        game_id=standing.game_id,
        seat=max(standing.seat, 0),
        bot_seats=standing.bot_seats,
    )
    if standing.since is not None:
        since = Timestamp()
        since.FromDatetime(standing.since)
        status.since.CopyFrom(since)
    return status


class LobbyServicer(pb_grpc.LobbyServiceServicer):
    def __init__(self, lobby: Lobby, signed_in: SignedIn) -> None:
        self.lobby = lobby
        self.signed_in = signed_in  # the TableService's login check, the same for both

    @unary
    async def JoinQueue(self, request: pb.JoinQueueRequest, context: Any) -> pb.JoinQueueResponse:
        login = await self.signed_in(context)
        kind, options = render_moves.read_options(request.options)
        standing = await self.lobby.queue(
            login.player,
            login.app,
            kind,
            options,
            request.seat_count,
            claimed_rating=request.rating,
            window=request.rating_window,
            bot_wait_ms=request.bot_wait_ms,
        )
        return pb.JoinQueueResponse(status=status_proto(standing))

    @unary
    async def LeaveQueue(
        self, request: pb.LeaveQueueRequest, context: Any
    ) -> pb.LeaveQueueResponse:
        await self.lobby.leave((await self.signed_in(context)).player)
        return pb.LeaveQueueResponse()

    @unary
    async def GetQueueStatus(
        self, request: pb.GetQueueStatusRequest, context: Any
    ) -> pb.GetQueueStatusResponse:
        standing = await self.lobby.standing((await self.signed_in(context)).player)
        return pb.GetQueueStatusResponse(status=status_proto(standing))

    @unary
    async def OpenTable(self, request: pb.OpenTableRequest, context: Any) -> pb.OpenTableResponse:
        login = await self.signed_in(context)
        kind, options = render_moves.read_options(request.options)
        game_id = await self.lobby.open_table(kind, options, request.seat_count, login.app)
        return pb.OpenTableResponse(game_id=game_id)

    @unary
    async def ListOpenTables(
        self, request: pb.ListOpenTablesRequest, context: Any
    ) -> pb.ListOpenTablesResponse:
        size = request.page_size or 20
        if not 0 < size <= MAX_LISTED:
            raise MalformedCommand("page_size", f"must be 1..{MAX_LISTED}")
        options = None
        if request.HasField("options"):
            kind, options = render_moves.read_options(request.options)
            if kind != request.game_kind:
                raise MalformedCommand("options", f"rules of {request.game_kind!r}, not {kind!r}")
        before = _page_start(request.page_token) or None
        tables, next_start = await self.lobby.open_tables(
            request.game_kind, options, request.seat_count, before, size
        )
        reply = pb.ListOpenTablesResponse(next_page_token=f"v{next_start}" if next_start else "")
        for t in tables:
            reply.tables.add(game_id=t.game_id, seat_count=t.seat_count, free_seats=t.free_seats)
        return reply
