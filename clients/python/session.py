"""``PlaySession``: a seat's stream and its moves on one call (docs/api.md, "Play session").

The first message names the stream (a WatchRequest); each ``play`` sends a PlayRequest on
the same call, signed as ``SeatClient.play`` signs it; the replies come back on the stream in
the order the Plays were sent, between the stream's own messages: ``played`` (as a Play call
returns it) or ``refused`` (the status a Play call would have ended with; nothing was
appended). The session ends with the game, or when the client ``close``s and the game is
over. A dropped session is resumed with a new one from the last version seen
(``after_version``), and an unanswered Play sent again with the same ``request_id``.
"""

from __future__ import annotations

import queue
from collections.abc import Iterator
from typing import Any

import grpc
from google.rpc import status_pb2

from clients.python.seat import SeatClient
from tabletop.v1 import tabletop_pb2 as pb


class Refused(Exception):
    """A refused Play of a session, with its status (code, message, details)."""

    def __init__(self, refusal: pb.PlaySessionRefusal) -> None:
        self.refusal = refusal
        self.code = grpc.StatusCode(_CODES[refusal.code])
        super().__init__(f"{self.code.name}: {refusal.message}")

    @property
    def status(self) -> status_pb2.Status:
        """The google.rpc.Status with its details (ErrorInfo, BadRequest, ...)."""
        return status_pb2.Status.FromString(self.refusal.status_details)


_CODES = {code.value[0]: code.value for code in grpc.StatusCode}


class PlaySession:
    """One seat's PlaySession (iterate it for the stream's messages)."""

    def __init__(
        self, seat: SeatClient, after_version: int = 0, exclude_own_moves: bool = False
    ) -> None:
        self.seat = seat
        self._requests: queue.Queue[pb.PlaySessionRequest | None] = queue.Queue()
        watch = pb.WatchRequest(
            game_id=seat.game_id,
            after_version=after_version,
            batched=True,
            exclude_own_moves=exclude_own_moves,
        )
        self._requests.put(pb.PlaySessionRequest(watch=watch))
        self.call: Any = seat.stub.PlaySession(
            iter(self._requests.get, None), metadata=seat.metadata
        )
        if seat.receipts is not None:
            seat.receipts.new_stream()

    def play(self, move: pb.Move, expected_version: int, request_id: str = "") -> None:
        """Send a move (its answer comes on the stream, ``played`` or ``refused``)."""
        request = pb.PlayRequest(
            game_id=self.seat.game_id,
            expected_version=expected_version,
            move=move,
            request_id=request_id,
        )
        self.send(
            pb.PlaySessionRequest(
                play=self.seat._once("Play", request_id, request, expected_version)
            )
        )

    def send(self, message: pb.PlaySessionRequest) -> None:
        """Send a message as it is (``play`` builds and signs a Play's)."""
        self._requests.put(message)

    def close(self) -> None:
        """No more Plays: the stream still runs to the game's end."""
        self._requests.put(None)

    def cancel(self) -> None:
        self.call.cancel()
        self._requests.put(None)  # gRPC's thread that sends the requests ends too

    def __iter__(self) -> Iterator[pb.PlaySessionResponse]:
        try:
            yield from self._messages()
        finally:
            # The call is over (or its reader went away): end the request iterator, or
            # gRPC's thread that reads it waits on the queue for ever, and a later fork of
            # this process (a subprocess started with a pty, say) waits for that thread in
            # gRPC's fork handler (seen: the suite hung in tests/e2e/test_come_back.py).
            self._requests.put(None)

    def _messages(self) -> Iterator[pb.PlaySessionResponse]:
        seat = self.seat
        for message in self.call:
            which = message.WhichOneof("response")
            if which == "watch":
                reply = message.watch
                if seat.receipts is not None:
                    seat.receipts.watched(reply, reply.game_id or seat.game_id)
                seat._saw(
                    reply.events, receipt=reply.receipt if reply.HasField("receipt") else None
                )
            elif which == "played":
                seat._saw(message.played.events, receipt=message.played.receipt)
                if seat.receipts is not None:
                    seat.receipts.play(message.played, seat.game_id)
            yield message
