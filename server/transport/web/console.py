"""The referee's console on the page's own origin: ``GET /console/{game_id}`` on the web port.

The same console as ``tabletop replay GAME --html`` writes (server/wire/page, every viewer's
steps embedded, no network), built here from the Replay RPC over this process's loopback
channel. Who may open it: everyone once the game has ended (the record is public then), and
before that only the game's arbiter, by its token (the ``x-seat-token`` header, or
``?token=`` for a link: the page's Referrer-Policy keeps it out of any Referer). A seat's
token before the end gets 403: a player must never see the other hands during play.
"""

from __future__ import annotations

import re
from typing import Any

import grpc

from server.transport.peers import FORWARDED_HEADER, forwarded
from server.transport.verify_command import audit_command, grpc_target
from server.wire import page as web
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.v1 import tabletop_pb2_grpc as pb_grpc

GAME_ID = re.compile(r"[0-9A-Za-z_-]{1,64}")
CLOSED = (
    "裁判台在终局后对所有人开放，对局中只对裁判开放 "
    "(the console opens to everyone once the game has ended, before that to its arbiter only)"
)


class Console:
    def __init__(self, channel: grpc.aio.Channel, grpc_port: int) -> None:
        self.stub = pb_grpc.TableServiceStub(channel)
        self.grpc_port = grpc_port

    async def page(
        self, game_id: str, token: str, host: str, address: str | None, peer: str
    ) -> tuple[int, str]:
        """(status, body): the console's HTML, or why not. ``address``: the browser's IP (for
        the verify command), ``peer``: it as a gRPC peer (the forwarded call's)."""
        if not GAME_ID.fullmatch(game_id):
            return 404, "not found"
        meta: list[tuple[str, str]] = [(FORWARDED_HEADER, forwarded(peer))]
        asker = [*meta, ("x-seat-token", token)] if token else meta
        try:
            reply = await self.stub.GetView(pb.GetViewRequest(game_id=game_id), metadata=asker)
        except grpc.aio.AioRpcError as err:
            if err.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INVALID_ARGUMENT):
                return 404, "not found"
            return 403, f"{CLOSED}: {err.details()}"
        now = reply.view
        finished = now.phase == pb.GAME_PHASE_FINISHED
        if not finished and now.role != pb.ROLE_ARBITER:
            return 403, CLOSED
        viewers = []
        for key, label, as_seat, as_arbiter in _viewpoints(now):
            request = pb.ReplayRequest(
                game_id=game_id, from_version=1, to_version=now.version, as_arbiter=as_arbiter
            )
            if as_seat is not None:
                request.as_seat = as_seat
            who = meta if key == "spectator" else asker
            steps = [
                web.step(int(s.view.version), s.event if s.HasField("event") else None, s.view)
                async for s in self.stub.Replay(request, metadata=who)
            ]
            viewers.append({"key": key, "label": label, "steps": steps})
        command = f"{audit_command(address)} verify {game_id} --target {grpc_target(host, self.grpc_port)}"
        data: dict[str, Any] = {
            "game_id": game_id,
            "kind": now.options.WhichOneof("game") or "",
            "options": web.as_dict(now.options),
            "viewers": viewers,
            "default_viewer": viewers[0]["key"],
            "verify": {
                "status": "not yet",
                "message": f"用 {command} 验证 (verify with it, from any folder)",
                "command": command,
            },
            "prepared_deal": None,
            "source": f"this server, version {now.version}",
        }
        return 200, web.page(data)


def _viewpoints(now: pb.GameView) -> list[tuple[str, str, int | None, bool]]:
    """The arbiter, every seat and the spectator (the console opens only when all may be seen)."""
    names = {s.seat: s.player_name for s in now.seats}
    seats = [
        (f"seat-{s}", f"seat {s}" + (f" · {names[s]}" if names.get(s) else ""), s, False)
        for s in range(len(now.seats))
    ]
    return [
        ("arbiter", "arbiter (everything)", None, True),
        *seats,
        ("spectator", "spectator", None, False),
    ]
