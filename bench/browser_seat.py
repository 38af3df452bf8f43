"""B1: a browser seat's move against a gRPC seat's, on one server in the same run (issue 39).

    python -m bench.browser_seat [--quick]

A browser reaches the API over Connect on the web port (``--web-port``), and the web port
forwards each call, as its bytes, to this process's own gRPC port over a loopback channel
(server/transport/web/api.py), so that the gRPC interceptors (authentication, limits,
idempotency) answer it as they answer a gRPC client. That hop is kept; this measures what it
costs a move.

One server process (SQLite, durable commits) started with ``--web-port 0``. Each game is a
2-seat 花鸟风月 game opened over gRPC (not timed) and then played out, one call at a time,
with LegalMoves + Play for the seat to act, over one transport: grpcio on the gRPC port (a
gRPC seat), connectrpc's client on the web port with binary messages (a browser seat: the play
page sends binary, clients/web/src/api.ts ``useBinaryFormat``), and the same with JSON
(connect-web's default). Every transport plays the same games (the same seeds, the same
random choices), in interleaved rounds (one game over each transport a round, the order
turning each round), so drift on the machine touches all of them alike. Reported: the median
latency per call, and the server process's CPU per move over each transport's games.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import grpc

from bench.api import SEATS
from bench.common import SERVER_FLAGS, quantile_ms, sized
from bench.cpu import CpuMeter
from clients.python.client import TOKEN_HEADER
from clients.python.serverproc import ServerProcess
from tabletop.huaniao.v1 import huaniao_pb2
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.v1 import tabletop_pb2_grpc as pb_grpc

TRANSPORTS = ("grpc", "connect", "connect-json")
NAMES = {
    "grpc": "gRPC seat (grpcio, gRPC port)",
    "connect": "browser seat (Connect, binary, web port)",
    "connect-json": "browser seat (Connect, JSON, web port)",
}
Call = Callable[[str, Any, str], Any]  # (method, request, seat token) -> reply


def _grpc_seat(target: str) -> tuple[Call, Callable[[], None]]:
    channel = grpc.insecure_channel(target)
    stub = pb_grpc.TableServiceStub(channel)

    def call(method: str, request: Any, token: str) -> Any:
        return getattr(stub, method)(request, metadata=((TOKEN_HEADER, token),), timeout=60)

    return call, channel.close


def _connect_seat(web_port: int, json: bool) -> tuple[Call, Callable[[], None]]:
    from connectrpc.compat import google_protobuf_json_codec

    from tabletop.v1.tabletop_connect import TableServiceClientSync

    kwargs: dict[str, Any] = {"timeout_ms": 60_000}
    if json:
        kwargs["codec"] = google_protobuf_json_codec()
    client = TableServiceClientSync(f"http://127.0.0.1:{web_port}", **kwargs)
    methods = {"LegalMoves": client.legal_moves, "Play": client.play}

    def call(method: str, request: Any, token: str) -> Any:
        return methods[method](request, headers={TOKEN_HEADER: token})

    return call, client.close


def _open(stub: pb_grpc.TableServiceStub, seed: int) -> tuple[str, list[str], list[int]]:
    """A started 2-seat game (over gRPC, not timed): its id, seat tokens, seats to act."""
    options = pb.GameOptions(huaniao=huaniao_pb2.Options(mode=huaniao_pb2.MODE_BASIC))
    created = stub.CreateGame(
        pb.CreateGameRequest(options=options, seat_count=SEATS, seed=seed, allow_unkeyed_seats=True)
    )
    tokens = [
        stub.JoinGame(pb.JoinGameRequest(game_id=created.game_id, seat=s)).seat_token
        for s in range(SEATS)
    ]
    stub.StartGame(
        pb.StartGameRequest(game_id=created.game_id), metadata=((TOKEN_HEADER, tokens[0]),)
    )
    view = stub.GetView(pb.GetViewRequest(game_id=created.game_id))
    return created.game_id, tokens, list(view.view.to_act)


def play_out(
    call: Call,
    game: tuple[str, list[str], list[int]],
    seed: int,
    moves: int,
    times: dict[str, list[float]],
) -> list[str]:
    """LegalMoves + Play for the seat to act until the game ends or ``moves`` are played;
    each call's seconds go to ``times``. Returns the moves' labels (the same game over every
    transport)."""
    game_id, tokens, to_act = game
    rng = random.Random(seed)
    played: list[str] = []
    while to_act and len(played) < moves:
        token = tokens[to_act[0]]
        t0 = time.perf_counter()
        legal = call("LegalMoves", pb.LegalMovesRequest(game_id=game_id), token)
        t1 = time.perf_counter()
        i = rng.randrange(len(legal.moves))
        request = pb.PlayRequest(
            game_id=game_id, expected_version=legal.version, move=legal.moves[i]
        )
        reply = call("Play", request, token)
        t2 = time.perf_counter()
        times["LegalMoves"].append(t1 - t0)
        times["Play"].append(t2 - t1)
        times["move"].append(t2 - t0)
        played.append(legal.labels[i])
        to_act = list(reply.to_act)
    return played


def measure(rounds: int, moves: int) -> dict[str, dict[str, Any]]:
    """Per transport: the calls' seconds, the moves played and the server's CPU seconds."""
    out: dict[str, dict[str, Any]] = {
        t: {"LegalMoves": [], "Play": [], "move": [], "cpu": 0.0, "moves": 0} for t in TRANSPORTS
    }
    with ServerProcess(extra=[*SERVER_FLAGS, "--web-port", "0"]) as server:
        assert server.proc is not None and server.web_port, "the server has no web port"
        seats = {
            "grpc": _grpc_seat(server.target),
            "connect": _connect_seat(server.web_port, json=False),
            "connect-json": _connect_seat(server.web_port, json=True),
        }
        meter = CpuMeter(server.proc.pid)
        with grpc.insecure_channel(server.target) as channel:
            stub = pb_grpc.TableServiceStub(channel)
            try:
                for t in TRANSPORTS:  # warm up: connections, the web port's first calls
                    scratch: dict[str, list[float]] = {"LegalMoves": [], "Play": [], "move": []}
                    play_out(seats[t][0], _open(stub, 7), 7, min(moves, 8), scratch)
                for r in range(rounds):
                    seed = 9000 + r
                    order = TRANSPORTS[r % 3 :] + TRANSPORTS[: r % 3]
                    labels = []
                    for t in order:
                        game = _open(stub, seed)
                        meter.start()
                        labels.append(play_out(seats[t][0], game, seed, moves, out[t]))
                        meter.stop()
                        out[t]["cpu"] += meter.seconds
                        out[t]["moves"] += len(labels[-1])
                    assert all(x == labels[0] for x in labels), "the transports played apart"
            finally:
                for _call, close in seats.values():
                    close()
    return out


def browser_seat_section(quick: bool) -> list[str]:
    rounds = sized(quick, 12, 4, 1)
    moves = sized(quick, 200, 60, 3)
    got = measure(rounds, moves)
    med = {
        t: {k: statistics.median(got[t][k]) * 1000 for k in ("LegalMoves", "Play", "move")}
        for t in TRANSPORTS
    }
    base = med["grpc"]
    lines = [
        "## B1: a browser seat's move against a gRPC seat's",
        "",
        "`python -m bench.browser_seat`: one server (SQLite, durable commits) with `--web-port`; "
        f"{rounds} rounds, each one 2-seat 花鸟风月 game (up to {moves} moves) played out over "
        "each transport in turn (the same seed and the same random moves on every transport; "
        "the order turns each round), one call at a time: LegalMoves, then Play, for the seat "
        "to act. A browser seat's call is Connect on uvicorn, then a loopback gRPC call to the "
        "same process, through the same interceptors (server/transport/web/api.py). Latencies "
        "are medians per call, as the client sees them (the Connect client is connectrpc's, "
        "in Python; the gRPC one is grpcio's C core); *server CPU* is the server process's "
        "CPU time over each transport's games, per move, which holds both stacks of a "
        "browser's call. *÷ gRPC* is the move's median over the gRPC seat's. (Its first run "
        "found each web reply's body waiting 40 ms for the client's delayed ACK of its "
        "headers, Nagle on the web port's listener, a browser move then about 10× a gRPC "
        "move; server/transport/web/server.py now turns Nagle off.)",
        "",
        "| seat | moves | LegalMoves ms | Play ms | move ms (p50) | move ms (p90) "
        "| server CPU ms / move | move ÷ gRPC | CPU ÷ gRPC |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    cpu = {t: got[t]["cpu"] * 1000 / max(1, got[t]["moves"]) for t in TRANSPORTS}
    for t in TRANSPORTS:
        m = med[t]
        lines.append(
            f"| {NAMES[t]} | {got[t]['moves']} | {m['LegalMoves']:.2f} | {m['Play']:.2f} "
            f"| {m['move']:.2f} | {quantile_ms(got[t]['move'], 90):.2f} | {cpu[t]:.2f} "
            f"| {m['move'] / base['move']:.2f} | {cpu[t] / max(cpu['grpc'], 1e-9):.2f} |"
        )
        print(lines[-1], flush=True)
    return lines


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true")
    args = p.parse_args(argv)
    print("\n".join(browser_seat_section(args.quick)))


if __name__ == "__main__":
    main()
