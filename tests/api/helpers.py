"""Shared steps for API tests: open a seated table, read its history, find card ids."""

from __future__ import annotations

from typing import Any

from google.protobuf.message import Message

from clients.python.client import TableClient
from clients.python.receipts import seal_hashes
from clients.python.seat import SeatClient
from domain.table import records
from tabletop.huaniao.v1 import huaniao_pb2
from tabletop.v1 import tabletop_pb2 as pb


def huaniao_options(mode: str = "BASIC") -> pb.GameOptions:
    return pb.GameOptions(huaniao=huaniao_pb2.Options(mode=huaniao_pb2.Mode.Value(f"MODE_{mode}")))


def seated_game(
    client: TableClient,
    seed: int,
    mode: str = "BASIC",
    seats: int = 4,
    start: bool = True,
    arbitrated: bool = False,
    keyed: bool = True,
) -> tuple[str, list[SeatClient], str]:
    """A seeded table, every seat taken (``keyed``: with keys, signing; else unkeyed seats
    at a table that allows them, for tests that send raw unsigned requests)."""
    created = client.create_game(
        huaniao_options(mode),
        seats,
        seed=seed,
        arbitrated=arbitrated,
        allow_unkeyed_seats=not keyed,
    )
    # no contribution: a seeded table then deals the same every run (reproducible tests)
    players = [
        client.join(created.game_id, s, f"p{s}", contribution="", sign=keyed) for s in range(seats)
    ]
    if start:
        players[0].start()
    return created.game_id, players, created.arbiter_token


def history_versions(client: TableClient, game_id: str, token: str) -> list[int]:
    return [e.version for e in client.as_viewer(game_id, token).history()]


CARD_FIELDS = {"card", "cards", "deck", "card_id", "card_ids"}


def card_ids(msg: Message) -> set[int]:
    """Every card id inside a message: any `Card` message's `id`, and any integer field
    named like a card (card, cards, deck, card_id, card_ids)."""
    found: set[int] = set()
    for field, value in msg.ListFields():
        if field.message_type is None:
            if field.name in CARD_FIELDS:
                found |= set(value) if field.is_repeated else {value}
            continue
        for item in value if field.is_repeated else [value]:
            if field.message_type.name == "Card":
                found.add(item.id)
            else:
                found |= card_ids(item)
    return found


def the_move(reply: pb.PlayResponse) -> pb.PlayResponse:
    """A Play reply without its ``legal_moves`` and its receipt's ``tree_head``: what a retry
    with the same request_id must give back unchanged (``legal_moves`` says what the caller
    may do now, so it is there only while the move is still the latest; ``tree_head`` is the
    latest signed head of the log when the receipt is made, outside the signed seal, so a
    retry after a restart may carry a newer one)."""
    kept = pb.PlayResponse()
    kept.CopyFrom(reply)
    kept.ClearField("legal_moves")
    kept.receipt.ClearField("tree_head")
    return kept


def resigned(receipt: pb.Receipt, sign: Any, part: str, payload_hash: str) -> pb.Receipt:
    """A copy of ``receipt`` whose viewer's ``part`` ("events" or "view") hash is
    ``payload_hash``, signed again by ``sign`` (bytes -> hex signature): what a key holder
    could hand a seat. A view is signed on its own (``records.view_body``); events are in
    the move's seal."""
    forged = pb.Receipt()
    forged.CopyFrom(receipt)
    if part == "view" and not receipt.hashes[receipt.viewer].view:
        forged.view_hash = payload_hash
    else:
        setattr(forged.hashes[receipt.viewer], part, payload_hash)
    return signed_again(forged, sign)


def signed_again(forged: pb.Receipt, sign: Any) -> pb.Receipt:
    """``forged``'s seal (and view, if it carries one) signed again as it now reads."""
    first, last = forged.first_version, forged.last_version
    body = records.seal_body(forged.game_id, first, last, forged.head_hash, seal_hashes(forged))
    forged.signature = bytes.fromhex(sign(body))
    if forged.view_hash:
        view = records.view_body(
            forged.game_id, last, forged.head_hash, forged.viewer, forged.view_hash
        )
        forged.view_signature = bytes.fromhex(sign(view))
    return forged


def zipai_game_with_receipts(
    target: str, seats: int, seed: int, report: bool = False
) -> tuple[str, list[Any], list[str]]:
    """A finished 川南字牌 game of ``seats`` random bots, each seat keeping its receipts (its
    plays and the views it asked for on the way): the game id, each seat's ReceiptLog and
    the export's lines. ``report``: right after the deal seat 0 reports seat 1 (其他违规,
    a warning), every seat views the open case (its deadline), seat 1 accepts it and every
    seat views the penalty (appealable until the next move)."""
    from clients.python.bot import RandomBot, play_to_end
    from clients.python.client import reveal_and_start
    from clients.python.exports import export_lines
    from clients.python.receipts import ReceiptLog
    from tabletop.zipai.v1 import zipai_pb2

    logs = [ReceiptLog() for _ in range(seats)]
    with TableClient(target) as client:
        gid = client.create_game(pb.GameOptions(zipai=zipai_pb2.Options()), seats).game_id
        joined = [client.join(gid, s, receipts=logs[s]) for s in range(seats)]
        reveal_and_start(joined)
        if report:
            version = client.as_viewer(gid).view().version
            penalty = pb.Penalty(kind=pb.PENALTY_KIND_WARNING)
            claim = pb.Report(accused=1, violation=pb.VIOLATION_KIND_OTHER, evidence=[version],
                              penalty=penalty, note="stalling")  # fmt: skip
            case = joined[0].play(pb.Move(table=pb.TableCommand(report=claim)), version).version
            for s in joined:
                assert s.view().paused
            vote = pb.CastVote(case_id=case, uphold=True)
            joined[1].play(pb.Move(table=pb.TableCommand(cast_vote=vote)), case)
            for s in joined:
                assert s.view().penalties[0].appealable
        play_to_end([RandomBot(s, seed + i) for i, s in enumerate(joined)])
        for s in joined:
            s.view()  # the end, as each seat sees it (everything is open then)
        lines = list(export_lines(client.as_viewer(gid).history()))
    return gid, logs, lines


def zipai_view_lie(payload: bytes) -> tuple[bytes, str] | None:
    """A view payload whose viewer's own first hand card is shown as another card (its id
    + 1), and the proof's words for it; None for a view that shows the viewer no hand."""
    shown = pb.ReceiptPayload.FromString(payload)
    seats = shown.view.zipai.seats
    if not shown.view.HasField("seat") or len(seats) <= shown.view.seat:
        return None  # (before the deal: no hand)
    hand = seats[shown.view.seat].hand
    if not hand:
        return None
    was = hand[0].id
    hand[0].id = (was + 1) % 80
    where = f"view.zipai.seats[{shown.view.seat}].hand[0].id"
    return shown.SerializeToString(deterministic=True), f"{where}: record {was}, sent {hand[0].id}"
