"""The gRPC servicer: translates protobuf to use cases and back. No rules live here."""

from __future__ import annotations

import asyncio
import functools
import logging
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

import grpc

from domain import table as tables
from domain import translog
from domain.engine import MalformedCommand, Viewer
from domain.lobby import lobby_bot_player
from server.transport import logs
from server.transport.errors import to_status
from server.transport.health import is_store_fault
from server.transport.limits import Limits
from server.transport.logins import Login, Unauthenticated
from server.usecases.games import NotFound
from server.usecases.table_server import TableServer
from server.usecases.translog import Transparency
from server.usecases.watch import HandEvents, NextHand, OwnMovesLeftOut
from server.wire import receipts, render, render_moves, seatsig
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.v1 import tabletop_pb2_grpc as pb_grpc

if TYPE_CHECKING:  # a server whose players log in loads PyJWT (server/startup/main.py)
    from server.transport.tokens import Logins

log = logging.getLogger("tabletop.api")
TOKEN_HEADER = "x-seat-token"
LOBBY_BOT_HEADER = "x-lobby-bot"  # the server's own lobby bots (server/transport/lobbybots.py)
LOGIN_HEADER = "authorization"  # the app's login: "Bearer <jwt>" (docs/api.md, "Players")
MAX_MY_GAMES = 100
MAX_PAGE = 1000
LEGAL_CACHE = 1024  # rendered legal-move answers kept: (game, version, seat) of recent turns


def _token(context: grpc.aio.ServicerContext, header: str = TOKEN_HEADER) -> str | None:
    for key, value in context.invocation_metadata() or ():
        if key == header:
            return str(value)
    return None


async def _abort(context: grpc.aio.ServicerContext, exc: BaseException) -> None:
    status = to_status(exc)
    if status is None:
        log.exception("unexpected failure", exc_info=exc)
        await context.abort(grpc.StatusCode.INTERNAL, "internal error")
    else:
        if is_store_fault(exc):
            log.warning("store fault: %s", exc)
        await context.abort_with_status(status)


def unary(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    async def wrapper(self: Any, request: Any, context: grpc.aio.ServicerContext) -> Any:
        try:
            return await method(self, request, context)
        except grpc.aio.AbortError:
            raise
        except Exception as exc:
            await _abort(context, exc)

    return wrapper


class TableServicer(pb_grpc.TableServiceServicer):
    def __init__(
        self,
        server: TableServer,
        limits: Limits | None,
        keys: dict[str, bytes],
        logins: Logins | None = None,
        moved: Callable[[str], None] | None = None,
    ) -> None:
        self.server = server
        self.moved = moved  # told each Play's game kind once it is appended (metrics)
        self.logins = logins  # the app's identity provider (--oidc-*), or None: no logins
        self.limits = limits  # server/transport/limits.py: the per-seat move rate is checked here
        # the Ed25519 public keys by id, the one that signs the seals first (GetSigningKey)
        self.keys = keys
        sealer = server.games.sealer  # its renderings of each game's latest move are reused
        self.sealer = sealer if isinstance(sealer, receipts.Sealer) else None
        # LegalMoves, the Play reply and a seat's Watch all give the same answer for one seat
        # at one version: it is decided and rendered once (issue 16)
        self._legal: OrderedDict[tuple[uuid.UUID, int, Viewer], pb.LegalMovesResponse] = (
            OrderedDict()
        )
        # the seats a Play reply said the game waits for: the mover's own stream reuses them
        self._acts: OrderedDict[tuple[uuid.UUID, int, Viewer], list[int]] = OrderedDict()

    async def _legal_moves(
        self, game_id: str, viewer: Viewer, version: int | None = None
    ) -> pb.LegalMovesResponse:
        """What ``viewer`` may do at ``version`` (the latest if None; nothing unless a seat)."""
        gid = self.server.games.parse_id(game_id)
        at = await self.server.games.version_of(gid) if version is None else version
        key = (gid, at, viewer)
        if (known := self._legal.get(key)) is not None:
            return known
        table, version, commands = await self.server.play.legal_moves(game_id, viewer, version)
        answer = render_moves.legal_moves_proto(table, version, commands)
        self._legal[(gid, version, viewer)] = answer
        while len(self._legal) > LEGAL_CACHE:
            self._legal.popitem(last=False)
        return answer

    async def _turn(
        self,
        game_id: str,
        viewer: Viewer,
        version: int,
        to_act: list[int] | None = None,
        table: tables.Table | None = None,
        latest_only: bool = False,
    ) -> pb.LegalMovesResponse | None:
        """The seat's legal moves at ``version`` if the game then waits for it: what a
        stream-driven client needs to move next without asking LegalMoves. Decided at that
        very version (``table``: the game there, when the caller has it), never against a
        later or an earlier one, so a stream tells a seat of every turn whenever it reads
        (issue 38; a stale turn's Play is ABORTED and plays nothing). (A seat that the game
        does not wait for may still hold a table move, e.g. 误操作: it asks.) ``latest_only``:
        none unless ``version`` is the latest (a Play reply: a retried request's move may be
        an old one, and its legal moves say what the caller may do now)."""
        if viewer.seat is None:
            return None
        key = (self.server.games.parse_id(game_id), version, viewer)
        if to_act is not None:  # (a Play reply knows them already: the mover's stream too)
            self._acts[key] = to_act
            while len(self._acts) > LEGAL_CACHE:
                self._acts.popitem(last=False)
        else:
            to_act = self._acts.get(key)
        if to_act is None:
            if table is not None:  # a live batch: the game after it
                to_act = render.to_act(table, tables.viewer_for(table, viewer))
            else:
                then = await self.server.watch.snapshot(game_id, viewer, version)
                to_act = render.to_act(then.table, then.viewer)
        if viewer.seat not in to_act:
            return None
        if latest_only and version != await self.server.games.version_of(key[0]):
            return None
        legal = await self._legal_moves(game_id, viewer, version)
        return legal if legal.version == version and legal.moves else None

    async def _player(self, context: grpc.aio.ServicerContext) -> str:
        """The player id of the call's login (``authorization: Bearer <jwt>``), "" without
        one; a login that does not check is UNAUTHENTICATED, whatever the call."""
        return (await self._login(context)).player

    async def _login(self, context: grpc.aio.ServicerContext) -> Login:
        """The call's login (player id and app), an empty one without a login."""
        login = _token(context, LOGIN_HEADER)
        if login is None:
            return Login("")
        if self.logins is None:
            raise Unauthenticated(
                "this server accepts no player logins (start it with --oidc-issuer, "
                "--oidc-audience and --oidc-jwks)",
                "LOGINS_NOT_CONFIGURED",
            )
        checked = await asyncio.to_thread(self.logins.login, login)  # may fetch the JWKS
        logs.note(player=checked.player[:12])  # the call's log line names the player (a prefix)
        return checked

    async def _signed_in(self, context: grpc.aio.ServicerContext) -> str:
        return (await self._signed_in_login(context)).player

    async def _signed_in_login(self, context: grpc.aio.ServicerContext) -> Login:
        login = await self._login(context)
        if not login.player:
            raise Unauthenticated(
                "this call needs the app's login: authorization: Bearer <token>", "LOGIN_REQUIRED"
            )
        return login

    async def _viewer(self, game_id: str, context: grpc.aio.ServicerContext) -> Viewer:
        token, player = _token(context), await self._player(context)
        if token is not None and player:  # one credential a call: never two seats at once
            raise MalformedCommand(
                LOGIN_HEADER, "send one credential: the seat token or the login, not both"
            )
        viewer = await self.server.games.authenticate(game_id, token, player)
        role = None if viewer.seat is not None else viewer.role.name.lower()
        logs.note(seat=viewer.seat, role=role)  # the call's log line names who made it
        return viewer

    async def _viewpoint(
        self, request: pb.GetViewRequest | pb.ReplayRequest, context: grpc.aio.ServicerContext
    ) -> Viewer:
        """The caller, or the seat or arbiter it asks to see the game as."""
        viewer = await self._viewer(request.game_id, context)
        if request.HasField("as_seat") and request.as_arbiter:
            raise MalformedCommand("as_arbiter", "ask for one viewpoint: as_seat or as_arbiter")
        if request.HasField("as_seat"):
            return await self.server.watch.as_seat(request.game_id, viewer, request.as_seat)
        if request.as_arbiter:
            return await self.server.watch.as_arbiter(request.game_id, viewer)
        return viewer

    @unary
    async def CreateGame(
        self, request: pb.CreateGameRequest, context: Any
    ) -> pb.CreateGameResponse:
        kind, options = render_moves.read_options(request.options)
        table = {
            "seed": request.seed if request.HasField("seed") else None,
            "deck": tuple(request.deck),
            "enforcement": render_moves.read_enforcement(request.enforcement),
            "time_limit_ms": request.turn_time_limit_ms,
            "arbitrated": request.arbitrated,
            "request_id": request.request_id,
            "case_time_limit_ms": request.case_time_limit_ms,
            "abandon_after_ms": request.abandon_after_ms,
            "justice_budget_ms": request.justice_budget_ms,
            "allow_unkeyed_seats": request.allow_unkeyed_seats,
            "arbiter_public_key": bytes(request.arbiter_public_key).hex(),
            "require_player_login": request.require_player_login,
        }
        if request.HasField("max_redeals"):
            table["max_redeals"] = request.max_redeals
        if not request.HasField("match"):
            game_id, version, arbiter = await self.server.seats.create_game(
                kind, options, request.seat_count, **table
            )
            return pb.CreateGameResponse(game_id=game_id, version=version, arbiter_token=arbiter)
        m = request.match
        game_id, version, arbiter, match_id = await self.server.seats.create_match(
            kind,
            options,
            request.seat_count,
            m.hands,
            m.target_score,
            render_moves.read_advance(m.advance),
            **table,
        )
        return pb.CreateGameResponse(
            game_id=game_id, version=version, arbiter_token=arbiter, match_id=match_id
        )

    @unary
    async def JoinGame(self, request: pb.JoinGameRequest, context: Any) -> pb.JoinGameResponse:
        player, app = await self._joining_player(request.seat, context)
        token, version = await self.server.seats.join_game(
            request.game_id,
            request.seat,
            request.player_name,
            request.contribution,
            request.contribution_commitment,
            request.request_id,
            public_key=request.seat_public_key.hex(),
            signed=seatsig.read(request, "JoinGame"),
            player=player,
            app=app,
        )
        return pb.JoinGameResponse(seat_token=token, seat=request.seat, version=version)

    async def _joining_player(
        self, seat: int, context: grpc.aio.ServicerContext
    ) -> tuple[str, str]:
        """Who takes the seat, and its app: the login's player and app, or the lobby's bot
        at ``seat`` by its table's secret (``x-lobby-bot``: the bot seats of a lobby table
        are reserved for it, domain.lobby.lobby_bot_player); one credential a call."""
        login, bot = await self._login(context), _token(context, LOBBY_BOT_HEADER)
        if bot is None:
            return login.player, login.app
        if login.player or not bot:
            raise MalformedCommand(
                LOBBY_BOT_HEADER, "send one credential: the login or the lobby bot's secret"
            )
        return lobby_bot_player(bot, seat), ""

    @unary
    async def ListMyGames(
        self, request: pb.ListMyGamesRequest, context: Any
    ) -> pb.ListMyGamesResponse:
        player = await self._signed_in(context)
        size = request.page_size or 20
        if not 0 < size <= MAX_MY_GAMES:
            raise MalformedCommand("page_size", f"must be 1..{MAX_MY_GAMES}")
        before = _page_start(request.page_token) or None
        games, next_start = await self.server.seats.player_games(player, before, size)
        reply = pb.ListMyGamesResponse(next_page_token=f"v{next_start}" if next_start else "")
        for g in games:
            mine = reply.games.add(game_id=g.game_id, seat=g.seat, match_id=g.match_id)
            mine.joined_at.FromDatetime(g.at)
        return reply

    @unary
    async def ResumeSeat(
        self, request: pb.ResumeSeatRequest, context: Any
    ) -> pb.ResumeSeatResponse:
        player = await self._signed_in(context)
        signed = None
        if request.HasField("seat_signature"):  # this device's key: a RekeySeat command
            as_rekey = pb.RekeySeatRequest(
                game_id=request.game_id, seat_public_key=request.seat_public_key
            )
            as_rekey.seat_signature.CopyFrom(request.seat_signature)
            signed = seatsig.read(as_rekey, "RekeySeat")
        seat, version, key = await self.server.seats.resume_seat(
            request.game_id, player, request.seat_public_key.hex(), signed
        )
        logs.note(seat=seat)
        return pb.ResumeSeatResponse(seat=seat, version=version, seat_public_key=bytes.fromhex(key))

    @unary
    async def RevealContribution(
        self, request: pb.RevealContributionRequest, context: Any
    ) -> pb.RevealContributionResponse:
        viewer = await self._viewer(request.game_id, context)
        signed = seatsig.read(request, "RevealContribution")
        version, stored, awaiting, deadline = await self.server.deal.reveal(
            request.game_id, viewer, request.contribution, signed
        )
        after = None
        if stored:  # the reveal's events and their receipt, as a Play reply carries them
            after = await self.server.watch.snapshot(request.game_id, viewer, stored[-1].version)
        return receipts.reveal_reply(
            self.sealer, version, stored, awaiting, deadline, viewer, after
        )

    @unary
    async def CommitContribution(
        self, request: pb.CommitContributionRequest, context: Any
    ) -> pb.CommitContributionResponse:
        viewer = await self._viewer(request.game_id, context)
        signed = seatsig.read(request, "CommitContribution")
        version, stored, awaiting, deadline = await self.server.deal.commit_contribution(
            request.game_id, viewer, request.commitment, signed
        )
        after = None
        if stored:  # the acknowledgement: the move that took the commitment, with its receipt
            after = await self.server.watch.snapshot(request.game_id, viewer, stored[-1].version)
        return receipts.commit_reply(
            self.sealer, version, stored, awaiting, deadline, viewer, after
        )

    @unary
    async def StartGame(self, request: pb.StartGameRequest, context: Any) -> pb.StartGameResponse:
        viewer = await self._viewer(request.game_id, context)
        signed = seatsig.read(request, "StartGame")
        version = await self.server.deal.start_game(
            request.game_id, viewer, request.request_id, signed
        )
        return pb.StartGameResponse(version=version)

    @unary
    async def RekeySeat(self, request: pb.RekeySeatRequest, context: Any) -> pb.RekeySeatResponse:
        viewer = await self._viewer(request.game_id, context)
        signed = seatsig.read(request, "RekeySeat")
        version = await self.server.seats.rekey_seat(
            request.game_id, viewer, request.seat_public_key.hex(), signed
        )
        return pb.RekeySeatResponse(version=version)

    @unary
    async def Play(self, request: pb.PlayRequest, context: Any) -> pb.PlayResponse:
        return await self._play(request, context)

    async def _play(self, request: pb.PlayRequest, context: Any) -> pb.PlayResponse:
        """A Play's reply (Play, and each PlayRequest of a PlaySession)."""
        viewer = await self._viewer(request.game_id, context)
        gid = self.server.games.parse_id(request.game_id)
        if self.limits is not None and viewer.seat is not None:
            self.limits.take_move(gid, viewer.seat)
        kind = (await self.server.games.load(gid)).table.kind
        command = self.server.play.with_seat(render_moves.read_move(kind, request.move), viewer)
        signed = seatsig.read(request, "Play")
        stored = await self.server.play.play(
            request.game_id, viewer, request.expected_version, command, request.request_id, signed
        )
        # the game right after this move (a retried request_id gets its original reply)
        after = await self.server.watch.snapshot(request.game_id, viewer, stored[-1].version)
        reply = receipts.play_reply(self.sealer, kind, stored, viewer, after)
        turn = await self._turn(
            request.game_id, viewer, stored[-1].version, list(reply.to_act), latest_only=True
        )
        if turn is not None:  # outside the receipt: what the caller may do now
            reply.legal_moves.CopyFrom(turn)
        if self.moved is not None:
            self.moved(request.move.WhichOneof("game") or "unknown")
        return reply

    @unary
    async def LegalMoves(
        self, request: pb.LegalMovesRequest, context: Any
    ) -> pb.LegalMovesResponse:
        viewer = await self._viewer(request.game_id, context)
        return await self._legal_moves(request.game_id, viewer)

    @unary
    async def GetView(self, request: pb.GetViewRequest, context: Any) -> pb.GetViewResponse:
        viewer = await self._viewpoint(request, context)
        version = request.version if request.HasField("version") else None
        snap = await self.server.watch.snapshot(request.game_id, viewer, version, with_match=True)
        own = not (request.HasField("as_seat") or request.as_arbiter)  # not another's view
        return receipts.view_reply(self.sealer, snap, own=own)

    @unary
    async def ReadyNextHand(
        self, request: pb.ReadyNextHandRequest, context: Any
    ) -> pb.ReadyNextHandResponse:
        viewer = await self._viewer(request.game_id, context)
        signed = seatsig.read(request, "ReadyNextHand")
        match, hand_id, stored = await self.server.matches.ready_next_hand(
            request.game_id, viewer, request.contribution, request.commitment, signed
        )
        reply = pb.ReadyNextHandResponse(match=render.match_proto(match), game_id=hand_id)
        if stored:  # the acknowledgement: the move on the hand's stream that took it
            after = await self.server.watch.snapshot(hand_id, viewer, stored[-1].version)
            moved = receipts.play_reply(self.sealer, after.table.kind, stored, viewer, after)
            reply.events.extend(moved.events)
            if moved.HasField("receipt"):
                reply.receipt.CopyFrom(moved.receipt)
        return reply

    @unary
    async def GetMatch(self, request: pb.GetMatchRequest, context: Any) -> pb.GetMatchResponse:
        match, facts = await self.server.matches.match_record(request.match_id)
        if _token(context) is not None and match.current is not None:
            await self._viewer(match.current.game_id, context)  # a bad token is refused
        return pb.GetMatchResponse(
            match=render.match_proto(match), facts=[render.match_fact_proto(f) for f in facts]
        )

    @unary
    async def GetHistory(
        self, request: pb.GetHistoryRequest, context: Any
    ) -> pb.GetHistoryResponse:
        viewer = await self._viewer(request.game_id, context)
        size = request.page_size or 100
        if not 0 < size <= MAX_PAGE:
            raise MalformedCommand("page_size", f"must be 1..{MAX_PAGE}")
        after = _page_start(request.page_token)
        table, events, latest, seen_as = await self.server.watch.history(
            request.game_id, viewer, after, size
        )
        more = bool(events) and events[-1].version < latest
        ended = table.phase is tables.Phase.FINISHED  # the stored form only after the end
        return pb.GetHistoryResponse(
            events=render.events_proto(table.kind, events, seen_as, complete=ended),
            next_page_token=f"v{events[-1].version}" if more else "",
            version=latest,
        )

    async def Replay(
        self, request: pb.ReplayRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[pb.ReplayResponse]:
        try:
            viewer = await self._viewpoint(request, context)
            async for event, snap in self.server.watch.replay(
                request.game_id, viewer, request.from_version, request.to_version
            ):
                yield pb.ReplayResponse(
                    event=render.event_proto(snap.table.kind, event, snap.viewer),
                    view=render.view_proto(snap),
                )
        except grpc.aio.AbortError:
            raise
        except Exception as exc:
            await _abort(context, exc)

    @unary
    async def GetSigningKey(
        self, request: pb.GetSigningKeyRequest, context: Any
    ) -> pb.GetSigningKeyResponse:
        (current, public), *retired = self.keys.items()
        logs = self.server.log
        return pb.GetSigningKeyResponse(
            public_key=public,
            algorithm="ed25519",
            key_id=current,
            retired=[pb.SigningKey(public_key=k, key_id=i) for i, k in retired],
            tree_heads=[] if logs is None else map(receipts.tree_head_proto, logs.logs.latest()),
            retirements=[] if logs is None else map(retirement_proto, logs.logs.retirements()),
        )

    @unary
    async def GetTreeHead(
        self, request: pb.GetTreeHeadRequest, context: Any
    ) -> pb.GetTreeHeadResponse:
        head = await self._log().tree_head(request.log_id, request.tree_size)
        return pb.GetTreeHeadResponse(tree_head=receipts.tree_head_proto(head))

    @unary
    async def GetInclusionProof(
        self, request: pb.GetInclusionProofRequest, context: Any
    ) -> pb.GetInclusionProofResponse:
        found = await self._log().inclusion(request.game_id, request.match_id, request.tree_size)
        return pb.GetInclusionProofResponse(
            tree_head=receipts.tree_head_proto(found.head),
            inclusions=[
                pb.SealInclusion(first=a, last=b, index=i, path=path)
                for a, b, i, path in found.seals
            ],
        )

    @unary
    async def GetConsistencyProof(
        self, request: pb.GetConsistencyProofRequest, context: Any
    ) -> pb.GetConsistencyProofResponse:
        path, first, second = await self._log().consistency(
            request.log_id, request.first_size, request.second_size
        )
        return pb.GetConsistencyProofResponse(
            path=path,
            first=receipts.tree_head_proto(first),
            second=receipts.tree_head_proto(second),
        )

    def _log(self) -> Transparency:
        if self.server.log is None:
            raise NotFound("this server keeps no transparency log (it signs nothing)")
        return self.server.log

    async def Watch(
        self, request: pb.WatchRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[pb.WatchResponse]:
        try:
            async for msg in self._watch(request, context):
                yield msg
        except grpc.aio.AbortError:
            raise
        except Exception as exc:
            await _abort(context, exc)

    async def PlaySession(
        self, requests: AsyncIterator[pb.PlaySessionRequest], context: grpc.aio.ServicerContext
    ) -> AsyncIterator[pb.PlaySessionResponse]:
        """A seat's Watch and its Plays on one call (docs/api.md, "Play session"): what
        Watch sends, and each Play's reply or refusal in the order the Plays came. Why one
        call: a Play on a stream the seat holds open skips a unary call's set-up, its
        metadata, its status and their completions (issue 38). The Watch and the Plays run
        as two tasks feeding one queue, which this generator sends from."""
        requests = aiter(requests)
        first = await anext(requests, None)
        if first is None or first.WhichOneof("request") != "watch":
            await _abort(context, MalformedCommand("watch", SESSION_FIRST))
            return
        # bounded: a client that does not read holds up its own Plays (and, through the
        # transport's flow control, its writes), never the server's memory
        out: asyncio.Queue[Any] = asyncio.Queue(SESSION_QUEUE)
        playing = _SessionPlays()
        tasks = (
            asyncio.create_task(self._session_watch(first.watch, context, out)),
            asyncio.create_task(self._session_plays(requests, context, out, playing)),
        )
        try:
            ended = False  # the game is over and every event was sent; then a Play being
            while not ended or playing.busy or not out.empty():  # decided gets its answer
                item = await out.get()
                if item is _WATCH_ENDED:
                    ended = True
                elif isinstance(item, BaseException):
                    await _abort(context, item)
                else:
                    yield item
        finally:
            for task in tasks:
                task.cancel()

    async def _session_watch(
        self, request: pb.WatchRequest, context: grpc.aio.ServicerContext, out: asyncio.Queue[Any]
    ) -> None:
        try:
            async for msg in self._watch(request, context):
                await out.put(pb.PlaySessionResponse(watch=msg))
        except Exception as exc:  # (a refused WatchRequest) the call ends with its status
            await out.put(exc)
            return
        await out.put(_WATCH_ENDED)

    async def _session_plays(
        self,
        requests: AsyncIterator[pb.PlaySessionRequest],
        context: grpc.aio.ServicerContext,
        out: asyncio.Queue[Any],
        playing: _SessionPlays,
    ) -> None:
        """Each PlayRequest decided in turn, its reply or refusal put out. A refusal leaves
        the stream open (nothing was appended); a failure with no status (a bug) ends it."""
        async for message in requests:
            playing.busy = True
            try:
                await out.put(await self._session_play(message, context))
            finally:
                playing.busy = False

    async def _session_play(
        self, message: pb.PlaySessionRequest, context: grpc.aio.ServicerContext
    ) -> pb.PlaySessionResponse | Exception:
        request = message.play
        try:
            if message.WhichOneof("request") != "play":
                raise MalformedCommand("play", SESSION_LATER)
            return pb.PlaySessionResponse(played=await self._play(request, context))
        except Exception as exc:
            status = to_status(exc)
            if status is None:
                return exc  # the call ends with INTERNAL, as a Play's would
            logs.session_refusal(status, request.game_id)
            return pb.PlaySessionResponse(refused=_refusal(status, request))

    async def _watch(
        self, request: pb.WatchRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[pb.WatchResponse]:
        """Watch's messages (Watch, and a PlaySession's): a refusal raises."""
        viewer = await self._viewer(request.game_id, context)
        if request.after_version < 0:
            raise MalformedCommand("after_version", "must be >= 0")
        own = None  # exclude_own_moves: what filters this seat's plays out
        if request.exclude_own_moves:
            if viewer.seat is None:
                raise MalformedCommand(
                    "exclude_own_moves", "only a seat's stream has moves of its own"
                )
            own = OwnMovesLeftOut(viewer.seat)
        snap = await self.server.watch.snapshot(request.game_id, viewer, None)
        kind, table = snap.table.kind, snap.table
        if request.follow_match:
            stream = self.server.watch.watch_match(request.game_id, viewer, request.after_version)
        else:
            stream = self._one_hand(request.game_id, viewer, request.after_version)
        # receipts of format 3: this stream signs what it sent (receipts.StreamReceipts)
        sent = None
        if self.sealer is not None and self.sealer.v3:
            sent = receipts.StreamReceipts(
                self.sealer, table.seat_count, named=request.follow_match
            )
        async for item in stream:
            if isinstance(item, NextHand):
                if sent is not None and sent.pending:
                    yield sent.flush()
                yield pb.WatchResponse(game_id=item.game_id, next_hand=_next_hand(item))
                continue
            gid, seen_as, events, batch = item.game_id, item.viewer, item.events, item.batch
            if own is not None:
                events = own.keep(events)
                if not events:
                    continue
                if len(events) < len(item.events):
                    batch = None  # the shared rendering is of every event
            # a receipt covers contiguous versions: own moves left out split a batch
            runs = _runs(events) if sent is not None and batch is None else [events]
            for n, run in enumerate(runs):
                if sent is not None and not sent.continues(gid, seen_as, run[0].version):
                    yield sent.flush()
                async for msg in self._sent(
                    request,
                    kind,
                    table,
                    viewer,
                    gid,
                    seen_as,
                    run,
                    batch,
                    sent,
                    item.batch if n == len(runs) - 1 else None,
                ):
                    yield msg
        if sent is not None and sent.pending:
            yield sent.flush()

    async def _sent(
        self,
        request: pb.WatchRequest,
        kind: str,
        table: Any,
        viewer: Viewer,
        gid: str,
        seen_as: Viewer,
        events: list[Any],
        batch: Any,
        sent: receipts.StreamReceipts | None,
        published: Any,
    ) -> AsyncIterator[pb.WatchResponse]:
        """The messages of ``events`` (one Watch batch, or a run of it) for ``seen_as``."""

        def render_for(
            these: list[Any], seen_as: Viewer = seen_as, gid: str = gid
        ) -> list[pb.WatchResponse]:
            msgs = receipts.watch_messages(
                self.sealer, kind, table, seen_as, these, request.batched
            )
            if sent is None or request.follow_match:  # format 3: named across hands only
                for msg in msgs:
                    msg.game_id = gid
            return msgs

        if batch is not None:  # a live batch: render once per viewer and form
            # (format 3 names the hand on follow_match streams only: their own rendering)
            named = sent is None or request.follow_match
            rendered = batch.render((seen_as, request.batched, named), render_for)
        else:
            rendered = render_for(events)
        if not rendered:
            return
        heads = {e.version: e.hash for e in events} if sent is not None else {}
        for msg in rendered[:-1]:
            if sent is not None:
                sent.add(gid, seen_as, list(msg.events) or [msg.event], heads)
            yield msg
        # a seat's own stream says what it may do when it is its turn (the messages
        # are shared by every stream of this viewer: this stream's turn goes on a copy)
        after = None  # the game after these events, when a live batch brought it
        if published is not None and published.events[-1].version == events[-1].version:
            after = published.table  # (not when own moves were left out at the end)
        turn = await self._turn(gid, viewer, events[-1].version, table=after)
        final = rendered[-1]
        if sent is not None:
            sent.add(gid, seen_as, list(final.events) or [final.event], heads)
        # the game's end opens every view (``seen_as``): nothing follows, sign it now
        signs = sent is not None and sent.due(turn is not None or seen_as != viewer)
        if turn is None and not signs:
            yield final
            return
        last = pb.WatchResponse()
        last.CopyFrom(final)
        if turn is not None:
            last.legal_moves.CopyFrom(turn)
        if signs and sent is not None:
            last.receipt.CopyFrom(sent.sign())
        yield last

    async def _one_hand(
        self, game_id: str, viewer: Viewer, after: int
    ) -> AsyncIterator[HandEvents | NextHand]:
        async for events, seen_as, batch in self.server.watch.watch(game_id, viewer, after):
            yield HandEvents(game_id, events, seen_as, batch)


def _runs(events: list[Any]) -> list[list[Any]]:
    """``events`` split where a version is skipped (a seat's own moves left out)."""
    runs: list[list[Any]] = []
    for e in events:
        if runs and runs[-1][-1].version + 1 == e.version:
            runs[-1].append(e)
        else:
            runs.append([e])
    return runs


SESSION_FIRST = "a PlaySession starts with a WatchRequest"
SESSION_LATER = "a PlaySession's messages after the first are PlayRequests"
SESSION_QUEUE = 16  # messages a PlaySession holds for its client (Watch's and Plays')
_WATCH_ENDED = object()  # a PlaySession's watch has sent everything: the game is over


class _SessionPlays:
    """Whether a PlaySession's Play is being decided (its answer is still to come)."""

    __slots__ = ("busy",)

    def __init__(self) -> None:
        self.busy = False


def _refusal(status: grpc.Status, request: pb.PlayRequest) -> pb.PlaySessionRefusal:
    """A refused Play's status as a PlaySession message: what its call would have ended with."""
    details = dict(status.trailing_metadata or ()).get("grpc-status-details-bin", b"")
    return pb.PlaySessionRefusal(
        request_id=request.request_id,
        expected_version=request.expected_version,
        code=status.code.value[0],
        message=status.details or "",
        status_details=details,
    )


def _next_hand(item: NextHand) -> pb.NextHand:
    match = render.match_proto(item.match)
    if item.game_id:  # dealt, though its link in the match may still be being written
        match.current_hand, match.current_game_id = item.hand, item.game_id
    return pb.NextHand(hand=item.hand, game_id=item.game_id, match=match)


def _page_start(token: str) -> int:
    if not token:
        return 0
    digits = token[1:]
    # versions are int64 in the contract: a longer number is no token this server gave
    if not token.startswith("v") or not digits.isdigit() or len(digits) > 18:
        raise MalformedCommand("page_token", "is not a token this server gave")
    return int(digits)


def retirement_proto(statement: translog.Retirement) -> pb.KeyRetirement:
    return pb.KeyRetirement(
        logs=dict(statement.logs),
        retired=statement.retired,
        successor=statement.successor,
        timestamp_ms=statement.timestamp,
        retired_signature=bytes.fromhex(statement.retired_signature),
        successor_signature=bytes.fromhex(statement.successor_signature),
    )
