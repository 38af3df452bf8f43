"""What leaves the server, byte for byte, through real gRPC.

Every reply of every RPC that the arbiter, each seat and a spectator receive during a game
is kept, with Watch streams open for all of them, and so are both export forms after the
end. Then:

* the shuffle secret and its salt (hex or raw, or the chain and receipt keys derived from
  them) and every seat's contribution (committed at JoinGame, revealed with
  RevealContribution) are in no byte anyone received before the game's final move, the
  arbiter included;
* no token hash (hex or raw) of any seat or of the arbiter is in any byte anyone ever
  received, before or after the end, nor in either export.
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
from dataclasses import dataclass, field

import pytest
from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message

from clients.python.client import TableClient
from clients.python.exports import export_lines
from clients.python.seat import SeatClient
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.zipai.v1 import zipai_pb2
from tests.api.helpers import huaniao_options


@dataclass
class Received:
    """Each viewer's replies: (the game had ended, serialized bytes)."""

    got: list[tuple[bool, bytes]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, msg: Message, ended: bool) -> None:
        with self.lock:
            self.got.append((ended, msg.SerializeToString()))


def watch_all(viewer: SeatClient, into: list[pb.WatchResponse]) -> None:
    """A viewer's Watch stream to the end, kept in ``into`` (which messages belong to the
    game's final move is known only once the main thread's last Play returns: a stream can
    end before that, so the test sorts them after joining)."""
    into.extend(
        viewer.stub.Watch(pb.WatchRequest(game_id=viewer.game_id), metadata=viewer.metadata)
    )


def forms(secret_hex: str, salt_hex: str) -> list[bytes]:
    chain = hashlib.sha256(f"tabletop-chain|{secret_hex}|{salt_hex}".encode()).digest()
    receipt = hashlib.sha256(f"tabletop-receipt|{secret_hex}|{salt_hex}".encode()).digest()
    keys = [chain, chain.hex().encode(), receipt, receipt.hex().encode()]
    return [secret_hex.encode(), bytes.fromhex(secret_hex), salt_hex.encode(), *keys]


@pytest.mark.parametrize(
    ("options", "seats"),
    [(huaniao_options("BASIC"), 4), (pb.GameOptions(zipai=zipai_pb2.Options()), 3)],
    ids=["huaniao", "zipai"],
)
def test_the_secret_only_at_the_end_and_token_hashes_never(
    client: TableClient, server, tmp_path, options: pb.GameOptions, seats: int
) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(12)
    got = Received()
    # raw, unsigned requests (this test reads what every reply carries): unkeyed seats
    created = client.create_game(options, seats, allow_unkeyed_seats=True)
    got.add(created, False)
    gid = created.game_id
    tokens = [created.arbiter_token]
    players = []
    contributions = [f"{rng.getrandbits(128):032x}" for _ in range(seats)]
    for s, c in enumerate(contributions):
        committed = hashlib.sha256(f"tabletop-contribution|{c}".encode()).hexdigest()
        request = pb.JoinGameRequest(game_id=gid, seat=s, contribution_commitment=committed)
        reply = client.stub.JoinGame(request)
        got.add(reply, False)
        tokens.append(reply.seat_token)
        players.append(client.as_viewer(gid, reply.seat_token))
    arbiter = client.as_viewer(gid, created.arbiter_token)
    viewers = [arbiter, client.as_viewer(gid), *players]
    final = [1 << 62]
    watched: list[list[pb.WatchResponse]] = [[] for _ in viewers]
    streams = [
        threading.Thread(target=watch_all, args=(v, w))
        for v, w in zip(viewers, watched, strict=True)
    ]
    for t in streams:
        t.start()
    read_everything(viewers, gid, seats + 1, seats, got, rng)  # the reveal window is open
    for p, c in zip(players, contributions, strict=True):
        request = pb.RevealContributionRequest(game_id=gid, contribution=c)
        reveal = p.stub.RevealContribution(request, metadata=p.metadata)
        assert reveal.HasField("receipt") and reveal.events, "a reveal's reply carries a receipt"
        got.add(reveal, False)
    got.add(
        players[0].stub.StartGame(pb.StartGameRequest(game_id=gid), metadata=players[0].metadata),
        False,
    )
    moves = 0
    while True:
        view = arbiter.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=arbiter.metadata)
        got.add(view, False)
        if view.view.phase == pb.GAME_PHASE_FINISHED:
            break
        if moves % 7 == 0:
            read_everything(viewers, gid, view.view.version, seats, got, rng)
        legal = []
        for s in view.view.to_act:
            reply = players[s].legal_moves()
            got.add(reply, False)
            legal += [(s, m, reply.version) for m in reply.moves]
        seat, move, version = rng.choice(legal)
        reply = players[seat].stub.Play(
            pb.PlayRequest(game_id=gid, expected_version=version, move=move),
            metadata=players[seat].metadata,
        )
        if any(e.table.HasField("shuffle_revealed") for e in reply.events):
            final[0] = reply.events[0].version  # the final move: the end
            got.add(reply, True)
        else:
            got.add(reply, False)
        moves += 1
    for t in streams:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in streams), "a Watch did not end with the game"
    for reply in (r for each in watched for r in each):
        got.add(reply, ended=reply.event.version >= final[0])
    # The deal comes from the server's secret and every reveal, so the length is not ours to
    # choose: about one 花鸟风月 game in eight ends within five moves. read_everything ran
    # at move 0, mid-game, whatever the length.
    assert final[0] < 1 << 62 and moves >= 1
    read_everything(viewers, gid, final[0], seats, got, rng, ended=True)
    exports = [line.encode() for line in export_lines(arbiter.history())]
    exports += [
        json.dumps(MessageToDict(e, preserving_proto_field_name=True)).encode()
        for e in arbiter.history()
    ]
    revealed = next(
        json.loads(line)["fact"]["data"]
        for line in map(bytes.decode, exports)
        if '"ShuffleRevealed"' in line and line.startswith('{"cause"')
    )
    before = [b for ended, b in got.got if not ended]
    assert len(before) > 100
    needles = forms(revealed["secret"], revealed["salt"]) + [c.encode() for c in contributions]
    for needle in needles:
        leaked = [b for b in before if needle in b]
        assert not leaked, f"the secret reached a viewer before the end: {leaked[0][:200]!r}"
    everything = [b for _, b in got.got] + exports
    for token in tokens:
        digest = hashlib.sha256(token.encode())
        for needle in (digest.hexdigest().encode(), digest.digest()):
            leaked = [b for b in everything if needle in b]
            assert not leaked, f"a token hash left the server: {leaked[0][:200]!r}"


def read_everything(
    viewers: list[SeatClient],
    gid: str,
    version: int,
    seats: int,
    got: Received,
    rng: random.Random,
    ended: bool = False,
) -> None:
    """Every read RPC, for every viewer: views now and past, the arbiter's look through a
    seat, history, a replay, the signing key."""
    for v in viewers:
        md = v.metadata
        got.add(v.stub.GetView(pb.GetViewRequest(game_id=gid), metadata=md), ended)
        got.add(
            v.stub.GetView(
                pb.GetViewRequest(game_id=gid, version=rng.randrange(1, version + 1)), metadata=md
            ),
            ended,
        )
        got.add(
            v.stub.GetHistory(pb.GetHistoryRequest(game_id=gid, page_size=1000), metadata=md), ended
        )
        got.add(v.stub.LegalMoves(pb.LegalMovesRequest(game_id=gid), metadata=md), ended)
        first = rng.randrange(1, version + 1)
        for step in v.stub.Replay(
            pb.ReplayRequest(game_id=gid, from_version=first, to_version=min(version, first + 5)),
            metadata=md,
        ):
            got.add(step, ended)
    arbiter = viewers[0]
    for s in range(seats):
        request = pb.GetViewRequest(game_id=gid, as_seat=s)
        got.add(arbiter.stub.GetView(request, metadata=arbiter.metadata), ended)
    got.add(arbiter.stub.GetSigningKey(pb.GetSigningKeyRequest()), ended)
