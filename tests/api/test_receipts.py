"""Receipts through a real server: each seat can prove what it was shown.

Seat 0 keeps a ReceiptLog while a 4-seat game is played: its Play replies, its views and
its own Watch stream. After the end its receipts verify against the record, each one on
arrival and all of them after the reveal; any altered receipt or payload fails, and so
does a receipt the key holder signs for something the record does not show.
"""

from __future__ import annotations

import dataclasses
import threading

import pytest

from clients.python.audit import main
from clients.python.audit_receipts import Replayed, check_receipts
from clients.python.audit_verify import signing_key
from clients.python.bot import RandomBot, play_by_streams, play_to_end
from clients.python.client import TableClient, reveal_and_start
from clients.python.exports import export_lines
from clients.python.receipts import ReceiptLog, check_payload, check_signature, payload_bytes
from clients.python.serverproc import ServerProcess
from domain.table import records
from domain.verify import AuditFailure, Record, parse_export, verify
from server.wire.receipts import events_payload, render_move
from server.wire.signedcommands import read_signed_command
from server.wire.signing import KEY_FILE, Signer, read_key_file
from tabletop.v1 import tabletop_pb2 as pb
from tabletop.zipai.v1 import zipai_pb2
from tests.api.helpers import huaniao_options, resigned


@pytest.fixture(scope="module")
def server(server_receipts_2: ServerProcess) -> ServerProcess:
    """This module reads and forges seals of format 2 (their hash lists and nonces);
    tests/api/test_receipts_v3.py holds format 3 to the same promises."""
    return server_receipts_2


Entry = tuple[pb.Receipt, bytes]


@pytest.fixture(scope="module")
def game(server) -> tuple[str, list[Record], bytes, ReceiptLog]:  # type: ignore[no-untyped-def]
    log = ReceiptLog()
    with TableClient(server.target) as client:
        created = client.create_game(huaniao_options("BASIC"), 4, seed=21)  # a long game
        gid = created.game_id
        seats = [
            client.join(gid, s, contribution=f"k{s}", receipts=log if s == 0 else None)
            for s in range(4)
        ]
        watched: list[pb.GameEvent] = []
        stream = threading.Thread(target=lambda: watched.extend(seats[0].watch()))
        stream.start()
        waiting = seats[0].view()  # the reveal window is open: its deadline is in the view
        assert waiting.HasField("reveal_deadline")
        reveal_and_start(seats)  # seat 0's RevealContribution reply carries a receipt
        play_to_end([RandomBot(s, i) for i, s in enumerate(seats)])
        stream.join(timeout=120)
        assert not stream.is_alive() and watched
        rs = parse_export(export_lines(client.as_viewer(gid).history()))
        key = signing_key(client)
    verify(rs, key, gid, command_reader=read_signed_command)
    return gid, rs, key, log


def test_a_seats_receipts_verify_against_the_record(game) -> None:  # type: ignore[no-untyped-def]
    gid, rs, key, log = game
    assert log.counts["play"] >= 1 and log.counts["view"] >= 4 and log.counts["watch"] >= 4
    payloads = [pb.ReceiptPayload.FromString(p) for _, p in log.entries]
    assert any(
        any(e.table.HasField("contribution_revealed") for e in p.events) for p in payloads
    ), "the reveal's reply and its Watch messages carry receipts"
    assert any(p.view.HasField("reveal_deadline") for p in payloads), "so does the deadline"
    report = check_receipts(rs, log.entries, key)
    assert report.receipts == len(log.entries)
    # seat 0's own receipts until the end; the arbiter's (everything open) after it
    assert set(report.viewers) == {0, 5}
    final = max(r.last_version for r, _ in log.entries)
    assert final == len(rs)
    assert all(r.viewer == 0 for r, _ in log.entries if r.last_version < final)


def test_each_receipt_checks_on_arrival(game) -> None:  # type: ignore[no-untyped-def]
    _, _, key, log = game
    for receipt, payload in log.entries:
        check_signature(receipt, key)
        assert check_payload(receipt, payload) in ("events", "view")


def test_every_seal_hashes_the_record_for_every_viewer(game) -> None:  # type: ignore[no-untyped-def]
    _, rs, _, _ = game
    assert Replayed(rs).check_all_hashes() > 10


def test_tabletop_audit_verify_receipts(game, server, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    gid, _, _, log = game
    path = tmp_path / "seat0.receipts"
    log.save(str(path))
    assert main(["verify", gid, "--target", server.target, "--receipts", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"receipts: {len(log.entries)} verified" in out
    lines = path.read_text().splitlines()
    lines[len(lines) // 2] = lines[len(lines) // 2].replace('"payload": "', '"payload": "AA')
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(SystemExit, match="1"):
        main(["verify", gid, "--target", server.target, "--receipts", str(path)])
    assert capsys.readouterr().err.startswith("VERIFY FAILED:")


def altered_hash(entry: Entry) -> Entry:
    receipt, payload = entry
    forged = pb.Receipt()
    forged.CopyFrom(receipt)
    other = (receipt.viewer + 1) % len(receipt.hashes)
    forged.hashes[other].view = "0" * 64
    return forged, payload


def altered_payload(entry: Entry) -> Entry:
    receipt, payload = entry
    parsed = pb.ReceiptPayload.FromString(payload)
    if parsed.HasField("view"):
        parsed.view.version += 1
    else:
        parsed.events[0].text += " (edited)"
    return receipt, parsed.SerializeToString(deterministic=True)


def other_viewer(entry: Entry) -> Entry:
    receipt, payload = entry
    forged = pb.Receipt()
    forged.CopyFrom(receipt)
    forged.viewer = (receipt.viewer + 1) % 4
    return forged, payload


@pytest.mark.parametrize(
    ("alter", "reason"),
    [
        (altered_hash, "not signed by the given server key"),
        (altered_payload, "not the one it covers"),
        # a view's own signature names its viewer: moved to another, it fails there first
        (other_viewer, "not the one it covers|its view's signature"),
    ],
)
def test_one_altered_receipt_or_payload_fails(game, alter, reason) -> None:  # type: ignore[no-untyped-def]
    _, rs, key, log = game
    for i in (0, len(log.entries) // 2, len(log.entries) - 1):
        entries = list(log.entries)
        entries[i] = alter(entries[i])
        with pytest.raises(AuditFailure, match=reason):
            check_receipts(rs, entries, key)


def test_a_payload_moved_to_another_receipt_fails(game) -> None:  # type: ignore[no-untyped-def]
    _, rs, key, log = game
    views = [e for e in log.entries if pb.ReceiptPayload.FromString(e[1]).HasField("view")]
    a, b = views[2], views[-3]
    assert a[0].last_version != b[0].last_version
    with pytest.raises(AuditFailure, match="not the one it covers"):
        check_receipts(rs, [(a[0], b[1])], key)


def test_a_receipt_the_key_holder_signs_for_another_history_fails(game, server) -> None:  # type: ignore[no-untyped-def]
    """Even with the server's own key, a receipt for something the verified record does not
    show is caught: the key holder cannot later deny what it told a seat, nor claim it told
    a seat something else, once the seat saved its receipts."""
    _, rs, key, log = game
    signer = Signer(read_key_file(server.data_dir / KEY_FILE))
    assert signer.public_key == key
    receipt, payload = log.entries[len(log.entries) // 2]
    parsed = pb.ReceiptPayload.FromString(payload)
    if parsed.HasField("view"):
        parsed.view.to_act[:] = [3]
        lied = payload_bytes(view=parsed.view)
        part = "view"
    else:
        parsed.events[0].text = "seat 0 was shown nothing"
        lied = payload_bytes(events=list(parsed.events))
        part = "events"
    forged = resigned(receipt, signer.sign, part, records.receipt_hash(bytes(receipt.nonce), lied))
    check_signature(forged, key)
    check_payload(forged, lied)  # a well-formed, correctly signed receipt...
    # ...that the record contradicts: its seal's hashes (events), or the view itself
    with pytest.raises(AuditFailure, match="another history|is not what the record shows"):
        check_receipts(rs, [(forged, lied)], key)


def test_an_arbiters_look_through_a_seat_carries_no_receipt(server) -> None:  # type: ignore[no-untyped-def]
    with TableClient(server.target) as client:
        created = client.create_game(huaniao_options("SIMPLE"), 2)
        seats = [client.join(created.game_id, s) for s in range(2)]
        reveal_and_start(seats)
        arbiter = client.as_viewer(created.game_id, created.arbiter_token)
        request = pb.GetViewRequest(game_id=created.game_id, as_seat=1)
        looked = arbiter.stub.GetView(request, metadata=arbiter.metadata)
        own = arbiter.stub.GetView(
            pb.GetViewRequest(game_id=created.game_id), metadata=arbiter.metadata
        )
    assert not looked.HasField("receipt")
    assert own.HasField("receipt") and own.receipt.viewer == 3  # 2 seats, spectator, arbiter


def test_a_seal_hashes_each_viewers_events_and_a_view_is_signed_when_asked(game, server) -> None:  # type: ignore[no-untyped-def]
    """Today's seals (tabletop-seal/2) list one hash per viewer, its events; a view carries
    a signature of its own, made when it is asked for, and the same one when asked again."""
    gid, rs, key, log = game
    seals = [r.seal for r in rs if r.seal]
    assert seals and all(len(h) == 1 for s in seals for h in s["receipts"])
    views = [(r, p) for r, p in log.entries if pb.ReceiptPayload.FromString(p).HasField("view")]
    assert len(views) >= 4
    for receipt, payload in views:
        assert receipt.view_hash and len(receipt.view_signature) == 64
        assert not any(h.view for h in receipt.hashes)
        assert records.receipt_hash(bytes(receipt.nonce), payload) == receipt.view_hash
    with TableClient(server.target) as client:
        arbiter = client.as_viewer(gid)  # the game is over: anyone's own view is signed
        first = client_view(arbiter)
        again = client_view(arbiter)
    assert first.receipt.view_signature and first.receipt == again.receipt
    assert first.view == again.view
    check_signature(first.receipt, key)


def client_view(viewer):  # type: ignore[no-untyped-def]
    return viewer.stub.GetView(pb.GetViewRequest(game_id=viewer.game_id), metadata=viewer.metadata)


def test_a_views_signature_covers_its_version_viewer_and_view(game) -> None:  # type: ignore[no-untyped-def]
    """A view's signature moved to another version, another viewer or another view fails."""
    _, _, key, log = game
    views = [r for r, p in log.entries if pb.ReceiptPayload.FromString(p).HasField("view")]
    a, b = views[1], views[-2]
    assert a.last_version != b.last_version
    for change in ("signature", "viewer", "hash"):
        forged = pb.Receipt()
        forged.CopyFrom(a)
        if change == "signature":
            forged.view_signature = b.view_signature
        elif change == "viewer":
            forged.viewer = (a.viewer + 1) % len(a.hashes)
        else:
            forged.view_hash = b.view_hash
        with pytest.raises(AuditFailure, match="view's signature"):
            check_signature(forged, key)


def test_old_seals_that_hash_every_view_still_verify(game, server) -> None:  # type: ignore[no-untyped-def]
    """A record sealed before views were signed on demand (tabletop-seal/1: every viewer's
    events and view at every move) verifies as before, and a view hash changed in one fails."""
    _, rs, key, _ = game
    signer = Signer(read_key_file(server.data_dir / KEY_FILE))
    replayed = Replayed(rs)
    old = []
    for r in rs:
        if r.seal is None:
            old.append(r)
            continue
        hashes = replayed.hashes(r.seal["first"], r.seal["last"], views=True)
        body = records.seal_body(r.seal["game_id"], r.seal["first"], r.seal["last"], r.hash, hashes)
        assert body.startswith(b"tabletop-seal/1\n")
        seal = {**r.seal, "receipts": hashes, "signature": signer.sign(body)}
        old.append(dataclasses.replace(r, seal=seal))
    verify(old, key, command_reader=read_signed_command)
    assert Replayed(old).check_all_hashes() == len([r for r in old if r.seal])
    last = old[-1]
    assert last.seal is not None
    altered = [*old[:-1], dataclasses.replace(last, seal={**last.seal})]
    altered[-1].seal["receipts"] = [list(h) for h in last.seal["receipts"]]  # type: ignore[index]
    altered[-1].seal["receipts"][0][1] = "0" * 64  # type: ignore[index]
    with pytest.raises(AuditFailure, match="not signed by the given server key"):
        verify(altered, key, command_reader=read_signed_command)


def test_the_sealers_payload_bytes_are_the_proto_encoding(game) -> None:  # type: ignore[no-untyped-def]
    """The seal hashes each viewer's events from each event's own bytes; that must be the
    very encoding a client makes of a ReceiptPayload (every move of a real game, every
    viewer, events of every size: lengths of one and of two varint bytes)."""
    _, rs, _, _ = game
    replayed = Replayed(rs)
    sizes = set()
    for last, first in sorted(replayed.bounds.items()):
        table = replayed.tables[last - 1]
        for events in render_move(replayed.kind, replayed.stored(first, last), table.seat_count):
            assert events_payload(events, {}) == payload_bytes(events=events)
            sizes |= {e.ByteSize() > 127 for e in events}
    assert sizes == {False, True}


def test_seats_that_leave_their_own_moves_out_of_their_streams_hold_a_receipt_of_every_move(
    server,  # type: ignore[no-untyped-def]
) -> None:
    """``exclude_own_moves``: each seat of a 3-seat 川南字牌 table plays from its stream alone,
    which leaves out its own moves, and keeps a ReceiptLog. Its own moves' receipts come from
    its Play replies, the rest from its stream: together every move of the game, from the
    table's creation to its end, is receipted for that seat, and every receipt verifies
    against the record (the auditor replays each as the seat saw it)."""
    seed = 5
    logs = [ReceiptLog() for _ in range(3)]
    with TableClient(server.target) as client:
        created = client.create_game(pb.GameOptions(zipai=zipai_pb2.Options()), 3, seed=seed)
        gid = created.game_id
        seats = [client.join(gid, s, contribution=f"z{s}", receipts=logs[s]) for s in range(3)]
        reveal_and_start(seats)
        bots = [RandomBot(s, seed + i) for i, s in enumerate(seats)]
        assert play_by_streams(bots, 300, exclude_own_moves=True) >= 1
        rs = parse_export(export_lines(client.as_viewer(gid).history()))
        key = signing_key(client)
    verify(rs, key, gid, command_reader=read_signed_command)
    final = len(rs)
    for seat, log in enumerate(logs):
        assert log.counts["play"] >= 1 and log.counts["watch"] >= 1, (seat, log.counts)
        report = check_receipts(rs, log.entries, key)
        assert report.receipts == len(log.entries)
        covered = {v for r, _ in log.entries for v in range(r.first_version, r.last_version + 1)}
        assert covered == set(range(1, final + 1)), (
            seat,
            sorted(set(range(1, final + 1)) - covered),
        )
