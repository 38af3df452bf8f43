"""The RatingsService (protos/tabletop/v1/ratings.proto): leaderboards and one player's
rating, read from the ratings use case (server/usecases/ratings.py). Public reads: no token
or login."""

from __future__ import annotations

from typing import Any

from domain.engine import MalformedCommand
from domain.ratings import Rating
from server.transport.servicer import unary
from server.usecases.ratings import Ratings
from tabletop.v1 import ratings_pb2 as pb
from tabletop.v1 import ratings_pb2_grpc as pb_grpc

MAX_PAGE = 100
DEFAULT_PAGE = 20


class RatingsServicer(pb_grpc.RatingsServiceServicer):
    def __init__(self, ratings: Ratings) -> None:
        self.ratings = ratings

    @unary
    async def ListLeaderboard(
        self, request: pb.ListLeaderboardRequest, context: Any
    ) -> pb.ListLeaderboardResponse:
        size = request.page_size or DEFAULT_PAGE
        if not 0 < size <= MAX_PAGE:
            raise MalformedCommand("page_size", f"must be 1..{MAX_PAGE}")
        offset = _offset(request.page_token)
        page, total = await self.ratings.board(request.kind, offset, size)
        after = offset + len(page)
        reply = pb.ListLeaderboardResponse(
            next_page_token=f"o{after}" if after < total else "", total_players=total
        )
        reply.ratings.extend(_rating(r, offset + i + 1) for i, r in enumerate(page))
        return reply

    @unary
    async def GetRating(self, request: pb.GetRatingRequest, context: Any) -> pb.GetRatingResponse:
        rating, place = await self.ratings.rating(request.kind, request.player)
        return pb.GetRatingResponse(rating=_rating(rating, place))


def _rating(r: Rating, place: int) -> pb.PlayerRating:
    return pb.PlayerRating(
        player=r.player, mu=r.mu, sigma=r.sigma, ordinal=r.ordinal, results=r.results, place=place
    )


def _offset(token: str) -> int:
    """A page token this server gave ("o" and the board offset the page starts at): pages
    are over the board as it stands at each call."""
    if not token:
        return 0
    digits = token[1:]
    if not token.startswith("o") or not digits.isdigit() or len(digits) > 9:
        raise MalformedCommand("page_token", "is not a token this server gave")
    return int(digits)
